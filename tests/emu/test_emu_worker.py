"""Reused emulator processes (workbench/running/emu/worker.py, ascemu serve.h): every launch starts as a fresh process
would, faults end the worker exactly as they end a one-shot child, and reuse can be turned off."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from emu_helpers import UserKernel, prebuilt_kernel

from workbench.running.emu import Kernel, worker

STATICS = r"""
#include <unistd.h>
#include "kernel_operator.h"
using namespace AscendC;

struct StaticsTiling {
    uint32_t mode;  // 0: report; 2: crash after reporting; 3: hang after reporting
};

int32_t g_launches;                 // .bss
int32_t g_seed = 41;                // .data
namespace { int32_t s_hidden = 7; }  // internal linkage

extern "C" __global__ __aicore__ void statics(GM_ADDR y, GM_ADDR workspace, StaticsTiling t) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // a function-local static registration: must re-run
    static int32_t calls = 100;
    static int32_t first = g_seed + 1;  // dynamic initialisation: a guard variable
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t*)y, 8);
    g_launches++;
    calls++;
    g_seed++;
    s_hidden *= 2;
    yg.SetValue(0, g_launches);
    yg.SetValue(1, calls);
    yg.SetValue(2, g_seed);
    yg.SetValue(3, s_hidden);
    yg.SetValue(4, first);
    yg.SetValue(5, (int32_t)getpid());
    if (t.mode == 2) *reinterpret_cast<volatile int*>(0x10) = 1;
    if (t.mode == 3)
        for (volatile int spin = 0;; spin = spin + 1) {
        }
}
"""
FRESH = [1, 101, 42, 14, 42]  # what a fresh process reports


class StaticsTiling(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_uint32)]


@pytest.fixture(scope="module", params=["header-only", "separate"])
def statics(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, user_kernel: UserKernel
) -> Iterator[Kernel]:
    """The kernel as the backend builds it (header-only), and linked with the separately compiled runtime
    (ascemu/linkage.h), whose emulator objects the worker must tell from the kernel's just the same."""
    d = tmp_path_factory.mktemp("statics")
    if request.param == "separate":
        src = d / "statics.cpp"
        src.write_text(STATICS)
        yield prebuilt_kernel(src, "statics", "Ascend910B1", d, separate=True)
        return
    with user_kernel(d, STATICS, "statics", "Ascend910B1") as kernel:
        yield kernel


def launch(kernel: Kernel, mode: int = 0, timeout_s: float = 60.0) -> tuple[list[int], int, list[str]]:
    y = np.zeros(8, np.int32)
    run = kernel[1](y, workspace=64, tiling=StaticsTiling(mode), timeout_s=timeout_s)
    return [int(v) for v in y[:5]], int(y[5]), [d.kind for d in run.diagnostics if d.is_fault]


def test_a_reused_process_starts_every_launch_fresh(statics: Kernel) -> None:
    worker.stop_all()
    seen = [launch(statics) for _ in range(3)]
    assert [s[0] for s in seen] == [FRESH] * 3  # globals, statics, guards and KERNEL_TASK_TYPE as at start-up
    pids = {s[1] for s in seen}
    assert len(pids) == 1 and os.getpid() not in pids  # one worker served all three
    assert all(s[2] == [] for s in seen)


def test_a_crash_or_a_hang_ends_the_worker_and_the_next_launch_starts_another(statics: Kernel) -> None:
    _, pid, _ = launch(statics)
    values, crashed_pid, faults = launch(statics, mode=2)
    assert "CRASH" in faults and crashed_pid == pid and values == FRESH  # written before the crash, copied back
    values, pid2, faults = launch(statics)
    assert pid2 != pid and values == FRESH and faults == []
    values, hung_pid, faults = launch(statics, mode=3, timeout_s=1.0)
    assert "TIMEOUT" in faults and hung_pid == pid2
    values, pid3, faults = launch(statics)
    assert pid3 not in (pid, pid2) and values == FRESH and faults == []


def test_reuse_can_be_turned_off(statics: Kernel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEMU_REUSE_PROCESS", "0")
    (v1, p1, _), (v2, p2, _) = launch(statics), launch(statics)
    assert v1 == v2 == FRESH and p1 != p2


def test_a_binary_without_symbols_runs_one_process_per_launch(statics: Kernel, tmp_path: Path) -> None:
    stripped = tmp_path / "stripped.bin"
    shutil.copy(statics.built().path, stripped)
    subprocess.run(["strip", str(stripped)], check=True)
    proc = subprocess.run([str(stripped), "--serve"], input=b"", capture_output=True, timeout=30)
    assert proc.returncode == 5 and b"symbol table" in proc.stderr
    assert worker.take(stripped) is None  # the caller falls back to a one-shot child


def test_the_worker_saves_the_same_kernel_objects_with_a_separate_runtime(tmp_path: Path) -> None:
    """The objects a worker restores before each launch (serve.h KernelStatics: "ASCEMU_READY <n>") are the kernel's
    alone: linking the emulator's runtime as a separate object adds none of its own (ascemu/linkage.h)."""
    src = tmp_path / "statics.cpp"
    src.write_text(STATICS)
    ready = {}
    for separate in (False, True):
        binary = prebuilt_kernel(src, "statics", "Ascend910B1", tmp_path, separate=separate).built().path
        proc = subprocess.run([str(binary), "--serve"], input=b"", capture_output=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        ready[separate] = int(proc.stderr.split(b"ASCEMU_READY ")[1].split()[0])
    # g_launches, g_seed, s_hidden, calls, first and its guard variable, the KERNEL_TASK_TYPE registration's guard
    assert ready[False] == ready[True] == 7
