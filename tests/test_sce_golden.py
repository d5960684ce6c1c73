"""SoftmaxCrossEntropyWithLogits golden (§2): hand values, IEEE cases S23-S25, the spec listing, a float64 oracle."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from workbench import OPS, Case, golden, make_inputs
from workbench.core.dtypes import np_dtype
from workbench.ops.softmax_cross_entropy_with_logits.golden import softmax_cross_entropy_with_logits as sce
from workbench.ops.softmax_cross_entropy_with_logits.golden import softmax_cross_entropy_with_logits_f64 as sce64

OP = "softmax_cross_entropy_with_logits"
BF16 = ml_dtypes.bfloat16


def listing(x: np.ndarray, y: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The spec §2 golden, verbatim (unblocked, single-threaded)."""
    ax = -1 if layout == "ND" else 1
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        m = xf.max(axis=ax, keepdims=True)
        z = xf - m
        e = np.exp(z)
        s = e.sum(axis=ax, keepdims=True)
        loss = (yf * (np.log(s) - z)).sum(axis=ax)
        return loss.astype(x.dtype), (e / s - yf).astype(x.dtype)


def row(dtype: type, x: list[float], y: list[float]) -> tuple[np.ndarray, np.ndarray]:
    return sce(np.array([x], dtype), np.array([y], dtype))


def test_worked_row_fp32() -> None:
    loss, bp = row(np.float32, [1, 2, 3], [0, 0, 1])
    np.testing.assert_allclose(loss, [0.407606], rtol=1e-6)
    np.testing.assert_allclose(bp[0], [0.09003057, 0.24472846, -0.33475906], rtol=1e-6)
    loss, bp = row(np.float32, [1, 2, 3], [0.2, 0.3, 0.5])
    np.testing.assert_allclose(loss, [1.107606], rtol=1e-6)
    np.testing.assert_allclose(bp[0], [-0.10996943, -0.05527155, 0.16524094], rtol=1e-6)


@pytest.mark.parametrize(
    ("dtype", "loss", "bp"),
    [
        (np.float16, 0.4077, [0.09, 0.2448, -0.3347]),
        (BF16, 0.40820312, [0.08984375, 0.24511719, -0.33398438]),
    ],
)
def test_worked_row_low_precision(dtype: type, loss: float, bp: list[float]) -> None:
    got_loss, got_bp = row(dtype, [1, 2, 3], [0, 0, 1])
    assert got_loss.dtype == np.dtype(dtype) and got_bp.dtype == np.dtype(dtype)
    assert got_loss[0] == np.array(loss, np.float32).astype(dtype)  # the spec's digits name these exact values
    assert np.array_equal(got_bp[0], np.array(bp, np.float32).astype(dtype))


def test_s23_s25_non_finite() -> None:
    inf, nan = np.inf, np.nan
    x = np.array([[1, 2, 3, 4, 5, 6]] * 7, np.float32)
    y = np.zeros_like(x)
    y[:, 2] = 1
    x[1, 4] = nan  # S23: whole row NaN
    x[2, 0] = inf  # S23: inf - inf = NaN, whole row NaN
    x[3, 0] = -inf  # S24: label 0 on -inf -> 0 * inf = NaN loss, backprop finite
    x[4, 2] = -inf  # S24: label 1 on -inf -> +inf loss, backprop -1 there
    y[5, 0] = -inf  # S25: -inf label -> loss -inf, backprop +inf in that element only
    y[6, 1] = nan  # S25: NaN label -> NaN loss, NaN in that element only
    loss, bp = sce(x, y)
    assert np.isfinite(loss[0]) and np.isfinite(bp[0]).all()
    assert np.isnan(loss[1:3]).all() and np.isnan(bp[1:3]).all()
    assert np.isnan(loss[3]) and np.isfinite(bp[3]).all() and bp[3, 0] == 0
    assert loss[4] == inf and bp[4, 2] == -1 and np.isfinite(bp[4]).all()
    assert loss[5] == -inf and bp[5, 0] == inf and np.isfinite(np.delete(bp[5], 0)).all()
    assert np.isnan(loss[6]) and np.isnan(bp[6, 1]) and np.isfinite(np.delete(bp[6], 1)).all()
    for got, want in zip(sce(x, y), listing(x, y, "ND"), strict=True):
        np.testing.assert_array_equal(got, want)


def test_c_one_and_empty() -> None:
    x = np.array([[3.0], [np.nan], [-np.inf]], np.float32)
    y = np.array([[0.25], [1.0], [1.0]], np.float32)
    loss, bp = sce(x, y)
    assert loss[0] == 0 and bp[0, 0] == 0.75 and np.isnan(loss[1:]).all() and np.isnan(bp[1:]).all()
    for shape, layout, loss_shape in (
        ((0, 10), "ND", (0,)),
        ((0, 3, 4, 5), "NCHW", (0, 4, 5)),
        ((2, 3, 0, 5), "NCHW", (2, 0, 5)),
    ):
        loss, bp = sce(np.ones(shape, np.float16), np.ones(shape, np.float16), layout)
        assert loss.shape == loss_shape and bp.shape == shape
    for shape, layout, loss_shape in (((10, 0), "ND", (10,)), ((2, 0, 4, 5), "NCHW", (2, 4, 5))):  # DECISION-SCE-3
        loss, bp = sce(np.ones(shape, BF16), np.ones(shape, BF16), layout)
        assert loss.shape == loss_shape and (loss.astype(np.float32) == 0).all() and bp.shape == shape
        assert sce64(np.ones(shape), np.ones(shape), layout)[0].shape == loss_shape


