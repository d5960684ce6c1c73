"""The edges of `kernel[block_dim](...)` (issue 17, items 2 and 9): every argument and option is checked before the
launch, and a kernel that ends its own process is a fault whose outputs never look like a result."""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from emu_helpers import UserKernel

from workbench.core.errors import InvalidInput
from workbench.running.emu import In, Kernel, Out, Workspace, load

EDGE = r"""
#include <cstdlib>
#include <unistd.h>
#include "kernel_operator.h"
using namespace AscendC;

struct EdgeTiling {
    uint32_t n;     // floats of x and y
    uint32_t mode;  // 1: exit(0) before anything is written; 2: _exit(0) likewise
};

extern "C" __global__ __aicore__ void edge(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, EdgeTiling t) {
    if (t.mode == 1) exit(0);
    if (t.mode == 2) _exit(0);
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.n);
    yg.SetGlobalBuffer((__gm__ float*)y, t.n);
    for (uint32_t i = 0; i < t.n; ++i) yg.SetValue(i, xg.GetValue(i) * 2.0f);
}
"""


class EdgeTiling(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint32), ("mode", ctypes.c_uint32)]


N = 64


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory, user_kernel: UserKernel) -> Iterator[Kernel]:
    with user_kernel(tmp_path_factory.mktemp("edge"), EDGE, "edge", "Ascend310P3") as kernel:
        yield kernel


def x_and_doubled() -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(N, dtype=np.float32)
    return x, x * 2


def test_a_clean_launch_doubles_x(edge: Kernel) -> None:
    x, want = x_and_doubled()
    y = np.zeros(N, np.float32)
    run = edge[1](In(x), y, workspace=0, tiling=EdgeTiling(N, 0))
    assert not run.faulted and np.array_equal(y, want), [str(d) for d in run.diagnostics]


# -- item 2: a kernel that ends the process ----------------------------------------------------------------------


@pytest.mark.parametrize("reuse", ["0", "1"])
@pytest.mark.parametrize(("mode", "call"), [(1, "exit(0)"), (2, "_exit(0)")])
def test_a_kernel_that_ends_its_process_is_a_fault_and_its_outputs_are_poison(
    edge: Kernel, monkeypatch: pytest.MonkeyPatch, reuse: str, mode: int, call: str
) -> None:
    monkeypatch.setenv("ASCEMU_REUSE_PROCESS", reuse)
    x, want = x_and_doubled()
    inout, out = want.copy(), want.copy()  # the right values already: only a finished launch may leave them
    for y in (inout, Out(out)):
        run = edge[1](In(x), y, workspace=0, tiling=EdgeTiling(N, mode))
        kinds = [d.kind for d in run.diagnostics]
        assert run.faulted and run.exit_code == 2 and kinds.count("KERNEL_EXIT") == 1, (call, kinds)
        exit_record = next(d for d in run.diagnostics if d.kind == "KERNEL_EXIT")
        assert exit_record.severity == "fatal" and "exit()/_exit()" in exit_record.message
    for y in (inout, out):
        assert (y.view(np.uint32) == 0xFFFFFFFF).all() and np.isnan(y).all(), call  # poison, never a result
    y = np.zeros(N, np.float32)  # the next launch of the same binary is clean again (a new worker)
    assert not edge[1](In(x), y, workspace=0, tiling=EdgeTiling(N, 0)).faulted and np.array_equal(y, want)


# -- item 9: arrays --------------------------------------------------------------------------------------------------


def test_a_read_only_array_the_launch_writes_is_refused_unless_it_is_an_input(edge: Kernel) -> None:
    x, want = x_and_doubled()
    y = np.zeros(N, np.float32)
    y.flags.writeable = False
    for arg in (y, Out(y)):
        with pytest.raises(InvalidInput, match=r"^argument 1: got 'a read-only array'; allowed: a writeable array"):
            edge[1](In(x), arg, workspace=0, tiling=EdgeTiling(N, 0))
    x.flags.writeable = False  # a plain array is device memory the kernel may write: only In(x) says it does not
    out = np.zeros(N, np.float32)
    with pytest.raises(InvalidInput, match=r"^argument 0: got 'a read-only array'; .*or In\(a\) for an input"):
        edge[1](x, out, workspace=0, tiling=EdgeTiling(N, 0))
    assert not edge[1](In(x), out, workspace=0, tiling=EdgeTiling(N, 0)).faulted and np.array_equal(out, want)


@pytest.mark.parametrize("wrap", [lambda a: a, In, Out], ids=["array", "In", "Out"])
def test_float64_big_endian_and_object_arrays_are_refused(edge: Kernel, wrap: object) -> None:
    x = np.arange(N, dtype=np.float32)
    y = np.zeros(N, np.float32)
    wrapped = wrap  # type: ignore[operator]
    with pytest.raises(InvalidInput, match=r"^argument 0: got 'a float64 array'; .*a\.astype\(np\.float32\)"):
        edge[1](wrapped(x.astype(np.float64)), y, workspace=0, tiling=EdgeTiling(N, 0))
    with pytest.raises(InvalidInput, match=r"^argument 0: got 'a big-endian >f4 array'; .*little-endian"):
        edge[1](wrapped(x.astype(">f4")), y, workspace=0, tiling=EdgeTiling(N, 0))
    with pytest.raises(
        InvalidInput, match=r"^argument 0: got 'an array of dtype object'; allowed: an array of numbers"
    ):
        edge[1](wrapped(x.astype(object)), y, workspace=0, tiling=EdgeTiling(N, 0))
    with pytest.raises(InvalidInput, match=r"^workspace: got 'an array of dtype object'"):
        edge[1](In(x), y, workspace=np.zeros(8, object), tiling=EdgeTiling(N, 0))


