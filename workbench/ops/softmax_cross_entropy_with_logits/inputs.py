"""Seeded features/labels for SoftmaxCrossEntropyWithLogits (docs/ops/softmax_cross_entropy_with_logits.md §7).

Everything is drawn in float32 on the folded [A, C] view (row a = n*HW + p) and cast to the dtype
round-to-nearest-even; NCHW then moves the class axis to axis 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...dtypes import np_dtype
from ...edges import edge_values

if TYPE_CHECKING:
    from ...case import Case

DISTRIBUTIONS = ("default", "normal", "uniform", "soft", "raw", "edges", "large")


def _one_hot(rng: np.random.Generator, a: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    y = np.zeros((a, c), np.float32)
    hot = rng.integers(0, c, size=a) if c else np.zeros(a, np.int64)
    if c:
        y[np.arange(a), hot] = 1.0
    return y, hot


def _edges(rng: np.random.Generator, dtype: str, a: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    """S23-S25 row patterns cycling with the row index, plus rows filled with the dtype's finite edges."""
    x = rng.standard_normal((a, c), dtype=np.float32)
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


def make_inputs(case: Case, rng: np.random.Generator, dist: str) -> dict[str, np.ndarray]:
    dtype, shape = case.dtypes[0], tuple(case.shape)
    nchw = case.format == "NCHW"
    c = shape[1]
    a = shape[0] * int(np.prod(shape[2:])) if nchw else shape[0]
    labels = "one-hot"
    if dist == "edges":
        x, y = _edges(rng, dtype, a, c)
    else:
        if dist == "uniform":
            x = rng.uniform(-10.0, 10.0, (a, c)).astype(np.float32)
        elif dist == "normal":
            x = rng.standard_normal((a, c), dtype=np.float32) * np.float32(10)
        elif dist == "large":  # S26: max-subtraction stability; fp16 stays inside its +-65504 range
            x = (rng.uniform(-6e4, 6e4, (a, c)) if dtype == "float16" else rng.normal(0.0, 1e4, (a, c))).astype(
                np.float32
            )
        else:
            x = rng.standard_normal((a, c), dtype=np.float32)
        labels = {"soft": "soft", "raw": "raw"}.get(dist, "one-hot")
        if labels == "soft":  # Dirichlet(1) rows: normalised standard exponentials
            y = rng.standard_exponential((a, c), dtype=np.float32)
            y /= np.maximum(y.sum(axis=1, keepdims=True), np.float32(np.finfo(np.float32).tiny))
        elif labels == "raw":
            y = rng.uniform(0.0, 1.0, (a, c)).astype(np.float32)
        else:
            y, _ = _one_hot(rng, a, c)
    dt = np_dtype(dtype)
    out = {}
    for name, v in (("features", x), ("labels", y)):
        v = v.astype(dt)
        if nchw:
            n, _, h, w = shape
            v = np.ascontiguousarray(v.reshape(n, h, w, c).transpose(0, 3, 1, 2))
        out[name] = v.reshape(shape)
    return out
