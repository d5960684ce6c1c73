"""Case: the one value every entry point (CLI, widgets, tests) builds, and everything else derives from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidShape
from .opspec import OpSpec
from .platform import PLATFORMS, Platform, resolve
from .registry import get_op


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, str):
        shape = [s for s in shape.split(",") if s.strip()] if shape.strip() not in ("", "()") else []
    try:
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise InvalidShape("shape", shape, "a sequence of non-negative integers, e.g. 4096,512") from None
    if any(d < 0 for d in dims):
        raise InvalidShape("shape", dims, "non-negative dimensions")
    return dims


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
        dtypes = (self.dtypes,) if isinstance(self.dtypes, str) else tuple(self.dtypes)
        attrs = spec.normalize_attrs(dict(self.attrs))
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
