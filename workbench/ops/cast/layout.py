"""ctypes mirror of `kernels/cast/cast_tiling.h` (docs/ops/cast.md §4.4): same field order, fixed-width types."""

from __future__ import annotations

import ctypes

FIELDS: tuple[str, ...] = (
    "totalElements",
    "usedCoreNum",
    "blockElems",
    "formerNum",
    "formerElems",
    "latterElems",
    "tailElems",
    "ubFormer",
    "formerTileNum",
    "formerLastTileSize",
    "latterTileNum",
    "latterLastTileSize",
    "roundMode",
    "pathClass",
    "scalarStaging",
)


class CastTilingData(ctypes.Structure):
    # Natural alignment (no _pack_), as the C compiler lays out the plain struct: 8 + 14*4 = 64 bytes, no padding.
    _fields_ = [("totalElements", ctypes.c_uint64)] + [(name, ctypes.c_uint32) for name in FIELDS[1:]]
