"""Ctrl-C during a launch (workbench/running/emu/launch.py, worker.py, scratch.py): the CLI prints one line and exits
130, and no emulator child, reused worker or scratch directory outlives it.

A real `python -m workbench run` in its own session (so its process group is the test's to signal) runs an
EmbeddingDenseGrad launch that takes seconds on the emulator (the unaligned-D window path over 1M rows). Once an
emulator child exists, SIGINT goes either to the whole process group (a terminal's Ctrl-C: the children get it
too) or to the Python process alone (a KeyboardInterrupt the launch layer must turn into killing its child).
In-process (a Jupyter interrupt): the child of the interrupted launch is killed, never reused, and the next
launch runs in a fresh one.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from emu_helpers import UserKernel

import workbench.running.emu.scratch as scratch
from workbench.running.emu import Kernel, worker

RUN = [sys.executable, "-m", "workbench", "run", "embedding_dense_grad", "--dtype", "float32"]
SLOW = [*RUN, "--shape", "1000000,63", "--attr", "num_weights=1000"]  # ~6 s in the kernel
QUICK = [*RUN, "--shape", "64,63", "--attr", "num_weights=1000", "-q"]  # the same binary (no defines differ)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, session id) of `pid`, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[3])


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _emulator_children(parent: int) -> list[int]:
    """Children of `parent` that run a kernel binary (a `--serve` worker or a `--launch` one-shot child)."""
    out = []
    for pid in _pids():
        st = _stat(pid)
        if st is None or st[1] != parent:
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--serve" in argv or b"--launch" in argv:
            out.append(pid)
    return out


def _alive_in_session(sid: int) -> list[int]:
    """Processes of session `sid` that still run (zombies only wait to be reaped by whoever inherited them)."""
    return [pid for pid in _pids() if (st := _stat(pid)) is not None and st[2] == sid and st[0] != "Z"]


@pytest.fixture(scope="module")
def built() -> None:
    """The kernel binary is in the build cache before the timed run (a tiny case of the same op)."""
    warm = subprocess.run(QUICK, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stdout[-2000:] + warm.stderr[-2000:]


@pytest.mark.parametrize("target", ["group", "python"])
@pytest.mark.parametrize("reuse", ["worker", "one-shot"])
def test_ctrl_c_during_a_launch_leaves_no_child_and_no_scratch(built: None, target: str, reuse: str) -> None:
    env = dict(os.environ, ASCEMU_REUSE_PROCESS="1" if reuse == "worker" else "0")
    proc = subprocess.Popen(SLOW, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        children: list[int] = []
        while not children and proc.poll() is None and time.monotonic() < deadline:
            children = _emulator_children(proc.pid)
            time.sleep(0.01)
        assert children, f"no emulator child appeared (exit {proc.poll()})"
        time.sleep(0.5)  # well inside the launch (the kernel runs for seconds)
        assert proc.poll() is None, "the launch ended before the interrupt; it must take longer"
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err.decode(errors="replace")
    assert err.decode().splitlines() == ["workbench: interrupted"]
    deadline = time.monotonic() + 5
    while (left := _alive_in_session(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == [], f"processes of the interrupted run still running: {left}"
    assert all(_stat(pid) in (None,) or _stat(pid)[0] == "Z" for pid in children)  # type: ignore[index]
    root = Path(scratch._scratch_root() or "/tmp")
    assert list(root.glob(f"{scratch._POOL_PREFIX}{proc.pid}-*")) == []


SLEEPER = r"""
#include <unistd.h>
#include "kernel_operator.h"
using namespace AscendC;

struct SleeperTiling {
    uint32_t ms;  // how long the kernel sleeps before it writes its results
};

extern "C" __global__ __aicore__ void sleeper(GM_ADDR y, GM_ADDR workspace, SleeperTiling t) {
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t*)y, 8);
    usleep(t.ms * 1000u);
    yg.SetValue(0, (int32_t)getpid());
    yg.SetValue(1, (int32_t)t.ms + 1);
}
"""


class SleeperTiling(ctypes.Structure):
    _fields_ = [("ms", ctypes.c_uint32)]


@pytest.fixture(scope="module")
def sleeper(tmp_path_factory: pytest.TempPathFactory, user_kernel: UserKernel) -> Iterator[Kernel]:
    with user_kernel(tmp_path_factory.mktemp("sleeper"), SLEEPER, "sleeper", "Ascend310P3") as kernel:
        yield kernel


def _interrupt_once_a_child_runs(seen: list[int], other: set[int]) -> threading.Thread:
    """A thread that waits for an emulator child of this process not in `other`, records it in `seen`, and then
    raises KeyboardInterrupt in the main thread (SIGINT to that thread: its blocking wait returns at once)."""

    def go() -> None:
        deadline = time.monotonic() + 60
        while not seen and time.monotonic() < deadline:
            seen.extend(set(_emulator_children(os.getpid())) - other)
            time.sleep(0.01)
        time.sleep(0.3)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("reuse", ["worker", "one-shot"])
def test_an_interrupted_launch_kills_its_child_and_the_next_launch_is_fresh(
    sleeper: Kernel, reuse: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASCEMU_REUSE_PROCESS", "1" if reuse == "worker" else "0")
    worker.stop_all()  # idle workers of earlier tests: only this test's children are children of interest
    y = np.zeros(8, np.int32)
    assert sleeper[1](y, workspace=64, tiling=SleeperTiling(0)).exit_code == 0
    first = int(y[0])
    # worker: the idle worker of the first launch runs the next one; one-shot: a new child does
    other = set() if reuse == "worker" else {first, *_emulator_children(os.getpid())}
    seen: list[int] = []
    t = _interrupt_once_a_child_runs(seen, other)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        sleeper[1](np.zeros(8, np.int32), workspace=64, tiling=SleeperTiling(20_000), timeout_s=60)
    t.join()
    assert time.monotonic() - started < 10  # interrupted, not waited out (the kernel sleeps 20 s)
    assert seen, "no emulator child was seen"
    if reuse == "worker":
        assert seen == [first]  # the idle worker of the first launch ran the interrupted one
    for pid in seen:  # killed and reaped by the launch layer
        assert _stat(pid) is None or _stat(pid)[0] == "Z", f"child {pid} survived the interrupt"  # type: ignore[index]
    y = np.zeros(8, np.int32)
    run = sleeper[1](y, workspace=64, tiling=SleeperTiling(1))
    assert run.exit_code == 0 and int(y[1]) == 2  # this launch's own result, not the interrupted one's
    assert int(y[0]) not in seen
