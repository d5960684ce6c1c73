"""Cast input generators (docs/ops/cast.md §5.5): seeded, per pair, produced in the source dtype."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

from ...core._parallel import draw_blocks, scratch
from ...core.dtypes import NUMPY
from ...core.edges import tile_edges
from ...core.errors import InvalidInput

if TYPE_CHECKING:
    from ...planning.case import Case

DISTRIBUTIONS = ("default", "uniform", "normal", "edges", "exhaustive")
FLOATS = ("float16", "float32", "bfloat16")
_SCALE = 100.0  # s of the N(0,1)·s component (§5.5 gives it for F32/F16 targets; used for every target)

# §5.5 R per (float source, target kind); I8/U8 R = 100000 is capped at the source's finite max (F16).
_R_INT32 = {"float32": 2.0**31 - 2.0**8, "float16": 65504.0, "bfloat16": 2.0**31 - 2.0**24}
_R = {"float32": 60000.0, "float16": 60000.0, "int16": 40000.0, "int8": 100000.0, "uint8": 100000.0}
_TINY = {"float16": 2.0**-14, "float32": 1e-30, "bfloat16": 1e-30}


def _quantize(values: np.ndarray, src: str) -> np.ndarray:
    """float64 -> source dtype via f32; BF16 by ml_dtypes RNE from f32 (§5.5: the golden uses these values)."""
    f32 = values.astype(np.float32)
    return f32.astype(ml_dtypes.bfloat16) if src == "bfloat16" else f32.astype(NUMPY[src])


def _quantize_into(values: np.ndarray, src: str, out: np.ndarray) -> None:
    """_quantize(values, src) written into `out` through this thread's scratch (no block-sized allocations)."""
    if src == "float32":
        np.copyto(out, values, casting="unsafe")
        return
    f32 = scratch(values.size, np.float32, "f32")
    np.copyto(f32, values, casting="unsafe")
    np.copyto(out, f32, casting="unsafe")


def _float_range(src: str, dst: str) -> float:
    r = _R_INT32[src] if dst in ("int32", "int64") else _R.get(dst, 2.0)
    return min(r, float(ml_dtypes.finfo(NUMPY[src]).max))


def _bool_target(rng: np.random.Generator, n: int, src: str) -> np.ndarray:
    """Float -> BOOL default inputs: 25 % ±0, 10 % ±tiny normal, the rest U(-2, 2)."""
    kind = rng.random(n)
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    vals = np.where(kind < 0.25, 0.0, np.where(kind < 0.35, _TINY[src], rng.uniform(-2, 2, n))) * sign
    return _quantize(vals, src)


def _mixture(rng: np.random.Generator, n: int, r: float) -> np.ndarray:
    """50 % normal·s, 30 % U(-R, R), 20 % k + 0.5 / k + 0.25 with |k| < R, in this thread's scratch.

    One uniform u per element picks the component and, rescaled within the component's interval, is its uniform
    draw (53 random bits are plenty); only the normal half draws again: random draws are what inputs cost. The
    components are gathered by index (a boolean mask costs a mispredicted branch per element)."""
    u, vals = scratch(n, np.float64, "u"), scratch(n, np.float64, "values")
    rng.random(out=u)
    np.subtract(u, 0.65, out=vals)
    vals *= r / 0.15  # u in [0.5, 0.8) -> U(-R, R)
    tail = np.flatnonzero(u >= 0.8)
    k = u[tail]
    k -= 0.8
    k *= 10.0  # [0, 2): the integer part picks +0.5 / +0.25, the fraction gives k
    quarter = k >= 1.0
    k -= quarter
    k *= 2.0
    k -= 1.0
    k *= r - 1.0
    np.trunc(k, out=k)
    k += 0.5
    k -= 0.25 * quarter
    vals[tail] = k
    normal = np.flatnonzero(u < 0.5)
    z = u[: normal.size]  # u is spent
    rng.standard_normal(out=z)
    z *= _SCALE
    vals[normal] = z
    return vals


def _int_bounds(src: str, dst: str) -> tuple[int, int]:
    if src == "bool":
        return 0, 1
    if (src, dst) in (("int32", "int8"), ("int32", "uint8")):
        return -2047, 1919  # the I32->I8 contract window (§5.4)
    if (src, dst) == ("int32", "float16"):
        return -65504, 65504
    if src == "int64" and dst in ("float32", "float16"):
        return -(2**31) + 1, 2**31 - 2
    info = np.iinfo(NUMPY[src])
    return int(info.min), int(info.max)


