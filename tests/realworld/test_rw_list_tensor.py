"""Issues 11 and 21, ListTensorDesc / TensorDesc: kernels whose tensors arrive as CANN's GM list of tensors.

apis/add_n.cpp (ours, ops-math style) reads a list of float inputs with ListTensorDesc (GetSize, GetDataPtr, GetDesc +
TensorDesc shapes) and sums them. It runs two ways:

- through `emu.load` with `emu.TensorList([...])` for its list parameter, as a user runs it (issue 21): the launcher
  lays the list out in GM, each tensor a GM buffer of its own;
- through its CPU-twin host main (apis/add_n_main.cpp), which lays the list out itself, in one of four layouts: with
  shapes, pointers only (dim 0), a read one past the list's end, and a list buffer cut short (issue 11).

apis/foreach_mul_scalar_list.cpp (ours, in the style of the foreach op_kernel files) takes an input list and an
output list and reads both by hand (descriptors and pointer array), so a list output comes back member by member.
Sums and products are compared with numpy bit for bit; the faults must be reported at the kernel's lines.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workbench.core.errors import InvalidInput
from workbench.running import emu
from workbench.running.emu.signature import Param, bind

APIS = Path(__file__).resolve().parent / "apis"
INCLUDE = APIS.parents[2] / "kernels" / "emu" / "include"
SOURCE = APIS / "add_n.cpp"
MAIN = APIS / "add_n_main.cpp"
FOREACH = APIS / "foreach_mul_scalar_list.cpp"
ROWS, COLS, INPUTS = 8, 256, 3
N = ROWS * COLS


class AddNTiling(ctypes.Structure):
    """apis/add_n_tiling.h AddNTilingData."""

    _fields_ = [(name, ctypes.c_uint32) for name in ("totalLength", "tileLength", "extraIndex", "checkShapes")]


class ForeachTiling(ctypes.Structure):
    """apis/foreach_mul_scalar_list.cpp ForeachMulScalarTilingData."""

    _fields_ = [("tileLength", ctypes.c_uint32)]


def line_of(tag: str, source: Path = SOURCE) -> int:
    for i, text in enumerate(source.read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


def in_order_sum(xs: list[np.ndarray]) -> np.ndarray:
    """The kernel's order of additions: ((x0 + x1) + x2) + ..."""
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


def problems(run: emu.KernelRun) -> list[Any]:
    return [d for d in run.diagnostics if d.severity != "info"]


# ------------------------------------------------------------------------------------------ through emu.load
@pytest.fixture(scope="module")
def kernels() -> dict[str, emu.Kernel]:
    """add_n.cpp and foreach_mul_scalar_list.cpp, built side by side (-O1, in the workbench build cache)."""
    loaded = {
        "add_n": emu.load(SOURCE, "add_n", "Ascend910B1", opt="-O1"),
        "foreach": emu.load(FOREACH, "foreach_mul_scalar_list", "Ascend910B1", opt="-O1"),
    }
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda k: k.built(), loaded.values()))
    return loaded


def inputs(count: int, seed: int, rows: int = ROWS) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(0, 8, (rows, COLS)).astype(np.float32) for _ in range(count)]


@pytest.mark.parametrize(("count", "shapes"), [(3, True), (5, True), (5, False)])
def test_add_n_over_a_tensor_list_through_emu_load(kernels: dict[str, emu.Kernel], count: int, shapes: bool) -> None:
    xs = inputs(count, seed=count)
    y = np.empty((ROWS, COLS), np.float32)
    # checkShapes=1 makes the kernel read every tensor's shape with GetDesc and ASSERT it against the tiling
    run = kernels["add_n"][4](
        emu.TensorList([emu.In(x) for x in xs], shapes=shapes), y, workspace=32, tiling=AddNTiling(N, 256, 0, shapes)
    )
    assert run.exit_code == 0 and not problems(run), run.diagnostics
    np.testing.assert_array_equal(y.view(np.uint32), in_order_sum(xs).view(np.uint32))
    for k, x in enumerate(xs):  # In(...) members are not copied back, and the kernel left them alone
        np.testing.assert_array_equal(x, inputs(count, seed=count)[k])


def test_an_index_past_a_tensor_list_is_reported_at_the_kernel_line(kernels: dict[str, emu.Kernel]) -> None:
    xs = inputs(INPUTS, seed=7)
    y = np.empty((ROWS, COLS), np.float32)
    run = kernels["add_n"][4](emu.TensorList(xs), y, workspace=32, tiling=AddNTiling(N, 256, INPUTS, 1))
    faults = [d for d in run.diagnostics if d.kind == "PARAM_RANGE"]
    assert len(faults) == 4 and all(d.line == line_of("extra-index") for d in faults), run.diagnostics  # every core
    assert Path(faults[0].file).name == "add_n.cpp" and faults[0].api == "ListTensorDesc::GetDataPtr"
    assert "index 3 of a list of 3 tensors" in faults[0].message
    assert {d.kind for d in problems(run)} == {"PARAM_RANGE"}, run.diagnostics
    np.testing.assert_array_equal(y.view(np.uint32), in_order_sum(xs).view(np.uint32))  # the bad read changed nothing


