"""A msOpST case file into sweep Points: every case expanded as msOpST expands it, what cannot be honoured named."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core._files import os_error
from ...core.dtypes import canonical
from ...core.errors import InvalidInput, WorkbenchError
from ...core.opspec import TensorDesc
from ...core.platform import resolve
from ...planning.case import Case
from ...planning.pipeline import check_seed
from ...planning.registry import OPS, get_op
from ..points import Point
from .format import (
    ATTR_TYPES,
    CASE_FIELDS,
    CHECK_ONLY,
    DATA_DISTRIBUTES,
    DATA_TYPE_VALUES,
    DOC,
    DRAW_NOTES,
    DTYPES_FROM,
    EXPECTS,
    INPUT_FIELDS,
    NOT_SUPPORTED,
    OP_TYPES,
    OUTPUT_FIELDS,
    PROTO,
    SEED_SUFFIX,
    ST_MODES,
    TENSOR_TYPES,
    Draw,
    MsopstImport,
    Skipped,
    brief,
    msopst_draws,
)


# -- reading ------------------------------------------------------------------------------------------------------
def read_msopst(
    source: Any, *, platform: str = "", seed: int = 0, op_names: Mapping[str, str] | None = None
) -> MsopstImport:
    """The Points of a msOpST case file: a path, the JSON text, or the parsed list of case objects.

    `platform`: the SoC every point runs on ("" = each op's default): msOpST takes it at run time (`msopst run
    -soc`), not from the file. `seed`: for cases whose name does not end in `_seed<N>` (as `write_msopst` names
    them). `op_names`: msOpST op types of your own (e.g. {"CastCustom": "cast"}) besides Cast, EmbeddingDenseGrad
    and SoftmaxCrossEntropyWithLogits. A file that is not a valid msOpST case file (bad JSON, a missing required
    field, a value of the wrong kind, list lengths msOpST would refuse) raises InvalidInput naming the case and
    field; a valid case the workbench cannot run (an op it does not have, a dtype the op refuses) is skipped.
    """
    data, where = _load(source)
    if not isinstance(data, list):
        raise InvalidInput(where, type(data).__name__, "a JSON list of msOpST case objects (docs/msopst.md)")
    table = _op_table(op_names)
    if platform:
        platform = resolve(platform)
    check_seed(seed)
    points: list[Point] = []
    origins: list[str] = []
    notes: dict[str, None] = {}
    skipped: list[Skipped] = []
    first: dict[Point, str] = {}
    names: set[str] = set()
    for k, raw in enumerate(data):
        name = _case_name(raw, k)
        if name in names:
            raise InvalidInput(f"case {name}: case_name", name, "a name no other case of the file has (msOpST)")
        names.add(name)
        parsed = _parse_case(raw, name)
        for note in parsed.notes:
            notes[f"case {name}: {note}"] = None
        if parsed.skip:
            skipped.append(Skipped(name, -1, parsed.skip))
            continue
        op = table.get(parsed.op.lower())
        if op is None:
            known = ", ".join(f"{t} ({o})" for o, t in OP_TYPES.items())
            reason = f"op {parsed.op!r}: not an op of the workbench ({known}); map your own op types with op_names="
            skipped.append(Skipped(name, -1, reason))
            continue
        case_seed = int(m.group(1)) if (m := SEED_SUFFIX.search(name)) else seed
        for i, (ins, outs) in enumerate(_subcases(parsed)):
            try:
                point, point_notes = _point(op, parsed, ins, outs, platform, case_seed)
            except WorkbenchError as e:
                skipped.append(Skipped(name, i, str(e)))
                continue
            for note in point_notes:
                notes[f"case {name}: {note}"] = None
            for note in DRAW_NOTES.get((point.case.op, point.distribution), ()):
                notes[f"{OP_TYPES[point.case.op]} {point.distribution!r}: {note}"] = None  # once per file
            origin = f"{name}[{i}]"
            if point in first:
                skipped.append(Skipped(name, i, f"the same point as {first[point]}"))
                continue
            first[point] = origin
            points.append(point)
            origins.append(origin)
    return MsopstImport(tuple(points), tuple(origins), tuple(notes), tuple(skipped))


def _load(source: Any) -> tuple[Any, str]:
    """(parsed JSON, what to call it in messages)."""
    if isinstance(source, (list, dict)):
        return source, "msopst cases"
    if isinstance(source, str) and source.lstrip()[:1] in ("[", "{"):
        return _parse_json(source, "msopst JSON text"), "msopst JSON text"
    if not isinstance(source, (str, Path)):
        raise InvalidInput("msopst file", source, "a path to a msOpST case file, its JSON text, or the parsed list")
    path = Path(source).expanduser()
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise InvalidInput("msopst file", str(source), "an existing msOpST case file (*_case.json)") from None
    except OSError as exc:
        raise os_error("msopst file", path, exc, "make the file readable") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"msopst file {path}", f"byte {e.start}", "UTF-8 JSON text") from None
    return _parse_json(text, f"msopst file {path}"), f"msopst file {path}"


def _parse_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidInput(where, f"line {e.lineno} column {e.colno}: {e.msg}", "valid JSON (docs/msopst.md)") from None


def _op_table(op_names: Mapping[str, str] | None) -> dict[str, str]:
    """lower-cased msOpST op type (or workbench op name) -> workbench op name."""
    table = {t.lower(): o for o, t in OP_TYPES.items()} | {o: o for o in OPS}
    for msop, ours in (op_names or {}).items():
        if not isinstance(msop, str) or not isinstance(ours, str) or ours.strip().lower() not in OPS:
            raise InvalidInput(f"op_names[{msop!r}]", ours, "a workbench op name: " + ", ".join(OPS))
        table[msop.lower()] = ours.strip().lower()
    return table


def _case_name(raw: Any, k: int) -> str:
    if not isinstance(raw, Mapping):
        raise InvalidInput(f"case #{k + 1}", type(raw).__name__, "a JSON object (one msOpST case)")
    if "case_name" not in raw:
        raise InvalidInput(f"case #{k + 1}: case_name", None, "a string (required by msOpST)")
    name = raw["case_name"]
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f"case #{k + 1}: case_name", name, "a non-empty string")
    return name


@dataclass(frozen=True)
class _Tensor:
    """One input_desc/output_desc entry, its lists normalised (a single value is a list of one)."""

    where: str  # "input_desc[0]"
    name: str | None
    formats: tuple[str, ...]
    types: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]  # the shapes run: typical_shape where msOpST has one
    distributes: tuple[str, ...] = ()
    ranges: tuple[tuple[float, float], ...] = ()
    value: bool = False  # fixed input data given ("value"): msOpST ignores data_distribute and value_range


@dataclass(frozen=True)
class _Case:
    name: str
    op: str = ""
    ms: bool = False  # st_mode ms_python_train: no formats, another crossing order
    inputs: tuple[_Tensor, ...] = ()
    outputs: tuple[_Tensor, ...] = ()
    attrs: Mapping[str, tuple[str, Any]] = field(default_factory=dict)  # name -> (msOpST type, value)
    notes: tuple[str, ...] = ()
    skip: str = ""


def _is_fuzz(value: Any) -> bool:
    if isinstance(value, str):
        return value == "fuzz"
    return isinstance(value, list) and any(_is_fuzz(v) for v in value)


def _parse_case(raw: Mapping[str, Any], name: str) -> _Case:
    notes: list[str] = []
    where = f"case {name}"
    for key in ("op", "input_desc", "output_desc"):
        if key not in raw:
            raise InvalidInput(f"{where}: {key}", None, "present (a required msOpST field)")
    op = raw["op"]
    if not isinstance(op, str) or not op.strip():
        raise InvalidInput(f"{where}: op", op, "a non-empty string (the op type)")
    for key in ("input_desc", "output_desc"):
        if not isinstance(raw[key], list) or not all(isinstance(t, Mapping) for t in raw[key]):
            raise InvalidInput(f"{where}: {key}", raw[key], "a list of tensor description objects")
    if not raw["output_desc"]:
        raise InvalidInput(f"{where}: output_desc", [], "at least one output description (msOpST)")
    for key in raw:
        if key not in CASE_FIELDS:
            notes.append(f"{key} {brief(raw[key])}: not a msOpST case field; ignored ({DOC}#fields)")
    if "fuzz_impl" in raw or "fuzz_case_num" in raw or _fuzz_anywhere(raw):
        why = "fuzz-generated values (fuzz_impl, or a field set to 'fuzz') need msOpST's fuzz script; not expanded"
        return _Case(name, notes=tuple(notes), skip=why)
    mode = raw.get("st_mode")
    if mode is not None:
        if mode not in ST_MODES:
            raise InvalidInput(f"{where}: st_mode", mode, ", ".join(ST_MODES))
        notes.append(f"st_mode {mode!r}: the framework test modes are msOpST's; the op runs as an Ascend C kernel")
    ms = mode == "ms_python_train"
    _case_level_notes(raw, where, notes)
    inputs = tuple(_tensor(t, f"input_desc[{i}]", where, True, ms, notes) for i, t in enumerate(raw["input_desc"]))
    outputs = tuple(_tensor(t, f"output_desc[{i}]", where, False, ms, notes) for i, t in enumerate(raw["output_desc"]))
    _check_counts(inputs, outputs, where, ms)
    attrs = _attrs(raw.get("attr"), where, notes)
    return _Case(name, op.strip(), ms, inputs, outputs, attrs, tuple(notes))


def _fuzz_anywhere(raw: Mapping[str, Any]) -> bool:
    tensors = [t for key in ("input_desc", "output_desc") for t in raw[key]]
    if any(_is_fuzz(v) for t in tensors for v in t.values()):
        return True
    attrs = raw.get("attr")
    return isinstance(attrs, list) and any(isinstance(a, Mapping) and _is_fuzz(a.get("value")) for a in attrs)


def _case_level_notes(raw: Mapping[str, Any], where: str, notes: list[str]) -> None:
    if "error_threshold" in raw:
        t = raw["error_threshold"]
        if isinstance(t, str):  # the docs quote it: "[0.01,0.05]"
            with contextlib.suppress(json.JSONDecodeError):
                t = json.loads(t)
        ok = isinstance(t, list) and len(t) == 2 and all(_number(v) and 0.0 <= v <= 1.0 for v in t)
        if not ok:
            raise InvalidInput(
                f"{where}: error_threshold", raw["error_threshold"], "[threshold1, threshold2] in [0, 1]"
            )
        notes.append(
            f"error_threshold {t}: outputs are judged by the op's precision standard (docs/precision.md); choose "
            "another with standard= (workbench sweep --standard)"
        )
    for key, why in (
        ("run_torch_api", "the PyTorch call is msOpST's; the op runs as an Ascend C kernel"),
        ("calc_expect_func_file", "the expected outputs are the op's numpy golden"),
    ):
        if key in raw:
            if not isinstance(raw[key], str):
                raise InvalidInput(f"{where}: {key}", raw[key], "a string")
            notes.append(f"{key} {raw[key]!r}: {why}")
    if "expect" in raw:
        if raw["expect"] not in EXPECTS:
            raise InvalidInput(f"{where}: expect", raw["expect"], ", ".join(EXPECTS))
        if raw["expect"] == "failed":
            notes.append("expect 'failed': a point has no expected outcome; its row's status says what happened")


def _tensor(raw: Mapping[str, Any], at: str, where: str, is_input: bool, ms: bool, notes: list[str]) -> _Tensor:
    here = f"{where}: {at}"
    allowed = INPUT_FIELDS if is_input else OUTPUT_FIELDS
    for key in raw:
        if key not in allowed:
            notes.append(f"{at}.{key} {brief(raw[key])}: not a msOpST {at.split('[')[0]} field; ignored")
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidInput(f"{here}.name", name, "a string")
    if ms:
        formats: tuple[str, ...] = ("",)
        if "format" in raw:
            notes.append(f"{at}.format {brief(raw['format'])}: an ms_python_train case has no format; ignored")
    else:
        formats = _strings(raw, "format", here, None)
    types = _strings(raw, "type", here, TENSOR_TYPES)
    shapes = _shapes(raw, "shape", here, dynamic=True)
    if "typical_shape" in raw:
        typical = _shapes(raw, "typical_shape", here, dynamic=False)
        if len(typical) != len(shapes):
            raise InvalidInput(f"{here}.typical_shape", raw["typical_shape"], f"{len(shapes)} shapes, one per shape")
        notes.append(f"{at}.shape {brief(raw['shape'])}: run as the static typical_shape {brief(raw['typical_shape'])}")
        shapes = typical
    elif any(d == -1 for s in shapes for d in s):
        raise InvalidInput(f"{here}.typical_shape", None, "the static shapes to run (a shape has -1)")
    if "shape_range" in raw:
        notes.append(f"{at}.shape_range {brief(raw['shape_range'])}: a dynamic-shape range; ignored (static shapes)")
    _ori_fields(raw, here, at, formats, ms, notes)
    if not is_input:
        return _Tensor(at, name, formats, types, shapes)
    value = "value" in raw
    if value:
        notes.append(
            f"{at}.value {brief(raw['value'])}: fixed input data is not loaded; the inputs are drawn ({NOT_SUPPORTED})"
        )
    if "is_const" in raw:
        if not isinstance(raw["is_const"], bool):
            raise InvalidInput(f"{here}.is_const", raw["is_const"], "true or false")
        if raw["is_const"]:
            notes.append(f"{at}.is_const true: the input is passed as a tensor, not a constant")
    if value:  # msOpST neither reads nor checks data_distribute and value_range then (its defaults stand in)
        return _Tensor(at, name, formats, types, shapes, ("uniform",), ((0.1, 1.0),), value=True)
    distributes = _strings(raw, "data_distribute", here, DATA_DISTRIBUTES)
    return _Tensor(at, name, formats, types, shapes, distributes, _ranges(raw, here))


def _ori_fields(
    raw: Mapping[str, Any],
    here: str,
    at: str,
    formats: tuple[str, ...],
    ms: bool,
    notes: list[str],
) -> None:
    """ori_format / ori_shape: both or neither (msOpST), one per format / shape; a difference is named."""
    has = [key for key in ("ori_format", "ori_shape") if raw.get(key)]
    if not has:
        return
    if len(has) == 1:
        other = "ori_shape" if has[0] == "ori_format" else "ori_format"
        raise InvalidInput(f"{here}.{other}", None, f"given together with {has[0]} (msOpST)")
    ori_formats = _strings(raw, "ori_format", here, None)
    ori_shapes = _shapes(raw, "ori_shape", here, dynamic=True)
    declared = _shapes(raw, "shape", here, dynamic=True)
    if not ms and len(ori_formats) != len(formats):
        raise InvalidInput(f"{here}.ori_format", raw["ori_format"], f"{len(formats)} values, one per format")
    if len(ori_shapes) != len(declared):
        raise InvalidInput(f"{here}.ori_shape", raw["ori_shape"], f"{len(declared)} shapes, one per shape")
    if (not ms and ori_formats != formats) or ori_shapes != declared:
        notes.append(
            f"{at}.ori_format {brief(raw['ori_format'])} / ori_shape {brief(raw['ori_shape'])}: the workbench "
            "runs the format and shape as given (no format conversion)"
        )


def _strings(raw: Mapping[str, Any], key: str, here: str, allowed: Sequence[str] | None) -> tuple[str, ...]:
    if key not in raw:
        raise InvalidInput(f"{here}.{key}", None, "present (a required msOpST field)")
    value = raw[key]
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) and v for v in items):
        raise InvalidInput(f"{here}.{key}", value, "a non-empty string or a non-empty list of them")
    bad = [v for v in items if allowed is not None and v not in allowed]
    if bad:
        raise InvalidInput(f"{here}.{key}", bad[0], ", ".join(allowed or ()))
    return tuple(items)


def _shapes(raw: Mapping[str, Any], key: str, here: str, *, dynamic: bool) -> tuple[tuple[int, ...], ...]:
    """A shape ([2, 3]; [] is a scalar) or a list of shapes ([[2, 3], [4]]); dimensions > 0 (-1: dynamic)."""
    if key not in raw:
        raise InvalidInput(f"{here}.{key}", None, "present (a required msOpST field)")
    value = raw[key]
    help_ = "a shape [d0, d1, ...] or a list of shapes [[...], [...]], each dimension an integer > 0"
    if not isinstance(value, list):
        raise InvalidInput(f"{here}.{key}", value, help_)
    nested = [isinstance(v, list) for v in value]
    if any(nested) and not all(nested):
        raise InvalidInput(f"{here}.{key}", value, help_ + " (not a mix)")
    shapes = value if value and all(nested) else [value]
    for shape in shapes:
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, int) or not (d > 0 or (dynamic and d == -1)):
                raise InvalidInput(f"{here}.{key}", value, help_ + (" (-1: dynamic)" if dynamic else ""))
    return tuple(tuple(s) for s in shapes)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _ranges(raw: Mapping[str, Any], here: str) -> tuple[tuple[float, float], ...]:
    if "value_range" not in raw:
        raise InvalidInput(f"{here}.value_range", None, "present (a required msOpST field)")
    value = raw["value_range"]
    help_ = "[min, max] or a list of them [[min, max], ...], numbers with min <= max"
    if not isinstance(value, list) or not value:
        raise InvalidInput(f"{here}.value_range", value, help_)
    pairs = value if all(isinstance(v, list) for v in value) else [value]
    for p in pairs:
        if not isinstance(p, list) or len(p) != 2 or not all(_number(v) for v in p) or p[0] > p[1]:
            raise InvalidInput(f"{here}.value_range", value, help_)
    return tuple((p[0], p[1]) for p in pairs)


def _check_counts(inputs: Sequence[_Tensor], outputs: Sequence[_Tensor], where: str, ms: bool) -> None:
    """msOpST refuses a case whose tensors list different numbers of formats, types or shapes (and, per its field
    table, of input distributions and value ranges): sub-case i takes the i-th combination of every tensor."""
    keys = ("types", "shapes") if ms else ("formats", "types", "shapes")
    tensors = [*inputs, *outputs]
    for key in keys:
        counts = [len(getattr(t, key)) for t in tensors]
        if len(set(counts)) > 1:
            bad = next(t for t in tensors if len(getattr(t, key)) != counts[0])
            want = f"{counts[0]} values, as {tensors[0].where}.{key[:-1]} has (msOpST pairs them by position)"
            raise InvalidInput(f"{where}: {bad.where}.{key[:-1]}", list(getattr(bad, key)), want)
    for key, label in (("distributes", "data_distribute"), ("ranges", "value_range")):
        counts = [len(getattr(t, key)) for t in inputs]
        if len(set(counts)) > 1:
            bad = next(t for t in inputs if len(getattr(t, key)) != counts[0])
            want = f"{counts[0]} values, as {inputs[0].where}.{label} has (msOpST pairs them by position)"
            raise InvalidInput(f"{where}: {bad.where}.{label}", list(getattr(bad, key)), want)


def _attrs(raw: Any, where: str, notes: list[str]) -> dict[str, tuple[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise InvalidInput(f"{where}: attr", raw, "a list of {name, type, value} objects")
    out: dict[str, tuple[str, Any]] = {}
    for i, a in enumerate(raw):
        here = f"{where}: attr[{i}]"
        if not isinstance(a, Mapping):
            raise InvalidInput(here, a, "an object {name, type, value}")
        for key in ("name", "type", "value"):
            if key not in a:
                raise InvalidInput(f"{here}.{key}", None, "present (name, type and value are required)")
        for key in a:
            if key not in ("name", "type", "value"):
                notes.append(f"attr[{i}].{key} {brief(a[key])}: not a msOpST attr field; ignored")
        name, kind, value = a["name"], a["type"], a["value"]
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"{here}.name", name, "a non-empty string")
        if name in out:
            raise InvalidInput(f"{here}.name", name, "a name no other attr of the case has (msOpST)")
        if kind not in ATTR_TYPES:
            raise InvalidInput(f"{here}.type", kind, ", ".join(ATTR_TYPES))
        if not _attr_value_ok(kind, value):
            raise InvalidInput(f"{here}.value", value, f"a value of type {kind}")
        out[name] = (kind, value)
    return out


def _attr_value_ok(kind: str, value: Any) -> bool:
    scalar = {
        "bool": lambda v: isinstance(v, bool),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": _number,
        "string": lambda v: isinstance(v, str),
        "data_type": lambda v: v in DATA_TYPE_VALUES,
    }
    if kind == "list_list_int":
        return isinstance(value, list) and all(isinstance(v, list) and all(scalar["int"](x) for x in v) for v in value)
    if kind.startswith("list_"):
        return isinstance(value, list) and all(scalar[kind[5:]](v) for v in value)
    return bool(scalar[kind](value))


def _subcases(case: _Case) -> Iterator[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """msOpST's expansion: per tensor, the product of its lists (format, shape, type, data_distribute, value_range
    for inputs; format, shape, type for outputs; ms_python_train: type, shape[, ...] without formats); sub-case i
    takes the i-th combination of every input. An output combination serves the inputs of the same format, shape
    and type (distribution and value range are the innermost, fastest-varying lists)."""
    in_keys = (
        ("types", "shapes", "distributes", "ranges")
        if case.ms
        else ("formats", "shapes", "types", "distributes", "ranges")
    )
    out_keys = ("types", "shapes") if case.ms else ("formats", "shapes", "types")
    ins = [list(itertools.product(*(getattr(t, k) for k in in_keys))) for t in case.inputs]
    outs = [list(itertools.product(*(getattr(t, k) for k in out_keys))) for t in case.outputs]
    n_out = len(outs[0])
    n = len(ins[0]) if ins else n_out
    per_output = max(1, n // n_out)
    for i in range(n):
        yield (
            [dict(zip(in_keys, combo[i], strict=True)) for combo in ins],
            [dict(zip(out_keys, combo[i // per_output], strict=True)) for combo in outs],
        )


def _point(
    op: str, case: _Case, ins: list[dict[str, Any]], outs: list[dict[str, Any]], platform: str, seed: int
) -> tuple[Point, list[str]]:
    """The Point of one sub-case and its notes; a WorkbenchError when the op refuses it."""
    spec = get_op(op)
    optype = OP_TYPES[op]
    notes: list[str] = []
    for kind, got, specs in (("input", ins, spec.inputs), ("output", outs, spec.outputs)):
        if len(got) != len(specs):
            names = ", ".join(t.name for t in specs)
            raise InvalidInput(f"{kind}_desc", len(got), f"{len(specs)} {kind}s for {optype} ({names})")
    tensors = [("input", k, d, t) for k, (d, t) in enumerate(zip(ins, case.inputs, strict=True))]
    tensors += [("output", k, d, t) for k, (d, t) in enumerate(zip(outs, case.outputs, strict=True))]
    dtypes: dict[tuple[str, int], str] = {}
    for kind, k, d, t in tensors:
        dtypes[(kind, k)] = canonical(d["types"], f"{t.where}.type")
        proto = PROTO[op][0 if kind == "input" else 1][k]
        ours = (spec.inputs if kind == "input" else spec.outputs)[k].name
        if t.name is not None and t.name not in (proto, ours):
            notes.append(f"{t.where}.name {t.name!r}: tensors are matched by position; this is {optype}'s {proto}")
    attrs = {name: value for name, (_, value) in case.attrs.items() if name not in CHECK_ONLY.get(op, ())}
    the_case = Case(
        op,
        tuple(dtypes[src] for src in DTYPES_FROM[op]),
        ins[0]["shapes"],
        "" if case.ms else ins[0]["formats"],
        attrs,
        platform,
    )
    expected = spec.describe(the_case)
    check_attrs = {name: case.attrs[name][1] for name in CHECK_ONLY.get(op, ()) if name in case.attrs}
    spec.check(expected, {**the_case.attrs, **check_attrs})
    for kind, k, d, t in tensors:
        want = expected[(spec.inputs if kind == "input" else spec.outputs)[k].name]
        _compare(t.where, d, dtypes[(kind, k)], want, case.ms, optype, notes)
    draws: list[Draw] = [
        ("value", None) if t.value else (d["distributes"], d["ranges"]) for d, t in zip(ins, case.inputs, strict=True)
    ]
    dist = _distribution(the_case, draws, case.inputs, notes)
    return Point(the_case, seed, dist), notes


def _compare(
    at: str, d: Mapping[str, Any], dtype: str, want: TensorDesc, ms: bool, optype: str, notes: list[str]
) -> None:
    """The file's tensor against the one the case describes: a different dtype, format or element count is a case
    the workbench cannot run (raised); a different shape of the same elements is named."""
    if dtype != want.dtype:
        raise InvalidInput(f"{at}.type", d["types"], f"{want.dtype} (what {optype} computes for this case)")
    if not ms and d["formats"].upper() != want.format:
        raise InvalidInput(f"{at}.format", d["formats"], f"{want.format} (what {optype} computes for this case)")
    shape = tuple(d["shapes"])
    if shape != tuple(want.shape):
        if math.prod(shape) != math.prod(want.shape):
            raise InvalidInput(f"{at}.shape", list(shape), f"{list(want.shape)} (what {optype} computes)")
        notes.append(f"{at}.shape {list(shape)}: run as {list(want.shape)} (the same elements, the op's shape)")


def _distribution(case: Case, draws: Sequence[Draw], tensors: Sequence[_Tensor], notes: list[str]) -> str:
    """The op's distribution that draws every input the way the file asks (by data_distribute name; a different
    value range is named), else the op's default, named."""
    spec = get_op(case.op)
    for dist in spec.distributions:
        want = msopst_draws(case, dist)
        if want is None or [w[0] for w in want] != [d[0] for d in draws]:
            continue
        for (name, rng), (_, got), t in zip(want, draws, tensors, strict=True):
            if rng is not None and got is not None and tuple(map(float, got)) != tuple(map(float, rng)):
                notes.append(
                    f"{t.where}.value_range {list(got)}: {case.op}'s {dist!r} draws this input from {name} "
                    f"{_range_text(name, rng)} for {':'.join(case.dtypes)}; its ranges are fixed ({NOT_SUPPORTED})"
                )
        return dist
    asked = ", ".join(
        f"{t.where} {d[0]} {list(d[1]) if d[1] is not None else ''}".rstrip()
        for d, t in zip(draws, tensors, strict=True)
    )
    notes.append(
        f"data_distribute ({asked}): {case.op} has no input distribution drawing its inputs like this; its default "
        f"{spec.distributions[0]!r} is used ({NOT_SUPPORTED})"
    )
    return spec.distributions[0]


def _range_text(name: str, rng: tuple[float, float]) -> str:
    return f"with [mean, std] = {list(rng)}" if name == "normal" else f"over {list(rng)}"
