"""Records of runs: `NAME.npz` (the arrays, as raw bytes: no pickle, no compression) plus `NAME.json` (what ran,
where, when, how long, what it reported; schema 2, with the npz's SHA-256 and a digest over the whole record).

A record is found again by its launch key: a hash of everything that decides a kernel's outputs (op, platform,
kernel entry, source text, defines, TilingData bytes, tiling key, block_dim and every input's bytes), so the
`replay` backend serves exactly the run that was recorded, or says that none was.

Writing: the name is kept as given (only a trailing .json/.npz names the pair), an existing record is replaced only
with force, both files are written in full to temporary files first and then renamed into place, npz first: a
reader sees the old pair, the new pair, or (between the two renames) a pair whose digest disagrees and is refused.
Reading checks the digest, every field (_record_schema.py) and every array's declared size before a byte of the npz
is unpacked. What the machine refuses (a folder in the way, a read-only or full file system) is an
InfrastructureError naming the path and the fix.
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import io
import json
import os
import secrets
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..core import resources
from ..core._files import os_error
from ..core.errors import InfrastructureError, InvalidInput
from ..planning.memory import budget, human
from ._record_schema import EMULATOR_TIMING, SCHEMA, Checked, Said, check, check_schema, digest, json_type
from ._record_schema import verify_digest as _verify_digest
from .launch import Diagnostic, PreparedLaunch

if TYPE_CHECKING:
    from .runner import Result

__all__ = [
    "RECORDS_ENV",
    "SCHEMA",
    "Record",
    "RecordFiles",
    "destination",
    "find",
    "folders",
    "launch_key",
    "load",
    "record",
    "unreadable",
]

RECORDS_ENV = "WORKBENCH_RECORDS"  # more folders of records, os.pathsep-separated, searched before the shipped ones
MAX_JSON_BYTES = 16 << 20  # a record's JSON is a few KiB; more is not a record
MAX_NPY_HEADER = 4096  # numpy writes 128 bytes for a 1-D uint8 array
ZIP_SLACK = 4096  # the zip's directory, per member and overall: names, local and central headers, zip64 fields
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK, errno.ENOSYS}


def launch_key(launch: PreparedLaunch) -> str:
    h = hashlib.sha256()
    h.update(repr((launch.op, launch.platform, launch.entry, sorted(map(str, launch.defines.items())))).encode())
    h.update(launch.source.read_bytes())
    h.update(launch.tiling)
    h.update(repr((launch.tiling_key, launch.block_dim, launch.workspace_bytes)).encode())
    for a in launch.args:
        if a.role == "input":
            h.update(repr((a.name, str(a.array.dtype), a.array.shape)).encode())
            h.update(np.ascontiguousarray(a.array).tobytes())
    return h.hexdigest()[:32]


@dataclass(frozen=True)
class Record:
    """One stored run, verified. `source` says where it was made: "emulator" or "npu"."""

    key: str
    source: str
    meta: dict[str, Any]
    inputs: dict[str, np.ndarray] = field(repr=False)
    outputs: dict[str, np.ndarray] = field(repr=False)
    path: Path | None = None
    builtin: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # the built-in op's, when recorded

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return tuple(Diagnostic.from_json(d) for d in self.meta.get("diagnostics", []))


@dataclass(frozen=True)
class RecordFiles:
    """The two files of the record named `stem`: STEM.json and STEM.npz (the name as the user gave it)."""

    stem: Path

    @classmethod
    def of(cls, path: str | Path) -> RecordFiles:
        """`runs/a.v1` -> runs/a.v1.json + runs/a.v1.npz; a trailing .json or .npz names the same pair."""
        p = Path(path)
        name = next((p.name[: -len(ext)] for ext in (".json", ".npz") if p.name.endswith(ext)), p.name)
        if name in ("", ".", ".."):
            raise InvalidInput("record", str(path), "a file name such as runs/cast_edges (cast_edges.json + .npz)")
        return cls(p.with_name(name))

    @property
    def json(self) -> Path:
        return self.stem.with_name(self.stem.name + ".json")

    @property
    def npz(self) -> Path:
        return self.stem.with_name(self.stem.name + ".npz")

    def __iter__(self) -> Iterator[Path]:
        return iter((self.json, self.npz))


# ------------------------------------------------------------------------------------------------ write
def destination(path: str | Path, *, force: bool = False) -> RecordFiles:
    """Where `record(..., path)` will write, checked now: the CLI calls this before the run, `record` again."""
    p = Path(path)
    if p.is_dir():
        raise InfrastructureError(
            "record", p, "is a folder, not a record's name", f"name a record inside it, e.g. {p / 'run'} (run.json)"
        )
    files = RecordFiles.of(p)
    folder = files.stem.parent
    if not folder.is_dir():
        raise InvalidInput("record", str(path), "a path in an existing folder")
    for f in files:
        if f.is_dir():
            raise InfrastructureError(
                "record", f, "is a folder where the record's file goes", "remove it or choose another name"
            )
        if os.path.lexists(f) and not force:
            raise _taken(f)
    try:
        _probe(folder)
    except OSError as exc:
        raise _machine(folder, exc) from None
    return files


def record(result: Result, path: str | Path, *, force: bool = False) -> Path:
    """Store `result` as PATH.json + PATH.npz (a trailing .json/.npz in PATH names the same pair); returns the JSON's
    path. An existing record is replaced only with `force`."""
    from .launch import prepare

    if result.backend == "replay":
        raise InvalidInput("backend", "replay", "a run made on a device or the emulator (a replay is a record already)")
    files = destination(path, force=force)
    kernel = Path(result.kernel) if result.kernel else None
    key = launch_key(prepare(result.case, result.plan, result.inputs, kernel))
    arrays = {f"in.{k}": v for k, v in result.inputs.items()} | {f"out.{k}": v for k, v in result.outputs.items()}
    arrays |= {f"builtin.{k}": v for k, v in (result.builtin or {}).items()}
    npu = result.trace.get("npu") or {}
    buf = io.BytesIO()
    raw: dict[str, Any] = {k: np.ascontiguousarray(v).view(np.uint8).reshape(-1) for k, v in arrays.items()}
    np.savez(buf, **raw)  # stored, not compressed: load can bound every member by the file's size
    blob = buf.getvalue()
    meta: dict[str, Any] = {
        "schema": SCHEMA,
        "key": key,
        "source": "npu" if result.backend == "npu" and not npu.get("emulated") else "emulator",
        "backend": result.backend,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cann_version": npu.get("cann_version"),  # None off a device
        "timing": npu.get("how") or f"{EMULATOR_TIMING} on this machine, not a device time",  # "measured…"/"predicted…"
        "case": result.case.to_json(),
        "seed": int(result.seed),
        "distribution": result.distribution,
        "kernel": "edited copy" if result.kernel else "shipped",
        "plan": result.plan.to_json(),
        "timings": {k: float(v) for k, v in result.timings.items()},
        "exit_code": int(result.exit_code),
        "diagnostics": [_portable(d) for d in result.to_json()["diagnostics"]],
        "arrays": {k: {"dtype": str(v.dtype), "shape": list(v.shape)} for k, v in arrays.items()},
        "npz_sha256": hashlib.sha256(blob).hexdigest(),
    }
    meta = json.loads(json.dumps(meta, default=str))  # JSON values only (numpy scalars in details), as load sees them
    meta["digest"] = digest(meta)
    check(meta, str(files.json))  # never write a record that load would refuse
    _publish(files, blob, (json.dumps(meta, indent=1, allow_nan=False) + "\n").encode(), force)
    return files.json


def _portable(diag: dict[str, Any]) -> dict[str, Any]:
    """A diagnostic's file relative to the package's root when it is a shipped file: records travel."""
    root = str(resources.root()) + os.sep
    file = str(diag.get("file", ""))
    return {**diag, "file": file.removeprefix(root)} if file.startswith(root) else diag


def _publish(files: RecordFiles, npz: bytes, meta: bytes, force: bool) -> None:
    """Both files in full beside their targets first (a full disk stops here, the old record untouched), then the
    npz and the JSON renamed into place; without force a rename never replaces a file."""
    tmp_npz = _temporary(files.npz, npz)
    try:
        tmp_json = _temporary(files.json, meta)
        try:
            _place(tmp_npz, files.npz, force)
            try:
                _place(tmp_json, files.json, force)
            except BaseException:
                if not force:  # the npz is the one placed a moment ago: no half record stays behind
                    files.npz.unlink(missing_ok=True)
                raise
        finally:
            tmp_json.unlink(missing_ok=True)
    finally:
        tmp_npz.unlink(missing_ok=True)


def _temporary(target: Path, data: bytes) -> Path:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")  # same folder: renames
    try:
        _write_file(tmp, data)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _machine(target, exc) from None
        raise
    return tmp


def _write_file(path: Path, data: bytes) -> None:
    """A new file holding `data`, on the disk when this returns (a full disk may only say so at fsync)."""
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _place(tmp: Path, target: Path, force: bool) -> None:
    try:
        if force:
            os.replace(tmp, target)
            return
        try:
            os.link(tmp, target)  # fails when the name exists, also when it appeared after destination() looked
        except FileExistsError:
            raise _taken(target) from None
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            if os.path.lexists(target):  # a file system without hard links: look, then rename
                raise _taken(target) from None
            os.replace(tmp, target)
    except InvalidInput:
        raise
    except OSError as exc:
        raise _machine(target, exc) from None


def _probe(folder: Path) -> None:
    """Create and remove a file in `folder`: /proc, a read-only mount or a folder without write access fail here."""
    fd, name = tempfile.mkstemp(dir=folder, prefix=".workbench-record-", suffix=".probe")
    os.close(fd)
    os.unlink(name)


def _taken(path: Path) -> InvalidInput:
    return InvalidInput(
        "record", str(path), "a name no file has: it exists; --force replaces the record (force=True in Python)"
    )


def _machine(path: Path, exc: OSError) -> InfrastructureError:
    """The OSError of writing a record as the machine's fault: what is wrong with the path, and the fix."""
    return os_error("record", path, exc, "record to another folder (or free space / fix the permissions there)")


