"""What a sweep runs: Points (a Case with its seed and input distribution) and the grids that make them."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import InvalidInput, WorkbenchError
from ..planning.case import Case
from ..planning.pipeline import check_distribution, check_seed
from ..planning.registry import OPS, get_op


@dataclass(frozen=True)
class Point:
    """One case of a sweep: what `wb.run(case, seed=seed, distribution=distribution)` runs.

    `distribution` "" is the op's default; construction checks both against the op, as `run` would.
    """

    case: Case
    seed: int = 0
    distribution: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.case, Case):
            raise InvalidInput("case", self.case, "a workbench Case")
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "distribution", check_distribution(self.case, self.distribution or None))

    def label(self) -> str:
        return f"{self.case.label()} seed={self.seed} {self.distribution}"

    def to_json(self) -> dict[str, Any]:
        return {**self.case.to_json(), "seed": self.seed, "distribution": self.distribution}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Point:
        """The inverse of `to_json` (extra keys, such as a row's results, are ignored)."""
        fields = ("op", "dtypes", "shape", "format", "attrs", "platform")
        case = Case(**{k: data[k] for k in fields if k in data})
        return cls(case, data.get("seed", 0), data.get("distribution", ""))

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Point:
        """The Point a sweep row ran, from its identity columns as `tasks.identity` writes them (dtypes
        "float32:float16", shape "64x4705" or "scalar", attrs as JSON), also as a DataFrame reads them back
        (floats and NaN in columns with gaps)."""
        absent = [k for k in ("op", "dtypes", "shape") if missing(row.get(k))]
        if absent:
            allowed = "a sweep row with op, dtypes and shape (and format, attrs, ...)"
            raise InvalidInput(f"row.{absent[0]}", dict(row), allowed)
        seed: Any = row.get("seed")
        text = {k: "" if missing(row.get(k)) else str(row[k]) for k in ("format", "platform", "distribution")}
        dtypes = tuple(str(row["dtypes"]).split(":"))
        case = Case(
            str(row["op"]),
            dtypes,
            row_dims(row["shape"]),
            text["format"],
            row_attrs(row.get("attrs")),
            text["platform"],
        )
        return cls(case, 0 if missing(seed) else int(seed), text["distribution"])


def missing(value: Any) -> bool:
    """None, or a gap of a DataFrame column (NaN, pandas NA)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return False


def row_dims(shape: Any) -> tuple[int, ...]:
    """A row's shape ("64x4705", "scalar", or a list) as a tuple of ints."""
    if isinstance(shape, (list, tuple)):
        return tuple(int(d) for d in shape)
    dims = str(shape).strip()
    if dims in ("", "scalar"):
        return ()
    try:
        return tuple(int(d) for d in dims.split("x"))
    except ValueError:
        raise InvalidInput("row.shape", shape, "dimensions joined by 'x' (64x4705) or 'scalar'") from None


def row_attrs(attrs: Any) -> dict[str, Any]:
    """A row's attrs (JSON text, or a dict) as a dict; none as {}."""
    if isinstance(attrs, Mapping):
        return dict(attrs)
    if missing(attrs) or attrs == "":
        return {}
    try:
        parsed = json.loads(str(attrs))
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise InvalidInput("row.attrs", attrs, 'a JSON object such as {"num_weights": 1000}')
    return parsed


@dataclass(frozen=True)
class Dropped:
    """A grid combination the op refuses, with the op's own reason (the WorkbenchError's message)."""

    values: Mapping[str, Any]
    reason: str


@dataclass(frozen=True)
class Grid:
    """The valid points of a grid, in grid order, and every combination dropped with its reason."""

    points: tuple[Point, ...]
    dropped: tuple[Dropped, ...] = ()

    def __len__(self) -> int:
        return len(self.points)

    def __iter__(self) -> Any:
        return iter(self.points)


def grid(
    ops: str | Sequence[str],
    *,
    dtypes: Any = None,
    shapes: Iterable[Any] = ((1024,),),
    formats: Iterable[str] = ("",),
    attrs: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]] = (),
    platforms: Iterable[str] = ("",),
    distributions: Iterable[str] = ("",),
    seeds: Iterable[int] = (0,),
    where: Callable[[Case], bool] | None = None,
) -> Grid:
    """Every combination of ops x dtypes x shapes x formats x attrs x platforms x distributions x seeds.

    `dtypes`: None for each op's whole dtype matrix, or names ("float32:float16", ("float32", "float16")).
    `attrs`: a list of attribute dicts, or a dict of value lists (their product). "" means the op's default
    (format, platform, distribution). A combination the op refuses (its own validation, as `Case` and `run`
    apply it) is dropped with the reason; `where(case)` returning False drops it too ("filtered by where").
    """
    names = [ops] if isinstance(ops, str) else list(ops)
    if not names:
        raise InvalidInput("ops", ops, "one op name or more: " + ", ".join(OPS))
    attr_sets = _attr_sets(attrs)
    shapes, formats, platforms = list(shapes), list(formats), list(platforms)
    distributions, seeds = list(distributions), list(seeds)
    for name, given in (("shapes", shapes), ("formats", formats), ("platforms", platforms)):
        if not given:
            raise InvalidInput(name, given, "at least one value")
    if not distributions or not seeds:
        raise InvalidInput("seeds" if not seeds else "distributions", [], "at least one value")
    for seed in seeds:
        check_seed(seed)
    points: list[Point] = []
    dropped: list[Dropped] = []
    for op in names:
        spec = get_op(op)
        for combo in itertools.product(_dtype_sets(spec.dtype_matrix, dtypes), shapes, formats, attr_sets, platforms):
            dt, shape, fmt, at, platform = combo
            values = {"op": spec.name, "dtypes": dt, "shape": shape, "format": fmt, "attrs": at, "platform": platform}
            try:
                case = Case(spec.name, dt, shape, fmt, at, platform)
            except WorkbenchError as e:
                dropped.append(Dropped(values, str(e)))
                continue
            if where is not None and not where(case):
                dropped.append(Dropped(values, "filtered by where"))
                continue
            for dist, seed in itertools.product(distributions, seeds):
                try:
                    points.append(Point(case, seed, dist))
                except WorkbenchError as e:
                    dropped.append(Dropped({**values, "distribution": dist, "seed": seed}, str(e)))
    return Grid(tuple(points), tuple(dropped))


def _dtype_sets(matrix: Sequence[tuple[str, ...]], dtypes: Any) -> list[Any]:
    if dtypes is None or dtypes == "all":
        return list(matrix)
    if isinstance(dtypes, str):
        return [dtypes]
    return list(dtypes)


def _attr_sets(attrs: Any) -> list[dict[str, Any]]:
    if isinstance(attrs, Mapping):
        keys = list(attrs)
        for k in keys:
            if isinstance(attrs[k], (str, bytes)) or not isinstance(attrs[k], Iterable):
                raise InvalidInput(f"attrs.{k}", attrs[k], "a list of values to sweep (e.g. [100, 1000])")
        return [dict(zip(keys, values, strict=True)) for values in itertools.product(*(list(attrs[k]) for k in keys))]
    sets = [dict(a) for a in attrs] if attrs else [{}]
    return sets
