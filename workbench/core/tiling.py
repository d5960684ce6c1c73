"""TilingPlan: what host tiling decided, in one frozen record shared by every op."""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from . import shown
from .errors import InfeasibleTiling

BLOCK_BYTES = 32  # UB/DataCopy granule (docs/hardware.md#32-byte-alignment-and-data-movement)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def align_up(x: int, a: int) -> int:
    return ceil_div(x, a) * a


def align_down(x: int, a: int) -> int:
    return (x // a) * a


@dataclass(frozen=True)
class UbBuffer:
    """One InitBuffer allocation: `count` buffers (queue depth) of `bytes_each`, rounded up to 32 B."""

    name: str
    count: int
    bytes_each: int
    note: str = ""

    @property
    def total(self) -> int:
        return self.count * align_up(self.bytes_each, BLOCK_BYTES)


class CoreRange(NamedTuple):
    """The slice of work one block (core) owns: [start, start + count) in `unit`s (elements, rows, lanes).

    A NamedTuple, not a frozen dataclass: plans build one per core (48 on 910B1) and construction cost
    dominates plan() otherwise.
    """

    core: int
    start: int
    count: int  # type: ignore[assignment]  # shadows tuple.count on purpose: the natural name
    tiles: int
    last_tile: int
    tail: int = 0  # extra elements handled after the tiles (Cast's back-stepped tail window)

    @property
    def stop(self) -> int:
        return self.start + self.count


@dataclass(frozen=True)
class Location:
    """Where the kernel computed one output element (for tracing a mismatch back into the tiling)."""

    core: int | None
    tile: int | None
    offset: int | None
    tail: bool
    detail: str = ""
    cores: tuple[int, ...] = ()  # every core that contributes, when several do (atomic adds); core is then None

    def __str__(self) -> str:
        if self.core is not None:
            who = f"core {self.core}"
        elif self.cores:
            who = f"cores {', '.join(map(str, self.cores))}"
        else:
            who = "no core"
        tile = "?" if self.tile is None else self.tile
        where = f"{who}, tile {tile}, offset {self.offset}{' (tail)' if self.tail else ''}"
        return f"{where}; {self.detail}" if self.detail else where


class Owners(NamedTuple):
    """Where many elements were computed (TilingPlan.locate_many), long form: element `pos` ran on `core`, `tile`."""

    pos: np.ndarray
    core: np.ndarray
    tile: np.ndarray


@dataclass(frozen=True)
class TilingPlan:
    """The host tiling decision for one Case.

    `fields` holds every TilingData field (same names and order as the C struct in
    `kernels/<op>/<op>_tiling.h`); `cores` the per-core ranges in `unit`s; `ub_buffers` the UB plan
    against `ub_capacity` (the UB the kernel may allocate after the reserve); `copy_bytes` every
    distinct DataCopy length (bytes) the kernel issues without padding.
    """

    op: str
    platform: str
    tiling_key: int
    tiling_name: str
    block_dim: int
    fields: Mapping[str, int]
    unit: str
    cores: tuple[CoreRange, ...]
    ub_buffers: tuple[UbBuffer, ...]
    ub_size: int
    ub_reserved: int
    workspace_bytes: int
    notes: tuple[str, ...]
    copy_bytes: tuple[int, ...] = ()
    struct_type: type[ctypes.Structure] | None = field(default=None, repr=False, compare=False)
    # (flat index, output name, the run's inputs or None) -> Location; inputs settle data-dependent owners
    locator: Callable[[int, str | None, Mapping[str, Any] | None], Location] | None = field(
        default=None, repr=False, compare=False
    )
    # locate() for many elements at once, in numpy (the failure map locates every failing element): see locate_many
    bulk_locator: Callable[[np.ndarray, str | None, Mapping[str, Any] | None], Owners] | None = field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))
        if self.struct_type is not None:
            check_fields(self.op, self.fields, self.struct_type)

    def __repr__(self) -> str:
        return shown.render(self, "repr")

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    @property
    def ub_capacity(self) -> int:
        return self.ub_size - self.ub_reserved

    @property
    def ub_used(self) -> int:
        return sum(b.total for b in self.ub_buffers)

    @property
    def ub_fraction(self) -> float:
        return self.ub_used / self.ub_capacity if self.ub_capacity else 0.0

    def locate(self, index: int, output: str | None = None, inputs: Mapping[str, Any] | None = None) -> Location:
        """Map a flat (C-order) index of an output element to the core/tile/offset that computed it.

        With the run's `inputs`, a data-dependent owner (EmbeddingDenseGrad's atomic adds) is resolved too."""
        if self.locator is None:
            return Location(None, None, None, False, "no locator for this op")
        return self.locator(int(index), output, inputs)

    def locate_many(
        self, indices: np.ndarray, output: str | None = None, inputs: Mapping[str, Any] | None = None
    ) -> Owners:
        """locate() for an array of flat indices, as long-form arrays (pos, core, tile): `pos` indexes `indices`;
        an element several cores write (atomic adds) has a row per core, one no core writes has core -1; tile is -1
        where unknown. The op's vectorised locator when it has one (the same answers as locate, tested), else one
        locate() per element."""
        indices = np.asarray(indices, np.int64).reshape(-1)
        if self.bulk_locator is not None:
            return self.bulk_locator(indices, output, inputs)
        pos, core, tile = [], [], []
        for i, flat in enumerate(indices.tolist()):
            loc = self.locate(flat, output, inputs)
            who = (loc.core,) if loc.core is not None else loc.cores or (-1,)
            for c in who:
                pos.append(i)
                core.append(c)
                tile.append(-1 if loc.tile is None else loc.tile)
        return Owners(np.array(pos, np.int64), np.array(core, np.int64), np.array(tile, np.int64))

    def tiling_data(self) -> ctypes.Structure:
        """The TilingData struct the kernel reads, filled from `fields` (range-checked on construction)."""
        if self.struct_type is None:
            raise TypeError(f"{self.op}: no TilingData struct registered")
        return self.struct_type(**self.fields)

    def tiling_bytes(self) -> bytes:
        return bytes(self.tiling_data())

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "platform": self.platform,
            "tiling_key": self.tiling_key,
            "tiling_name": self.tiling_name,
            "block_dim": self.block_dim,
            "fields": dict(self.fields),
            "unit": self.unit,
            "cores": [c._asdict() for c in self.cores],
            "ub": {
                "capacity": self.ub_capacity,
                "size": self.ub_size,
                "reserved": self.ub_reserved,
                "used": self.ub_used,
                "buffers": [
                    {"name": b.name, "count": b.count, "bytes_each": b.bytes_each, "total": b.total, "note": b.note}
                    for b in self.ub_buffers
                ],
            },
            "workspace_bytes": self.workspace_bytes,
            "copy_bytes": list(self.copy_bytes),
            "notes": list(self.notes),
        }


