"""What a record's JSON may hold (schema 2), checked field by field before anything in it is served, and the digest
that makes the record tamper-evident as a whole. Pure functions over parsed JSON; the files are store.py's.

Every refusal is an InvalidInput whose field reads `record FILE: FIELD`, so the message names the file, the field,
the value and what is allowed.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from ..core.dtypes import np_dtype
from ..core.errors import InvalidInput, WorkbenchError
from ..planning.case import Case
from ..planning.pipeline import MAX_BLOCK_DIM, MAX_SEED

SCHEMA = 2
FIELDS = (
    "schema",
    "key",
    "source",
    "backend",
    "created",
    "cann_version",
    "timing",
    "case",
    "seed",
    "distribution",
    "kernel",
    "plan",
    "timings",
    "exit_code",
    "diagnostics",
    "arrays",
    "npz_sha256",
    "digest",
)
SOURCES = ("emulator", "npu")
BACKENDS = ("emu", "npu")  # a replay is a record already
KERNELS = ("shipped", "edited copy")
SEVERITIES = ("info", "warning", "error", "fatal")
# How each kind of record says its times were taken (criteria.kernel_time reads the first word)
EMULATOR_TIMING = "emulator wall time"
TIMING_PREFIX = {("npu", "npu"): "measured", ("emulator", "npu"): "predicted", ("emulator", "emu"): EMULATOR_TIMING}
DIAGNOSTIC_FIELDS = ("kind", "severity", "core", "api", "file", "line", "message", "function", "count", "details")
PLAN_FIELDS = (
    "op",
    "platform",
    "tiling_key",
    "tiling_name",
    "block_dim",
    "fields",
    "unit",
    "cores",
    "ub",
    "workspace_bytes",
    "copy_bytes",
    "notes",
)
UB_FIELDS = ("capacity", "size", "reserved", "used", "buffers")
UB_BUFFER_FIELDS = {"name": str, "count": int, "bytes_each": int, "total": int, "note": str}
_HEX32, _HEX64 = re.compile(r"[0-9a-f]{32}"), re.compile(r"[0-9a-f]{64}")
_KIND = re.compile(r"[A-Z][A-Z0-9_]*")
_TIMING_NAME = re.compile(r"[a-z][a-z0-9_]*_s")


class Said(str):
    """A value described in words: shown as it reads ("got no such file"), not quoted."""

    def __repr__(self) -> str:
        return str(self)


MISSING = Said("no value (the field is missing)")


@dataclass(frozen=True)
class Checked:
    """What a valid record's JSON says its npz must hold: array name -> (dtype, shape)."""

    case: Case
    arrays: Mapping[str, tuple[np.dtype, tuple[int, ...]]]

    def nbytes(self, name: str) -> int:
        dtype, shape = self.arrays[name]
        return math.prod(shape) * dtype.itemsize


