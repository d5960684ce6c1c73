"""Dtype names <-> numpy/ml_dtypes, sizes, GE enum values and the per-dtype edge tables."""

from __future__ import annotations

from typing import Final

import ml_dtypes
import numpy as np

from .errors import InvalidDtype

NUMPY: Final[dict[str, np.dtype]] = {
    "bool": np.dtype(np.bool_),
    "int8": np.dtype(np.int8),
    "uint8": np.dtype(np.uint8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
}
ALIASES: Final[dict[str, str]] = {
    "f16": "float16",
    "fp16": "float16",
    "half": "float16",
    "f32": "float32",
    "fp32": "float32",
    "float": "float32",
    "bf16": "bfloat16",
    "i8": "int8",
    "u8": "uint8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "b": "bool",
}
# ge::DataType / aclDataType values (docs/ops/cast.md §1.1 dst_type).
GE_ENUM: Final[dict[str, int]] = {
    "float32": 0,
    "float16": 1,
    "int8": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 6,
    "int64": 9,
    "bool": 12,
    "bfloat16": 27,
}
FLOATS: Final = frozenset({"float16", "float32", "bfloat16"})


def canonical(name: str, field: str = "dtype") -> str:
    """Map a user spelling (fp16, f32, half, ...) to the canonical name, or raise naming the field."""
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key not in NUMPY:
        raise InvalidDtype(field, name, ", ".join(NUMPY))
    return key


def np_dtype(name: str) -> np.dtype:
    return NUMPY[canonical(name)]


def itemsize(name: str) -> int:
    return NUMPY[canonical(name)].itemsize


def name_of(dtype: np.dtype | type) -> str:
    """Canonical name of a numpy dtype (the inverse of np_dtype)."""
    dt = np.dtype(dtype)
    for name, candidate in NUMPY.items():
        if candidate == dt:
            return name
    raise InvalidDtype("dtype", str(dt), ", ".join(NUMPY))


def is_float(name: str) -> bool:
    return canonical(name) in FLOATS


def finfo_max(name: str) -> float:
    return float(ml_dtypes.finfo(NUMPY[canonical(name)]).max)
