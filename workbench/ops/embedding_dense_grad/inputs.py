"""Seeded EmbeddingDenseGrad inputs (docs/ops/embedding_dense_grad.md §7).

grad ~ N(mu, sigma) with the ATK ranges, int32 indices. grad is drawn in parallel blocks (_parallel.draw_blocks).

Distributions (indices sorted unless named otherwise):
- default: duplicate runs over a sparse key set (about a quarter of the rows of out are ever touched), a run
  forced across the core 0/1 boundary of the plan's row split, and padding_idx occurrences when it is valid;
- uniform: sorted uniform [0, num_weights); unique: distinct keys (no merging; arange when N == num_weights);
- same: one index everywhere (one run over all cores); zipf: Zipf(1.1) keys (long head runs);
- unsorted: uniform, input order; normal: grad N(0, 1), uniform indices;
- edges: grad cycles through the finite float32 edge table, plus NaN/+inf/-inf in the rows of one index (G24).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...core._parallel import draw_blocks, scratch
from ...core.edges import edge_values
from .tiling import normalize_padding, plan

if TYPE_CHECKING:
    from ...planning.case import Case

DISTRIBUTIONS = ("default", "uniform", "unique", "same", "zipf", "unsorted", "normal", "edges")


def _atk_grad(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    mu, sigma = rng.uniform(-100.0, 100.0), rng.uniform(1.0, 25.0)  # ATK ranges (§7)
    grad = np.empty(shape, np.float32)

    def fill(gen: np.random.Generator, block: np.ndarray) -> None:  # = gen.normal(mu, sigma), through scratch
        z = scratch(block.size, np.float64, "draw")
        gen.standard_normal(out=z)
        z *= sigma
        z += mu
        np.copyto(block, z, casting="same_kind")

    draw_blocks(rng, grad, fill)
    return grad


def _standard_grad(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    grad = np.empty(shape, np.float32)
    draw_blocks(rng, grad, lambda gen, block: gen.standard_normal(out=block, dtype=np.float32))
    return grad


def _default_indices(case: Case, rng: np.random.Generator, n: int, nw: int) -> np.ndarray:
    m = max(1, min(nw // 4, n // 2))  # sparse: at most a quarter of the rows of out, >= 2 rows per key on average
    keys = np.sort(rng.choice(nw, size=m, replace=False))
    k = keys[rng.integers(0, m, n)]
    pad = normalize_padding(int(case.attrs["padding_idx"]), nw)
    if pad >= 0:
        k[rng.random(n) < 0.05] = pad
        k[rng.integers(0, n)] = pad  # at least one occurrence
    k.sort()
    cores = plan(case).cores
    if len(cores) > 1:  # raising row b-1 to k[b] keeps the order and makes the run straddle cores 0 and 1
        b = cores[1].start
        k[b - 1] = k[b]
    return k


def make_inputs(case: Case, rng: np.random.Generator, dist: str) -> dict[str, np.ndarray]:
    shape = tuple(case.shape)
    n, nw = math.prod(shape[:-1]), int(case.attrs["num_weights"])
    grad = _standard_grad(rng, shape) if dist == "normal" else _atk_grad(rng, shape)
    if n == 0 or nw == 0:  # no valid index exists when num_weights == 0; zeros keep the shape (§1.2 check 8 rejects)
        return {"grad": grad, "sort_indices": np.zeros(shape[:-1], np.int32)}
    if dist == "default":
        k = _default_indices(case, rng, n, nw)
    elif dist == "unique":
        k = np.sort(rng.choice(nw, size=n, replace=False)) if n <= nw else np.arange(n) * nw // n
    elif dist == "same":
        k = np.full(n, rng.integers(0, nw))
    elif dist == "zipf":
        k = np.sort((rng.zipf(1.1, n) - 1) % nw)
    elif dist == "unsorted":
        k = rng.integers(0, nw, n)
    else:  # uniform, normal, edges
        k = np.sort(rng.integers(0, nw, n))
    if dist == "edges" and shape[-1]:
        table = edge_values("float32")
        grad = np.resize(table[np.isfinite(table)], shape).astype(np.float32)
        rows = grad.reshape(n, -1)
        hit = np.flatnonzero(k == k[n // 2])  # every row of one index: the sum must carry NaN and inf
        for lane, value in enumerate((np.nan, np.inf, -np.inf)[: shape[-1]]):
            rows[hit, lane] = value
    return {"grad": grad, "sort_indices": k.astype(np.int32).reshape(shape[:-1])}
