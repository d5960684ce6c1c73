"""Issue 21, items 6 and 7: a tail copy is no false alarm, and a hung launch names the line each core is at.

faults/tail_add.cpp (our own, in the style of CANN's KernelLaunch samples) adds two float tensors on 4 cores; the
last core's last tile is copied as whole 32-byte blocks, ending at ALIGN_UP(size, 32). Its `fault` parameter:
0 the plain kernel (no diagnostic, numpy bit-exact), 1 one block more (into the 32 bytes aclrtMalloc adds),
2 two blocks more (past the allocation), 3 a scalar store after the last element, 4 odd cores spin in a loop that
makes no API call. One build (310P, where DataCopyPad does not exist and tails are always copied as whole blocks).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import workbench.running.emu.launch as emu_launch
from workbench.running.emu import In, Kernel, KernelRun, Out, load
from workbench.running.emu.launch import (
    MAX_TIMEOUT_S,
    TIMEOUT_BASE_S,
    TIMEOUT_GM_BYTES_PER_S,
    TIMEOUT_PER_BLOCK_S,
    Arg,
    ListArg,
    _gm_bytes,
    default_timeout_s,
)

KERNEL = Path(__file__).resolve().parent / "faults" / "tail_add.cpp"
CORES = 4
N = 512 * (CORES - 1) + 305  # the last core: one tile of 256 and a tail of 49 floats, copied as 56
SIZE = N * 4  # 7364 bytes: ALIGN_UP(SIZE, 32) = 7392, the aclrtMalloc allocation 7424
ALLOCATION = f"aclrtMalloc allocation of 7424 bytes (ALIGN_UP({SIZE}, 32) + 32)"


def line_of(tag: str) -> int:
    for i, text in enumerate(KERNEL.read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    k = load(KERNEL, "tail_add", "Ascend310P3", opt="-O1")
    k.built()
    return k


def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    return rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)


def launch(kernel: Kernel, fault: int, **kw: object) -> tuple[KernelRun, np.ndarray]:
    x, y = inputs()
    z = np.zeros(N, np.float32)
    return kernel[CORES](In(x), In(y), Out(z), N, fault, **kw), z  # type: ignore[arg-type]


def exact(z: np.ndarray) -> bool:
    x, y = inputs()
    return bool(np.array_equal(z.view(np.uint32), (x + y).view(np.uint32)))


def test_a_tail_copy_ending_inside_align_up_is_quiet_and_exact(kernel: Kernel) -> None:
    run, z = launch(kernel, 0)
    assert run.exit_code == 0 and not run.diagnostics, [str(d) for d in run.diagnostics]
    assert exact(z)


def test_a_copy_into_the_32_bytes_aclrtmalloc_adds_is_reported_as_such(kernel: Kernel) -> None:
    run, z = launch(kernel, 1)
    by_kind = {(d.kind, d.line): d for d in run.diagnostics}
    copies = [line_of("copy-x"), line_of("copy-x") + 1, line_of("copy-z")]
    assert sorted(by_kind) == sorted(
        [("GM_SLACK_ACCESS", copies[0]), ("GM_SLACK_ACCESS", copies[1]), ("GM_WRITE_PAST_END", copies[2])]
        + [("GM_LOGICAL_OOB", at) for at in copies]  # past the GlobalTensors' sizes by more than the rounding
    ), [str(d) for d in run.diagnostics]
    write = by_kind["GM_WRITE_PAST_END", line_of("copy-z")]
    assert write.severity == "warning" and write.details["past_end"] == 60 and write.details["past_rounded"] == 32
    assert f"60 bytes past the tensor's {SIZE}-byte size but inside its {ALLOCATION}" in write.message
    assert f"its last 32 bytes lie past ALIGN_UP({SIZE}, 32) = 7392, in the 32 bytes aclrtMalloc adds" in write.message
    assert run.exit_code == 0 and exact(z)  # the bytes past z's end are its allocation's: nothing else changed


def test_a_copy_past_the_allocation_is_gm_oob_in_its_words(kernel: Kernel) -> None:
    run, _ = launch(kernel, 2)
    oob = [d for d in run.diagnostics if d.kind == "GM_OOB"]
    assert sorted(d.line for d in oob) == [line_of("copy-x"), line_of("copy-x") + 1, line_of("copy-z")]
    assert all(f"92 bytes past the tensor's {SIZE}-byte size and 32 past its {ALLOCATION}" in d.message for d in oob)
    assert run.exit_code == 1


def test_a_scalar_store_past_the_last_element_stays_reported(kernel: Kernel) -> None:
    # no 32-byte block needs it: inside ALIGN_UP(size, 32), but a view's neighbour would be overwritten
    run, z = launch(kernel, 3)
    assert sorted(d.kind for d in run.diagnostics) == ["GM_LOGICAL_OOB", "GM_WRITE_PAST_END"]
    [d] = [d for d in run.diagnostics if d.kind == "GM_WRITE_PAST_END"]
    assert (d.line, d.severity) == (line_of("scalar"), "warning")
    assert f"4 bytes past the tensor's {SIZE}-byte size but inside its {ALLOCATION}; a scalar access" in d.message
    assert exact(z)


def test_a_timeout_names_the_line_each_spinning_core_is_at(kernel: Kernel) -> None:
    run, _ = launch(kernel, 4, timeout_s=1.0, mode="parallel", threads=CORES)
    [t] = [d for d in run.diagnostics if d.kind == "TIMEOUT"]
    spin = line_of("spin")
    assert (t.severity, Path(t.file), t.line, t.core) == ("fatal", KERNEL, spin, 1), str(t)
    assert "Compute" in t.function
    assert [(a["core"], Path(a["file"]), a["line"]) for a in t.details["at"]] == [(1, KERNEL, spin), (3, KERNEL, spin)]
    for core in (1, 3):
        assert f"core {core} at tail_add.cpp:{spin} (in KernelTailAdd::Compute" in t.message
    # the last API call the spinning cores made is elsewhere: the line alone would point at the wrong statement
    assert {c["line"] for c in t.details["cores"] if c["core"] in (1, 3)} != {spin}


def test_the_emulators_default_timeout_is_the_same_formula() -> None:
    """Programs' launches get the watchdog from the emulator's copy of the formula (runtime.h): same numbers."""
    header = (Path(__file__).resolve().parents[2] / "kernels/emu/include/ascemu/runtime.h").read_text()
    constants = {
        name: math.prod(float(factor) for factor in value.split("*"))  # e.g. "1024.0 * 1024.0"
        for name, value in re.findall(r"inline constexpr double (kTimeout\w+) = ([\d.* ]+);", header)
    }
    assert constants == {
        "kTimeoutBaseS": TIMEOUT_BASE_S,
        "kTimeoutGmBytesPerS": TIMEOUT_GM_BYTES_PER_S,
        "kTimeoutPerBlockS": TIMEOUT_PER_BLOCK_S,
        "kTimeoutMaxS": MAX_TIMEOUT_S,
    }


def test_the_default_timeout_scales_with_the_launch(kernel: Kernel, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_timeout_s(0, 1) == pytest.approx(20.01)
    assert default_timeout_s(64 << 20, 8) == pytest.approx(20 + 64 + 0.08)
    assert default_timeout_s(1 << 30, 48) == pytest.approx(20 + 1024 + 0.48)
    assert default_timeout_s(1 << 50, 1) == MAX_TIMEOUT_S
    # what counts as the launch's GM: arrays, a list's words and its tensors, parameter bytes
    pair = ListArg((Arg(np.zeros(8, np.float32), "input"), Arg(np.zeros(8, np.float32), "input")))
    assert [_gm_bytes(a) for a in (pair, Arg(np.zeros(3, np.int16), "output"), bytes(12))] == [7 * 8 + 2 * 32, 6, 12]
    # a launch without timeout_s gets it: with a base of 0.5 s the spinning kernel stops after the scaled default
    monkeypatch.setattr(emu_launch, "TIMEOUT_BASE_S", 0.5)
    run, _ = launch(kernel, 4)
    [t] = [d for d in run.diagnostics if d.kind == "TIMEOUT"]
    gm_bytes = 3 * SIZE + 2 * 4  # x, y, z and the two uint32 parameters
    assert t.details["timeout_s"] == pytest.approx(default_timeout_s(gm_bytes, CORES), rel=1e-6)
    assert t.line == line_of("spin")
