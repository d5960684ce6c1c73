"""Case: the one value every entry point (CLI, widgets, tests) builds, and everything else derives from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import shown
from ..core.errors import InvalidAttr, InvalidDtype, InvalidFormat, InvalidShape
from ..core.opspec import OpSpec
from ..core.platform import PLATFORMS, Platform, resolve
from .registry import get_op

_SHAPE_HELP = "comma-separated non-negative integers, e.g. 4096,512 ('' or () for a scalar)"


MAX_DIM = 2**63 - 1  # int64: what numpy and the aclnn shape arrays can hold


def _dim(d: Any, shape: Any) -> int:
    if isinstance(d, str) and d.strip().isascii() and d.strip().isdigit():
        d = int(d.strip()) if len(d.strip()) <= 20 else MAX_DIM + 1  # int() refuses > 4300 digits
    if isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) and d >= 0:
        if d > MAX_DIM:
            raise InvalidShape("shape", shape, f"dimensions of at most {MAX_DIM} (int64)")
        return int(d)
    raise InvalidShape("shape", shape, _SHAPE_HELP)


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, str):
        text = shape.strip()
        parts = [] if text in ("", "()") else text.removeprefix("(").removesuffix(")").split(",")
        if parts and text.endswith(",)") and len(parts) == 2:  # "(5,)": Python's 1-tuple spelling
            parts = parts[:1]
        return tuple(_dim(p, shape) for p in parts)
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    try:
        dims = list(shape)
    except TypeError:
        raise InvalidShape("shape", shape, _SHAPE_HELP) from None
    return tuple(_dim(d, shape) for d in dims)


def _dtypes(dtypes: Any, spec: OpSpec) -> tuple[str, ...]:
    """A name ("float32:float16" splits at the colon) or a sequence of names."""
    if isinstance(dtypes, str):
        return tuple(dtypes.split(":"))
    if isinstance(dtypes, Sequence) and all(isinstance(d, str) for d in dtypes):
        return tuple(dtypes)
    raise InvalidDtype("dtype", dtypes, f"a dtype name or a sequence of them: {spec.dtype_help()}")


@dataclass(frozen=True)
class Case:
    """An op, its dtypes (source[, destination]), the primary input's shape, format, attrs and SoC.

    Construction normalises spellings (`fp16` -> `float16`, "4096,512" -> (4096, 512)) and fills the op's
    defaults; it then validates in the op spec's check order and raises a WorkbenchError naming the
    field. A Case that exists is therefore always a valid one.
    """

    op: str
    dtypes: tuple[str, ...]
    shape: tuple[int, ...]
    format: str = ""  # "" = the op's default for the rank
    attrs: Mapping[str, Any] = field(default_factory=dict)
    platform: str = ""

    def __post_init__(self) -> None:
        spec = get_op(self.op)
        dtypes = _dtypes(self.dtypes, spec)
        if not isinstance(self.attrs, Mapping):
            raise InvalidAttr("attrs", self.attrs, "a mapping of attribute name to value, e.g. {'num_weights': 1000}")
        attrs = spec.normalize_attrs(dict(self.attrs))
        if not isinstance(self.format, str):
            raise InvalidFormat("format", self.format, ", ".join(spec.formats) + " or '' (the op's default)")
        fmt = spec.normalize_format(self.format, _shape(self.shape))
        platform = resolve(self.platform or spec.platforms[0])
        object.__setattr__(self, "op", spec.name)
        object.__setattr__(self, "shape", _shape(self.shape))
        object.__setattr__(self, "dtypes", spec.normalize_dtypes(dtypes))
        object.__setattr__(self, "format", fmt)
        object.__setattr__(self, "attrs", _FrozenDict(attrs))
        object.__setattr__(self, "platform", platform)
        spec.validate(self)

    @property
    def soc(self) -> Platform:
        return PLATFORMS[self.platform]

    @property
    def spec(self) -> OpSpec:
        return get_op(self.op)

    def replace(self, **changes: Any) -> Case:
        values: dict[str, Any] = {
            "op": self.op,
            "dtypes": self.dtypes,
            "shape": self.shape,
            "format": self.format,
            "attrs": dict(self.attrs),
            "platform": self.platform,
        }
        values.update(changes)
        return Case(**values)

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    def label(self) -> str:
        attrs = ",".join(f"{k}={v}" for k, v in self.attrs.items())
        shape = "x".join(map(str, self.shape)) or "scalar"
        return (
            f"{self.op}[{':'.join(self.dtypes)} {shape} {self.format}{' ' + attrs if attrs else ''} @{self.platform}]"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "dtypes": list(self.dtypes),
            "shape": list(self.shape),
            "format": self.format,
            "attrs": dict(self.attrs),
            "platform": self.platform,
        }


class _FrozenDict(dict[str, Any]):
    """A dict that refuses mutation and hashes, so Case stays hashable (for caches) and immutable."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def _readonly(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("Case.attrs is read-only; use case.replace(attrs=...)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]


def dims_str(shape: Sequence[int]) -> str:
    return ",".join(map(str, shape))
