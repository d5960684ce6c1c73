"""A sweep described in a small YAML or JSON file (or the same keys from the command line's flags).

ops: [cast]                        # one op or several
dtypes: all                        # or ["float32:float16", "float16:int8"]; all = each op's whole matrix
shapes: [[1024], [4096, 512], "33333"]
attrs: {num_weights: [100, 1000]}  # a dict of value lists (their product) or a list of attr dicts
platforms: [Ascend310P3]           # default: each op's target
formats: [ND]
distributions: [default, edges]
seeds: [0, 1]
cases:                             # and/or explicit cases (Point.to_json's keys)
  - {op: cast, dtypes: [float32, int8], shape: [7]}
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from .points import Dropped, Grid, Point, grid

GRID_KEYS = ("ops", "dtypes", "shapes", "formats", "attrs", "platforms", "distributions", "seeds")


def read_grid_file(path: str | Path) -> Grid:
    """The Grid a .yaml/.yml/.json file describes (see the module's docstring)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise InvalidInput("grid file", str(path), "an existing .yaml, .yml or .json file")
    text = p.read_text(errors="replace")
    try:
        if p.suffix.lower() == ".json":
            import json

            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except ValueError as e:  # json.JSONDecodeError and yaml.YAMLError's subclasses both carry a position
        raise InvalidInput("grid file", str(path), f"valid {p.suffix.lstrip('.') or 'YAML'}: {e}") from None
    except Exception as e:  # yaml.YAMLError is not a ValueError
        raise InvalidInput("grid file", str(path), f"valid YAML: {str(e).splitlines()[0]}") from None
    return grid_from_mapping(data, where=str(path))


def grid_from_mapping(data: Any, where: str = "grid") -> Grid:
    if not isinstance(data, Mapping):
        raise InvalidInput(where, type(data).__name__, "a mapping with keys " + ", ".join((*GRID_KEYS, "cases")))
    unknown = sorted(set(data) - {*GRID_KEYS, "cases"})
    if unknown:
        raise InvalidInput(f"{where}: {unknown[0]}", data[unknown[0]], "keys " + ", ".join((*GRID_KEYS, "cases")))
    points: list[Point] = []
    dropped: list[Dropped] = []
    if "ops" in data:
        made = grid(
            data["ops"],
            dtypes=data.get("dtypes"),
            shapes=_listed(data.get("shapes", [[1024]]), "shapes"),
            formats=_listed(data.get("formats", [""]), "formats"),
            attrs=data.get("attrs") or (),
            platforms=_listed(data.get("platforms", [""]), "platforms"),
            distributions=_listed(data.get("distributions", [""]), "distributions"),
            seeds=_listed(data.get("seeds", [0]), "seeds"),
        )
        points += made.points
        dropped += made.dropped
    elif set(data) - {"cases"}:
        raise InvalidInput(f"{where}: ops", None, "the op(s) of the grid, e.g. ops: [cast]")
    for i, case in enumerate(data.get("cases") or []):
        if not isinstance(case, Mapping):
            raise InvalidInput(f"{where}: cases[{i}]", case, "a mapping: op, dtypes, shape, format, attrs, platform")
        points.append(Point.from_json(case))
    if not points and not dropped:
        raise InvalidInput(where, dict(data), "an `ops:` grid or a `cases:` list with at least one case")
    return Grid(tuple(points), tuple(dropped))


def _listed(value: Any, key: str) -> list[Any]:
    if isinstance(value, (str, int)):
        return [value]
    if not isinstance(value, list):
        raise InvalidInput(key, value, "a list of values")
    return value
