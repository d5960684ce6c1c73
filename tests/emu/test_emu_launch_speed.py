"""The zero-copy launch path (workbench/running/emu/launch.py + the driver's "gm_file" buffers): same GM semantics as
copying through in_file/out_file, with reused scratch files. Correctness only; no timing assertions."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from emu_helpers import UserKernel

import workbench.running.emu.scratch as L
from workbench.running.emu import POISON, In, Kernel, Out
from workbench.running.emu.launch import Arg, run_launch

PROBE = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct ProbeTiling {
    uint32_t n;     // bytes of x and y the kernel copies
    uint32_t mode;  // 1: also write into the input x; 2: crash after the copy; 3: read x's slack byte into y[0]
};

extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, ProbeTiling t) {
    GlobalTensor<uint8_t> xg, yg;
    xg.SetGlobalBuffer((__gm__ uint8_t*)x, t.n);
    yg.SetGlobalBuffer((__gm__ uint8_t*)y, t.n);
    for (uint32_t i = 0; i < t.n; ++i) yg.SetValue(i, (uint8_t)(xg.GetValue(i) + 1));
    if (t.mode == 1) xg.SetValue(0, (uint8_t)0xAB);
    if (t.mode == 3) yg.SetValue(0, xg.GetValue(t.n));  // the first slack byte of x: poison
    if (t.mode == 2) *reinterpret_cast<volatile int*>(0x10) = 1;
}
"""


class ProbeTiling(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint32), ("mode", ctypes.c_uint32)]


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory, user_kernel: UserKernel) -> Iterator[Kernel]:
    with user_kernel(tmp_path_factory.mktemp("probe"), PROBE, "probe", "Ascend310P3") as kernel:
        yield kernel


def test_outputs_come_back_and_inputs_stay(probe: Kernel) -> None:
    x = np.arange(1000, dtype=np.int32).astype(np.uint8)
    x.flags.writeable = False
    y = np.zeros(1000, np.uint8)
    run = probe[1](In(x), y, workspace=64, tiling=ProbeTiling(1000, 1))
    assert run.exit_code == 0, [str(d) for d in run.diagnostics]
    np.testing.assert_array_equal(y, (x + 1).astype(np.uint8))
    np.testing.assert_array_equal(x, np.arange(1000, dtype=np.int32).astype(np.uint8))  # the write stayed private
    assert "ASCEMU_EXIT" not in run.stderr


def test_unwritten_output_bytes_are_fill_or_poison_even_when_the_scratch_file_held_data(probe: Kernel) -> None:
    x = np.full(4096, 7, np.uint8)
    y = np.zeros(4096, np.uint8)
    assert probe[1](x, y, workspace=64, tiling=ProbeTiling(4096, 0)).exit_code == 0
    assert (y == 8).all()  # the scratch file of y now holds 8s
    for fill, want in ((POISON, 0xFF), (0, 0), (0x5A, 0x5A)):
        y2 = np.zeros(4096, np.uint8)
        run = probe[1](In(x), Out(y2, fill=fill), workspace=64, tiling=ProbeTiling(1000, 0))
        assert run.exit_code == 0
        assert (y2[:1000] == 8).all() and (y2[1000:] == want).all(), (fill, np.unique(y2[1000:]))
        unwritten = [d for d in run.diagnostics if d.kind == "OUTPUT_UNWRITTEN"]
        assert unwritten and unwritten[0].details["unwritten"] == 3096


def test_slack_is_poison_and_sizes_change_between_launches(probe: Kernel) -> None:
    for n in (100, 5000, 33, 5000, 64):  # grow, shrink and regrow the reused files
        x = (np.arange(n) % 251).astype(np.uint8)
        y = np.zeros(n, np.uint8)
        run = probe[1](In(x), y, workspace=64, tiling=ProbeTiling(n, 3))
        assert run.exit_code == 0, [str(d) for d in run.diagnostics]
        assert y[0] == 0xFF, n  # x's slack byte
        np.testing.assert_array_equal(y[1:], (x[1:] + 1).astype(np.uint8))
        assert any(d.kind == "GM_SLACK_ACCESS" for d in run.diagnostics)


def test_outputs_are_settled_after_a_crash(probe: Kernel) -> None:
    x = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.uint8)
    run = probe[1](In(x), y, workspace=64, tiling=ProbeTiling(256, 2))
    assert run.exit_code == 4 and any(d.kind == "CRASH" for d in run.diagnostics)
    np.testing.assert_array_equal(y, (x + 1).astype(np.uint8))  # written before the crash, copied back


