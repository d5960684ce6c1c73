"""The kernel's source annotated line by line from one run (docs/workbench.md#annotated-source).

`annotate_source(result)` joins three things a run already has: its diagnostics (each names a file and line), and,
for a run with `trace=True`, the emulator's event log (events.py: every API call with its file:line, the bytes it
moved, its vector repeats and a duration modelled by the performance model, workbench/judge/perfmodel.py). Per
source line it counts how many times each API on it ran (over every core), sums the bytes and repeats, and sums the
modelled durations into a predicted µs with its share of the run's total: the hot lines are where the model says the
time goes. Without a trace only the diagnostics are placed and the counts say they are unavailable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import resources
from ..core.errors import InvalidInput
from ..core.timesource import PREDICTED, TimeSource
from ..planning.registry import get_op

if TYPE_CHECKING:
    from .runner import Result

# the events whose bytes are data moved (a queue's AllocTensor carries no bytes; a flag or barrier moves none)
MOVING_KINDS = ("gm_read", "gm_write", "gm_atomic", "ub_copy")
NO_TRACE = "API counts and modelled cost need the event log: run with trace=True (the app's 'trace' box)"


@dataclass(frozen=True)
class SourceLine:
    """One line of a source file with what the run did there. `api_counts`: (api, calls over every core), in first
    use order; `bytes`: bytes moved by its GM and UB->UB copies; `repeats`: its vector instructions' repeats;
    `predicted_us`: the summed modelled durations of its events (source `time_source`), `share` of the run's total."""

    number: int
    text: str
    diagnostics: tuple[Any, ...] = ()
    api_counts: tuple[tuple[str, int], ...] = ()
    bytes: int = 0
    repeats: int = 0
    predicted_us: float = 0.0
    share: float = 0.0
    time_source: TimeSource = PREDICTED

    @property
    def calls(self) -> int:
        return sum(n for _, n in self.api_counts)

    @property
    def annotated(self) -> bool:
        return bool(self.api_counts or self.diagnostics)


@dataclass(frozen=True)
class SourceFile:
    """A file the run's events or diagnostics point into: the kernel first, then headers it includes. `readable` is
    False when the file cannot be read here (its lines then carry no text)."""

    path: str
    lines: tuple[SourceLine, ...]
    readable: bool = True

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def annotated(self) -> tuple[SourceLine, ...]:
        return tuple(line for line in self.lines if line.annotated)


@dataclass(frozen=True)
class AnnotatedSource:
    """The run's kernel source annotated per line. `traced`: counts and costs come from an event log (else only
    diagnostics, and `note` says why); `total_us`: every event's modelled duration summed over cores (the shares'
    denominator, busy time rather than the launch's span); `launch_diagnostics`: those naming no source line."""

    label: str
    kernel: str
    files: tuple[SourceFile, ...]
    traced: bool
    total_us: float = 0.0
    time_source: TimeSource = PREDICTED
    launch_diagnostics: tuple[Any, ...] = ()
    note: str = ""
    truncation: str = ""  # KernelEvents.truncation: counts and costs cover only the events the log kept

    @property
    def hot(self) -> tuple[SourceFile, SourceLine] | None:
        """The line with the most predicted time (None without a trace or without timed events)."""
        best = max(((f, line) for f in self.files for line in f.lines), key=lambda p: p[1].predicted_us, default=None)
        return best if best is not None and best[1].predicted_us > 0 else None

    def line(self, number: int, file: str | None = None) -> SourceLine:
        """Line `number` of the kernel (or of `file`, a path or a file name)."""
        for f in self.files:
            if (file is None and f.path == self.kernel) or file in (f.path, f.name):
                if not 1 <= number <= len(f.lines):
                    raise InvalidInput("number", number, f"a line of {f.name}: 1 to {len(f.lines)}")
                return f.lines[number - 1]
        raise InvalidInput("file", file, "one of " + ", ".join(f.name for f in self.files))

    def __repr__(self) -> str:
        from ..core import shown

        return shown.render(self, "repr")

    def text(self) -> str:
        from ..core import shown

        return shown.render(self, "repr")

    def _repr_html_(self) -> str:
        from ..core import shown

        return shown.render(self, "html")