def test_a_read_past_a_list_member_is_reported_at_the_kernel_line(kernels: dict[str, emu.Kernel]) -> None:
    """Each tensor of the list is a GM buffer of its own: a tiling that says 2N elements reads past every one."""
    xs = inputs(INPUTS, seed=8)
    y = np.zeros((2 * ROWS, COLS), np.float32)
    run = kernels["add_n"][4](emu.TensorList(xs), y, workspace=32, tiling=AddNTiling(2 * N, 256, 0, 0))
    past = [d for d in problems(run) if d.api == "DataCopy" and d.line == line_of("copy-in")]
    assert past and all(d.kind.startswith("GM_") for d in past), run.diagnostics
    named = {d.details.get("buffer") for d in past if d.kind == "GM_OOB"}
    assert named == {f"arg0[{k}]:inout" for k in range(INPUTS)}, run.diagnostics  # each list member by name
    # cores 0 and 1 read the tensors' own elements: their half of y is the sum
    np.testing.assert_array_equal(y[:ROWS].view(np.uint32), in_order_sum(xs).view(np.uint32))


def test_a_tensor_list_output_comes_back_member_by_member(kernels: dict[str, emu.Kernel]) -> None:
    """x with shapes of different ranks (the kernel walks the descriptors for the element counts), y pointers only."""
    rng = np.random.default_rng(21)
    shapes = [(96,), (4, 40), (2, 3, 32), (8, 8), (24,)]
    xs = [rng.normal(0, 4, s).astype(np.float32) for s in shapes]
    ys = [np.empty(s, np.float32) for s in shapes]
    scalar = np.array([1.75], np.float32)
    run = kernels["foreach"][2](
        emu.TensorList([emu.In(x) for x in xs]),
        emu.In(scalar),
        emu.TensorList([emu.Out(y, fill=emu.POISON) for y in ys], shapes=False),
        workspace=32,
        tiling=ForeachTiling(64),
    )
    assert run.exit_code == 0 and not problems(run), run.diagnostics
    for x, y in zip(xs, ys, strict=True):
        np.testing.assert_array_equal(y.view(np.uint32), (x * scalar[0]).view(np.uint32))


def test_an_output_member_the_kernel_never_writes_is_reported_by_name(kernels: dict[str, emu.Kernel]) -> None:
    """One more output than inputs: the kernel never learns of it, so it keeps what was copied in and is reported."""
    xs = [np.arange(64, dtype=np.float32)]
    ys = [np.zeros(64, np.float32), np.zeros(64, np.float32)]
    run = kernels["foreach"][1](
        emu.TensorList(xs),
        emu.In(np.array([2.0], np.float32)),
        emu.TensorList([emu.Out(y) for y in ys]),
        workspace=32,
        tiling=ForeachTiling(64),
    )
    np.testing.assert_array_equal(ys[0], xs[0] * 2)
    np.testing.assert_array_equal(ys[1], np.zeros(64, np.float32))  # copied in, never written, copied back
    unwritten = [d for d in run.diagnostics if d.kind == "OUTPUT_UNWRITTEN"]
    assert [(d.details["buffer"], d.severity) for d in unwritten] == [("arg2[1]:output", "warning")], run.diagnostics
    assert "no core wrote any of it" in unwritten[0].message


# ------------------------------------------------------------------------------------------ refused arguments
@pytest.mark.parametrize(
    ("make", "field", "shown", "allowed"),
    [
        (lambda: emu.TensorList(np.zeros((3, 8), np.float32)), "TensorList", "'ndarray'", "a list or tuple"),
        (lambda: emu.TensorList([]), "TensorList", "'an empty list'", "at least one tensor"),
        (
            lambda: emu.TensorList([np.zeros(8, np.float32), np.zeros(8, np.float16)]),
            "TensorList[1]",
            "'a float16 array in a list of float32 ones'",
            "tensors of one dtype",
        ),
        (lambda: emu.TensorList([np.float32(1.0)]), "TensorList[0]", "'float32'", "a numpy array, In(a) or Out(a)"),
        (lambda: emu.TensorList([np.zeros((), np.float32)]), "TensorList[0]", "'a 0-d array'", "shapes=False"),
        (lambda: emu.TensorList([emu.Workspace(64)]), "TensorList[0]", "'a workspace'", "In(a) or Out(a)"),
        (lambda: emu.TensorList([np.zeros(8)]), "TensorList[0]", "'a float64 array'", "a.astype(np.float32)"),
        (
            lambda: emu.TensorList([np.zeros(8, np.float32)[::2]]),
            "TensorList[0]",
            "'non-contiguous array'",
            "np.ascontiguousarray",
        ),
        (lambda: emu.TensorList([np.zeros(8, np.float32)], shapes="yes"), "TensorList shapes", "'yes'", "False"),
    ],
)
def test_a_bad_tensor_list_is_refused_naming_the_field(make: Any, field: str, shown: str, allowed: str) -> None:
    with pytest.raises(InvalidInput) as err:
        make()
    assert err.value.field == field
    message = str(err.value)
    assert message.startswith(f"{field}: got {shown}; allowed: ") and allowed in message, message


