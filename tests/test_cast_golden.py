"""Cast golden (cast.md §5): hand-computed T05-T12 values, every pair's edge table against an independent
scalar reference (Python ints/floats + struct), rne16 against numpy, "sat" vs "ieee", and inputs (§5.5)."""

from __future__ import annotations

import math
import struct

import ml_dtypes
import numpy as np
import pytest

from workbench.core.dtypes import NUMPY
from workbench.core.edges import edge_values
from workbench.core.errors import InvalidInput, UnknownName
from workbench.ops.cast import SPEC
from workbench.ops.cast.golden import cast, rne16
from workbench.ops.cast.tables import PAIRS
from workbench.planning.case import Case
from workbench.planning.pipeline import golden, make_inputs

PAIR_LIST = list(PAIRS)
FLOATS = ("float16", "float32", "bfloat16")
F32_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]


# -- independent scalar reference (§5.1/§5.2 written with Python ints and CPython's struct packing) ------
def _value(x: np.generic, src: str) -> float | int:
    if src == "bfloat16":  # BF16 bits are the top half of an f32
        return struct.unpack("<f", struct.pack("<I", int(np.array(x).view(np.uint16)) << 16))[0]
    return float(x) if src in FLOATS else int(x)


def _t(f: float) -> int:
    if math.isnan(f):
        return 0
    if f >= 2**31 - 1:
        return 2**31 - 1
    if f <= -(2**31):
        return -(2**31)
    return math.trunc(f)


def _f32(v: int) -> float:
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]  # |v| < 2^31: exact in double, one RNE to f32


def _f16(f: float, mode: str) -> float:
    if math.isnan(f):
        return 0.0 if mode == "sat" else math.nan
    try:
        h = struct.unpack("<e", struct.pack("<e", f))[0]  # CPython's own RNE half packing
    except OverflowError:
        h = math.copysign(math.inf, f)
    return math.copysign(65504.0, h) if (mode == "sat" and math.isinf(h)) else h


def _low32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


def reference(x: np.generic, src: str, dst: str, mode: str) -> float | int | bool:
    v = _value(x, src)
    if src in FLOATS:
        f = float(v)
        if dst == "float32":
            if src == "float16" and mode == "sat" and not math.isfinite(f):
                return 0.0 if math.isnan(f) else math.copysign(F32_MAX, f)
            return f
        if dst == "float16":
            return _f16(f, mode)
        if dst == "bool":
            return not (f == 0 or math.isnan(f))
        n = _t(f)
    else:
        n = int(v)
        if dst == "bool":
            return n != 0
        if dst in ("int8", "uint8"):
            pass  # I64 included: the low byte is exact for all 64 bits
        elif src == "int64":
            n = _low32(n)
        if dst == "float32":
            return _f32(n)
        if dst == "float16":
            return _f16(_f32(n), mode)
    if dst == "int16":
        return max(-32768, min(32767, n))
    if dst == "uint8":
        return n % 256
    if dst == "int8":
        return (n + 128) % 256 - 128
    return n  # int32 / int64


def _assert_matches(x: np.ndarray, got: np.ndarray, src: str, dst: str, mode: str) -> None:
    assert got.dtype == NUMPY[dst] and got.shape == x.shape
    for xi, gi in zip(x.reshape(-1), got.reshape(-1), strict=True):
        want = reference(xi, src, dst, mode)
        if dst in ("float16", "float32"):
            if isinstance(want, float) and math.isnan(want):
                assert np.isnan(gi), (src, dst, xi, gi)
                continue
            want_bits = np.array(want, NUMPY[dst]).view(f"u{NUMPY[dst].itemsize}")
            assert np.array(gi).view(want_bits.dtype) == want_bits, (src, dst, xi, gi, want)
        else:
            assert gi == want, (src, dst, xi, gi, want)


EXTRA = {  # T05-T09, T11, T12 values on top of the shared edge tables
    "float32": [
        1 + 2**-11,
        1 + 3 * 2**-11,
        65519.99,
        65520.0,
        128.5,
        -128.5,
        255.99,
        40000.7,
        1e-30,
        -1e-30,
        1e-9,
        2147483520.0,
        -2147483520.0,
        0.3,
        -0.7,
        2**24 + 2.0,
        2.0**40,
    ],
    "float16": [0.3, -0.7, 127.5, -127.5, 2**-14, -(2**-14), 2**-24],
    "bfloat16": [1e-30, -1e-30, 0.3, -0.7, 2.0**31 - 2.0**24, 40000.7],
    "int32": [2**24 + 1, 2**24 + 3, -2047, 1919, -2048, 1920, 2049, 2051, 40000, -40000, 65520, 65504],
    "int64": [2**24 + 1, 2**24 + 3, -(2**32) - 1, -(2**31) - 1, 2**31 - 2, -(2**31) + 2, 2**40, -(2**40), 65520],
    "int16": [2049, 2051, -2049, -2051],
}