CASES = [
    ((128, 10), "default"),
    ((64, 1000), "normal"),
    ((33, 17), "soft"),
    ((2, 3), "raw"),
    ((3, 7, 5, 13), "soft"),
    ((2, 3, 4, 5), "default"),
    ((256, 512), "large"),
    ((40, 6), "edges"),
    ((3, 9, 4, 4), "edges"),
    ((4, 1, 7, 9), "uniform"),
    ((7, 2000), "raw"),
    ((2, 600, 30, 30), "soft"),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize(("shape", "dist"), CASES)
def test_blocked_golden_equals_listing(shape: tuple[int, ...], dist: str, dtype: str) -> None:
    case = Case(OP, dtype, shape)
    inputs = make_inputs(case, seed=3, distribution=dist)
    out = golden(case, inputs)
    want = listing(inputs["features"], inputs["labels"], case.format)
    for name, w in zip(("loss", "backprop"), want, strict=True):
        assert out[name].dtype == w.dtype and out[name].shape == w.shape
        # same operations per row, so identical (NaN == NaN; bf16 NaN compared through float32)
        np.testing.assert_array_equal(out[name].astype(np.float32), w.astype(np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize(("shape", "dist"), [c for c in CASES if c[1] != "edges"])
def test_golden_against_float64_oracle(shape: tuple[int, ...], dist: str, dtype: str) -> None:
    case = Case(OP, dtype, shape)
    inputs = make_inputs(case, seed=5, distribution=dist)
    out = golden(case, inputs)
    ref = golden(case, inputs, oracle=True)
    # fp32: 10x inside the §5 fp32 gate (NCHW sums 600 classes sequentially); fp16/bf16: one output rounding
    ulp = {"float32": 1e-5, "float16": 2.0**-10, "bfloat16": 2.0**-7}[dtype]
    for name in ("loss", "backprop"):
        g, r = out[name].astype(np.float64), ref[name]
        with np.errstate(over="ignore"):  # S26 fp16: a loss above 65504 is inf in both
            same = g == r.astype(out[name].dtype).astype(np.float64)
        g, r = np.where(same, 0, g), np.where(same, 0, r)
        scale = np.abs(r) + (np.abs(ref["loss"]).max() if name == "loss" else 1.0) * 1e-3
        assert np.all(np.abs(g - r) <= ulp * scale + 1e-6), name


def test_threaded_equals_single() -> None:
    case = Case(OP, "fp32", (4096, 300))
    inputs = make_inputs(case, distribution="soft")
    one, two = golden(case, inputs, threads=1), golden(case, inputs, threads=2)
    for name in one:
        np.testing.assert_array_equal(one[name], two[name])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_inputs(dtype: str) -> None:
    spec = OPS[OP]
    assert spec.distributions[0] == "default"
    nd, nchw = Case(OP, dtype, (50, 7)), Case(OP, dtype, (2, 5, 3, 4))
    for dist in spec.distributions:
        for case in (nd, nchw):
            a = make_inputs(case, seed=1, distribution=dist)
            assert set(a) == {"features", "labels"}
            assert all(v.shape == case.shape and v.dtype == np_dtype(dtype) for v in a.values())
            b = make_inputs(case, seed=1, distribution=dist)
            assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    y = make_inputs(nchw)["labels"].astype(np.float32)
    assert np.array_equal(y.sum(axis=1), np.ones((2, 3, 4))) and set(np.unique(y)) == {0.0, 1.0}  # one-hot on axis 1
    soft = make_inputs(nd, distribution="soft")["labels"].astype(np.float32)
    np.testing.assert_allclose(soft.sum(axis=1), 1, rtol=2e-2)
    x = make_inputs(Case(OP, dtype, (64, 6)), distribution="edges")["features"].astype(np.float32)
    assert np.isnan(x).any() and np.isposinf(x).any() and np.isneginf(x).any()
    big = make_inputs(Case(OP, dtype, (256, 512)), distribution="large")["features"].astype(np.float32)
    assert np.isfinite(big).all() and np.abs(big).max() > 1e4


def test_non_contiguous_inputs_s21() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2000), dtype=np.float32)[:, ::2]
    y = np.ascontiguousarray(np.eye(1000, 64, dtype=np.float32)).T  # a transposed view, one-hot rows
    got = sce(x, y)
    want = listing(np.ascontiguousarray(x), np.ascontiguousarray(y), "ND")
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
