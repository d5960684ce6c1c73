"""Issue 11, the APIs ascemu added and the CANN-strict build: outputs against numpy, and what must not compile.

apis/api_kernel.cpp (ours, in the style of CANN's examples) makes one documented call pattern per check: ReduceMin,
WholeReduceMin and the max/min register, BlockReduceSum/Max/Min and ReduceDataBlock, PairReduceSum and
ReducePairElem, RepeatReduceSum and ReduceRepeat, the ReduceSum register (GetReduceRepeatSumSpr), Copy, Transpose,
Axpy / MulAddDst / LeakyRelu / FusedMulAdd, Scatter, the scalar Cast / ToBfloat16 / ToFloat, SetPadValue,
SetAtomicMax / SetAtomicMin / SetAtomicType, CrossCoreSetFlag / CrossCoreWaitFlag, IBSet / IBWait, the mask forms of
Compare / Compares / Select and the CMPMASK register, the whole-tensor operators, Gather / CreateVecIndex /
ShiftLeft / ShiftRight mask forms and GatherMask's counter mode, the reductions in counter mode with the mask set
outside the call, GatherMask's footprint in counter mode, and a body chosen by __CCE_AICORE__.  Each check runs on
the SoCs CANN has the API for; where CANN refuses it at run time the check asserts ascemu's UNSUPPORTED_API.

apis/refused.cpp holds one call per `-DCASE=n` that CANN's compiler rejects on 310P or 910B; each must fail to
build here too, with the platform and the API in the message.
"""

from __future__ import annotations

import ctypes
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workbench.running.emu import In, Kernel, KernelRun, load
from workbench.running.emu.build import BuildError

APIS = Path(__file__).resolve().parent / "apis"
INCLUDE = APIS.parents[2] / "kernels" / "emu" / "include"
SOCS = {"ascend310p": "Ascend310P3", "ascend910b": "Ascend910B1"}
SENTINEL = 0xA5  # dst bytes a call must leave alone


class ApiCase(ctypes.Structure):
    """apis/api_kernel.cpp ApiCase."""

    _fields_ = [
        *((name, ctypes.c_int32) for name in ("id", "n", "p0", "p1", "p2")),
        ("f0", ctypes.c_float),
        *((name, ctypes.c_int32) for name in ("xb", "yb", "ob")),
    ]


CHECKS = [
    "REDUCE_MIN_COUNT",
    "REDUCE_MIN_MASK",
    "WHOLE_REDUCE_MIN",
    "WHOLE_REDUCE_ONLY_INDEX",
    "BLOCK_REDUCE",
    "PAIR_REDUCE",
    "REPEAT_REDUCE",
    "ACC_VAL",
    "COPY_MASK",
    "TRANSPOSE",
    "FUSED",
    "SCATTER",
    "SCALAR_CAST",
    "PAD_VALUE",
    "ATOMIC_MAX_MIN",
    "CROSS_CORE",
    "IB_CHAIN",
    "COMPARE_SELECT",
    "OPERATORS",
    "GATHER_INDEX_SHIFT",
    "GATHER_MASK_COUNTER",
    "RUNTIME_REFUSALS",
    "REDUCE_COUNTER",
    "GATHER_MASK_SMALL_SOURCE",
    "AICORE_GUARD",
]
ID = {name: i + 1 for i, name in enumerate(CHECKS)}


@pytest.fixture(scope="module")
def kernels() -> dict[str, Kernel]:
    """api_kernel.cpp built once per SoC (-O1, in the workbench build cache, so reruns are fast)."""
    loaded = {p: load(APIS / "api_kernel.cpp", "api_kernel", soc, opt="-O1") for p, soc in SOCS.items()}
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda k: k.built(), loaded.values()))
    return loaded


def _bytes(a: np.ndarray | None) -> np.ndarray:
    if a is None:
        return np.zeros(32, np.uint8)
    raw = np.ascontiguousarray(a).view(np.uint8).ravel()
    return np.concatenate([raw, np.zeros((-raw.size) % 32, np.uint8)])


def launch(
    kernel: Kernel,
    check: str,
    x: np.ndarray,
    y: np.ndarray | None = None,
    *,
    out_bytes: int = 1024,
    fill: int = SENTINEL,
    init: np.ndarray | None = None,
    block_dim: int = 1,
    **params: Any,
) -> tuple[KernelRun, np.ndarray, np.ndarray]:
    """One check of api_kernel.cpp: returns the run, out's bytes and aux (int64 scalar results)."""
    xb, yb = _bytes(x), _bytes(y)
    out = np.full(out_bytes, fill, np.uint8) if init is None else np.ascontiguousarray(init).view(np.uint8).copy()
    aux = np.zeros(8, np.int64)
    ws = np.zeros(4096, np.uint8)
    case = ApiCase(
        ID[check],
        params.get("n", 0),
        params.get("p0", 0),
        params.get("p1", 0),
        params.get("p2", 0),
        params.get("f0", 0.0),
        xb.size,
        yb.size if y is not None else 0,
        out_bytes,
    )
    run = kernel[block_dim](In(xb), In(yb), out, aux, In(ws), tiling=case)
    return run, out, aux