def _inputs(src: str) -> np.ndarray:
    x = edge_values(src)
    extra = EXTRA.get(src, [])
    if src == "bfloat16":
        payloads = np.array([0x7FC1, 0xFF81, 0x7F81, 0x0001, 0x8001], np.uint16).view(ml_dtypes.bfloat16)
        x = np.concatenate([x, np.array(extra, np.float32).astype(ml_dtypes.bfloat16), payloads])
    elif extra:
        x = np.concatenate([x, np.array(extra, NUMPY[src])])
    return x


@pytest.mark.parametrize("mode", ["sat", "ieee"])
@pytest.mark.parametrize(("src", "dst"), PAIR_LIST, ids=[f"{s}-{d}" for s, d in PAIR_LIST])
def test_edge_tables_every_pair(src, dst, mode):
    x = _inputs(src)
    _assert_matches(x, cast(x, src, dst, mode), src, dst, mode)


# -- hand-computed values from §5 and T05-T12 ----------------------------------------------------------
def _one(src: str, dst: str, values, mode: str = "sat") -> np.ndarray:
    x = np.array(values, np.float32).astype(ml_dtypes.bfloat16) if src == "bfloat16" else np.array(values, NUMPY[src])
    return cast(x, src, dst, mode)


def test_t11_round_to_nearest_even():
    assert _one("float32", "float16", [1 + 2**-11, 1 + 3 * 2**-11]).tolist() == [1.0, 1 + 2**-9]
    assert _one("int16", "float16", [2049, 2051]).tolist() == [2048.0, 2052.0]
    for src in ("int32", "int64"):
        assert _one(src, "float32", [2**24 + 1, 2**24 + 3]).tolist() == [2.0**24, 2.0**24 + 4]
    for src in ("float16", "float32", "bfloat16"):
        assert _one(src, "int32", [0.5, -0.5, 1.5, -1.5, 2.5, -2.5]).tolist() == [0, 0, 1, -1, 2, -2]  # TRUNC


def test_t08_int64_boundaries():
    x = np.array([2**32, 2**32 + 1, -(2**63), 2**63 - 1, 2**31], np.int64)
    assert cast(x, "int64", "bool", "sat").tolist() == [True] * 5  # all 64 bits (D5)
    assert cast(x, "int64", "int32", "sat").tolist() == [0, 1, 0, -1, -(2**31)]
    assert cast(x, "int64", "uint8", "sat").tolist() == [0, 1, 0, 255, 0]
    assert cast(x, "int64", "float32", "sat").tolist() == [0.0, 1.0, 0.0, -1.0, -(2.0**31)]
    assert cast(np.array([40000, -(2**32) - 1], np.int64), "int64", "int16", "sat").tolist() == [32767, -1]


def test_t06_wrap_and_t07_saturation():
    f = [2147483520.0, 2.0**31, -(2.0**31), math.inf, -math.inf, math.nan, 128.5, -128.5, 255.99]
    assert _one("float32", "int8", f).view(np.uint8).tolist() == [0x80, 0xFF, 0x00, 0xFF, 0x00, 0, 128, 128, 255]
    assert _one("float32", "uint8", f).tolist() == [0x80, 0xFF, 0x00, 0xFF, 0x00, 0, 128, 128, 255]
    assert _one("int32", "int8", [-2047, 1919, -2048, 1920, 255, 256, -129]).tolist() == [1, 127, 0, -128, -1, 0, 127]
    assert _one("int16", "uint8", [-1, 256, 257, -32768]).tolist() == [255, 0, 1, 0]
    assert _one("int32", "int16", [40000, -40000, 2**31 - 1]).tolist() == [32767, -32768, 32767]  # D4
    assert _one("float32", "int16", [40000.7, -40000.7, math.nan]).tolist() == [32767, -32768, 0]
    assert _one("bfloat16", "int16", [65536.0, -65536.0]).tolist() == [32767, -32768]
    assert _one("float32", "int64", [2.0**40, -math.inf, 2147483520.0]).tolist() == [2**31 - 1, -(2**31), 2147483520]


