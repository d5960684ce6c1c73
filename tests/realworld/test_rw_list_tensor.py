"""Issue 11, ListTensorDesc / TensorDesc: an AddN whose inputs arrive as CANN's GM list of tensors.

apis/add_n.cpp (ours, ops-math style) reads a list of three float inputs with ListTensorDesc (GetSize, GetDataPtr,
GetDesc + TensorDesc shapes) and sums them; its CPU-twin host main lays the list out in GM as CANN's framework does,
in one of four layouts: with shapes, pointers only (dim 0), a read one past the list's end, and a list buffer cut
short.  The sum is compared with numpy bit for bit; the faults must be reported at the kernel's lines.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

APIS = Path(__file__).resolve().parent / "apis"
INCLUDE = APIS.parents[2] / "kernels" / "emu" / "include"
SOURCE = APIS / "add_n.cpp"
N, INPUTS = 8 * 256, 3


def line_of(tag: str) -> int:
    for i, text in enumerate(SOURCE.read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


@pytest.fixture(scope="module")
def add_n(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("add_n") / "add_n"
    cmd = ["g++", "-std=c++20", "-O1", "-pthread", "-DASCEMU_PLATFORM=ascend910b", f"-I{INCLUDE}", str(SOURCE)]
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
    expected = (xs[0] + xs[1]) + xs[2]  # the kernel's order of additions
    return expected, np.fromfile(tmp / "y.bin", np.float32), json.loads(report.read_text())["diagnostics"]


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