# ------------------------------------------------------------------------------------------------- read
def load(path: str | Path) -> Record:
    """Read the record PATH (PATH.json, or either file of the pair), verified: its schema and digest, every field,
    then the npz's size, hash and members, all before an array is unpacked. Clear errors, no pickle."""
    files = RecordFiles.of(path)
    where = str(files.json)
    meta = _read_meta(files)
    check_schema(meta, where, str(files.stem))
    _verify_digest(meta, where)
    arrays = _read_arrays(files.npz, str(meta["npz_sha256"]), check(meta, where))
    return Record(
        key=str(meta["key"]),
        source=str(meta["source"]),
        meta=meta,
        inputs={k[3:]: v for k, v in arrays.items() if k.startswith("in.")},
        outputs={k[4:]: v for k, v in arrays.items() if k.startswith("out.")},
        builtin={k[8:]: v for k, v in arrays.items() if k.startswith("builtin.")},
        path=files.json,
    )


def _bad(path: Path | str, what: str, allowed: str) -> InvalidInput:
    return InvalidInput(f"record {path}", Said(" ".join(what.split())), allowed)  # one line, also for numpy's


class _NotJson(ValueError):
    """Something json.loads accepts but a record never holds (a duplicate field, NaN)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _NotJson(f"a duplicate field {key!r}")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise _NotJson(f"{name}, which is not a JSON number (every number in a record is finite)")


def _parse(raw: bytes) -> Any:
    """Parsed JSON, or a _NotJson/ValueError saying why not."""
    return json.loads(raw.decode("utf-8"), object_pairs_hook=_unique, parse_constant=_no_constant)


def _read_at_most(path: Path, limit: int) -> bytes | None:
    """The file's bytes, or None when it holds more than `limit` (nothing larger than the file is allocated)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(size + 1) if size <= limit else b""
    return data if size <= limit and len(data) <= limit else None


