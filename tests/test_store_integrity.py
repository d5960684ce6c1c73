"""A record is tamper-evident as a whole and checked field by field before anything is served (issue 17, item 4).

- one digest over the canonical JSON (every field but the digest, the npz's SHA-256 among them) covers the JSON and
  the arrays: an edited field or array is refused by `store.load` and by the replay backend, naming the file;
- every field is validated (type, range, agreement with the recorded case), the error naming the field, the
  value and what is allowed, also when the digest was recomputed after the edit;
- the npz's size, its members' sizes, compression and .npy headers are checked before a byte is inflated: a
  zip bomb is refused with a few MiB of memory;
- malformed JSON, a truncated npz, a missing partner file or a schema-1 record are one clear error each.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import re
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from recorded_run import RECORDED_CASE as CASE

import workbench as wb
from workbench.core.errors import InvalidInput, WorkbenchError
from workbench.running import store
from workbench.view.cli import main


def digest(meta: dict[str, Any]) -> str:
    """The documented digest (docs/records.md), computed here independently of the store."""
    body = {k: v for k, v in meta.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def rewrite(path: Path, meta: dict[str, Any], *, sign: bool) -> None:
    """Write `meta` back; `sign`: recompute the digest, as someone forging a record would."""
    meta = {**meta, "digest": digest(meta)} if sign else meta
    path.write_text(json.dumps(meta, indent=1))


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """An npz as the store writes it (each array as raw uint8 bytes); returns its SHA-256."""
    buf = io.BytesIO()
    np.savez(buf, **{k: np.ascontiguousarray(v).view(np.uint8).reshape(-1) for k, v in arrays.items()})
    path.write_bytes(buf.getvalue())
    return hashlib.sha256(buf.getvalue()).hexdigest()


# ------------------------------------------------------------------------------------- tamper-evident
def _source_npu(m: dict[str, Any]) -> None:
    m["source"], m["backend"], m["cann_version"] = "npu", "npu", "8.0.RC3"
    m["timing"] = "measured on the device: timeline events around each launch"


EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "source npu": _source_npu,
    "cann_version": lambda m: m.update(cann_version="8.0.RC3"),
    "exit code": lambda m: m.update(exit_code=0 if m["exit_code"] else 1),
    "dtype": lambda m: m["arrays"]["out.y"].update(dtype="int16"),  # as many bytes: a size check cannot see it
    "shape": lambda m: m["arrays"]["out.y"].update(shape=[9, 37]),
    "a timing": lambda m: m["timings"].update(kernel_s=1e-6),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_an_edited_json_is_refused_by_load_and_by_replay(recorded: Path, edit: Callable[..., None]) -> None:
    meta = json.loads(recorded.read_text())
    edit(meta)
    rewrite(recorded, meta, sign=False)
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded))}: .*modified after recording"):
        store.load(recorded)
    with pytest.raises(InvalidInput, match="modified after recording"):
        wb.run(CASE, backend="replay", distribution="edges")


def test_edited_arrays_are_refused_also_with_their_hash_updated(recorded: Path) -> None:
    npz = recorded.with_suffix(".npz")
    rec = store.load(recorded)
    flipped = rec.outputs["y"].copy()
    flipped[0] = -flipped[0] if flipped[0] != 0 else 1
    sha = write_npz(npz, {"in.x": rec.inputs["x"], "out.y": flipped})
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(npz))}: .*modified after recording"):
        store.load(recorded)
    meta = json.loads(recorded.read_text())
    rewrite(recorded, {**meta, "npz_sha256": sha}, sign=False)  # the JSON's own digest now disagrees
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded))}: .*modified after recording"):
        store.load(recorded)


def test_cli_replay_of_an_edited_record_is_one_line_exit_2(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    meta = json.loads(recorded.read_text())
    _source_npu(meta)
    rewrite(recorded, meta, sign=False)
    argv = ["run", "cast", "--dtype", "bfloat16:float16", "--shape", "333", "--distribution", "edges", "--quiet"]
    assert main([*argv, "--backend", "replay"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(recorded) in err and "modified after recording" in err


def test_a_schema_1_record_is_refused_with_how_to_record_it_again(recorded: Path) -> None:
    meta = json.loads(recorded.read_text())
    del meta["digest"]
    rewrite(recorded, {**meta, "schema": 1}, sign=False)
    with pytest.raises(InvalidInput, match=r"schema: got 1; allowed: 2") as info:
        store.load(recorded)
    text = str(info.value)
    assert str(recorded) in text and "no digest" in text
    assert "workbench record cast --dtype bfloat16:float16 --shape 333" in text and "--distribution edges" in text
    assert f"--out {recorded.with_suffix('')} --force" in text


# -------------------------------------------------------------------------------- every field checked
def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(meta: dict[str, Any]) -> None:
        node = meta
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _diagnostic(**changes: Any) -> Callable[[dict[str, Any]], None]:
    good = {"kind": "OUTPUT_UNWRITTEN", "severity": "info", "core": -1, "api": "", "file": "", "line": 0}
    good |= {"message": "m", "count": 1, "details": {}}
    return _set(("diagnostics",), [{**good, **changes}])


INVALID: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("source", _set(("source",), "gpu"), "source: got 'gpu'; allowed: "),
    ("source vs backend", _set(("source",), "npu"), "source: got 'npu'; allowed: 'emulator' for backend 'emu'"),
    ("backend", _set(("backend",), "replay"), "backend: got 'replay'; allowed: "),
    ("exit code range", _set(("exit_code",), 300), "exit_code: got 300; allowed: an integer in [0, 255]"),
    ("exit code bool", _set(("exit_code",), True), "exit_code: got True; allowed: an integer"),
    ("exit code text", _set(("exit_code",), "0"), "exit_code: got '0'; allowed: an integer"),
    ("seed", _set(("seed",), -1), "seed: got -1; allowed: an integer in [0, "),
    ("distribution", _set(("distribution",), "bogus"), "distribution: got 'bogus'; allowed: default, "),
    ("key", _set(("key",), "not-hex"), "key: got 'not-hex'; allowed: 32 lower-case hex digits"),
    ("created", _set(("created",), "yesterday"), "created: got 'yesterday'; allowed: an ISO 8601 date"),
    ("kernel", _set(("kernel",), "mine"), "kernel: got 'mine'; allowed: 'shipped' or 'edited copy'"),
    ("cann_version", _set(("cann_version",), 8), "cann_version: got 8; allowed: null"),
    ("timing", _set(("timing",), "measured on the device"), "timing: got 'measured on the device'; allowed: "),
    ("timings negative", _set(("timings", "kernel_s"), -1.0), "timings.kernel_s: got -1.0; allowed: a finite"),
    ("timings text", _set(("timings", "kernel_s"), "fast"), "timings.kernel_s: got 'fast'; allowed: a finite"),
    ("timings name", _set(("timings", "kernel"), 1.0), "timings: got 'kernel'; allowed: names ending in _s"),
    ("dtype name", _set(("arrays", "out.y", "dtype"), "float128"), "arrays.out.y.dtype: got 'float128'; allowed: "),
    ("dtype vs case", _set(("arrays", "out.y", "dtype"), "int16"), "arrays.out.y.dtype: got 'int16'; allowed: float16"),
    ("shape negative", _set(("arrays", "out.y", "shape"), [-1]), "arrays.out.y.shape: got [-1]; allowed: [333]"),
    ("shape vs case", _set(("arrays", "out.y", "shape"), [9, 37]), "arrays.out.y.shape: got [9, 37]; allowed: [333]"),
    ("shape type", _set(("arrays", "out.y", "shape"), "333"), "arrays.out.y.shape: got '333'; allowed: [333]"),
    ("extra array", _set(("arrays", "out.z"), {"dtype": "int8", "shape": [1]}), "arrays: got ['in.x', 'out.y', 'out.z"),
    ("case op", _set(("case", "op"), "nope"), "case.op: got 'nope'; allowed: "),
    ("case shape", _set(("case", "shape"), [-3]), "case.shape: got [-3]; allowed: "),
    (
        "plan block_dim",
        _set(("plan", "block_dim"), 70000),
        "plan.block_dim: got 70000; allowed: an integer in [0, 65535]",
    ),
    ("plan op", _set(("plan", "op"), "sce"), "plan.op: got 'sce'; allowed: 'cast' (the case's)"),
    (
        "plan fields",
        _set(("plan", "fields", "usedCoreNum"), 1.5),
        "plan.fields.usedCoreNum: got 1.5; allowed: an integer",
    ),
    ("severity", _diagnostic(severity="panic"), "diagnostics[0].severity: got 'panic'; allowed: info, warning, error"),
    ("line", _diagnostic(line=-3), "diagnostics[0].line: got -3; allowed: an integer >= 0"),
    ("diagnostic field", _diagnostic(colour="red"), "diagnostics[0]: got ['colour']; allowed: "),
    ("npz_sha256", _set(("npz_sha256",), "zz"), "npz_sha256: got 'zz'; allowed: 64 lower-case hex digits"),
    ("unknown field", _set(("extra",), 1), "fields: got ['extra']; allowed: "),
    ("missing field", lambda m: m.pop("seed"), "seed: got no value (the field is missing); allowed: an integer"),
]


@pytest.mark.parametrize(("edit", "message"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_every_field_is_validated_even_when_the_digest_was_recomputed(
    recorded: Path, edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    meta = json.loads(recorded.read_text())
    edit(meta)
    rewrite(recorded, meta, sign=True)
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded))}: {re.escape(message)}"):
        store.load(recorded)


def test_the_digest_itself_is_checked(recorded: Path) -> None:
    meta = json.loads(recorded.read_text())
    rewrite(recorded, {**meta, "digest": "md5:abc"}, sign=False)
    with pytest.raises(InvalidInput, match=r"digest: got 'md5:abc'; allowed: 'sha256:' and 64 lower-case hex"):
        store.load(recorded)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", r"not valid JSON \(Expecting property name enclosed in double quotes: line 1 column 2\)"),
        ("", r"not valid JSON \(Expecting value: line 1 column 1\)"),
        ("[1, 2]", r"got a JSON array; allowed: a JSON object"),
        ('{"schema": 2, "schema": 2}', r"duplicate field 'schema'"),
        ('{"schema": 2, "x": NaN}', r"NaN"),
    ],
    ids=["malformed", "empty", "array", "duplicate", "nan"],
)
def test_malformed_json_is_one_clear_error(recorded: Path, text: str, message: str) -> None:
    recorded.write_text(text)
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded))}: .*{message}"):
        store.load(recorded)


def test_a_json_that_is_not_utf8_is_one_clear_error(recorded: Path) -> None:
    recorded.write_bytes(b'{"schema": "\xff"}')
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded))}: .*UTF-8"):
        store.load(recorded)


def test_cli_replay_names_an_unreadable_record_it_had_to_skip(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded.write_text("{not json")
    argv = ["run", "cast", "--dtype", "bfloat16:float16", "--shape", "333", "--distribution", "edges", "--quiet"]
    assert main([*argv, "--backend", "replay"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a record of this exact launch" in err
    assert f"unreadable: {recorded}" in err


def test_a_truncated_npz_is_one_clear_error(recorded: Path) -> None:
    npz = recorded.with_suffix(".npz")
    npz.write_bytes(npz.read_bytes()[:-100])
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(npz))}: .*truncated"):
        store.load(recorded)


def test_a_missing_partner_file_is_one_clear_error(recorded: Path) -> None:
    npz = recorded.with_suffix(".npz")
    saved = npz.read_bytes()
    npz.unlink()
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(npz))}: got no such file; allowed: .*pair"):
        store.load(recorded)
    npz.write_bytes(saved)
    recorded.unlink()
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded))}: got no such file; allowed: "):
        store.load(npz)
    npz.unlink()
    with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded.with_suffix('')))}: got no such"):
        store.load(recorded)


# ------------------------------------------------------------------------------ arrays before inflating
def _forge(recorded: Path, npz_bytes: bytes, **meta_changes: Any) -> None:
    """A record whose JSON is signed for `npz_bytes`: only the npz checks can refuse it."""
    recorded.with_suffix(".npz").write_bytes(npz_bytes)
    meta = json.loads(recorded.read_text()) | meta_changes
    rewrite(recorded, {**meta, "npz_sha256": hashlib.sha256(npz_bytes).hexdigest()}, sign=True)


def _npy_header(nbytes: int, dtype: str = "|u1") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": (nbytes,)})
    return buf.getvalue()  # the magic string, the version and the header


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """1 GiB of zeros in two deflated members (about 1 MiB): a bfloat16 -> float16 Cast of 2^28 elements."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    n = 2**28 * 2
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for name in ("in.x.npy", "out.y.npy"):
            with zf.open(name, "w", force_zip64=True) as member:
                member.write(_npy_header(n))
                chunk = bytes(1 << 20)
                for _ in range(n // len(chunk)):
                    member.write(chunk)
    return path.read_bytes()


def test_a_zip_bomb_is_refused_without_inflating_it(recorded: Path, bomb: bytes) -> None:
    assert len(bomb) < 2 << 20
    meta = json.loads(recorded.read_text())
    case = {**meta["case"], "shape": [2**28]}
    arrays = {"in.x": {"dtype": "bfloat16", "shape": [2**28]}, "out.y": {"dtype": "float16", "shape": [2**28]}}
    _forge(recorded, bomb, case=case, arrays=arrays)
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInput, match=rf"^record {re.escape(str(recorded.with_suffix('.npz')))}: "):
            store.load(recorded)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"{peak / 2**20:.0f} MiB"