def _int_default(rng: np.random.Generator, n: int, src: str, dst: str) -> np.ndarray:
    lo, hi = _int_bounds(src, dst)
    dt = NUMPY[src]
    if src == "int64" and dst not in ("float32", "float16"):  # 80 % int32 range, 20 % full int64
        narrow = rng.integers(-(2**31), 2**31, n, dtype=np.int64)
        wide = rng.integers(lo, hi, n, dtype=np.int64, endpoint=True)
        return np.where(rng.random(n) < 0.8, narrow, wide)
    vals = rng.integers(lo, hi, n, dtype=np.int64, endpoint=True)
    return vals.astype(np.uint8).astype(np.bool_) if src == "bool" else vals.astype(dt)


def _exhaustive(rng: np.random.Generator, src: str, n: int) -> np.ndarray:
    """All bit patterns in order, cycled to n (T10). 32/64-bit sources cannot be enumerated, so they get
    uniformly random bit patterns instead (every pattern equally likely: NaN/Inf/huge values included)."""
    if src == "bool":
        return np.resize(np.array([False, True]), n)
    size = NUMPY[src].itemsize
    unsigned = np.dtype(f"u{size}")
    if size > 2:
        return rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True).view(NUMPY[src])
    return np.resize(np.arange(2 ** (8 * size), dtype=unsigned), n).view(NUMPY[src])


def _draw(dist: str, rng: np.random.Generator, n: int, src: str, dst: str) -> np.ndarray:
    """Integer and bool sources, float -> BOOL default inputs and random bit patterns (_fill has the rest)."""
    if dist == "default":
        return _bool_target(rng, n, src) if src in FLOATS else _int_default(rng, n, src, dst)
    if dist == "uniform":
        lo, hi = (0, 1) if src == "bool" else (int(np.iinfo(NUMPY[src]).min), int(np.iinfo(NUMPY[src]).max))
        return rng.integers(lo, hi, n, dtype=np.int64, endpoint=True).astype(NUMPY[src])
    if dist == "normal":
        vals = rng.standard_normal(n) * _SCALE
        if src == "bool":
            return vals > 0
        info = np.iinfo(NUMPY[src])
        return np.clip(np.rint(vals), info.min, info.max).astype(NUMPY[src])
    return _exhaustive(rng, src, n)


def _fill(dist: str, rng: np.random.Generator, src: str, dst: str, out: np.ndarray) -> None:
    """Draw out.size inputs into `out`, float values through this thread's scratch."""
    n = out.size
    if src not in FLOATS or dist == "exhaustive" or (dist == "default" and dst == "bool"):
        out[...] = _draw(dist, rng, n, src, dst)
    elif dist == "default":
        _quantize_into(_mixture(rng, n, _float_range(src, dst)), src, out)
    else:
        u = scratch(n, np.float64, "u")
        if dist == "uniform":  # numpy's uniform(-r, r) is -r + 2r·random(): the same values
            r = _float_range(src, dst)
            rng.random(out=u)
            u *= 2.0 * r
            u -= r
        else:
            rng.standard_normal(out=u)
            u *= _SCALE
        _quantize_into(u, src, out)


def make_inputs(case: Case, rng: np.random.Generator, dist: str) -> dict[str, np.ndarray]:
    src, dst = case.dtypes
    n = math.prod(case.shape)
    if dist not in DISTRIBUTIONS:
        raise InvalidInput("distribution", dist, ", ".join(DISTRIBUTIONS))
    if dist == "edges":
        x = tile_edges(src, n)
    elif dist == "exhaustive" and NUMPY[src].itemsize <= 2:
        x = _exhaustive(rng, src, n)  # no random draws: every bit pattern in order
    else:  # in parallel blocks (draw_blocks: an array of one block is one sequential draw from rng)
        x = np.empty(n, NUMPY[src])
        draw_blocks(rng, x, lambda gen, block: _fill(dist, gen, src, dst, block))
    return {"x": np.ascontiguousarray(x).reshape(case.shape)}
