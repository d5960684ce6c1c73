"""EmbeddingDenseGrad goldens (docs/ops/embedding_dense_grad.md §2).

The float64 sum-then-scale rule of the kernel (`rule="ascend"`, the default) and the float32 `pytorch_rule`
diagnostic (`rule="pytorch"`).

Both equal the §2 `np.add.at` reference bit for bit (same per-row summation order, stable sort), but
run segment by segment: rows with equal indices form runs (after a stable argsort when the input is not
already sorted); runs of equal length L are summed together, L gathered rows at a time, in cache-sized
blocks spread over a small thread pool (numpy releases the GIL). Only runs that need it touch float64:
for L <= 2 unscaled, one float32 rounding of the exact sum equals the cast of the float64 sum.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core._parallel import WORKERS, for_each
from ...core.errors import UnknownName
from .tiling import normalize_padding

if TYPE_CHECKING:
    from ...planning.case import Case

_BLOCK = 2 << 20  # bytes of float32 rows per job: L2-sized, and large enough to amortise Python overhead
_LONG = 32  # runs longer than this are summed one by one (no per-position gathers)
_PARALLEL_MIN = 1 << 20  # elements below which a thread pool costs more than it saves


def _runs(idx: np.ndarray, num_weights: int, pad: int) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
    """(order, starts, lengths, keys) of the valid runs; order is None when the indices are already sorted."""
    k = np.asarray(idx).reshape(-1).astype(np.int64, copy=False)
    order = None
    if not bool(np.all(k[1:] >= k[:-1])):
        order = np.argsort(k, kind="stable")  # stable: rows of one index keep their input order
        k = k[order]
    cut = np.flatnonzero(k[1:] != k[:-1]) + 1
    starts = np.concatenate(([0], cut))
    lens = np.diff(np.concatenate((starts, [k.size])))
    keys = k[starts]
    ok = (keys >= 0) & (keys < num_weights) & (keys != pad)  # DECISION-EDG-3: out-of-range rows are skipped
    return order, starts[ok], lens[ok], keys[ok]


def _segment_sums(
    grad: np.ndarray, idx: np.ndarray, num_weights: int, padding_idx: int, scale: bool, rule: str
) -> np.ndarray:
    d = grad.shape[-1] if grad.ndim else 0
    out = np.zeros((num_weights, d), np.float32)
    if grad.size == 0 or num_weights == 0:
        return out
    g = np.ascontiguousarray(grad, dtype=np.float32).reshape(-1, d)
    order, starts, lens, keys = _runs(idx, num_weights, normalize_padding(padding_idx, num_weights))
    f64 = rule == "ascend"

    def rows(pos: np.ndarray) -> np.ndarray:
        return pos if order is None else order[pos]

    def short(n: int, s: np.ndarray, kk: np.ndarray) -> None:
        scaled = scale and n >= 2
        if f64 and (n > 2 or scaled):
            acc = np.add(g[rows(s)], 0.0, dtype=np.float64)  # 0 + g, as np.add.at on zeros (-0 becomes +0)
            for j in range(1, n):
                acc += g[rows(s + j)]
            if scaled:
                acc *= 1.0 / n  # sum then scale (DECISION-EDG-10), in float64
            out[kk] = acc
            return
        r = np.float32(1.0 / n) if scaled else None  # pytorch rule: each contribution times fl32(1/count)
        acc32 = g[rows(s)]
        if r is not None:
            acc32 *= r
        acc32 += np.float32(0.0)
        for j in range(1, n):
            x = g[rows(s + j)]
            if r is not None:
                x *= r
            acc32 += x
        out[kk] = acc32

    def long(s0: int, n: int, k: int, c0: int, c1: int) -> None:
        if f64 and order is None:  # contiguous rows: one sequential reduction over axis 0, no copy
            acc = g[s0 : s0 + n, c0:c1].sum(axis=0, dtype=np.float64, initial=0.0)
        else:
            dt = np.float64 if f64 else np.float32
            r = np.float32(1.0 / n) if scale and not f64 else None
            acc = np.zeros(c1 - c0, dt)
            step = max(1, _BLOCK // ((c1 - c0) * 4))
            for p in range(s0, s0 + n, step):
                m = min(step, s0 + n - p)
                block = np.empty((m + 1, c1 - c0), dt)  # prepend the running sum: the reduction stays sequential
                block[0] = acc
                x = g[rows(np.arange(p, p + m)), c0:c1]
                if r is not None:
                    x *= r
                block[1:] = x
                acc = block.sum(axis=0)
        if scale and f64:
            acc *= 1.0 / n
        out[k, c0:c1] = acc

    jobs: list[Callable[[], None]] = []
    by_len = np.argsort(lens, kind="stable")
    sorted_lens = lens[by_len]
    edges = np.flatnonzero(np.diff(sorted_lens)) + 1
    for grp in np.split(by_len, edges):
        if not len(grp):  # every index is the padding row: no segment to sum
            continue
        n = int(lens[grp[0]])
        s, kk = starts[grp], keys[grp]
        if n <= _LONG:
            per = max(1, _BLOCK // (n * d * 4))
            jobs += [_bind(short, n, s[i : i + per], kk[i : i + per]) for i in range(0, len(s), per)]
            continue
        parts = WORKERS if n * d >= _PARALLEL_MIN and d >= 64 * WORKERS else 1
        cols = np.linspace(0, d, parts + 1).astype(int)
        jobs += [
            _bind(long, int(s0), n, int(k), int(cols[p]), int(cols[p + 1]))
            for s0, k in zip(s, kk, strict=True)
            for p in range(parts)
        ]
    for_each(lambda job: job(), jobs, parallel=g.size >= _PARALLEL_MIN)
    return out


def _bind(fn: Callable[..., None], *args: Any) -> Callable[[], None]:
    def job() -> None:
        with np.errstate(all="ignore"):  # inf/NaN/overflow are data here (G24); errstate is per thread
            fn(*args)

    return job


def embedding_dense_grad(
    grad: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int = -1, scale_grad_by_freq: bool = False
) -> np.ndarray:
    """The golden (§2, DECISION-EDG-10): S_k in float64, scaled by 1/count_k when count_k >= 2, cast to fp32 once."""
    return _segment_sums(grad, indices, num_weights, padding_idx, scale_grad_by_freq, "ascend")


def pytorch_rule(
    grad: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int = -1, scale_grad_by_freq: bool = False
) -> np.ndarray:
    """Diagnostic (§2): float32, sorted order, out[k] += grad[i] * fl32(1/count_k) (embedding_dense_backward_cpu).

    padding_idx is normalised as in the golden (DECISION-EDG-2); give PyTorch the same normalised value.
    """
    return _segment_sums(grad, indices, num_weights, padding_idx, scale_grad_by_freq, "pytorch")


def golden(case: Case, inputs: Mapping[str, np.ndarray], rule: str = "ascend") -> dict[str, np.ndarray]:
    fns = {"ascend": embedding_dense_grad, "pytorch": pytorch_rule}
    if rule not in fns:
        raise UnknownName("rule", rule, ", ".join(fns))
    a = case.attrs
    out = fns[rule](
        inputs["grad"],
        inputs["sort_indices"],
        int(a["num_weights"]),
        int(a["padding_idx"]),
        bool(a["scale_grad_by_freq"]),
    )
    return {"out": out}