def loud(run: KernelRun) -> list[str]:
    return [str(d) for d in run.diagnostics if d.severity in ("warning", "error", "fatal")]


def clean(run: KernelRun) -> None:
    assert run.exit_code == 0 and not loud(run), loud(run)


def refused_at_run_time(run: KernelRun, api: str) -> None:
    hits = [d for d in run.diagnostics if d.kind == "UNSUPPORTED_API" and api in d.message]
    assert hits and hits[0].severity == "error", [str(d) for d in run.diagnostics]


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)


def same(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_array_equal(bits(actual), bits(np.asarray(expected, actual.dtype)))


RNG = np.random.default_rng(2026)


# ------------------------------------------------------------------------------------------------ reductions
@pytest.mark.parametrize("platform", SOCS)
def test_reduce_min_count_form_gives_value_and_first_index(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.integers(-300, 300, 2000).astype(np.float16)
    x[[700, 1500]] = -1000  # ties: the first index
    run, out, _ = launch(kernels[platform], "REDUCE_MIN_COUNT", x, n=2000)
    clean(run)
    assert out[:2].view(np.float16)[0] == -1000 and out[2:4].view(np.uint16)[0] == 700


@pytest.mark.parametrize("platform", SOCS)
def test_reduce_min_mask_form(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.normal(0, 10, 64 * 5).astype(np.float32)
    run, out, _ = launch(kernels[platform], "REDUCE_MIN_MASK", x, p0=40, p1=5)  # the first 40 lanes of 5 repeats
    clean(run)
    lanes = x.reshape(5, 64)[:, :40]
    r, i = np.unravel_index(np.argmin(lanes), lanes.shape)
    assert out[:4].view(np.float32)[0] == lanes.min() and out[4:8].view(np.uint32)[0] == r * 64 + i


@pytest.mark.parametrize("platform", SOCS)
def test_whole_reduce_min_and_the_max_min_register(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.integers(-500, 500, 128 * 3).astype(np.float16)
    run, out, aux = launch(kernels[platform], "WHOLE_REDUCE_MIN", x, p0=100, p1=3)
    clean(run)
    lanes = x.reshape(3, 128)[:, :100]
    res = out[: 3 * 4].view(np.float16).reshape(3, 2)
    same(res[:, 0], lanes.min(axis=1))
    np.testing.assert_array_equal(res[:, 1].view(np.uint16), lanes.argmin(axis=1))
    assert out[12] == SENTINEL  # nothing past the last pair
    assert aux[0] == np.float16(lanes.min()).view(np.uint16)
    if platform == "ascend910b":  # the 910B reads the index too: over every repeat
        r, i = np.unravel_index(np.argmin(lanes), lanes.shape)
        assert aux[1] == r * 128 + i


def test_whole_reduce_only_index_is_a_uint32_on_910b(kernels: dict[str, Kernel]) -> None:
    x = RNG.integers(-500, 500, 128 * 2).astype(np.float16)
    run, out, _ = launch(kernels["ascend910b"], "WHOLE_REDUCE_ONLY_INDEX", x, p0=128, p1=2)
    clean(run)
    np.testing.assert_array_equal(out[:8].view(np.uint32), x.reshape(2, 128).argmin(axis=1))


def test_whole_reduce_only_index_runs_as_index_value_on_310p(kernels: dict[str, Kernel]) -> None:
    """CANN checks the order only in debug builds; the 310P's vcmin then writes (index, value) pairs (issue 21)."""
    x = np.ones(256, np.float16)
    x[[5, 128 + 9]] = -2
    run, out, _ = launch(kernels["ascend310p"], "WHOLE_REDUCE_ONLY_INDEX", x, p0=128, p1=2)
    warned = [d for d in run.diagnostics if d.kind == "PARAM_RANGE"]
    assert run.exit_code == 0 and warned and warned[0].severity == "warning", loud(run)
    assert "WholeReduceMin order" in warned[0].message
    assert out[:8].view(np.uint16).tolist() == [5, 0xC000, 9, 0xC000]


def _block_tree(v: np.ndarray) -> np.ndarray:
    """Sum of each row as a binary tree of adjacent pairs, in half."""
    v = v.astype(np.float16)
    while v.shape[-1] > 1:
        v = (v[..., 0::2].astype(np.float32) + v[..., 1::2].astype(np.float32)).astype(np.float16)
    return v[..., 0]


@pytest.mark.parametrize("platform", SOCS)
def test_block_reductions(kernels: dict[str, Kernel], platform: str) -> None:
    x = (RNG.integers(-64, 64, 128 * 2) / 8).astype(np.float16)
    run, out, _ = launch(kernels[platform], "BLOCK_REDUCE", x, out_bytes=1024, p0=100, p1=2)
    clean(run)
    h = out.view(np.float16)
    blocks = x.reshape(2, 8, 16)
    on = np.arange(128).reshape(8, 16) < 100  # mask continuous 100: blocks 0-5 whole, block 6 partly, 7 off
    masked = np.where(on, blocks, np.float16(0))
    # dstRepStride 1 = 8 results: repeat r's blocks at r * 8; block 7 has no enabled lane and is not written
    same(h[:16].reshape(2, 8)[:, :7], _block_tree(masked)[:, :7])
    same(h[128:144].reshape(2, 8)[:, :7], np.where(on, blocks, -np.inf).max(axis=2)[:, :7])
    same(h[256:272].reshape(2, 8)[:, :7], np.where(on, blocks, np.inf).min(axis=2)[:, :7])
    assert (out.view(np.uint16)[[7, 15, 135, 143, 263, 271]] == 0xA5A5).all()
    # ReduceDataBlock<SUM>, bits: lanes 0-15, 32-63, 64-95 on: block 1 (lanes 16-31) and blocks 6, 7 off
    lane_on = np.zeros(128, bool)
    lane_on[[*range(16), *range(32, 96)]] = True
    sums = _block_tree(np.where(lane_on.reshape(8, 16), blocks, np.float16(0))).reshape(2, 8)
    got = h[384:400].reshape(2, 8)
    for blk in range(8):
        if lane_on.reshape(8, 16)[blk].any():
            same(got[:, blk], sums[:, blk])
        else:
            assert (got[:, blk].view(np.uint16) == 0xA5A5).all(), blk


@pytest.mark.parametrize("platform", SOCS)
def test_pair_reductions(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.normal(0, 4, 64 * 2).astype(np.float32)
    run, out, _ = launch(kernels[platform], "PAIR_REDUCE", x, out_bytes=2048, p0=64, p1=2)
    clean(run)
    f = out.view(np.float32)
    pairs = x.reshape(2, 32, 2)
    same(f[:32], pairs[0].sum(axis=1))  # dstRepStride 1 = 128 bytes: repeat 1 at element 32
    same(f[32:64], pairs[1].sum(axis=1))
    on = (np.arange(64) % 4 != 3).reshape(32, 2)  # mask 0x7777...: every 4th lane off
    part = np.where(on, pairs, np.float32(0)).sum(axis=2)
    same(f[256:320], part.ravel())


@pytest.mark.parametrize("platform", SOCS)
def test_repeat_reductions(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.integers(-1000, 1000, 64 * 3).astype(np.float32)
    run, out, _ = launch(kernels[platform], "REPEAT_REDUCE", x, out_bytes=1024, p0=50, p1=3)
    clean(run)
    f = out.view(np.float32)
    lanes = x.reshape(3, 64)[:, :50]
    same(f[:3], lanes.sum(axis=1))  # integers: exact in any order
    pairs = f[64:70].reshape(3, 2)
    same(pairs[:, 0], lanes.max(axis=1))
    np.testing.assert_array_equal(pairs[:, 1].view(np.uint32), lanes.argmax(axis=1))
    if platform == "ascend910b":
        same(f[128:131], lanes.min(axis=1))
    else:
        mins = f[128:134].reshape(3, 2)
        np.testing.assert_array_equal(mins[:, 0].view(np.uint32), lanes.argmin(axis=1))
        same(mins[:, 1], lanes.min(axis=1))


def test_reduce_sum_register_on_910b(kernels: dict[str, Kernel]) -> None:
    x = RNG.integers(-50, 50, 300).astype(np.float32)
    run, out, aux = launch(kernels["ascend910b"], "ACC_VAL", x, n=300)
    clean(run)
    assert aux[0] == np.float32(x.sum()).view(np.uint32) == out[:4].view(np.uint32)[0]


# ------------------------------------------------------------------------------------------------ copies and layout
def test_copy_mask_forms_on_910b(kernels: dict[str, Kernel]) -> None:
    x = np.arange(18 * 64, dtype=np.float32)
    run, out, _ = launch(kernels["ascend910b"], "COPY_MASK", x, out_bytes=4096)
    clean(run)
    f = out.view(np.float32)
    rows = x.reshape(18, 64)[:, :8]
    same(f[:144], rows.ravel())  # mask 8, dst repeat 1 block: the [18, 8] corner, packed
    same(f[256:400], rows.ravel())  # counter mode: 144 elements, src block stride 8: the same corner


def test_copy_is_refused_at_run_time_on_310p(kernels: dict[str, Kernel]) -> None:
    run, _, _ = launch(kernels["ascend310p"], "COPY_MASK", np.zeros(18 * 64, np.float32), out_bytes=4096)
    refused_at_run_time(run, "Copy")


@pytest.mark.parametrize("platform", SOCS)
def test_transposes(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.normal(size=256).astype(np.float16)
    c = 3
    y = np.arange(c * 32, dtype=np.uint16)  # NCHW with n 1, h 4, w 8
    run, out, _ = launch(kernels[platform], "TRANSPOSE", x, y, out_bytes=2048, p0=c)
    clean(run)
    same(out[:512].view(np.float16), x.reshape(16, 16).T.ravel())
    np.testing.assert_array_equal(
        out[512 : 512 + c * 64].view(np.uint16), y.reshape(1, c, 32).transpose(0, 2, 1).ravel()
    )


@pytest.mark.parametrize("platform", SOCS)
def test_fused_ops_accumulate_into_dst(kernels: dict[str, Kernel], platform: str) -> None:
    n = 64
    x = (RNG.integers(-40, 40, n) / 4).astype(np.float16)
    y = (RNG.integers(-40, 40, n) / 8).astype(np.float16)
    dst = np.zeros(5 * n, np.float32)
    dst[: 2 * n] = (RNG.integers(-100, 100, 2 * n) / 2).astype(np.float32)
    run, out, _ = launch(kernels[platform], "FUSED", x, y, out_bytes=dst.nbytes, init=dst, n=n, f0=0.25)
    clean(run)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    f = out.view(np.float32)
    same(f[:n], (0.25 * xf + dst[:n]).astype(np.float32))  # Axpy: dst += scalar * x
    same(f[n : 2 * n], (xf * yf + dst[n : 2 * n]).astype(np.float32))  # MulAddDst: dst += x * y
    same(f[3 * n : 4 * n], (xf * yf + xf).astype(np.float32))  # FusedMulAdd: dst = x * dst + x, dst = y
    leaky = np.where(xf >= 0, xf, 0.25 * xf).astype(np.float16)
    same(out.view(np.float16)[4 * n : 5 * n], leaky)


# ------------------------------------------------------------------------------------------------ scatter
@pytest.mark.parametrize("dtype", [np.float32, np.int32])  # int32: CANN lists it; ascemu refused it before issue 21
def test_scatter_on_310p(kernels: dict[str, Kernel], dtype: type) -> None:
    n = 64
    x = (RNG.normal(size=n) * 1000).astype(dtype)
    perm = RNG.permutation(n)
    offsets = (perm * 4).astype(np.uint32)
    run, out, _ = launch(kernels["ascend310p"], "SCATTER", x, offsets, out_bytes=n * 4, n=n, p0=int(dtype is np.int32))
    clean(run)
    expected = np.empty(n, dtype)
    expected[perm] = x
    np.testing.assert_array_equal(out.view(dtype), expected)


def test_scatter_is_refused_at_run_time_on_910b(kernels: dict[str, Kernel]) -> None:
    run, _, _ = launch(kernels["ascend910b"], "SCATTER", np.zeros(64, np.float32), np.zeros(64, np.uint32), n=64)
    refused_at_run_time(run, "Scatter")


# ------------------------------------------------------------------------------------------------ scalar Cast
def _f32_to_bf16_rne(x: np.ndarray) -> np.ndarray:
    b = x.view(np.uint32).astype(np.uint64)
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return np.where(np.isnan(x), 0x7FFF, rounded).astype(np.uint16)


@pytest.mark.parametrize("platform", SOCS)
def test_scalar_casts(kernels: dict[str, Kernel], platform: str) -> None:
    values = [2.5, -2.5, 3.5, 0.49999997, -7.75, 1e10, -1e10, 70000.0, 1.0009766, np.nan, 0.1, -0.1, 1e-8]
    x = np.array([*values, 65519.0, 2049.0, 3.0], np.float32)
    n = x.size
    run, out, _ = launch(kernels[platform], "SCALAR_CAST", x, out_bytes=7 * n * 4, fill=0, n=n)
    clean(run)
    o = out.view(np.int32)
    finite = np.nan_to_num(x, nan=0.0).astype(np.float64)
    sat = lambda v: np.clip(v, -(2**31), 2**31 - 1).astype(np.int64)  # noqa: E731
    np.testing.assert_array_equal(o[:n], np.where(np.isnan(x), 0, sat(np.rint(finite))))
    away = np.sign(finite) * np.floor(np.abs(finite) + 0.5)
    np.testing.assert_array_equal(o[n : 2 * n], np.where(np.isnan(x), 0, sat(away)))
    np.testing.assert_array_equal(o[2 * n : 3 * n], np.where(np.isnan(x), 0, sat(np.floor(finite))))
    np.testing.assert_array_equal(o[3 * n : 4 * n], np.where(np.isnan(x), 0, sat(np.ceil(finite))))
    odd = o[4 * n : 5 * n].astype(np.uint16)
    with np.errstate(over="ignore"):
        exact = x.astype(np.float16).astype(np.float32) == x
    assert (odd[exact] == x[exact].astype(np.float16).view(np.uint16)).all()
    inexact = ~exact & np.isfinite(x) & (np.abs(x) < 65504)
    assert (odd[inexact] & 1 == 1).all()  # round to odd: an inexact result has an odd significand
    assert odd[5] == 0x7BFF and odd[6] == 0xFBFF and odd[7] == 0x7BFF  # too large: ±65504, never inf
    if platform == "ascend910b":
        np.testing.assert_array_equal(o[5 * n : 6 * n].astype(np.uint16), _f32_to_bf16_rne(x))
        back = (_f32_to_bf16_rne(x).astype(np.uint32) << 16).view(np.float32)
        np.testing.assert_array_equal(o[6 * n : 7 * n].view(np.uint32), back.view(np.uint32))


# ------------------------------------------------------------------------------------------------ pad value
def test_set_pad_value_pads_data_copy_pad_on_910b(kernels: dict[str, Kernel]) -> None:
    rows, cols, right = 3, 10, 6  # 10 halves + 6 padding = one 32-byte block a row
    x = RNG.normal(size=rows * cols).astype(np.float16)
    run, out, _ = launch(kernels["ascend910b"], "PAD_VALUE", x, out_bytes=rows * 32, p0=cols, p1=rows, p2=right, f0=7.5)
    clean(run)
    got = out.view(np.float16).reshape(rows, 16)
    same(got[:, :cols], x.reshape(rows, cols))
    assert (got[:, cols:] == np.float16(7.5)).all()


# ------------------------------------------------------------------------------------------------ multi-core
def test_atomic_max_min_and_type_on_910b(kernels: dict[str, Kernel]) -> None:
    cores, n = 4, 64
    x = RNG.normal(0, 10, cores * n).astype(np.float32)
    y = RNG.normal(0, 10, cores * n).astype(np.float16)
    init = np.concatenate([np.full(n, -1e30, np.float32), np.full(n, 1e30, np.float32)]).view(np.uint8)
    halves = np.full(n, 60000, np.float16).view(np.uint8)
    out = np.concatenate([init, np.zeros(2 * n * 4, np.uint8), halves, np.zeros(64, np.uint8)])
    xb, yb = _bytes(x), _bytes(y)
    aux, ws = np.zeros(8, np.int64), np.zeros(4096, np.uint8)
    case = ApiCase(ID["ATOMIC_MAX_MIN"], 0, n, 0, 0, 0.0, xb.size, yb.size, out.size)
    run = kernels["ascend910b"][cores](In(xb), In(yb), out, aux, In(ws), tiling=case)
    clean(run)
    rows = x.reshape(cores, n)
    same(out[: n * 4].view(np.float32), rows.max(axis=0))
    same(out[n * 4 : 2 * n * 4].view(np.float32), rows.min(axis=0))
    same(out[4 * n * 4 : 4 * n * 4 + 2 * n].view(np.float16), np.minimum(y.reshape(cores, n).min(axis=0), 60000))


def test_cross_core_flags_order_every_core_on_910b(kernels: dict[str, Kernel]) -> None:
    cores = 4
    run, out, _ = launch(
        kernels["ascend910b"], "CROSS_CORE", np.zeros(8, np.float32), out_bytes=256, fill=0, block_dim=cores
    )
    clean(run)
    total = sum(c * 10 + 1 for c in range(cores))
    np.testing.assert_array_equal(out.view(np.int32)[:cores], [total] * cores)


@pytest.mark.parametrize("platform", SOCS)
def test_ib_set_ib_wait_chain(kernels: dict[str, Kernel], platform: str) -> None:
    cores = 4
    run, out, _ = launch(kernels[platform], "IB_CHAIN", np.zeros(8, np.float32), out_bytes=256, fill=0, block_dim=cores)
    clean(run)
    np.testing.assert_array_equal(out.view(np.int32)[:cores], np.cumsum(np.arange(1, cores + 1)))


# ------------------------------------------------------------------------------------------------ compare / select
@pytest.mark.parametrize("platform", SOCS)
def test_compare_select_mask_forms_and_cmpmask(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.integers(-20, 20, 128).astype(np.float32)
    y = RNG.integers(-20, 20, 128).astype(np.float32)
    run, out, _ = launch(kernels[platform], "COMPARE_SELECT", x, y, out_bytes=4096, f0=-99.0)
    clean(run)
    lt = x < y
    np.testing.assert_array_equal(out[:16], np.packbits(lt, bitorder="little"))  # every lane: the mask is unused
    np.testing.assert_array_equal(out[32:48], np.packbits(x > 0, bitorder="little"))
    le_bits = np.packbits(x[:64] <= y[:64], bitorder="little")
    np.testing.assert_array_equal(out[64:72], le_bits)
    f = out.view(np.float32)
    same(f[32:160], np.where(np.tile(lt[:64], 2), x, y))  # mode 0: the first 64 bits for every repeat
    same(f[160:288], np.where(lt, x, y))  # mode 2: repeat 1 takes selMask's bits 64-127
    got1 = f[288:416].reshape(2, 64)
    sel1 = np.where(lt, x, np.float32(-99)).reshape(2, 64)
    same(got1[:, :48], sel1[:, :48])  # mask 48: lanes 48-63 keep dst
    assert (got1[:, 48:].view(np.uint32) == 0xA5A5A5A5).all()
    le = x[:64] <= y[:64]
    same(f[416:544], np.where(np.tile(le, 2), x, y))  # the register's LE bits, every repeat


# ------------------------------------------------------------------------------------------------ operators
@pytest.mark.parametrize("platform", SOCS)
def test_whole_tensor_operators(kernels: dict[str, Kernel], platform: str) -> None:
    n = 128
    x = (RNG.integers(-64, 64, n) / 4).astype(np.float16)
    y = (RNG.integers(1, 64, n) / 4).astype(np.float16) * np.where(RNG.random(n) < 0.5, -1, 1).astype(np.float16)
    run, out, _ = launch(kernels[platform], "OPERATORS", x, y, out_bytes=4096, n=n)
    clean(run)
    h = out.view(np.float16)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    same(h[:n], (xd + yd).astype(np.float16))
    same(h[n : 2 * n], (xd * yd).astype(np.float16))
    same(h[2 * n : 3 * n], (xd / yd).astype(np.float16))
    same(h[3 * n : 4 * n], (xd - yd).astype(np.float16))
    np.testing.assert_array_equal(out[8 * n : 8 * n + n // 8], np.packbits(x < y, bitorder="little"))


# ------------------------------------------------------------------------------------------------ gather, index, shift
@pytest.mark.parametrize("platform", SOCS)
def test_gather_create_vec_index_shift_mask_forms(kernels: dict[str, Kernel], platform: str) -> None:
    x = RNG.integers(-1000, 1000, 128).astype(np.int16).view(np.float16)
    perm = RNG.permutation(128)
    run, out, _ = launch(
        kernels[platform], "GATHER_INDEX_SHIFT", x, (perm * 2).astype(np.uint32), out_bytes=2048, p0=100
    )
    clean(run)
    u = out.view(np.uint16)
    even = np.arange(128) % 2 == 0
    np.testing.assert_array_equal(u[:128][even], x.view(np.uint16)[perm][even])
    assert (u[:128][~even] == 0xA5A5).all()
    idx = out.view(np.float16)[128:384].reshape(2, 128)
    same(idx[:, :100], (5 + np.arange(256).reshape(2, 128))[:, :100].astype(np.float16))
    assert (idx[:, 100:].view(np.uint16) == 0xA5A5).all()
    odd = out.view(np.int16)[384:512]
    np.testing.assert_array_equal(odd[1::2], -3 + np.arange(128)[1::2])
    assert (odd[0::2].view(np.uint16) == 0xA5A5).all()
    if platform == "ascend910b":
        s = x.view(np.int16)
        np.testing.assert_array_equal(out.view(np.int16)[512:640], (s.astype(np.int32) << 3).astype(np.int16))
        shifted = (s >> 5) + ((s >> 4) & 1)  # roundEn: add the last bit shifted out
        got = out.view(np.int16)[640:768]
        np.testing.assert_array_equal(got[even], shifted[even])
        assert (got[~even].view(np.uint16) == 0xA5A5).all()


def test_gather_mask_counter_mode_on_910b(kernels: dict[str, Kernel]) -> None:
    x = np.arange(64 * 3, dtype=np.float32)
    run, out, aux = launch(kernels["ascend910b"], "GATHER_MASK_COUNTER", x, out_bytes=4096, p0=20, p1=3)
    clean(run)
    picked = x.reshape(3, 64)[:, :20]  # 20 elements of each of 3 repeats (910B's configuration 1)
    assert aux[0] == 60 and aux[1] == 30
    same(out.view(np.float32)[:60], picked.ravel())  # pattern 7: every element
    same(out.view(np.float32)[512:542], picked[:, 0::2].ravel())  # pattern 1: the even ones


@pytest.mark.parametrize("platform", SOCS)
@pytest.mark.parametrize(("n", "count"), [(16, 16), (16, 10)])
def test_gather_mask_counter_mode_reads_only_the_counted_elements(
    kernels: dict[str, Kernel], platform: str, n: int, count: int
) -> None:
    x = np.arange(1, 65, dtype=np.float32)
    run, out, aux = launch(kernels[platform], "GATHER_MASK_SMALL_SOURCE", x, n=n, p0=count)
    clean(run)  # a 64-byte source and 16 counted floats: no UB_TENSOR_OVERRUN
    assert aux[0] == (count + 1) // 2
    same(out.view(np.float32)[: aux[0]], x[:count:2])


@pytest.mark.parametrize("platform", SOCS)
def test_gather_mask_counter_mode_past_the_source_is_an_overrun(kernels: dict[str, Kernel], platform: str) -> None:
    run, _, _ = launch(kernels[platform], "GATHER_MASK_SMALL_SOURCE", np.ones(64, np.float32), n=16, p0=24)
    overruns = [d for d in run.diagnostics if d.kind == "UB_TENSOR_OVERRUN"]
    assert [(d.line, d.severity) for d in overruns] == [(line_of("gather-mask-small"), "error")], loud(run)


# ------------------------------------------------------------------------------------------------ counter mode
@pytest.mark.parametrize("platform", SOCS)
def test_reductions_in_counter_mode_span_repeats(kernels: dict[str, Kernel], platform: str) -> None:
    count = 150  # floats: repeats of 64, 64 and 22
    x = RNG.integers(-1000, 1000, 64 * 3).astype(np.float32)
    run, out, _ = launch(kernels[platform], "REDUCE_COUNTER", x, out_bytes=2048, p0=count)
    clean(run)
    f, u = out.view(np.float32), out.view(np.uint32)
    rows = [x[r * 64 : min(count, r * 64 + 64)] for r in range(3)]  # integers: every sum is exact
    same(f[:3], np.array([r.sum() for r in rows]))
    pairs = f[64:70].reshape(3, 2)
    same(pairs[:, 0], np.array([r.max() for r in rows]))
    np.testing.assert_array_equal(pairs[:, 1].view(np.uint32), [r.argmax() for r in rows])
    blocks = f[128:152].reshape(3, 8)
    for r, row in enumerate(rows):  # the tail's 22 floats fill blocks 0-2; its blocks 3-7 are not written
        sums = np.array([row[b : b + 8].sum() for b in range(0, row.size, 8)])
        same(blocks[r, : len(sums)], sums)
        assert (blocks[r, len(sums) :].view(np.uint32) == 0xA5A5A5A5).all(), r
    same(f[256:320], x[:128].reshape(64, 2).sum(axis=1))
    same(f[320:331], x[128:150].reshape(11, 2).sum(axis=1))
    assert (u[331:352] == 0xA5A5A5A5).all()


# ------------------------------------------------------------------------------------------------ __CCE_AICORE__
@pytest.mark.parametrize(("platform", "scale"), [("ascend310p", 3), ("ascend910b", 2)])
def test_a_body_chosen_by_cce_aicore_runs(kernels: dict[str, Kernel], platform: str, scale: int) -> None:
    x = RNG.integers(-100, 100, 64).astype(np.float32)
    run, out, _ = launch(kernels[platform], "AICORE_GUARD", x, n=64)
    clean(run)
    same(out.view(np.float32)[:64], x * scale)


# ------------------------------------------------------------------------------------------------ run-time refusals
RUN_TIME_REFUSALS = {  # platform: (tagged line, API named in the message)
    "ascend310p": [
        ("refused-atomic-max", "SetAtomicMax"),
        ("refused-atomic-min", "SetAtomicMin"),
        ("refused-pad-value", "SetPadValue"),
        ("refused-cross-core", "CrossCoreSetFlag"),
        ("refused-acc-val", "GetReduceRepeatSumSpr"),
        ("refused-copy", "Copy"),
        ("refused-shift", "ShiftLeft"),
    ],
    "ascend910b": [("refused-scatter", "Scatter"), ("refused-maxmin-value", "GetReduceRepeatMaxMinSpr")],
}


def line_of(tag: str) -> int:
    for i, text in enumerate((APIS / "api_kernel.cpp").read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


@pytest.mark.parametrize("platform", SOCS)
def test_what_cann_refuses_at_run_time_is_unsupported_api(kernels: dict[str, Kernel], platform: str) -> None:
    run, _, _ = launch(
        kernels[platform], "RUNTIME_REFUSALS", np.zeros(64, np.float32), np.zeros(64, np.uint32), out_bytes=256
    )
    refused = {d.line: d for d in run.diagnostics if d.kind == "UNSUPPORTED_API"}
    for tag, api in RUN_TIME_REFUSALS[platform]:
        d = refused.get(line_of(tag))
        assert d is not None and api in d.message and platform in d.message, (tag, [str(x) for x in run.diagnostics])
    assert len(refused) == len(RUN_TIME_REFUSALS[platform])


# ------------------------------------------------------------------------------------------------ compile-time refusals
BOTH = ("ascend310p", "ascend910b")
REFUSED = {  # tag in refused.cpp: (platforms CANN's compiler rejects it on, the API the message names)
    "add-uint8": (BOTH, "Add"),
    "exp-int32": (BOTH, "Exp"),
    "adds-uint8": (BOTH, "Adds"),
    "duplicate-bf16": (("ascend310p",), "Duplicate"),
    "cast-bf16-to-half": (BOTH, "Cast"),
    "cast-float-to-bf16": (("ascend310p",), "Cast"),
    "const-mask": (BOTH, "Add"),
    "exp-is-set-mask": (BOTH, "Exp"),
    "pad-mode": (BOTH, "DataCopyPad"),
    "dcci-dst": (("ascend310p",), "DataCacheCleanAndInvalid"),
    "subs": (BOTH, "Subs"),
    "divs": (BOTH, "Divs"),
    "copy-count": (BOTH, "Copy"),
    "scalar-bf16": (("ascend310p",), "Cast"),
    "reduce-repeat-types": (BOTH, "ReduceRepeat"),
    "cross-core-mode": (BOTH, "CrossCoreSetFlag"),
    "interleave": (BOTH, "Interleave"),
    "atomic-add": (BOTH, "AtomicAdd"),
}


def refused_line(tag: str) -> int:
    for i, text in enumerate((APIS / "refused.cpp").read_text().splitlines(), 1):
        if re.search(rf"// REFUSED:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


def errors_by_line(stderr: str) -> dict[int, list[str]]:
    """g++'s errors attributed to the refused.cpp line they come from: the line itself, or the `required from
    here` line of the instantiation that fails."""
    out: dict[int, list[str]] = {}
    pending = None
    for text in stderr.splitlines():
        if m := re.match(r".*refused\.cpp:(\d+):\d+:\s+required from here", text):
            pending = int(m.group(1))
        elif m := re.match(r".*refused\.cpp:(\d+):\d+: error: (.*)", text):
            out.setdefault(int(m.group(1)), []).append(m.group(2))
            pending = None
        elif pending is not None and (m := re.match(r".*: error: (.*)", text)):
            out.setdefault(pending, []).append(m.group(1))
            pending = None
    return out


@pytest.fixture(scope="module")
def refusals() -> dict[str, dict[int, list[str]]]:
    def compile_all(platform: str) -> dict[int, list[str]]:
        flags = ["-std=c++20", "-fsyntax-only", "-fmax-errors=0", f"-DASCEMU_PLATFORM={platform}", f"-I{INCLUDE}"]
        cmd = ["g++", *flags, str(APIS / "refused.cpp")]
        return errors_by_line(subprocess.run(cmd, capture_output=True, text=True, timeout=300).stderr)

    with ThreadPoolExecutor(2) as pool:
        return dict(zip(SOCS, pool.map(compile_all, SOCS), strict=True))


@pytest.mark.parametrize("platform", SOCS)
def test_what_cann_rejects_does_not_compile(refusals: dict[str, dict[int, list[str]]], platform: str) -> None:
    errors = refusals[platform]
    for tag, (platforms, api) in REFUSED.items():
        found = errors.get(refused_line(tag), [])
        if platform in platforms:
            assert any(api in e and platform in e for e in found), (tag, found)
        else:
            assert not found, (tag, found)
    assert set(errors) <= {refused_line(t) for t in REFUSED}, errors  # no error anywhere else


def test_a_refused_kernel_is_a_build_error_naming_platform_and_api() -> None:
    kernel = load(APIS / "refused.cpp", "refused", "Ascend910B1", defines={"ONLY": 7}, opt="-O1")
    with pytest.raises(BuildError) as e:
        kernel.built()
    assert "Add takes a non-const uint64_t mask[] on ascend910b" in str(e.value)
