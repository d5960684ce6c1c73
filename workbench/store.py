"""Records of runs: `NAME.npz` (the arrays, as raw bytes: no pickle) plus `NAME.json` (what ran, where, when, how
long, what it reported; schema-versioned, with the npz's SHA-256), both written atomically.

A record is found again by its launch key: a hash of everything that decides a kernel's outputs (op, platform,
kernel entry, source text, defines, TilingData bytes, tiling key, block_dim and every input's bytes), so the
`replay` backend serves exactly the run that was recorded, or says that none was.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import resources
from ._files import atomic_write
from .dtypes import np_dtype
from .errors import InvalidInput
from .launch import Diagnostic, PreparedLaunch

if TYPE_CHECKING:
    from .runner import Result

SCHEMA = 1
RECORDS_ENV = "WORKBENCH_RECORDS"  # more folders of records, os.pathsep-separated, searched before the shipped ones


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
    """One stored run. `source` says where it was made: "emulator" or "npu"."""

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


def record(result: Result, path: str | Path) -> Path:
    """Store `result` as PATH.npz + PATH.json (PATH without a suffix); returns the JSON's path."""
    from .launch import prepare

    stem = Path(path).with_suffix("")
    if not stem.parent.is_dir():
        raise InvalidInput("path", str(path), "a path in an existing folder")
    if result.backend == "replay":
        raise InvalidInput("backend", "replay", "a run made on a device or the emulator (a replay is a record already)")
    kernel = Path(result.kernel) if result.kernel else None
    key = launch_key(prepare(result.case, result.plan, result.inputs, kernel))
    arrays = {f"in.{k}": v for k, v in result.inputs.items()} | {f"out.{k}": v for k, v in result.outputs.items()}
    arrays |= {f"builtin.{k}": v for k, v in (result.builtin or {}).items()}
    npu = result.trace.get("npu") or {}
    buf = io.BytesIO()
    raw: dict[str, Any] = {k: np.ascontiguousarray(v).view(np.uint8).reshape(-1) for k, v in arrays.items()}
    np.savez(buf, **raw)
    blob = buf.getvalue()
    meta = {
        "schema": SCHEMA,
        "key": key,
        "source": "npu" if result.backend == "npu" and not npu.get("emulated") else "emulator",
        "backend": result.backend,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cann_version": npu.get("cann_version"),  # None off a device
        "timing": npu.get("how") or "emulator wall time on this machine, not a device time",  # "measured…"/"predicted…"
        "case": result.case.to_json(),
        "seed": result.seed,
        "distribution": result.distribution,
        "kernel": "edited copy" if result.kernel else "shipped",
        "plan": result.plan.to_json(),
        "timings": result.timings,
        "exit_code": result.exit_code,
        "diagnostics": [_portable(d) for d in result.to_json()["diagnostics"]],
        "arrays": {k: {"dtype": str(v.dtype), "shape": list(v.shape)} for k, v in arrays.items()},
        "npz_sha256": hashlib.sha256(blob).hexdigest(),
    }
    atomic_write(stem.with_suffix(".npz"), blob)
    atomic_write(
        stem.with_suffix(".json"), (json.dumps(meta, indent=1, default=str) + "\n").encode()
    )  # last: the commit
    return stem.with_suffix(".json")


def _portable(diag: dict[str, Any]) -> dict[str, Any]:
    """A diagnostic's file relative to the package's root when it is a shipped file: records travel."""
    root = str(resources.root()) + os.sep
    file = str(diag.get("file", ""))
    return {**diag, "file": file.removeprefix(root)} if file.startswith(root) else diag


def load(path: str | Path) -> Record:
    """Read a record back, checking its schema, the npz's hash and every array's size (clear errors, no pickle)."""
    stem = Path(path).with_suffix("")
    try:
        meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
        blob = stem.with_suffix(".npz").read_bytes()
    except (OSError, ValueError) as exc:
        raise InvalidInput("record", str(stem), f"a readable NAME.json + NAME.npz record ({exc})") from None
    if not isinstance(meta, dict) or meta.get("schema") != SCHEMA:
        got = meta.get("schema") if isinstance(meta, dict) else None
        raise InvalidInput("record schema", got, f"{SCHEMA} (this workbench's record format)")
    if hashlib.sha256(blob).hexdigest() != meta.get("npz_sha256"):
        raise InvalidInput(
            "record", str(stem.with_suffix(".npz")), "the arrays the JSON was written with (hash differs)"
        )
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
            for name, info in meta["arrays"].items():
                dtype, shape = np_dtype(info["dtype"]), tuple(info["shape"])
                raw = npz[name]
                if raw.size != int(np.prod(shape)) * dtype.itemsize:
                    raise ValueError(f"{name}: {raw.size} bytes for {info}")
                arrays[name] = raw.view(dtype).reshape(shape)
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise InvalidInput("record", str(stem), f"a complete record ({exc})") from None
    return Record(
        key=str(meta["key"]),
        source=str(meta["source"]),
        meta=meta,
        inputs={k[3:]: v for k, v in arrays.items() if k.startswith("in.")},
        outputs={k[4:]: v for k, v in arrays.items() if k.startswith("out.")},
        builtin={k[8:]: v for k, v in arrays.items() if k.startswith("builtin.")},
        path=stem.with_suffix(".json"),
    )


def folders() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(RECORDS_ENV, "").split(os.pathsep) if p]
    return [*extra, resources.path("data/records")]


def find(key: str) -> Record | None:
    """The first record with launch key `key` in `folders()`."""
    for meta_path in _jsons():
        try:
            if json.loads(meta_path.read_text(encoding="utf-8")).get("key") == key:
                return load(meta_path)
        except (OSError, ValueError, AttributeError):
            continue
    return None


def _jsons() -> Iterator[Path]:
    for folder in folders():
        if folder.is_dir():
            yield from sorted(folder.glob("*.json"))
