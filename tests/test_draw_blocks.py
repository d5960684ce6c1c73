"""Inputs drawn in parallel blocks (_parallel.draw_blocks): the values depend on (case, seed, distribution) only,
never on the number of workers, and an array of at most one block is exactly the one sequential numpy draw the
generators made before blocks (the stored replay records hold such arrays: data/records)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import workbench as wb
from workbench.ops.cast.inputs import _float_range, _quantize
from workbench.planning.pipeline import _stable_hash

par = importlib.import_module("workbench.core._parallel")
SCE = "softmax_cross_entropy_with_logits"
EDG = "embedding_dense_grad"


def rng_of(case: wb.Case, seed: int, dist: str) -> np.random.Generator:
    """The generator make_inputs hands the op (pipeline.make_inputs)."""
    return np.random.default_rng(np.random.SeedSequence([seed, _stable_hash(case.label()), _stable_hash(dist)]))


@pytest.mark.parametrize(
    ("case", "dist"),
    [
        (wb.Case("cast", ("float32", "float16"), (3 * par.DRAW_BLOCK + 5,)), "default"),
        (wb.Case("cast", ("int32", "int8"), (2 * par.DRAW_BLOCK + 1,)), "default"),
        (wb.Case(SCE, ("float32",), (100, 2 * par.DRAW_BLOCK // 100 + 7)), "soft"),
        (wb.Case(EDG, ("float32",), (4 * par.DRAW_BLOCK // 64, 64), attrs={"num_weights": 100}), "default"),
    ],
    ids=lambda x: x.op if isinstance(x, wb.Case) else x,
)
def test_blocks_do_not_depend_on_the_workers(case: wb.Case, dist: str, monkeypatch: pytest.MonkeyPatch) -> None:
    both = wb.make_inputs(case, 4, dist)
    monkeypatch.setattr(par, "WORKERS", 1)
    one = wb.make_inputs(case, 4, dist)
    assert all(one[k].tobytes() == both[k].tobytes() for k in both)
    big = max(both.values(), key=lambda v: v.size).reshape(-1)
    block = par.DRAW_BLOCK
    assert big[:block].tobytes() != big[block : 2 * block].tobytes()  # each block its own stream


def test_one_block_is_one_sequential_draw() -> None:
    c = wb.Case(SCE, ("float32",), (8, 100))
    rng = rng_of(c, 0, "default")
    x = rng.standard_normal((8, 100), dtype=np.float32)
    hot = rng.integers(0, 100, size=8)
    got = wb.make_inputs(c, 0)
    assert got["features"].tobytes() == x.tobytes() and np.array_equal(np.argmax(got["labels"], axis=1), hot)
    for dist, draw in [
        ("uniform", lambda r: r.uniform(-10.0, 10.0, (64, 50))),
        ("large", lambda r: r.normal(0.0, 1e4, (64, 50))),
        ("raw", lambda r: (r.standard_normal((64, 50), dtype=np.float32), r.uniform(0.0, 1.0, (64, 50)))[1]),
    ]:
        c = wb.Case(SCE, ("float32",), (64, 50))
        got = wb.make_inputs(c, 2, dist)["labels" if dist == "raw" else "features"]
        assert got.tobytes() == draw(rng_of(c, 2, dist)).astype(np.float32).tobytes(), dist

    c = wb.Case(EDG, ("float32",), (64, 24), attrs={"num_weights": 10})
    rng = rng_of(c, 1, "default")
    mu, sigma = rng.uniform(-100.0, 100.0), rng.uniform(1.0, 25.0)
    assert wb.make_inputs(c, 1)["grad"].tobytes() == rng.normal(mu, sigma, (64, 24)).astype(np.float32).tobytes()

    c = wb.Case("cast", ("bfloat16", "int32"), (5000,))
    r = _float_range("bfloat16", "int32")
    want = _quantize(rng_of(c, 3, "uniform").uniform(-r, r, 5000), "bfloat16")
    assert wb.make_inputs(c, 3, "uniform")["x"].tobytes() == want.tobytes()
    want = _quantize(rng_of(c, 3, "normal").standard_normal(5000) * 100.0, "bfloat16")
    assert wb.make_inputs(c, 3, "normal")["x"].tobytes() == want.tobytes()


@pytest.mark.parametrize(("src", "dst"), [("float32", "float16"), ("float16", "int8"), ("bfloat16", "int32")])
def test_cast_default_mixture(src: str, dst: str) -> None:
    """§5.5: 50 % N(0, 1)·100, 30 % U(-R, R), 20 % k + 0.5 / k + 0.25 with |k| < R."""
    x = wb.make_inputs(wb.Case("cast", (src, dst), (400_000,)), 9)["x"].astype(np.float64)
    r = _float_range(src, dst)
    frac = x - np.floor(x)
    assert np.abs(x).max() <= r and np.isfinite(x).all()
    if src == "float32":  # the fractions survive f32 rounding below 2^22
        assert 0.09 < np.mean(frac == 0.5) < 0.11 and 0.09 < np.mean(frac == 0.25) < 0.11
        normalish = np.abs(x) < 450  # the normal half, plus a sliver of the uniform and k parts
        assert 0.5 < np.mean(normalish) < 0.52 and 95 < x[normalish & (frac != 0.5) & (frac != 0.25)].std() < 105
    far = np.abs(x) > 0.5 * r  # only the uniform and k parts reach beyond 1000: half of their 50 %
    assert 0.24 < np.mean(far) < 0.26
