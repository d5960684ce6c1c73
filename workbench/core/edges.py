"""Per-dtype edge tables (ml_dtypes style): values every conversion or reduction must get right.

Each table holds only values the dtype can represent exactly; `edge_values(name)` returns them as an
array of that dtype. Float tables: ±0, ±1, ±0.5 ties, 8-bit wrap boundaries (±127.5, ±128, ±255.5,
±256, ...), 16-bit saturation points, ±max, ±min normal, ±smallest subnormal, ±Inf and NaN.
Integer tables: 0, ±1, the 8-bit wrap boundaries, the 16-/32-bit limits and, for int64, the 32-bit
window edges and the int64 extremes.
"""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from .dtypes import NUMPY, canonical

_WRAP = (127, 128, 129, 255, 256, 257, 32767, 32768, 65535, 65536)
_TIES = (0.5, 1.5, 2.5, 127.5, 255.5, 32767.5)


def _float_table(name: str) -> np.ndarray:
    dt = NUMPY[name]
    fi = ml_dtypes.finfo(dt)
    specials = [0.0, 1.0, float(fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal), np.inf]
    magnitudes = specials + list(_TIES) + [float(w) for w in _WRAP] + [2.0**31, 2.0**32, 2147483520.0]
    values = np.array(magnitudes, dtype=np.float64)
    values = np.concatenate([values, -values])
    with np.errstate(over="ignore"):
        cast = values.astype(np.float32).astype(dt)
    exact = cast.astype(np.float64) == values
    keep = exact | np.isinf(values)  # ±Inf is its own edge even where larger finite edges overflow
    table = np.concatenate([cast[keep], np.array([np.nan], dtype=dt)])
    _, first = np.unique(table.astype(np.float64).view(np.int64), return_index=True)  # keeps -0 apart from +0
    return table[np.sort(first)]


def _int_table(name: str) -> np.ndarray:
    dt = NUMPY[name]
    info = np.iinfo(dt)
    wraps = [w for v in _WRAP for w in (v, -v)]
    wide = [
        2**31 - 1,
        -(2**31),
        2**31,
        -(2**31) - 1,
        2**32 - 1,
        2**32,
        2**32 + 1,
        -(2**32),
        2**53 + 1,
        2**63 - 1,
        -(2**63),
        -(2**63) + 1,
    ]
    cand = [0, 1, -1, 2, -2, *wraps, *wide, info.min, info.max, info.min + 1, info.max - 1]
    kept = sorted({v for v in cand if info.min <= v <= info.max}, key=lambda v: (abs(v), v))
    return np.array(kept, dtype=dt)


@cache
def _table(name: str) -> np.ndarray:
    if name == "bool":
        return np.array([False, True])
    if np.issubdtype(NUMPY[name], np.integer):
        return _int_table(name)
    return _float_table(name)


def edge_values(dtype: str) -> np.ndarray:
    """The edge table of `dtype` (a fresh copy: callers may modify it)."""
    return _table(canonical(dtype)).copy()


def tile_edges(dtype: str, n: int) -> np.ndarray:
    """`n` values cycling through the edge table (so every tile, tail and core sees edge values)."""
    table = _table(canonical(dtype))
    return np.resize(table, n) if n else table[:0].copy()