def test_t12_bool():
    specials = [0.0, -0.0, math.nan, math.inf, -math.inf, 0.3, -0.7]
    for src in FLOATS:
        assert _one(src, "bool", specials).tolist() == [False, False, False, True, True, True, True]  # D11
    assert _one("float32", "bool", [1e-30, 1e-45]).tolist() == [True, True]
    assert _one("bfloat16", "bool", [1e-30]).tolist() == [True]
    assert _one("int8", "bool", [-5, 0, 1]).tolist() == [True, False, True]
    assert _one("int32", "bool", [-(2**31), 2**31 - 1, 0]).tolist() == [True, True, False]
    assert cast(np.array([0x7FC1, 0xFF81], np.uint16).view(ml_dtypes.bfloat16), "bfloat16", "bool").tolist() == [
        False,
        False,
    ]


def test_t05_float_specials_sat_and_ieee():
    x = [65520.0, -65520.0, 65519.99, math.inf, -math.inf, math.nan, F32_MAX]
    sat = _one("float32", "float16", x)
    assert sat.tolist()[:5] == [65504.0, -65504.0, 65504.0, 65504.0, -65504.0]
    assert sat[5] == 0 and not np.signbit(sat[5]) and sat[6] == 65504.0
    ieee = _one("float32", "float16", x, "ieee")
    assert ieee.tolist()[:5] == [math.inf, -math.inf, 65504.0, math.inf, -math.inf] and np.isnan(ieee[5])
    assert _one("float16", "float32", [math.inf, -math.inf, math.nan]).tolist() == [F32_MAX, -F32_MAX, 0.0]
    assert np.isinf(_one("float16", "float32", [math.inf], "ieee")).all()
    bf = np.array([0x7FC1, 0xFF81, 0x7F80, 0x8000], np.uint16).view(ml_dtypes.bfloat16)
    for mode in ("sat", "ieee"):  # no Cast hop: bit-exact in both modes
        assert cast(bf, "bfloat16", "float32", mode).view(np.uint32).tolist() == [
            0x7FC10000,
            0xFF810000,
            0x7F800000,
            0x80000000,
        ]
    assert _one("bfloat16", "float16", [math.inf, math.nan, 1e10]).tolist() == [65504.0, 0.0, 65504.0]
    assert _one("int32", "float16", [65520, -(2**31)]).tolist() == [65504.0, -65504.0]
    assert _one("int32", "float16", [65520], "ieee").tolist() == [math.inf]


def test_t15_golden_uses_bf16_values():
    case = Case("cast", ("bfloat16", "int32"), (1,))
    x = np.array([1.00390625 * 2**20], np.float32)  # 1 + 2^-8 is not a bf16: RNE drops it
    assert golden(case, {"x": x.astype(ml_dtypes.bfloat16)})["y"].tolist() == [2**20]
    with pytest.raises(InvalidInput, match=r"x.dtype: got 'float32'; allowed: bfloat16"):
        golden(case, {"x": x})


def test_golden_api_shapes_and_modes():
    case = Case("cast", ("int8", "float32"), (2, 3, 4))
    x = make_inputs(case, seed=1)["x"]
    y = SPEC.golden(case, {"x": x})["y"]
    assert y.shape == (2, 3, 4) and y.dtype == np.float32 and np.array_equal(y, x.astype(np.float32))
    assert SPEC.golden(Case("cast", ("float32", "bool"), (3, 0)), {"x": np.zeros((3, 0), np.float32)})["y"].shape == (
        3,
        0,
    )
    scalar = Case("cast", ("float32", "int8"), ())
    assert SPEC.golden(scalar, {"x": np.array(300.7, np.float32)})["y"].tolist() == 44
    with pytest.raises(UnknownName, match="mode: got 'fast'; allowed: sat, ieee"):
        SPEC.golden(case, {"x": x}, mode="fast")


def test_rne16_matches_numpy_on_ties_and_random_bits():
    h = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float32)  # every finite positive f16
    mid = (h[:-1].astype(np.float64) + h[1:]) / 2  # exact ties (in f32 up to 65504)
    bits = np.random.default_rng(0).integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    y = np.concatenate(
        [
            h,
            mid.astype(np.float32),
            np.nextafter(mid.astype(np.float32), 0),
            np.nextafter(mid.astype(np.float32), np.float32(np.inf)),
            bits.view(np.float32),
        ]
    )
    y = np.concatenate([y, -y])
    with np.errstate(all="ignore"):
        want = y.astype(np.float16)
    got = rne16(y, "ieee")
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got.view(np.uint16)[~nan], want.view(np.uint16)[~nan])


