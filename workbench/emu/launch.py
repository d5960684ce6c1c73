"""Run one launch of a built kernel in a child process and read back its outputs and report.

The child is the only place kernel code runs: a crash, a hang or an abort ends the child, never the
caller (or a Jupyter kernel). Arrays travel through files in a private directory on tmpfs when one
exists (/dev/shm), so the copies are memory copies, not disk I/O.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

EXIT_KINDS = {0: "clean", 1: "errors", 2: "strict-fatal", 3: "deadlock-or-timeout", 4: "crash", 5: "harness"}
DIAG_PREFIX = "ASCEMU_DIAG "
POISON = -1


@dataclass(frozen=True)
class Diagnostic:
    """One structured emulator record (ascendc-emulator spec §5.6)."""

    kind: str
    severity: str
    core: int
    api: str
    file: str
    line: int
    message: str
    function: str = ""
    count: int = 1
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Diagnostic:
        return cls(
            kind=str(d.get("kind", "?")),
            severity=str(d.get("severity", "error")),
            core=int(d.get("core", -1)),
            api=str(d.get("api", "")),
            file=str(d.get("file", "")),
            line=int(d.get("line", 0) or 0),
            message=str(d.get("message", "")),
            function=str(d.get("function", "")),
            count=int(d.get("count", 1) or 1),
            details=dict(d.get("details") or {}),
        )

    @property
    def is_fault(self) -> bool:
        return self.severity in ("error", "fatal")

    def __str__(self) -> str:
        where = f"{Path(self.file).name}:{self.line}" if self.file else "launch"
        core = f"core {self.core}" if self.core >= 0 else "launch"
        times = f" (x{self.count})" if self.count > 1 else ""
        return (
            f"{where}: {self.severity} {self.kind} [{core}{', ' + self.api if self.api else ''}]: {self.message}{times}"
        )


@dataclass(frozen=True)
class Arg:
    """One GM buffer of a launch. `fill` None copies `array` in; POISON leaves the emulator's poison
    (so reads of never-written bytes are reported); another int fills every byte with that value."""

    array: np.ndarray
    role: str  # input | output | inout | workspace
    fill: int | None = None

    @property
    def writes_back(self) -> bool:
        return self.role in ("output", "inout") and self.array.flags.writeable


@dataclass(frozen=True)
class LaunchOutcome:
    exit_code: int
    diagnostics: tuple[Diagnostic, ...]
    trace: dict[str, Any]
    wall_s: float  # the child process, end to end
    kernel_s: float  # what the emulator reports for the launch itself
    stderr: str

    @property
    def faulted(self) -> bool:
        return self.exit_code != 0 or any(d.is_fault for d in self.diagnostics)


def _scratch_root() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def run_launch(
    binary: Path,
    platform: str,
    soc: str,
    block_dim: int,
    args: Sequence[Arg],
    tiling: bytes,
    tiling_key: int = 0,
    timeout_s: float = 60.0,
    options: dict[str, Any] | None = None,
) -> LaunchOutcome:
    with tempfile.TemporaryDirectory(prefix="ascemu-", dir=_scratch_root()) as tmp:
        d = Path(tmp)
        entries: list[dict[str, Any]] = []
        for i, a in enumerate(args):
            entry: dict[str, Any] = {"kind": "gm", "bytes": int(a.array.nbytes), "role": a.role}
            if a.fill is None:
                np.ascontiguousarray(a.array).tofile(d / f"arg{i}.in")
                entry["in_file"] = str(d / f"arg{i}.in")
            elif a.fill != POISON:
                entry["fill"] = int(a.fill)
            if a.writes_back:
                entry["out_file"] = str(d / f"arg{i}.out")
            entries.append(entry)
        (d / "tiling.bin").write_bytes(tiling)
        entries.append({"kind": "bytes", "in_file": str(d / "tiling.bin")})
        launch = {
            "platform": platform,
            "soc": soc,
            "block_dim": int(block_dim),
            "tiling_key": int(tiling_key),
            "mode": "serial",
            "seed": 0,
            "strict": False,
            "timeout_s": timeout_s,
            "report_path": str(d / "report.json"),
            "args": entries,
            **(options or {}),
        }
        (d / "launch.json").write_text(json.dumps(launch))
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [str(binary), "--launch", str(d / "launch.json")],
                capture_output=True,
                text=True,
                timeout=float(launch["timeout_s"]) + 15,
            )
            code, stderr = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired as exc:  # the emulator's own watchdog failed: kill and report
            code, stderr = -signal.SIGKILL, (exc.stderr or b"").decode(errors="replace") if exc.stderr else ""
        wall = time.perf_counter() - t0
        report = _read_report(d / "report.json")
        diags = [Diagnostic.from_json(x) for x in report.get("diagnostics", [])]
        diags += _stderr_diagnostics(stderr, known=diags)
        if code < 0:  # killed by a signal the emulator could not catch
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            diags.append(Diagnostic("CRASH", "fatal", -1, "", "", 0, f"kernel process killed by {name}"))
        for i, a in enumerate(args):
            out = d / f"arg{i}.out"
            if a.writes_back and out.exists():
                data = np.fromfile(out, dtype=a.array.dtype)
                if data.size == a.array.size:
                    a.array.reshape(-1)[...] = data  # in place, like device memory
        exit_code = int(report.get("exit_code", code if code >= 0 else 4))
        return LaunchOutcome(
            exit_code,
            tuple(diags),
            dict(report.get("trace") or {}),
            wall,
            float(report.get("wall_time_s", wall)),
            stderr,
        )


def _read_report(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


def _stderr_diagnostics(stderr: str, known: Sequence[Diagnostic]) -> list[Diagnostic]:
    """CRASH records a dying child wrote to stderr (the report file may not have been completed)."""
    seen = {(d.kind, d.core, d.line) for d in known}
    out = []
    for line in stderr.splitlines():
        if line.startswith(DIAG_PREFIX):
            try:
                d = Diagnostic.from_json(json.loads(line[len(DIAG_PREFIX) :]))
            except ValueError:
                continue
            if (d.kind, d.core, d.line) not in seen:
                out.append(d)
    return out