def digest(meta: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field but `digest` (sorted keys, no spaces, ASCII): the npz's
    SHA-256 is one of those fields, so the digest covers the arrays too."""
    body = {k: v for k, v in meta.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def check_schema(meta: Mapping[str, Any], where: str, stem: str) -> None:
    """This workbench's schema, or a refusal that says how to make the record again."""
    schema = meta.get("schema", MISSING)
    if _is_int(schema) and schema == SCHEMA:
        return
    if _is_int(schema) and schema == 1:
        raise InvalidInput(
            f"record {where}: schema",
            1,
            f"{SCHEMA}: a schema-1 record has no digest over its fields, so none of them can be trusted; record the "
            f"run again: {rerecord_command(meta, stem)}",
        )
    raise InvalidInput(f"record {where}: schema", schema, f"{SCHEMA} (this workbench's record format)")


def verify_digest(meta: Mapping[str, Any], where: str) -> None:
    stored = meta.get("digest", MISSING)
    if not (isinstance(stored, str) and stored.startswith("sha256:") and _HEX64.fullmatch(stored[7:])):
        _fail(where, "digest", stored, "'sha256:' and 64 lower-case hex digits (the SHA-256 over every other field)")
    if stored != digest(meta):
        raise InvalidInput(
            f"record {where}",
            Said("fields that do not match its digest"),
            "the record as it was written: the JSON was modified after recording; record the run again",
        )


def check(meta: Mapping[str, Any], where: str) -> Checked:
    """Every field's type, range and agreement with the others (and with the recorded case)."""
    unknown = sorted(set(meta) - set(FIELDS))
    if unknown:
        _fail(where, "fields", unknown, f"schema {SCHEMA}'s fields: {', '.join(FIELDS)}")
    get = lambda name: meta.get(name, MISSING)  # noqa: E731
    _hex(where, "key", get("key"), _HEX32, "32 lower-case hex digits (the launch key)")
    _hex(where, "npz_sha256", get("npz_sha256"), _HEX64, "64 lower-case hex digits (the npz's SHA-256)")
    source, backend = get("source"), get("backend")
    _one_of(where, "source", source, SOURCES)
    _one_of(where, "backend", backend, BACKENDS)
    if source == "npu" and backend != "npu":
        _fail(where, "source", source, f"'emulator' for backend {backend!r} (only the npu backend runs on a device)")
    _created(where, get("created"))
    _cann_version(where, get("cann_version"), source)
    prefix = TIMING_PREFIX[(source, backend)]
    timing = get("timing")
    if not (isinstance(timing, str) and timing.startswith(prefix) and len(timing) <= 2000):
        _fail(
            where,
            "timing",
            timing,
            f"a text starting {prefix!r} (how a {source} record of backend {backend} was timed)",
        )
    case = _case(where, get("case"))
    seed = get("seed")
    if not (_is_int(seed) and 0 <= seed <= MAX_SEED):
        _fail(where, "seed", seed, f"an integer in [0, {MAX_SEED}]")
    distributions = case.spec.distributions
    if get("distribution") not in distributions:
        _fail(where, "distribution", get("distribution"), ", ".join(distributions))
    _one_of(where, "kernel", get("kernel"), KERNELS)
    _plan(where, get("plan"), case)
    _timings(where, get("timings"))
    exit_code = get("exit_code")
    if not (_is_int(exit_code) and 0 <= exit_code <= 255):
        _fail(where, "exit_code", exit_code, "an integer in [0, 255] (a process exit status; the emulator's are 0-5)")
    _diagnostics(where, get("diagnostics"))
    return Checked(case, _arrays(where, get("arrays"), case))


def rerecord_command(meta: Mapping[str, Any], stem: str) -> str:
    """The `workbench record` line that makes this record again, from its case when that can be read. Every word is
    shell-quoted: the values come from a file nothing vouches for."""
    case: Any = meta.get("case")
    try:
        words = ["workbench", "record", str(case["op"]), "--dtype", ":".join(map(str, case["dtypes"]))]
        words += ["--shape", ",".join(map(str, case["shape"])), "--format", str(case["format"])]
        for name, value in dict(case["attrs"]).items():
            words += ["--attr", f"{name}={str(value).lower() if isinstance(value, bool) else value}"]
        words += ["--platform", str(case["platform"]), "--seed", str(meta.get("seed", 0))]
        words += ["--distribution", str(meta.get("distribution", "default"))]
    except (KeyError, TypeError, ValueError):
        words = ["workbench", "record", "OP", "--dtype", "SRC[:DST]", "--shape", "D0,D1,..."]
    if meta.get("kernel") == "edited copy":
        words += ["--kernel", "YOUR_EDITED_COPY"]
    return shlex.join([*words, "--out", stem, "--force"])


# ------------------------------------------------------------------------------------------------ fields
def _fail(where: str, field: str, value: Any, allowed: str) -> NoReturn:
    raise InvalidInput(f"record {where}: {field}", value, allowed)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(where: str, field: str, value: Any, least: int | None = None, most: int | None = None) -> None:
    if not _is_int(value) or (least is not None and value < least) or (most is not None and value > most):
        bounds = "" if least is None else f" >= {least}" if most is None else f" in [{least}, {most}]"
        _fail(where, field, value, f"an integer{bounds}")


def _text(where: str, field: str, value: Any) -> None:
    if not isinstance(value, str):
        _fail(where, field, value, "a string")


def _one_of(where: str, field: str, value: Any, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        _fail(where, field, value, " or ".join(map(repr, allowed)))


def _hex(where: str, field: str, value: Any, pattern: re.Pattern[str], allowed: str) -> None:
    if not (isinstance(value, str) and pattern.fullmatch(value)):
        _fail(where, field, value, allowed)


def _object(where: str, field: str, value: Any, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        _fail(where, field, value, f"an object with the fields {', '.join(keys)}")
    if set(value) != set(keys):
        _fail(where, field, sorted(value), f"the fields {', '.join(keys)}")
    return value


def _created(where: str, value: Any) -> None:
    try:
        when = datetime.datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        _fail(where, "created", value, "an ISO 8601 date and time with its UTC offset, e.g. 2026-12-01T20:49:43+00:00")


def _cann_version(where: str, value: Any, source: str) -> None:
    if source == "emulator" and value is not None:
        _fail(where, "cann_version", value, "null (a record made on the emulator has no CANN version)")
    if value is not None and not (isinstance(value, str) and 0 < len(value) <= 64 and value.isprintable()):
        _fail(where, "cann_version", value, "null or CANN's version string, e.g. 8.0.RC3")


def _case(where: str, value: Any) -> Case:
    keys = ("op", "dtypes", "shape", "format", "attrs", "platform")
    value = _object(where, "case", value, keys)
    try:
        case = Case(**value)
    except WorkbenchError as exc:
        _fail(where, f"case.{exc.field}", exc.value, exc.allowed)
    except (TypeError, ValueError) as exc:  # a value no Case check expected (e.g. a dict for the shape)
        _fail(where, "case", dict(value), f"a case `workbench record` writes ({exc})")
    if case.to_json() != value:
        _fail(where, "case", dict(value), f"its normalised form {case.to_json()}")
    return case


def _plan(where: str, value: Any, case: Case) -> None:
    plan = _object(where, "plan", value, PLAN_FIELDS)
    for field, expected in (("op", case.op), ("platform", case.platform)):
        if plan[field] != expected:
            _fail(where, f"plan.{field}", plan[field], f"{expected!r} (the case's)")
    _int(where, "plan.tiling_key", plan["tiling_key"], 0)
    _int(where, "plan.block_dim", plan["block_dim"], 0, MAX_BLOCK_DIM)
    _int(where, "plan.workspace_bytes", plan["workspace_bytes"], 0)
    for field in ("tiling_name", "unit"):
        _text(where, f"plan.{field}", plan[field])
    if not isinstance(plan["fields"], dict):
        _fail(where, "plan.fields", plan["fields"], "an object of TilingData field -> integer")
    for name, v in plan["fields"].items():
        _int(where, f"plan.fields.{name}", v)
    _list(where, "plan.copy_bytes", plan["copy_bytes"])
    for i, v in enumerate(plan["copy_bytes"]):
        _int(where, f"plan.copy_bytes[{i}]", v, 0)
    _list(where, "plan.notes", plan["notes"])
    for i, v in enumerate(plan["notes"]):
        _text(where, f"plan.notes[{i}]", v)
    _list(where, "plan.cores", plan["cores"])
    for i, core in enumerate(plan["cores"]):
        if not isinstance(core, dict):
            _fail(where, f"plan.cores[{i}]", core, "an object of integers (core, start, count, tiles, ...)")
        for name, v in core.items():
            _int(where, f"plan.cores[{i}].{name}", v)
    ub = _object(where, "plan.ub", plan["ub"], UB_FIELDS)
    for name in UB_FIELDS[:-1]:
        _int(where, f"plan.ub.{name}", ub[name], 0)
    _list(where, "plan.ub.buffers", ub["buffers"])
    for i, buf in enumerate(ub["buffers"]):
        buf = _object(where, f"plan.ub.buffers[{i}]", buf, tuple(UB_BUFFER_FIELDS))
        for name, kind in UB_BUFFER_FIELDS.items():
            (_int if kind is int else _text)(where, f"plan.ub.buffers[{i}].{name}", buf[name])


def _list(where: str, field: str, value: Any) -> None:
    if not isinstance(value, list):
        _fail(where, field, value, "a list")


def _timings(where: str, value: Any) -> None:
    if not isinstance(value, dict):
        _fail(where, "timings", value, "an object of step name -> seconds")
    for name, seconds in value.items():
        if not _TIMING_NAME.fullmatch(name):
            _fail(where, "timings", name, "names ending in _s (seconds), e.g. launch_s, kernel_s")
        if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and math.isfinite(seconds)):
            _fail(where, f"timings.{name}", seconds, "a finite number of seconds >= 0")
        if seconds < 0:
            _fail(where, f"timings.{name}", seconds, "a finite number of seconds >= 0")


def _diagnostics(where: str, value: Any) -> None:
    _list(where, "diagnostics", value)
    for i, d in enumerate(value):
        field = f"diagnostics[{i}]"
        if not isinstance(d, dict):
            _fail(where, field, d, f"an object with the fields {', '.join(DIAGNOSTIC_FIELDS)}")
        unknown = sorted(set(d) - set(DIAGNOSTIC_FIELDS))
        if unknown:
            _fail(where, field, unknown, f"the fields {', '.join(DIAGNOSTIC_FIELDS)}")
        kind = d.get("kind", MISSING)
        if not (isinstance(kind, str) and _KIND.fullmatch(kind)):
            _fail(where, f"{field}.kind", kind, "an upper-case diagnostic kind, e.g. OUTPUT_UNWRITTEN")
        if d.get("severity", MISSING) not in SEVERITIES:
            _fail(where, f"{field}.severity", d.get("severity", MISSING), ", ".join(SEVERITIES))
        _text(where, f"{field}.message", d.get("message", MISSING))
        for name in ("api", "file", "function"):
            if name in d:
                _text(where, f"{field}.{name}", d[name])
        for name, least in (("core", -1), ("line", 0), ("count", 1)):
            if name in d:
                _int(where, f"{field}.{name}", d[name], least)
        if not isinstance(d.get("details", {}), dict):
            _fail(where, f"{field}.details", d["details"], "an object")


def _arrays(where: str, value: Any, case: Case) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """The arrays the recorded case has: its inputs and outputs, and the built-in op's outputs when recorded."""
    spec, descs = case.spec, case.spec.describe(case)
    required = {f"in.{t.name}": descs[t.name] for t in spec.inputs if descs.get(t.name) is not None}
    required |= {f"out.{t.name}": descs[t.name] for t in spec.outputs if descs.get(t.name) is not None}
    optional = {f"builtin.{k[4:]}": d for k, d in required.items() if k.startswith("out.")}
    if not isinstance(value, dict):
        _fail(where, "arrays", value, "an object of array name -> {dtype, shape}")
    if not set(required) <= set(value) <= set(required) | set(optional):
        _fail(
            where,
            "arrays",
            sorted(value),
            f"{', '.join(required)}, and {', '.join(optional)} when the built-in op ran (the recorded case's tensors)",
        )
    out: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
    for name in value:
        desc = (required | optional)[name]
        info = _object(where, f"arrays.{name}", value[name], ("dtype", "shape"))
        tensor = f"the case's {name.partition('.')[2]}"
        if info["dtype"] != desc.dtype:
            _fail(where, f"arrays.{name}.dtype", info["dtype"], f"{desc.dtype} ({tensor})")
        if info["shape"] != list(desc.shape) or not all(_is_int(d) for d in info["shape"]):
            _fail(where, f"arrays.{name}.shape", info["shape"], f"{list(desc.shape)} ({tensor})")
        out[name] = (np_dtype(desc.dtype), tuple(desc.shape))
    return out


def json_type(value: Any) -> str:
    """A parsed JSON value's kind as JSON names it."""
    kinds = ((dict, "object"), (list, "array"), (str, "string"), (bool, "boolean"), ((int, float), "number"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")