def test_large_chunked_path_matches_scalar_chunks():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(700_001) * 3e4).astype(np.float32)
    x[::9973] = np.nan
    x[5::7919] = np.inf
    for dst in ("float16", "int8", "bool", "int64"):
        whole = cast(x, "float32", dst)
        parts = np.concatenate([cast(x[i : i + 1000], "float32", dst) for i in range(0, x.size, 1000)])
        assert np.array_equal(whole.view(np.uint8), parts.view(np.uint8))


# -- inputs (§5.5) ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dist", SPEC.distributions)
@pytest.mark.parametrize(("src", "dst"), PAIR_LIST, ids=[f"{s}-{d}" for s, d in PAIR_LIST])
def test_inputs_deterministic_and_typed(src, dst, dist):
    case = Case("cast", (src, dst), (3, 257))
    a, b = make_inputs(case, seed=7, distribution=dist)["x"], make_inputs(case, seed=7, distribution=dist)["x"]
    assert a.dtype == NUMPY[src] and a.shape == (3, 257) and a.tobytes() == b.tobytes()
    if dist in ("default", "uniform", "normal") and src in FLOATS:
        assert np.isfinite(a.astype(np.float32)).all()
    if src == "bool":
        assert set(a.view(np.uint8).reshape(-1).tolist()) <= {0, 1}
    SPEC.golden(case, {"x": a})


def test_default_generator_windows():
    x = make_inputs(Case("cast", ("int32", "int8"), (50_000,)), seed=0)["x"]
    assert x.min() >= -2047 and x.max() <= 1919
    x = make_inputs(Case("cast", ("int64", "float32"), (50_000,)), seed=0)["x"]
    assert x.min() >= -(2**31) + 1 and x.max() <= 2**31 - 2
    x = make_inputs(Case("cast", ("int64", "int8"), (50_000,)), seed=0)["x"]
    assert 0.1 < np.mean(np.abs(x) > 2**31) < 0.3  # 20 % full int64 range
    x = make_inputs(Case("cast", ("float32", "bool"), (50_000,)), seed=0)["x"]
    assert 0.2 < np.mean(x == 0) < 0.3 and np.any(np.abs(x) == np.float32(1e-30))
    x = make_inputs(Case("cast", ("bfloat16", "int32"), (50_000,)), seed=0)["x"].astype(np.float32)
    assert np.abs(x).max() <= 2.0**31 - 2.0**24 and np.any(x % 1 == 0.5)
    x = make_inputs(Case("cast", ("float16", "uint8"), (50_000,)), seed=0)["x"]
    assert np.isfinite(x).all() and np.abs(x).max() > 256


def test_edges_and_exhaustive_distributions():
    x = make_inputs(Case("cast", ("float16", "int8"), (70_000,)), distribution="exhaustive")["x"]
    assert np.array_equal(x.view(np.uint16)[:65536], np.arange(65536, dtype=np.uint16))
    x = make_inputs(Case("cast", ("int8", "uint8"), (300,)), distribution="exhaustive")["x"]
    assert sorted(set(x.tolist())) == list(range(-128, 128))
    x = make_inputs(Case("cast", ("int16", "int32"), (1000,)), distribution="edges")["x"]
    assert set(edge_values("int16").tolist()) == set(x.tolist())
    x = make_inputs(Case("cast", ("float32", "int8"), (100_000,)), distribution="exhaustive")["x"]
    assert np.isnan(x).any() and (np.abs(x) > 2**31).any()  # random bit patterns for 32/64-bit sources


@pytest.mark.slow
@pytest.mark.parametrize("src", ["float16", "bfloat16", "int16", "int8", "uint8", "bool"])
def test_t10_exhaustive_all_targets(src):
    for dst in (d for s, d in PAIR_LIST if s == src):
        case = Case("cast", (src, dst), (65536,))
        x = make_inputs(case, distribution="exhaustive")["x"]
        for mode in ("sat", "ieee"):
            _assert_matches(x, SPEC.golden(case, {"x": x}, mode=mode)["y"], src, dst, mode)
