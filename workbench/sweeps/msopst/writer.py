"""Sweep Points and rows into msOpST cases, what msOpST cannot represent named."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ...core._files import atomic_write, check_output_file
from ...core.dtypes import GE_ENUM
from ...core.errors import InvalidInput, WorkbenchError
from ...core.opspec import OpSpec, TensorDesc
from ...core.platform import resolve
from ...planning.case import Case
from ...planning.registry import get_op
from ..points import Point
from .format import (
    ATTR_TYPE_NAME,
    DRAW_NOTES,
    EXPECT_OF,
    FALLBACK,
    NOT_SUPPORTED,
    OP_TYPES,
    PROTO,
    MsopstExport,
    msopst_draws,
)


# -- writing ------------------------------------------------------------------------------------------------------
def write_msopst(points_or_rows: Any, path: str | Path | None = None) -> MsopstExport:
    """One msOpST case per Point (or sweep row: a dict or DataFrame row with the identity columns op, dtypes, shape,
    format, attrs, platform, seed, distribution), written to `path` (atomically) when given.

    What msOpST cannot represent is named in the returned `unrepresentable`: a distribution it cannot draw (the
    case gets the op's nearest msOpST draws), a platform other than the op's default (msOpST takes the SoC at run
    time) and a shape with a 0 dimension (msOpST refuses it: that point is left out). A point's seed goes into the
    case name (`_seed<N>`), which `read_msopst` reads back. A sweep row's status becomes `expect`: pass -> success,
    fail/fault/error -> failed (msOpST then counts a case consistent when the hardware agrees).
    """
    target = check_output_file(path, "msopst file") if path is not None else None
    cases: list[dict[str, Any]] = []
    gaps: dict[str, None] = {}
    for n, (point, status) in enumerate(_items(points_or_rows), 1):
        case_json = _case_json(point, n, status, gaps)
        if case_json is not None:
            cases.append(case_json)
    if target is not None:
        atomic_write(target, (json.dumps(cases, indent=4) + "\n").encode(), "msopst file")
    return MsopstExport(tuple(cases), tuple(gaps))


def _items(obj: Any) -> list[tuple[Point, str | None]]:
    """(Point, row status or None) of Points, Cases, a Grid or MsopstImport, dict rows or a DataFrame."""
    if hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # a pandas DataFrame (not imported here)
        obj = obj.to_dict("records")
    elif isinstance(obj, (Point, Case, Mapping)):
        obj = [obj]
    elif hasattr(obj, "points") and not isinstance(obj, (str, bytes)):
        obj = obj.points
    if isinstance(obj, (str, bytes)) or not isinstance(obj, Iterable):
        raise InvalidInput("points_or_rows", obj, "Points, Cases, a Grid, sweep rows (dicts) or a sweep DataFrame")
    out: list[tuple[Point, str | None]] = []
    for i, item in enumerate(obj):
        if isinstance(item, Point):
            out.append((item, None))
        elif isinstance(item, Case):
            out.append((Point(item), None))
        elif isinstance(item, Mapping):
            out.append(_row_point(item, i))
        else:
            raise InvalidInput(f"points_or_rows[{i}]", item, "a Point, a Case or a sweep row (dict)")
    return out


def _row_point(row: Mapping[str, Any], i: int) -> tuple[Point, str | None]:
    """A sweep row's Point and its status."""
    try:
        point = Point.from_row(row)
    except WorkbenchError as e:  # named by the row's index, as the file's other errors are
        raise InvalidInput(f"row {i}: {e.field.removeprefix('row.')}", e.value, e.allowed) from None
    status = row.get("status")
    return point, status if isinstance(status, str) else None


def _case_json(point: Point, n: int, status: str | None, gaps: dict[str, None]) -> dict[str, Any] | None:
    case = point.case
    spec = get_op(case.op)
    optype = OP_TYPES[case.op]
    descs = spec.describe(case)
    label = point.label()
    zero = [name for name, d in descs.items() if 0 in d.shape]
    if zero:
        gaps[f"{label}: {zero[0]} shape {list(descs[zero[0]].shape)}: msOpST needs dimensions > 0; left out"] = None
        return None
    default_platform = resolve(spec.platforms[0])
    if case.platform != default_platform:
        gaps[
            f"{label}: platform {case.platform}: msOpST takes the SoC at run time (msopst run -soc {case.platform}), "
            "not from the case file"
        ] = None
    draws = msopst_draws(case, point.distribution)
    if draws is None:
        fallback = FALLBACK[case.op]
        gaps[
            f"{label}: distribution {point.distribution!r}: msOpST cannot draw it; written as {case.op}'s "
            f"{fallback!r} ({NOT_SUPPORTED})"
        ] = None
        draws = msopst_draws(case, fallback)
        assert draws is not None  # every op's fallback has a msOpST form
    else:
        for note in DRAW_NOTES.get((case.op, point.distribution), ()):
            gaps[f"{optype} {point.distribution!r}: {note}"] = None
    proto_in, proto_out = PROTO[case.op]
    inputs = []
    for k, (t, (dist, rng)) in enumerate(zip(spec.inputs, draws, strict=True)):
        d = descs[t.name]
        inputs.append({**_desc(proto_in[k], d), "data_distribute": [dist], "value_range": [_range(rng)]})
    out: dict[str, Any] = {
        "case_name": f"Test_{optype}_{n:03d}_seed{point.seed}",
        "op": optype,
        "input_desc": inputs,
        "output_desc": [_desc(proto_out[k], descs[t.name]) for k, t in enumerate(spec.outputs)],
    }
    attrs = _attr_json(case)
    if attrs:
        out["attr"] = attrs
    if status in EXPECT_OF:
        out["expect"] = EXPECT_OF[status]
    return out


def _desc(name: str, d: TensorDesc) -> dict[str, Any]:
    return {"name": name, "format": [d.format], "type": [_msopst_type(d.dtype)], "shape": list(d.shape)}


def _msopst_type(dtype: str) -> str:
    # "float": the spelling of msOpST's examples and of its older releases (which lack "float32")
    return "float" if dtype == "float32" else dtype


def _range(rng: tuple[float, float] | None) -> list[float]:
    return [0, 1] if rng is None else [rng[0], rng[1]]


def _attr_json(case: Case) -> list[dict[str, Any]]:
    spec: OpSpec = case.spec
    attrs = [{"name": a.name, "type": ATTR_TYPE_NAME[a.type], "value": case.attrs[a.name]} for a in spec.attrs]
    if case.op == "cast":  # CANN's Cast requires dst_type: the GE enum of the destination dtype
        attrs.append({"name": "dst_type", "type": "int", "value": GE_ENUM[case.dtypes[1]]})
    return attrs