def c_range(ctype: type) -> tuple[int, int, str]:
    """(min, max, C name) of a ctypes integer type."""
    bits = 8 * ctypes.sizeof(ctype)
    signed = ctype(-1).value == -1
    name = f"{'' if signed else 'u'}int{bits}_t"
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1, name) if signed else (0, (1 << bits) - 1, name)


def check_fields(op: str, fields: Mapping[str, int], struct: type[ctypes.Structure]) -> None:
    """Every TilingData field within its C type: ctypes would wrap silently and the kernel read garbage.

    A value out of range means the case is beyond what the kernel can address; the error names the field,
    its C type and its limit.
    """
    types = dict(struct._fields_)  # type: ignore[arg-type]
    for name, value in fields.items():
        lo, hi, cname = c_range(types[name])
        if not lo <= value <= hi:
            raise InfeasibleTiling(
                "shape", f"TilingData.{name} = {value}", f"a case whose {name} fits {cname} [{lo}, {hi}] in {op}"
            )


def even_split(total: int, parts: int) -> list[tuple[int, int]]:
    """(start, count) of `parts` contiguous chunks: the first total % parts get one more (former/tail cores)."""
    base, extra = divmod(total, parts)
    out, start = [], 0
    for i in range(parts):
        n = base + (1 if i < extra else 0)
        out.append((start, n))
        start += n
    return out