def test_doubles_pass_as_bytes_on_purpose(edge: Kernel) -> None:
    """A kernel that reads doubles gets them as a uint8 view: the caller says the bytes are meant."""
    x = np.arange(N // 2, dtype=np.float64)  # N floats' worth of bytes
    y = np.zeros(N, np.float32)
    run = edge[1](In(x.view(np.uint8)), y, workspace=0, tiling=EdgeTiling(N, 0))
    assert not run.faulted and np.array_equal(y, x.view(np.float32) * 2)


# -- item 9: numbers and options (refused before anything is built) ------------------------------------------------


def never_built(tmp_path: Path) -> Kernel:
    """A kernel whose source does not compile: a check that passed would raise BuildError instead."""
    src = tmp_path / "nope.cpp"
    src.write_text("this is not C++\n")
    return load(src, entry="nope")


@pytest.mark.parametrize("timeout", [math.nan, math.inf, -math.inf, "10", -1, 0, True, 1e9])  # None: the default
def test_timeout_must_be_a_finite_positive_number(tmp_path: Path, timeout: object) -> None:
    with pytest.raises(InvalidInput, match=r"^timeout_s: got .*; allowed: a number of seconds > 0"):
        never_built(tmp_path)[1](np.zeros(4, np.float32), timeout_s=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize("workspace", [-1, -(1 << 20), True, 1.5, "64", 1 << 41])
def test_workspace_must_be_a_byte_count(tmp_path: Path, workspace: object) -> None:
    with pytest.raises(InvalidInput, match=r"^workspace: got .*; allowed: a number of bytes"):
        never_built(tmp_path)[1](np.zeros(4, np.float32), workspace=workspace)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"^workspace: got -5"):
        Workspace(-5)
    with pytest.raises(InvalidInput, match=r"^fill: got 256"):
        Workspace(64, fill=256)


@pytest.mark.parametrize(
    ("options", "field", "allowed"),
    [
        ({"mdoe": "parallel"}, "launch option", "one of mode, strict, threads, seed, core_count"),
        ({"platform": "ascend910b"}, "launch option", "one of mode"),
        ({"report_path": "/tmp/r.json"}, "launch option", "one of mode"),
        ({"mode": "fast"}, "mode", "'serial', 'parallel', 'ordered', 'interleave'"),
        ({"mode": "interleave:x"}, "mode", "interleave:SEED"),
        ({"strict": "yes"}, "strict", "True or False"),
        ({"threads": 0}, "threads", "an integer in [1, "),
        ({"threads": 2.0}, "threads", "an integer in [1, "),
        ({"seed": -1}, "seed", "an integer in [0, "),
        ({"core_count": 0}, "core_count", "an integer in [1, 65535]"),
        ({"ub_poison": 256}, "ub_poison", "an integer in [0, 255]"),
        ({"gm_alloc": "tight"}, "gm_alloc", "'acl' or 'exact'"),
        ({"overflow_mode": "wrap"}, "overflow_mode", "'saturation' or 'inf_nan'"),
        ({"pipe_check": True}, "pipe_check", "'on' or 'strict' or 'off'"),
        ({"dcache": "on"}, "dcache", "'model' or 'off'"),
        ({"api_budget": 0}, "api_budget", "an integer in [1, "),
    ],
)
def test_launch_options_are_the_documented_keys_with_valid_values(
    tmp_path: Path, options: dict[str, object], field: str, allowed: str
) -> None:
    with pytest.raises(InvalidInput) as info:
        never_built(tmp_path)[1](np.zeros(4, np.float32), **options)
    assert str(info.value).startswith(f"{field}: got ") and allowed in str(info.value), str(info.value)


def test_valid_options_reach_the_emulator(edge: Kernel) -> None:
    x, want = x_and_doubled()
    y = np.zeros(N, np.float32)
    run = edge[1](
        In(x), y, workspace=0, tiling=EdgeTiling(N, 0), mode="interleave:3", strict=True, threads=1, seed=5,
        timeout_s=30, gm_alloc="exact", ub_poison=0, pipe_check="off", dcache="off", diag_stderr=False,
    )  # fmt: skip
    assert run.exit_code == 0 and not run.faulted and np.array_equal(y, want), [str(d) for d in run.diagnostics]


@pytest.mark.parametrize(
    "content",
    [bytes(range(256)) * 4, "caf\xe9 int x;\n".encode("latin-1"), b"int x;\0\n"],
    ids=["binary", "latin-1", "nul"],
)
def test_a_source_that_is_not_utf8_text_is_refused_naming_the_file(tmp_path: Path, content: bytes) -> None:
    src = tmp_path / "kernel.cpp"
    src.write_bytes(content)
    with pytest.raises(InvalidInput, match=rf"^sources: got '{src}'; allowed: a (UTF-8 )?text file"):
        load(src, entry="kernel")
