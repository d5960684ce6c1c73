"""Issue 21, items 2 and 8a: the device's semantics where CANN only asserts, and FetchEventID's lowest free ID.

semantics/masked_fill.cpp (ours, an ops-repo style op_kernel for 910B) builds a mask with Compares into an int8_t
tensor and selects with it in Select's tensor-tensor and tensor-scalar modes.  CANN checks Select's mask dtype with
ASCENDC_ASSERT only (compiled out of the device build), so the device reads the int8_t tensor's bits: ascemu must do
the same and warn (UNSUPPORTED_DTYPE, warning) at the two Select lines, and report nothing else.  The kernel takes its
event IDs from the pipe and stores what FetchEventID returned, which must be CANN's lowest free ID (sff0 of the
pool's occupied bits).  Its probe 1 runs three rules CANN only asserts: Compare of int32_t with CMPMODE::LT (the
int32_t instruction compares for equality), a Compares count whose bytes are no multiple of 256 (whole repeats
only), a WholeReduceMax repeatTime above 255 (the 8-bit repeat field keeps its low bits) and GatherMask on int8_t
tensors (gathered as 4-byte elements with a built-in pattern, as the pattern's elements with a pattern tensor).
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import pytest

from workbench.running.emu import In, Kernel, KernelRun, Out, load

SOURCE = Path(__file__).resolve().parent / "semantics" / "masked_fill.cpp"
CORES, TILE, TILES = 2, 512, 2
N = CORES * TILE * TILES
FILL = np.float32(-7.25)
Outcome = tuple[KernelRun, dict[str, np.ndarray]]


class MaskedFillTilingData(ctypes.Structure):
    """semantics/masked_fill.cpp MaskedFillTilingData."""

    _fields_ = [
        ("totalLength", ctypes.c_uint32),
        ("tileLength", ctypes.c_uint32),
        ("fillValue", ctypes.c_float),
        ("probe", ctypes.c_uint32),
    ]


def line_of(tag: str) -> int:
    for i, text in enumerate(SOURCE.read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


def found(run: KernelRun) -> set[tuple[str, str, int]]:
    """Every diagnostic of the run as (kind, severity, line)."""
    return {(d.kind, d.severity, d.line) for d in run.diagnostics}


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    return load(SOURCE, "masked_fill", "Ascend910B1", opt="-O0")


@pytest.fixture(scope="module")
def operator_run(kernel: Kernel) -> Outcome:
    rng = np.random.default_rng(21)
    x = rng.normal(0, 4, N).astype(np.float32)
    x[::97] = 0.0  # x > 0 is false at exactly 0
    x[5::131] = -0.0
    y = rng.normal(0, 4, N).astype(np.float32)
    z, w = np.zeros(N, np.float32), np.zeros(N, np.float32)
    ids = np.full(8 * CORES, -1, np.int32)
    run = kernel[CORES](
        In(x),
        In(y),
        Out(z, fill=0),
        Out(w, fill=0),
        Out(ids, fill=0),
        workspace=1024,
        tiling=MaskedFillTilingData(N, TILE, FILL, 0),
    )
    return run, {"x": x, "y": y, "z": z, "w": w, "ids": ids}


def test_select_with_an_int8_mask_reads_its_bits_as_the_device_does(operator_run: Outcome) -> None:
    run, a = operator_run
    assert run.exit_code == 0
    mask = a["x"] > 0
    np.testing.assert_array_equal(a["z"].view(np.uint32), np.where(mask, a["x"], a["y"]).view(np.uint32))
    np.testing.assert_array_equal(a["w"].view(np.uint32), np.where(mask, a["y"], FILL).view(np.uint32))


def test_the_int8_mask_draws_one_warning_per_select_and_nothing_else(operator_run: Outcome) -> None:
    run, _ = operator_run
    expected = {("UNSUPPORTED_DTYPE", "warning", line_of(tag)) for tag in ("select-tensor", "select-scalar")}
    assert found(run) == expected, [str(d) for d in run.diagnostics]
    message = next(d.message for d in run.diagnostics if d.kind == "UNSUPPORTED_DTYPE")
    assert "selMask of int8" in message and "CANN only asserts this" in message


def test_fetch_event_id_hands_out_the_lowest_free_id(operator_run: Outcome) -> None:
    _, a = operator_run
    # per core: AllocEventID holds 0; FetchEventID gives 1, and 1 again (it holds nothing); after ReleaseEventID 0;
    # with both VECOUT queues holding a V_MTE3 ID (0 and 1) it gives 2.
    assert a["ids"].reshape(CORES, 8).tolist() == [[0, 1, 1, 0, 2, 0, 0, 0]] * CORES


def test_compare_and_reduce_rules_cann_only_asserts_run_with_the_device_semantics(kernel: Kernel) -> None:
    rng = np.random.default_rng(8)
    x = rng.normal(0, 4, 128).astype(np.float32)
    y = rng.normal(0, 4, 128).astype(np.float32)
    y[::3] = x[::3]  # equal bit patterns: where the int32_t "LT" compare (an EQ on the device) is true
    z = np.zeros(128, np.float32)
    run = kernel[1](
        In(x),
        In(y),
        Out(z, fill=0),
        In(np.zeros(16, np.float32)),
        In(np.zeros(8, np.int32)),
        workspace=1024,
        tiling=MaskedFillTilingData(128, 128, 0.0, 1),
    )
    assert run.exit_code == 0
    expected = {
        ("UNSUPPORTED_DTYPE", "warning", line_of("compare-int32")),
        ("PARAM_RANGE", "warning", line_of("compares-tail")),
        ("PARAM_RANGE", "warning", line_of("reduce-repeat")),
        ("UNSUPPORTED_DTYPE", "warning", line_of("gather-mask-pattern")),
        ("UNSUPPORTED_DTYPE", "warning", line_of("gather-mask-tensor")),
    }
    assert found(run) == expected, [str(d) for d in run.diagnostics]
    out = z.view(np.uint8)
    untouched = np.full(32, 0xA5, np.uint8)
    eq = np.packbits(x[:64].view(np.int32) == y[:64].view(np.int32), bitorder="little")
    np.testing.assert_array_equal(out[:32], np.concatenate([eq, untouched[8:]]))
    gt = np.packbits(x[:64] > 0, bitorder="little")  # 64 of the 100: the last 36 bits keep the 0xA5 fill
    np.testing.assert_array_equal(out[32:64], np.concatenate([gt, untouched[8:]]))
    assert z[16] == x[:64].max()  # repeatTime 257 ran one repeat ...
    np.testing.assert_array_equal(out[68:128], np.full(60, 0xA5, np.uint8))  # ... and wrote one value
    # GatherMask of int8_t: pattern 1 keeps the even uint32_t elements of y's first 256 bytes, ...
    np.testing.assert_array_equal(z[32:64].view(np.uint32), y[:64].view(np.uint32)[0::2])
    # ... a uint16_t pattern tensor (z's first 16 bytes) picks uint16_t elements of y's first 256 bytes
    picks = np.unpackbits(out[:16], bitorder="little").astype(bool)
    kept = y[:64].view(np.uint16)[picks]
    np.testing.assert_array_equal(out[256 : 256 + 2 * kept.size].view(np.uint16), kept)
    np.testing.assert_array_equal(out[256 + 2 * kept.size :], np.full(256 - 2 * kept.size, 0xA5, np.uint8))