def _read_meta(files: RecordFiles) -> dict[str, Any]:
    pair = "a record is NAME.json + NAME.npz: keep (and copy) both files of the pair"
    if not os.path.lexists(files.json) and not os.path.lexists(files.npz):
        raise _bad(
            files.stem, "no such file", f"a record: {files.json.name} + {files.npz.name}, as `workbench record` writes"
        )
    for f in files:
        if not os.path.lexists(f):
            raise _bad(f, "no such file", pair)
    try:
        raw = _read_at_most(files.json, MAX_JSON_BYTES)
    except OSError as exc:
        raise _bad(files.json, f"a file that cannot be read ({exc.strerror})", "a readable record") from None
    if raw is None:
        raise _bad(
            files.json, f"more than {human(MAX_JSON_BYTES)}", f"a record's JSON, at most {human(MAX_JSON_BYTES)}"
        )
    try:
        meta = _parse(raw)
    except UnicodeDecodeError as exc:
        raise _bad(files.json, f"bytes that are not UTF-8 text (at byte {exc.start})", "a record's JSON") from None
    except json.JSONDecodeError as exc:
        raise _bad(
            files.json, f"not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno})", "a record's JSON"
        ) from None
    except _NotJson as exc:
        raise _bad(files.json, str(exc), "a record's JSON as `workbench record` writes it") from None
    if not isinstance(meta, dict):
        raise _bad(files.json, f"a JSON {json_type(meta)}", "a JSON object (a record's fields)")
    return meta