def _padded_npz(members: dict[str, bytes], compression: int, size: int) -> bytes:
    """An npz of exactly `size` bytes (a zip comment pads it), so the whole-file size check passes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    pad = size - len(buf.getvalue())
    assert 0 <= pad < 65536
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.comment = b" " * pad
    return buf.getvalue()


def _members(rec: store.Record, dtype: str = "|u1") -> dict[str, bytes]:
    x, y = rec.inputs["x"].tobytes(), rec.outputs["y"].tobytes()
    return {"in.x.npy": _npy_header(len(x), dtype) + x, "out.y.npy": _npy_header(len(y), dtype) + y}


def test_a_compressed_member_is_refused(recorded: Path) -> None:
    rec = store.load(recorded)
    size = recorded.with_suffix(".npz").stat().st_size
    _forge(recorded, _padded_npz(_members(rec), zipfile.ZIP_DEFLATED, size))
    with pytest.raises(InvalidInput, match=r"in\.x\.npy: got compressed .*allowed: stored"):
        store.load(recorded)


def test_an_npy_header_that_disagrees_with_the_json_is_refused(recorded: Path) -> None:
    rec = store.load(recorded)
    size = recorded.with_suffix(".npz").stat().st_size
    _forge(recorded, _padded_npz(_members(rec, "|i1"), zipfile.ZIP_STORED, size))
    with pytest.raises(InvalidInput, match=r"in\.x\.npy: got an \.npy header of dtype int8"):
        store.load(recorded)


def test_an_extra_member_is_refused(recorded: Path) -> None:
    rec = store.load(recorded)
    members = _members(rec) | {"out.z.npy": _npy_header(0)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    _forge(recorded, buf.getvalue())
    with pytest.raises(InvalidInput, match=r"members: got \['in\.x\.npy', 'out\.y\.npy', 'out\.z\.npy'\]"):
        store.load(recorded)


def test_replay_refuses_a_record_whose_outputs_differ_from_the_launch(recorded: Path) -> None:
    """The same launch key with another output dtype (a forged case): never cast into the launch's outputs."""
    rec = store.load(recorded)
    meta = copy.deepcopy(rec.meta)
    meta["case"]["dtypes"] = ["bfloat16", "float32"]
    meta["arrays"]["out.y"]["dtype"] = "float32"
    npz = recorded.with_suffix(".npz")
    sha = write_npz(npz, {"in.x": rec.inputs["x"], "out.y": rec.outputs["y"].astype(np.float32)})
    rewrite(recorded, {**meta, "npz_sha256": sha}, sign=True)
    assert store.load(recorded).outputs["y"].dtype == np.float32  # a valid record on its own
    with pytest.raises(WorkbenchError, match=r"out\.y: got float32 \[333\]; allowed: float16 \[333\]"):
        wb.run(CASE, backend="replay", distribution="edges")
