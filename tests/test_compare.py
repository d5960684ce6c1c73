"""workbench.judge.compare: the four standards at, just inside and just outside their thresholds, NaN/Inf rules,
ULP bookkeeping, worst-element ranking and the three renderings."""

from __future__ import annotations

import html
import json

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from workbench.core.errors import InvalidDtype, InvalidShape, UnknownName, WorkbenchError
from workbench.judge.compare import STANDARDS, Report, assert_close, compare

BF16 = ml_dtypes.bfloat16
NP = {"float16": np.float16, "float32": np.float32, "bfloat16": BF16}
FLOATS = list(NP)
BITS = {"float16": np.uint16, "float32": np.uint32, "bfloat16": np.uint16}


def arr(values, dtype: str) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(NP[dtype])


def step(x: float, dtype: str, n: int = 1) -> float:
    """The value n bit patterns above x (x >= 0) in dtype."""
    b = (arr([x], dtype).view(BITS[dtype]).astype(np.int64) + n).astype(BITS[dtype])
    return float(b.view(NP[dtype])[0])


def padded(a_val: float, g_val: float, dtype: str, n: int = 1, fill: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """n elements of (actual, expected) = (a_val, g_val), the rest exact."""
    a, g = arr([fill] * n, dtype), np.full(n, fill)
    a[0], g[0] = a_val, g_val
    return a, g


# ---- double_thousandth (§4.1) --------------------------------------------------------------------------------
DT = {"float16": 1e-3, "float32": 1e-4, "bfloat16": 4e-3}


@pytest.mark.parametrize("dtype", FLOATS)
def test_double_thousandth_abs_arm_at_and_outside(dtype):
    t = DT[dtype]
    # a = 0, g = T: err == T exactly (not > T) passes although rel ~ 1; one float64 step more fails.
    at = compare(arr([0.0], dtype), np.array([t]), dtype, "double_thousandth")
    out = compare(arr([0.0], dtype), np.array([np.nextafter(t, 1.0)]), dtype, "double_thousandth")
    assert at.passed and at.failed == 0 and at.thresholds == {"T": t, "budget": 0}
    assert not out.passed and out.failed == 1 and "budget 0" in out.verdict


@pytest.mark.parametrize("dtype", FLOATS)
def test_double_thousandth_rel_arm_inside_and_outside(dtype):
    t, a = DT[dtype], 1000.0  # 1000 is exact in all three dtypes; err = rel·1000 >> T
    inside = compare(arr([a], dtype), np.array([a * (1 - 0.9 * t)]), dtype, "double_thousandth")
    outside = compare(arr([a], dtype), np.array([a * (1 - 1.1 * t)]), dtype, "double_thousandth")
    assert inside.passed and inside.max_rel_err < t
    assert not outside.passed and outside.max_rel_err > t and outside.max_abs_err > t


@pytest.mark.parametrize(
    ("dtype", "numel", "budget"), [("float16", 2000, 2), ("float32", 20000, 2), ("bfloat16", 1000, 4)]
)
def test_double_thousandth_error_budget(dtype, numel, budget):
    def run(bad: int) -> Report:
        a, g = padded(2.0, 1.0, dtype, numel)
        a[:bad] = 2.0
        g[:bad] = 1.0
        return compare(a, g, dtype, "double_thousandth")

    full, over = run(budget), run(budget + 1)
    assert full.passed and full.failed == budget and full.metrics == {"budget": budget, "budget_used": budget}
    assert f"error budget floor({DT[dtype]:g}·{numel}) = {budget}, used {budget}" in full.verdict
    assert not over.passed and over.failed == budget + 1 and f"{budget + 1} failing > budget {budget}" in over.verdict


def test_default_standard_by_dtype():
    assert compare(arr([1.0], "float16"), np.array([1.0]), "fp16").standard == "double_thousandth"
    assert compare(np.array([1], np.int32), np.array([1], np.int32), "int32").standard == "exact"


# ---- single_benchmark (§4.3, cast.md D18) ---------------------------------------------------------------------
SB = {"float16": (2.0**-10, 2.0**-16), "bfloat16": (2.0**-7, 2.0**-16), "float32": (2.0**-13, 2.0**-30)}


@pytest.mark.parametrize("dtype", FLOATS)
def test_single_benchmark_mare(dtype):
    t = SB[dtype][0]
    at = 1 + 10 * t  # exact in each dtype; the +1e-7 in the denominator keeps rel just under 10·T

    def run(v: float) -> Report:
        return compare(*padded(v, 1.0, dtype, 100), dtype, "single_benchmark")

    assert run(step(at, dtype, -1)).passed
    r = run(at)
    assert r.passed and r.mare < 10 * t and r.mere < t
    r = run(step(at, dtype))
    assert not r.passed and r.mare > 10 * t and r.failed == 1 and "MARE" in r.verdict.split("because")[1]


@pytest.mark.parametrize("dtype", FLOATS)
def test_single_benchmark_mere(dtype):
    t = SB[dtype][0]

    def run(v: float) -> Report:
        return compare(arr([v] * 4, dtype), np.ones(4), dtype, "single_benchmark")

    assert run(step(1 + t, dtype, -1)).passed
    r = run(1 + t)
    assert r.passed and r.mere < t
    r = run(step(1 + t, dtype))
    assert not r.passed and r.mere > t and r.failed == 0 and "MERE" in r.verdict.split("because")[1]


@pytest.mark.parametrize("dtype", FLOATS)
def test_single_benchmark_small_values(dtype):
    lim = SB[dtype][1]  # |g| < s: absolute limit instead of rel
    inside = compare(arr([lim / 2, 3.0], dtype), np.array([0.0, 3.0]), dtype, "single_benchmark")
    at = compare(arr([lim, 3.0], dtype), np.array([0.0, 3.0]), dtype, "single_benchmark")
    out = compare(arr([step(lim, dtype), 3.0], dtype), np.array([0.0, 3.0]), dtype, "single_benchmark")
    assert inside.passed and at.passed and at.metrics["small_count"] == 1
    assert not out.passed and out.failed == 1 and out.metrics["small_fail"] == 1
    assert out.worst[0].flat == 0 and "small value" in out.verdict


def test_single_benchmark_all_small():
    r = compare(arr([0.0, 0.0], "float32"), np.zeros(2), "float32", "single_benchmark")
    assert r.passed and r.mere == 0.0 and "no element with |g| >= s" in r.verdict


# ---- mixed_tolerance (§4.4) -----------------------------------------------------------------------------------
MT = {"float16": (2.0**-9, 2.0**-9, 1e-1), "bfloat16": (2.0**-6, 2.0**-6, 1e0), "float32": (2.0**-10, 2.0**-16, 1e-2)}
# golden whose 32·ULP exceeds the floor: fp16 1024 (ULP 1), bf16 4096 (ULP 32), fp32 2^20 (ULP 2^-3)
BIG = {"float16": (1024.0, 32.0), "bfloat16": (4096.0, 1024.0), "float32": (2.0**20, 4.0)}


@pytest.mark.parametrize("dtype", FLOATS)
def test_mixed_tolerance_element_rule(dtype):
    rtol, atol, _ = MT[dtype]
    at = 1 + atol + rtol  # |a-g| == atol + rtol·|g| at g = 1, exact in each dtype
    assert compare(arr([step(at, dtype, -1)], dtype), np.ones(1), dtype, "mixed_tolerance").passed
    r = compare(arr([at], dtype), np.ones(1), dtype, "mixed_tolerance")
    assert r.passed and r.failed == 0
    r = compare(arr([step(at, dtype)], dtype), np.ones(1), dtype, "mixed_tolerance")
    assert not r.passed and r.failed == 1 and "matched_ratio 0.000000 < 0.99" in r.verdict


@pytest.mark.parametrize("dtype", FLOATS)
def test_mixed_tolerance_matched_ratio(dtype):
    rtol, atol, _ = MT[dtype]
    bad = step(1 + atol + rtol, dtype)  # fails its element, far below the max-abs floor
    a, g = padded(bad, 1.0, dtype, 100)
    r = compare(a, g, dtype, "mixed_tolerance")
    assert r.passed and r.failed == 1 and r.metrics["matched_ratio"] == pytest.approx(0.99)
    a[1] = bad
    r = compare(a, g, dtype, "mixed_tolerance")
    assert not r.passed and r.failed == 2 and "matched_ratio 0.980000 < 0.99" in r.verdict


@pytest.mark.parametrize("dtype", FLOATS)
def test_mixed_tolerance_max_abs_32ulp(dtype):
    g, lim = BIG[dtype]
    r = compare(*padded(g + lim, g, dtype, 100, fill=g), dtype, "mixed_tolerance")
    # fp32's element tolerance (2^-10·|g|) is wider than 32 ULP, so there the element itself passes
    bad = 0 if dtype == "float32" else 1
    assert r.passed and r.failed == bad and r.metrics["max_abs_limit"] == lim and r.metrics["g_low"] == g
    r = compare(*padded(step(g + lim, dtype), g, dtype, 100, fill=g), dtype, "mixed_tolerance")
    assert not r.passed and r.failed == bad and "max_abs_error" in r.verdict.split("because")[1]


@pytest.mark.parametrize("dtype", FLOATS)
def test_mixed_tolerance_floor(dtype):
    floor = MT[dtype][2]
    a, g = padded(0.5 + 2 * floor, 0.5, dtype, 1000, fill=0.5)  # 32·ULP(0.5) < floor in every dtype
    r = compare(a, g, dtype, "mixed_tolerance")
    assert not r.passed and r.metrics["max_abs_limit"] == floor and r.metrics["matched_ratio"] == pytest.approx(0.999)


# ---- exact, NaN and Inf ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_exact_floats(dtype):
    x = arr([1.0, -2.5, 0.0, np.inf], dtype)
    assert compare(x, x.copy(), dtype, "exact").passed
    y = x.copy()
    y[1] = step(2.5, dtype) * -1  # one ulp away
    r = compare(y, x, dtype, "exact")
    assert not r.passed and r.failed == 1 and r.max_ulp == 1 and r.worst[0].index == (1,)
    z = x.copy()
    z[2] = -0.0  # same value, different bits: fails exact, ulp 0
    r = compare(z, x, dtype, "exact")
    assert not r.passed and r.ulp0 == 4 and r.bit_exact_ratio == 0.75


def test_exact_nan_payloads_equal():
    a = np.array([0x7FC1, 0xFF81, 0x3F80], np.uint16).view(BF16)
    g = np.array([0x7FC0, 0x7FC0, 0x3F80], np.uint16).view(BF16)
    r = compare(a, g, "bfloat16", "exact")
    assert r.passed and r.bit_exact_ratio == 1.0 and r.nan_mismatch == 0


@pytest.mark.parametrize("standard", STANDARDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_position_mismatch_fails(dtype, standard):
    a, g = arr(np.ones(10000), dtype), np.ones(10000)  # a budget of >= 1 element would otherwise absorb it
    a[7] = np.nan
    r = compare(a, g, dtype, standard)
    assert not r.passed and r.nan_mismatch == 1 and r.failed >= 1 and r.worst[0].flat == 7
    g[7] = np.nan
    assert compare(a, g, dtype, standard).passed
    g[7], g[8] = 1.0, np.nan
    a[7] = 1.0
    assert compare(a, g, dtype, standard).nan_mismatch == 1


@pytest.mark.parametrize("standard", STANDARDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_inf_rules(dtype, standard):
    big = float(ml_dtypes.finfo(NP[dtype]).max)
    g = np.array([np.inf, -np.inf, 1.0] + [1.0] * 9997)
    assert compare(arr(g, dtype), g, dtype, standard).passed  # matched ±Inf pairs are equal
    for a0, g0 in [(-np.inf, np.inf), (np.inf, big), (big, np.inf)]:  # sign flip, one-sided both ways
        a, gg = arr(g, dtype), g.copy()
        a[0], gg[0] = a0, g0
        r = compare(a, gg, dtype, standard)
        assert not r.passed and r.inf_mismatch == 1 and r.nan_mismatch == 0 and r.worst[0].flat == 0
        assert "NaN/Inf" in r.verdict and r.worst[0].abs_err == np.inf


# ---- integers and bool ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("standard", STANDARDS)
def test_integer_one_off_fails(dtype, standard):
    info = np.iinfo(dtype)
    g = np.array([info.min, 0, info.max, 5], dtype)
    a = g.copy()
    assert compare(a, g, dtype, standard).passed
    a[3] = 6
    r = compare(a, g, dtype, standard)
    assert not r.passed and r.failed == 1 and r.standard == "exact" and r.ulp1 == 1
    assert (standard == "exact") != any("compared bit-exactly" in n for n in r.notes)
    assert r.worst[0].expected == 5 and r.worst[0].actual == 6 and isinstance(r.worst[0].actual, int)


def test_int64_extremes_distance_is_exact():
    g = np.array([np.iinfo(np.int64).min, 2**53], np.int64)
    a = np.array([np.iinfo(np.int64).max, 2**53 + 1], np.int64)
    r = compare(a, g, "int64")
    assert r.failed == 2 and r.max_ulp == np.iinfo(np.int64).max and r.ulp1 == 1


def test_bool():
    g = np.array([True, False, True])
    assert compare(g.copy(), g, "bool").passed
    r = compare(np.array([True, True, True]), g, "bool", "double_thousandth")
    assert not r.passed and r.failed == 1 and r.worst[0].index == (1,) and r.worst[0].expected == 0


# ---- bf16 upcast and ULP ---------------------------------------------------------------------------------------
def test_bf16_upcast():
    a = np.array([1 + 2**-7, 3.0], BF16)
    r = compare(a, np.array([1.0, 3.0], BF16), "bf16", "exact")
    assert r.dtype == "bfloat16" and r.max_abs_err == 2**-7 and r.max_ulp == 1 and r.worst[0].actual == 1 + 2**-7
    r = compare(
        a, np.array([1.0, 3.0]), "bfloat16", "double_thousandth"
    )  # float64 golden: noted, not narrowed for errors
    assert r.max_abs_err == 2**-7 and any("float64" in n for n in r.notes)


@pytest.mark.parametrize("dtype", FLOATS)
def test_ulp_counts(dtype):
    tiny = step(0.0, dtype)  # smallest subnormal
    big = float(ml_dtypes.finfo(NP[dtype]).max)
    g = arr([1.0, 1.0, 1.0, 0.0, -tiny, 1.5, big], dtype)
    a = arr([1.0, step(1.0, dtype), step(1.0, dtype, 3), -0.0, tiny, 1.5, np.inf], dtype)
    r = compare(a, g, dtype, "exact")
    # ulps: 0, 1, 3, 0 (-0 vs +0), 2 (across zero), 0, 1 (max -> inf)
    assert (r.ulp0, r.ulp1, r.ulp_gt1, r.max_ulp) == (3, 2, 2, 3)
    assert r.mean_ulp == pytest.approx(7 / 7)
    assert {e.flat: e.ulp for e in r.worst} == {0: 0, 1: 1, 2: 3, 3: 0, 4: 2, 5: 0, 6: 1}


def test_ulp_with_nan_is_undefined():
    r = compare(arr([np.nan, 1.0], "float32"), np.array([1.0, 1.0]), "float32", "exact")
    assert r.worst[0].ulp is None and r.ulp0 == 1 and r.max_ulp == 0


def test_float32_nextafter_neighbours():
    g = np.linspace(-3, 3, 1001, dtype=np.float32)
    a = np.nextafter(g, np.float32(np.inf))
    r = compare(a, g, "float32", "exact")
    assert r.ulp1 == 1001 and r.max_ulp == 1 and r.mean_ulp == 1.0 and r.bit_exact_ratio == 0.0


# ---- worst elements, callbacks, rendering ---------------------------------------------------------------------
def _nd_case():
    g = np.ones((3, 4, 5))
    a = g.astype(np.float32)
    a[2, 3, 4] = 1.5  # fails
    a[0, 1, 2] = 1.2  # fails, smaller
    a[1, 0, 0] = 1 + 5e-5  # passes, the largest passing error
    return a, g


def test_worst_ordering_and_nd_index():
    a, g = _nd_case()
    r = compare(a, g, "float32", "double_thousandth", worst=3)
    assert [e.index for e in r.worst] == [(2, 3, 4), (0, 1, 2), (1, 0, 0)]
    assert [e.flat for e in r.worst] == [int(np.ravel_multi_index(e.index, a.shape)) for e in r.worst]
    assert r.worst[0].abs_err == 0.5 and r.worst[0].expected == 1.0 and r.worst[0].actual == 1.5
    assert len(compare(a, g, "float32", worst=0).worst) == 0
    assert len(compare(a, g, "float32", worst=100).worst) == 60  # no duplicates when n > numel
    assert len({e.flat for e in compare(a, g, "float32", worst=100).worst}) == 60


def test_worst_on_large_array_uses_sampling_correctly():
    g = np.zeros(1 << 18)
    a = np.zeros(1 << 18, np.float32)
    hot = [5, 77777, 200000, 262143]
    a[hot] = [1e-5, 3e-5, 2e-5, 4e-5]  # all passing under double_thousandth fp32
    r = compare(a, g, "float32", worst=6)
    assert [e.flat for e in r.worst] == [262143, 77777, 200000, 5, 0, 1]  # then ties by position


def test_inputs_and_locate_callbacks():
    a, g = _nd_case()
    seen = []

    def inputs(index):
        seen.append(index)
        return {"x": np.float32(index[0]), "label": int(index[2])}

    r = compare(a, g, "float32", name="loss", inputs=inputs, locate=lambda flat: f"core {flat % 8}", worst=2)
    assert seen == [(2, 3, 4), (0, 1, 2)]
    assert r.worst[0].inputs == {"x": 2.0, "label": 4} and r.worst[0].location == "core 3"
    assert "core 3" in r.text() and "label=4" in r.text()


def test_text_html_json():
    a, g = _nd_case()
    a[0, 0, 0] = np.nan
    r = compare(a, g, "float32", "double_thousandth", name="<out&>", locate=lambda f: "<tile 0>", mode="inf_nan")
    text = r.text()
    assert text.startswith("FAIL <out&> [float32 3x4x5] mode=inf_nan double_thousandth (T=0.0001 budget=0)")
    for fact in ["failed 3/60", "nan_mismatch 1", "max_abs_err 0.5", "bit_exact", "ulp=1:", "(2, 3, 4)", "verdict"]:
        assert fact in text
    page = r._repr_html_()
    assert "&lt;out&amp;&gt;" in page and "&lt;tile 0&gt;" in page and "<out&>" not in page and "<tile" not in page
    d = r.to_json()
    s = json.dumps(d, allow_nan=False)
    assert d["passed"] is False and d["worst"][0]["index"] == [0, 0, 0] and d["worst"][0]["actual"] == "nan"
    assert d["worst"][0]["abs_err"] == "inf" or d["worst"][0]["abs_err"] == "nan"
    assert '"standard": "double_thousandth"' in s and d["thresholds"] == {"T": 1e-4, "budget": 0}
    inf = compare(arr([-np.inf], "float16"), np.array([np.inf]), "float16").to_json()
    assert inf["worst"][0]["actual"] == "-inf" and inf["worst"][0]["expected"] == "inf"
    assert "PASS" in html.unescape(compare(a, a.copy(), "float32", "exact")._repr_html_())


def test_bool_and_assert_close():
    x = arr([1.0, 2.0], "float16")
    assert bool(compare(x, x, "float16")) and assert_close(x, x, "float16").passed
    with pytest.raises(AssertionError, match=r"(?s)FAIL out .*failed 1/2"):
        assert_close(arr([1.0, 3.0], "float16"), x, "float16", "mixed_tolerance")


def test_empty_and_scalar():
    e = compare(np.zeros((3, 0), np.float32), np.zeros((3, 0), np.float32), "float32", "single_benchmark")
    assert e.passed and e.numel == 0 and e.bit_exact_ratio == 1.0
    s = compare(np.float16(2.0), np.float16(3.0), "float16", "exact")
    assert not s.passed and s.worst[0].index == () and "scalar" in s.text()


# ---- rejections -----------------------------------------------------------------------------------------------
def test_bad_standard_name():
    with pytest.raises(
        UnknownName,
        match="standard: got 'double_thousand'; allowed: exact, double_thousandth, single_benchmark, mixed_tolerance",
    ):
        compare(np.ones(2), np.ones(2), "float32", "double_thousand")


def test_shape_mismatch():
    with pytest.raises(InvalidShape, match=r"actual.shape: got \(2, 3\); allowed: the expected .* shape \(3, 2\)"):
        compare(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), "float32")


def test_bad_dtype_and_worst():
    with pytest.raises(InvalidDtype, match="dtype: got 'float8'"):
        compare(np.ones(2), np.ones(2), "float8")
    with pytest.raises(InvalidDtype, match=r"actual\.dtype: got 'complex128'"):
        compare(np.ones(2, complex), np.ones(2), "float32")
    with pytest.raises(WorkbenchError, match="worst: got -1"):
        compare(np.ones(2), np.ones(2), "float32", worst=-1)


# ---- scale and properties -------------------------------------------------------------------------------------
def test_16m_fp32_completes():
    rng = np.random.default_rng(0)
    g = rng.standard_normal(1 << 24, dtype=np.float32)
    a = g.copy()
    a[12345] = np.nextafter(a[12345], np.float32(np.inf))
    a[54321] += 1.0
    for standard in STANDARDS:
        r = compare(a, g, "float32", standard)
        assert r.numel == 1 << 24 and r.worst[0].flat == 54321 and r.ulp1 == 1
        assert r.failed == (2 if standard == "exact" else 1)  # the 1-ulp neighbour fails only bit-exactness
        # one bad element fits the 1e-4 budget; MARE, mixed max-abs and exact reject it
        assert r.passed == (standard == "double_thousandth")


def _finite_arrays(dtype: str):
    lim = {"float16": 6e4, "bfloat16": 1e30, "float32": 1e30}[dtype]
    return hnp.arrays(
        np.float64, hnp.array_shapes(max_dims=3, max_side=6), elements=st.floats(-lim, lim, allow_nan=False)
    ).map(lambda x: x.astype(NP[dtype]))


@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_property_self_compare_passes(dtype, data):
    x = data.draw(_finite_arrays(dtype))
    for standard in STANDARDS:
        r = compare(x, x.copy(), dtype, standard)
        assert r.passed and r.failed == 0 and r.max_ulp == 0
    i = data.draw(st.integers(0, x.size - 1))
    y = x.copy().reshape(-1)
    y.view(BITS[dtype])[i] += 1  # the next bit pattern: one ulp further from zero (or -0 -> -min subnormal)
    r = compare(y.reshape(x.shape), x, dtype, "exact")
    assert not r.passed and r.failed == 1 and r.worst[0].flat == i


@settings(max_examples=60, deadline=None)
@given(
    x=hnp.arrays(st.sampled_from([np.int8, np.uint8, np.int16, np.int32, np.int64]), hnp.array_shapes(max_dims=3)),
    data=st.data(),
)
def test_property_integer_perturbation(x, data):
    dtype = x.dtype.name
    assert compare(x, x.copy(), dtype, data.draw(st.sampled_from(STANDARDS))).passed
    i = data.draw(st.integers(0, x.size - 1))
    y = x.copy().reshape(-1)
    y[i] = y[i] - 1 if y[i] != np.iinfo(x.dtype).min else y[i] + 1
    r = compare(y.reshape(x.shape), x, dtype, data.draw(st.sampled_from(STANDARDS)))
    assert not r.passed and r.failed == 1 and r.max_ulp == 1 and r.worst[0].flat == i