def test_a_launch_that_fails_before_its_buffers_exist_leaves_arrays_alone(probe: Kernel) -> None:
    x = np.arange(256, dtype=np.uint8)
    y = np.zeros(256, np.uint8)
    assert probe[1](In(x), y, workspace=64, tiling=ProbeTiling(256, 0)).exit_code == 0  # scratch now holds x + 1
    y2 = np.full(256, 3, np.uint8)
    args = [Arg(x, "input"), Arg(y2, "inout"), Arg(np.empty(64, np.uint8), "workspace", POISON)]
    run = run_launch(probe.built().path, "ascend910b", "Ascend910B3", 1, [*args, bytes(ProbeTiling(256, 0))])
    assert run.exit_code == 5 and any(d.kind == "HARNESS" for d in run.diagnostics)  # the binary is for 310P
    assert (y2 == 3).all()
    y3 = np.full(256, 3, np.uint8)
    run = probe[1](In(x), y3, workspace=64, tiling=b"\0" * 4)  # wrong tiling size: after the buffers exist
    assert run.exit_code == 5
    assert (y3 == 3).all()  # copied back as the kernel left it: never launched, so y's initial content


def test_strided_and_concurrent_launches(probe: Kernel) -> None:
    base = np.zeros(2000, np.uint8)
    y = base[::2]  # not contiguous: copied in and back through a temporary
    x = np.arange(1000, dtype=np.int32).astype(np.uint8)
    assert probe[1](In(x), Out(y), workspace=64, tiling=ProbeTiling(1000, 0)).exit_code == 0
    np.testing.assert_array_equal(y, (x + 1).astype(np.uint8))
    assert not base[1::2].any()

    results: dict[int, np.ndarray] = {}

    def one(k: int) -> None:
        xs = np.full(3000 + k, k, np.uint8)
        ys = np.zeros_like(xs)
        probe[1](In(xs), ys, workspace=64, tiling=ProbeTiling(xs.size, 0))
        results[k] = ys

    threads = [threading.Thread(target=one, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert results[k].size == 3000 + k and (results[k] == k + 1).all(), k


def test_release_scratch_and_direct_driver_gm_files(probe: Kernel, tmp_path: Path) -> None:
    x = np.arange(100, dtype=np.uint8)
    y = np.zeros(100, np.uint8)
    probe[1](In(x), y, workspace=64, tiling=ProbeTiling(100, 0))
    dirs = list(Path(L._scratch_root() or "/tmp").glob(f"{L._POOL_PREFIX}{os.getpid()}-*"))
    assert dirs
    L.release_scratch()
    assert not any(d.exists() for d in dirs)

    # the driver alone: a private preloaded input file is never modified, a shared output file holds the result
    n = 300
    xf, yf, wf = tmp_path / "x.bin", tmp_path / "y.bin", tmp_path / "w.bin"
    xf.write_bytes(bytes(range(256)) + bytes(range(44)))
    yf.write_bytes(b"\x11" * 10)  # shorter than the allocation: the driver grows it
    wf.write_bytes(b"")
    (tmp_path / "t.bin").write_bytes(bytes(ProbeTiling(n, 1)))
    launch = {
        "platform": "ascend310p",
        "block_dim": 1,
        "report_path": "r.json",
        "done_file": "done",
        "args": [
            {"kind": "gm", "bytes": n, "role": "input", "gm_file": "x.bin", "gm_map": "private", "preloaded": True},
            {"kind": "gm", "bytes": n, "role": "output", "gm_file": "y.bin", "gm_map": "shared"},
            {"kind": "gm", "bytes": 64, "role": "workspace", "gm_file": "w.bin", "fill": 0},
            {"kind": "bytes", "in_file": "t.bin"},
        ],
    }
    (tmp_path / "launch.json").write_text(json.dumps(launch))
    proc = subprocess.run([str(probe.built().path), "--launch", str(tmp_path / "launch.json")], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "done").exists() and json.loads((tmp_path / "r.json").read_text())["exit_code"] == 0
    xb = xf.read_bytes()
    assert xb[:300] == bytes(range(256)) + bytes(range(44))  # the kernel's x[0] = 0xAB stayed in the child
    yb = yf.read_bytes()
    assert yb[:n] == bytes((b + 1) & 0xFF for b in xb[:n])
    alloc = (n + 31) // 32 * 32 + 32
    assert len(yb) >= alloc and yb[n:alloc] == b"\xff" * (alloc - n)  # slack poisoned in the file
    assert wf.read_bytes()[:64] == b"\0" * 64