def _read_arrays(npz: Path, sha256: str, checked: Checked) -> dict[str, np.ndarray]:
    """The npz's arrays, each checked against `checked` (what the verified JSON says) before it is read."""
    names = list(checked.arrays)
    need = sum(checked.nbytes(n) for n in names)
    limit, why = budget()
    if need > limit:
        raise _bad(npz, f"arrays of {human(need)}", f"at most {human(limit)} ({why})")
    most = need + ZIP_SLACK * (len(names) + 1) + MAX_NPY_HEADER * len(names)
    stored = f"its arrays' {need} bytes, stored uncompressed, plus at most {most - need} bytes of zip and .npy headers"
    try:
        blob = _read_at_most(npz, most)  # never more than its arrays can need
    except OSError as exc:
        raise _bad(npz, f"a file that cannot be read ({exc.strerror})", "a readable record") from None
    if blob is None:
        raise _bad(npz, f"{os.stat(npz).st_size} bytes", stored)
    if len(blob) < need:
        raise _bad(npz, f"{len(blob)} bytes", f"{stored}: the file is truncated or compressed")
    damaged = "a whole NAME.npz as `workbench record` wrote it: the file is truncated or damaged"
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as zf:
            if hashlib.sha256(blob).hexdigest() != sha256:
                raise _bad(
                    npz,
                    "arrays whose SHA-256 differs from the one in the JSON",
                    "the arrays as they were recorded: the file was modified after recording, or belongs to another "
                    "record; record the run again",
                )
            return _members(npz, zf, checked)
    except InvalidInput:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        raise _bad(npz, f"an incomplete npz ({exc})", damaged) from None


def _members(npz: Path, zf: zipfile.ZipFile, checked: Checked) -> dict[str, np.ndarray]:
    members = [i.filename for i in zf.infolist()]
    expected = [f"{n}.npy" for n in checked.arrays]
    if sorted(members) != sorted(expected):
        raise InvalidInput(f"record {npz}: members", sorted(members), f"{', '.join(expected)} (one per array)")
    arrays: dict[str, np.ndarray] = {}
    for info in zf.infolist():
        name = info.filename[: -len(".npy")]
        dtype, shape = checked.arrays[name]
        nbytes, where = checked.nbytes(name), f"{npz}: {info.filename}"
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 1:
            raise _bad(
                where,
                f"compressed or encrypted (method {info.compress_type})",
                "stored: records are written uncompressed",
            )
        if info.compress_size != info.file_size or not nbytes < info.file_size <= nbytes + MAX_NPY_HEADER:
            raise _bad(where, f"a member of {info.file_size} bytes", f"{nbytes} bytes of data plus an .npy header")
        with cast(zipfile.ZipExtFile, zf.open(info)) as fp:
            version = np.lib.format.read_magic(fp)
            if version not in ((1, 0), (2, 0)):
                raise _bad(where, f".npy version {version}", ".npy version 1.0 or 2.0")
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            header = read(fp, max_header_size=MAX_NPY_HEADER)
            if header != ((nbytes,), False, np.dtype(np.uint8)) or info.file_size - fp.tell() != nbytes:
                header_shape, _, header_dtype = header
                raise _bad(
                    where,
                    f"an .npy header of dtype {header_dtype} shape {header_shape} ({info.file_size} bytes in all)",
                    f"uint8 of shape ({nbytes},): the raw bytes of the JSON's {dtype} {list(shape)}",
                )
            data = bytearray(nbytes)
            if fp.readinto(data) != nbytes or fp.read(1):
                raise _bad(where, "a member whose data ends early or runs on", f"{nbytes} bytes of data")
        arrays[name] = np.frombuffer(data, np.uint8).view(dtype).reshape(shape)
    return arrays


# ------------------------------------------------------------------------------------------------- find
def folders() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(RECORDS_ENV, "").split(os.pathsep) if p]
    return [*extra, resources.path("data/records")]


def find(key: str) -> Record | None:
    """The first record with launch key `key` in `folders()`, verified (a damaged one raises, naming its file)."""
    for meta_path in _jsons():
        if _key_of(meta_path) == key:
            return load(meta_path)
    return None


def unreadable() -> list[Path]:
    """Records in `folders()` (a JSON beside an npz of its name) whose launch key cannot even be read."""
    return [p for p in _jsons() if _key_of(p) is None and RecordFiles.of(p).npz.exists()]


def _key_of(meta_path: Path) -> str | None:
    try:
        raw = _read_at_most(meta_path, MAX_JSON_BYTES)
        meta = _parse(raw) if raw is not None else None
    except (OSError, ValueError):
        return None
    key = meta.get("key") if isinstance(meta, dict) else None
    return key if isinstance(key, str) else None


def _jsons() -> Iterator[Path]:
    for folder in folders():
        if folder.is_dir():
            yield from sorted(folder.glob("*.json"))