def test_a_tensor_list_goes_only_to_a_gm_addr_parameter() -> None:
    """The binary's signature says which parameters are pointers; a list for a scalar or a struct is refused."""
    xs = emu.TensorList([np.zeros(8, np.float32)])
    gm = bind("k", (Param("gm"),), [("argument 0", xs)])
    assert gm == [xs]
    for param, what in ((Param("scalar", 4, "float"), "float"), (Param("struct", 16), "16-byte struct")):
        with pytest.raises(InvalidInput, match=rf"argument 0: got 'a TensorList'; allowed: .*{what} parameter"):
            bind("k", (param,), [("argument 0", xs)])


def test_the_list_words_are_cann_s_layout() -> None:
    """ListTensorDesc's layout, as add_n_main.cpp writes it: the pointer array's offset, (dim | index << 32) and the
    shape per tensor, then the pointers (0 here: the emulator writes each tensor's address)."""
    a, b = np.zeros((8, 256), np.float32), np.zeros((8, 256), np.float32)
    shaped = emu.TensorList([a, b]).header()
    assert shaped.tolist() == [56, 2, 8, 256, 2 | 1 << 32, 8, 256, 0, 0]
    assert emu.TensorList([a, b, a], shapes=False).header().tolist() == [24, 3 << 32, 0xFFFFFFFF, 0, 0, 0]


# ------------------------------------------------------------------------------------------ the CPU twin
@pytest.fixture(scope="module")
def add_n(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kernel and its host main in one translation unit (`-include`, as the workbench builds a kernel with its
    driver): half the compile time of two."""
    exe = tmp_path_factory.mktemp("add_n") / "add_n"
    flags = ["-std=c++20", "-O1", "-pthread", "-DASCEMU_PLATFORM=ascend910b", f"-I{INCLUDE}"]
    cmd = ["g++", *flags, "-include", str(SOURCE), str(MAIN)]
    r = subprocess.run([*cmd, "-o", str(exe)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return exe


def run(exe: Path, tmp: Path, layout: str) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """Runs the host main on fresh inputs: (numpy's sum, the kernel's y, the report's diagnostics)."""
    rng = np.random.default_rng(len(layout))
    xs = [rng.normal(0, 8, N).astype(np.float32) for _ in range(INPUTS)]
    for i, x in enumerate(xs):
        x.tofile(tmp / f"x{i}.bin")
    report = tmp / "report.json"
    env = {**os.environ, "ASCEMU_REPORT": str(report)}
    r = subprocess.run([str(exe), str(tmp), layout], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return in_order_sum(xs), np.fromfile(tmp / "y.bin", np.float32), json.loads(report.read_text())["diagnostics"]


@pytest.mark.parametrize("layout", ["shapes", "pointers"])
def test_add_n_over_a_list_of_three_inputs(add_n: Path, tmp_path: Path, layout: str) -> None:
    expected, y, diags = run(add_n, tmp_path, layout)
    assert not [d for d in diags if d["severity"] != "info"], diags
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_an_index_past_the_list_is_reported_at_its_line(add_n: Path, tmp_path: Path) -> None:
    expected, y, diags = run(add_n, tmp_path, "index-past-end")
    faults = [d for d in diags if d["kind"] == "PARAM_RANGE"]
    assert faults and all(d["line"] == line_of("extra-index") for d in faults), diags
    assert faults[0]["api"] == "ListTensorDesc::GetDataPtr" and "index 3 of a list of 3" in faults[0]["message"]
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))  # the bad read changed nothing


def test_a_list_cut_short_is_read_past_its_buffer(add_n: Path, tmp_path: Path) -> None:
    _, _, diags = run(add_n, tmp_path, "truncated")
    init = [d for d in diags if d["api"] == "ListTensorDesc::Init" and d["line"] == line_of("list-init")]
    assert init and init[0]["kind"] == "GM_SLACK_ACCESS", diags
    assert any(d["kind"] == "GM_UNKNOWN_POINTER" and d["api"] == "DataCopy" for d in diags)  # the poison pointers