def annotate_source(result: Result) -> AnnotatedSource:
    """`result`'s kernel source (its edited copy, else the op's shipped one) with each line's diagnostics and, for a
    traced run, its API counts, bytes, repeats and predicted µs (module docstring)."""
    kernel = _key(result.kernel) if result.kernel else _shipped(result)
    placed: dict[tuple[str, int], list[Any]] = {}
    launch = []
    for d in result.diagnostics:
        if getattr(d, "file", "") and getattr(d, "line", 0) > 0:
            placed.setdefault((_key(d.file), int(d.line)), []).append(d)
        else:
            launch.append(d)
    stats: dict[tuple[str, int], dict[str, Any]] = {}
    total_s = 0.0
    events = result.events
    if events is not None:
        calls = events.calls
        total_s = float(calls["dur_s"].sum())
        files = calls["file"].map({f: _key(f) for f in calls["file"].unique()})  # resolve each name once
        moving = calls["kind"].astype(str).isin(MOVING_KINDS).to_numpy()
        frame = calls.assign(file=files, moved=np.where(moving, calls["bytes"].to_numpy(), 0))
        for (file, line), g in frame.groupby(["file", "line"], sort=False):
            apis = g.groupby("api", sort=False).size()
            stats[(str(file), int(line))] = {
                "api_counts": tuple((str(a), int(n)) for a, n in apis.items()),
                "bytes": int(g["moved"].sum()),
                "repeats": int(g["repeats"].sum()),
                "dur_s": float(g["dur_s"].sum()),
            }
    order = [f for f in dict.fromkeys([kernel, *(f for f, _ in [*stats, *placed])]) if f]
    out = []
    for path in order:
        text, readable = _read(path)
        wanted = max([n for f, n in [*stats, *placed] if f == path], default=0)
        text += [""] * max(0, wanted - len(text))
        lines = []
        for number, body in enumerate(text, 1):
            s = stats.get((path, number), {})
            dur = s.get("dur_s", 0.0)
            lines.append(
                SourceLine(
                    number,
                    body,
                    tuple(placed.get((path, number), ())),
                    s.get("api_counts", ()),
                    s.get("bytes", 0),
                    s.get("repeats", 0),
                    dur * 1e6,
                    dur / total_s if total_s > 0 else 0.0,
                )
            )
        out.append(SourceFile(path, tuple(lines), readable))
    return AnnotatedSource(
        result.case.label(),
        kernel,
        tuple(out),
        events is not None,
        total_s * 1e6,
        launch_diagnostics=tuple(launch),
        note=_note(result),
        truncation=events.truncation if events is not None else "",
    )


def _note(result: Result) -> str:
    """What the counts cover: every call, the calls up to a fatal record, or none (and why)."""
    events = result.events
    if events is None:
        return f"No event log: {result.events_missing}" if result.events_missing else NO_TRACE
    if events.fatal:
        at = f" on core {events.fault_core}" if events.fault_core >= 0 else ""
        return f"The launch ended in a fatal record ({events.fault}{at}): the counts cover the calls up to it"
    return ""


def _shipped(result: Result) -> str:
    spec = get_op(result.case.op)
    if spec.kernel is None:
        return ""
    return _key(str(resources.path(spec.kernel(result.case).source)))


def _key(path: str) -> str:
    """One spelling per file: events, diagnostics and the run name the kernel by paths that may differ in form."""
    try:
        return str(Path(path).resolve())
    except OSError:
        return path


def _read(path: str) -> tuple[list[str], bool]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), True
    except OSError:
        return [], False
