"""numpy golden of SoftmaxCrossEntropyWithLogits (docs/ops/softmax_cross_entropy_with_logits.md §2).

float32 math, outputs cast back RNE.

Per row (class axis last for ND, axis 1 for NCHW):
    m = max x;  z = x - m;  s = sum exp(z);  loss = sum y*(log s - z);  backprop = exp(z)/s - y
Non-finite values follow IEEE with no special cases. The work is cut into cache-sized blocks (every
pass of a block then runs from L2) and the blocks are shared by a small thread pool: numpy releases
the GIL inside its loops, so both cores of the bench machine work.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core._parallel import WORKERS, for_each

if TYPE_CHECKING:
    from ...planning.case import Case

F32 = np.dtype(np.float32)
BLOCK = 1 << 18  # elements per block: 1 MiB of fp32 per temporary (measured best on a 2 MiB L2)
THREADED = 1 << 20  # below this the pool's overhead outweighs the second core


def _block(x: np.ndarray, y: np.ndarray, loss: np.ndarray, bp: np.ndarray, axis: int) -> None:
    xf, yf = x.astype(F32, copy=False), y.astype(F32, copy=False)  # fp16/bf16 -> fp32 is exact
    z = np.subtract(xf, xf.max(axis=axis, keepdims=True))
    e = np.exp(z)
    s = e.sum(axis=axis, keepdims=True)
    np.subtract(np.log(s), z, out=z)
    np.multiply(yf, z, out=z)
    if loss.dtype == F32:
        z.sum(axis=axis, out=loss)
    else:
        loss[...] = z.sum(axis=axis)  # numpy/ml_dtypes casts round to nearest even
    np.divide(e, s, out=e)
    np.subtract(e, yf, out=bp if bp.dtype == F32 else e)
    if bp.dtype != F32:
        bp[...] = e


def _blocks(shape: tuple[int, ...], layout: str, parts: int) -> list[tuple[slice, ...]]:
    """Index tuples of the [A,R] (ND) or [N,C,HW] (NCHW) view, each about BLOCK elements."""
    if layout == "ND":
        a, r = shape
        rows = max(1, min(BLOCK // max(r, 1), -(-a // parts)))
        return [(slice(i, i + rows),) for i in range(0, a, rows)]
    n, c, hw = shape
    if c * hw <= BLOCK:
        imgs = max(1, min(BLOCK // max(c * hw, 1), -(-n // parts)))
        return [(slice(i, i + imgs),) for i in range(0, n, imgs)]
    lanes = max(1, BLOCK // c)
    return [(slice(i, i + 1), slice(None), slice(p, p + lanes)) for i in range(n) for p in range(0, hw, lanes)]


def softmax_cross_entropy_with_logits(
    x: np.ndarray, y: np.ndarray, layout: str = "ND", threads: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(loss, backprop) in x's dtype. ND [N,C] -> loss [N]; NCHW [N,C,H,W] -> loss [N,H,W]."""
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    loss_shape: tuple[int, ...]
    view: tuple[int, ...]
    if layout == "NCHW":
        n, c, h, w = x.shape
        loss_shape, view = (n, h, w), (n, c, h * w)
    else:
        n, c = x.shape
        loss_shape, view = (n,), (n, c)
    loss, bp = np.zeros(loss_shape, x.dtype), np.empty(x.shape, x.dtype)
    if x.size == 0:  # C == 0 with A > 0: loss is the empty sum, 0 (DECISION-SCE-3)
        return loss, bp
    xv, yv, bv = x.reshape(view), y.reshape(view), bp.reshape(view)
    lv = loss if layout == "ND" else loss.reshape(n, -1)
    workers = threads or (WORKERS if x.size >= THREADED else 1)
    parts = _blocks(view, layout, workers)
    axis = 1

    def work(ix: tuple[slice, ...]) -> None:
        with np.errstate(all="ignore"):  # IEEE results are the contract; errstate is per thread
            lix = ix if len(ix) == 1 else (ix[0], ix[2])
            _block(xv[ix], yv[ix], lv[lix], bv[ix], axis)

    for_each(work, parts, parallel=workers > 1)
    return loss, bp


def softmax_cross_entropy_with_logits_f64(
    x: np.ndarray, y: np.ndarray, layout: str = "ND"
) -> tuple[np.ndarray, np.ndarray]:
    """float64 oracle, for diagnosis only (the gate compares against the float32 golden, §2)."""
    ax = 1 if layout == "NCHW" else -1
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    if xd.shape[ax] == 0:
        return np.zeros(xd.sum(axis=ax).shape), xd.copy()
    with np.errstate(all="ignore"):
        z = xd - xd.max(axis=ax, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=ax, keepdims=True)
        return (yd * (np.log(s) - z)).sum(axis=ax), e / s - yd


def golden(case: Case, inputs: Mapping[str, np.ndarray], **options: Any) -> dict[str, np.ndarray]:
    """The §2 golden; option `oracle=True` gives the float64 oracle instead, `threads=n` sizes the pool."""
    x, y = inputs["features"], inputs["labels"]
    if options.get("oracle"):
        loss, bp = softmax_cross_entropy_with_logits_f64(x, y, case.format)
    else:
        loss, bp = softmax_cross_entropy_with_logits(x, y, case.format, options.get("threads"))
    return {"loss": loss, "backprop": bp}
