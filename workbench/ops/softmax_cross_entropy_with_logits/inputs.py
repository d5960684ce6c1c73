"""Seeded features/labels for SoftmaxCrossEntropyWithLogits (docs/ops/softmax_cross_entropy_with_logits.md §7).

Everything is drawn in float32 on the folded [A, C] view (row a = n*HW + p) and cast to the dtype
round-to-nearest-even; NCHW then moves the class axis to axis 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core._parallel import draw_blocks, scratch
from ...core.dtypes import np_dtype
from ...core.edges import edge_values
from ..cast.golden import cast

if TYPE_CHECKING:
    from ...planning.case import Case

DISTRIBUTIONS = ("default", "normal", "uniform", "soft", "raw", "edges", "large")


def _one_hot(rng: np.random.Generator, a: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    y = np.zeros((a, c), np.float32)
    hot = rng.integers(0, c, size=a) if c else np.zeros(a, np.int64)
    if c:
        y[np.arange(a), hot] = 1.0
    return y, hot


def _edges(rng: np.random.Generator, dtype: str, a: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    """S23-S25 row patterns cycling with the row index, plus rows filled with the dtype's finite edges."""
    x = _features(rng, "edges", dtype, a, c)
    y, hot = _one_hot(rng, a, c)
    if c == 0:
        return x, y
    rows = np.arange(a)
    other = (hot + 1) % c  # a label-0 position when c > 1
    kind = rows % 8
    x[kind == 1, 0] = np.nan  # S23: the whole row is NaN
    x[kind == 2, 0] = np.inf  # S23: inf - inf = NaN, the whole row is NaN
    x[rows[kind == 3], other[kind == 3]] = -np.inf  # S24: label 0 on a -inf logit -> NaN loss
    x[rows[kind == 4], hot[kind == 4]] = -np.inf  # S24: label 1 on a -inf logit -> +inf loss, backprop -1
    y[rows[kind == 5], other[kind == 5]] = -np.inf  # S25: NaN/inf only in that backprop element and the loss
    y[rows[kind == 6], other[kind == 6]] = np.nan
    table = edge_values(dtype).astype(np.float32)
    finite = table[np.isfinite(table)]
    edge_rows = rows[kind == 7]
    x[edge_rows] = np.resize(finite, (len(edge_rows), c))
    return x, y


def _scaled(gen: np.random.Generator, block: np.ndarray, scale: float, offset: float, uniform: bool) -> None:
    """block = offset + scale·(random() or standard_normal()) computed in float64, as numpy's uniform(lo, hi)
    (lo + (hi - lo)·random()) and normal(0, s) compute it; the float64 values in this thread's scratch."""
    u = scratch(block.size, np.float64, "draw")
    if uniform:
        gen.random(out=u)
    else:
        gen.standard_normal(out=u)
    u *= scale
    u += offset
    np.copyto(block, u, casting="same_kind")


def _features(rng: np.random.Generator, dist: str, dtype: str, a: int, c: int) -> np.ndarray:
    """[A, C] float32 logits in parallel blocks (_parallel.draw_blocks)."""
    x = np.empty((a, c), np.float32)

    def fill(gen: np.random.Generator, block: np.ndarray) -> None:
        if dist == "uniform":
            _scaled(gen, block, 20.0, -10.0, True)
        elif dist == "large" and dtype == "float16":  # S26: max-subtraction stability inside fp16's +-65504
            _scaled(gen, block, 1.2e5, -6e4, True)
        elif dist == "large":
            _scaled(gen, block, 1e4, 0.0, False)
        else:
            gen.standard_normal(out=block, dtype=np.float32)
            if dist == "normal":
                block *= np.float32(10)

    draw_blocks(rng, x, fill)
    return x


def _labels(rng: np.random.Generator, kind: str, a: int, c: int) -> np.ndarray:
    y = np.empty((a, c), np.float32)
    if kind == "soft":  # Dirichlet(1) rows: normalised standard exponentials
        draw_blocks(rng, y, lambda gen, block: gen.standard_exponential(out=block, dtype=np.float32))
        y /= np.maximum(y.sum(axis=1, keepdims=True), np.float32(np.finfo(np.float32).tiny))
    else:  # raw: uniform(0, 1)
        draw_blocks(rng, y, lambda gen, block: _scaled(gen, block, 1.0, 0.0, True))
    return y


def make_inputs(case: Case, rng: np.random.Generator, dist: str) -> dict[str, np.ndarray]:
    dtype, shape = case.dtypes[0], tuple(case.shape)
    nchw = case.format == "NCHW"
    c = shape[1]
    a = shape[0] * int(np.prod(shape[2:])) if nchw else shape[0]
    if dist == "edges":
        x, y = _edges(rng, dtype, a, c)
    else:
        x = _features(rng, dist, dtype, a, c)
        labels = {"soft": "soft", "raw": "raw"}.get(dist, "one-hot")
        y = _one_hot(rng, a, c)[0] if labels == "one-hot" else _labels(rng, labels, a, c)
    out = {}
    for name, v in (("features", x), ("labels", y)):
        # fp16 through the Cast golden's IEEE rounding (the same values): numpy's own f32 -> f16 cast is a scalar loop
        v = cast(v, "float32", "float16", "ieee") if dtype == "float16" else v.astype(np_dtype(dtype), copy=False)
        if nchw:
            n, _, h, w = shape
            v = np.ascontiguousarray(v.reshape(n, h, w, c).transpose(0, 3, 1, 2))
        out[name] = v.reshape(shape)
    return out
