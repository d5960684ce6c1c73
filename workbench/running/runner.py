"""wb.run: Case -> plan -> inputs -> golden -> backend run -> comparison reports, as one Result."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..core import progress, resources, shown
from ..core._files import check_text_source
from ..core._parallel import WORKERS, in_background
from ..core.errors import InvalidInput
from ..core.tiling import TilingPlan
from ..core.timesource import HOST_WALL, TimeSource, checked, timed_json
from ..judge.baseline import Baseline, baseline_json, compare_builtin
from ..judge.compare import Report, check_standard, verdict
from ..planning import memory
from ..planning.case import Case
from ..planning.pipeline import check_data, check_distribution, check_inputs, check_seed, make_inputs, plan, verify
from ..planning.registry import get_op
from . import backends, reruns
from .events import KernelEvents
from .launch import prepare


@dataclass(frozen=True)
class Result:
    """One run: what went in, what came out, how it compares, and what the backend saw."""

    case: Case
    plan: TilingPlan
    backend: str
    seed: int
    distribution: str
    inputs: dict[str, np.ndarray] = field(repr=False)
    outputs: dict[str, np.ndarray] = field(repr=False)
    expected: dict[str, np.ndarray] = field(repr=False)
    reports: dict[str, Report]
    diagnostics: tuple[Any, ...]
    trace: dict[str, Any] = field(repr=False)
    timings: dict[str, float]
    exit_code: int = 0
    kernel: str = ""  # an edited kernel source the run used instead of the shipped one ("" = shipped)
    builtin: dict[str, np.ndarray] | None = field(default=None, repr=False)  # the built-in (TBE) op's outputs
    baseline: Baseline | None = None  # TBE vs golden, kernel vs TBE, double-benchmark ratios (npu on a device)
    # Host wall seconds per stage of run(): plan_s (checks and tiling), inputs_s, golden_s (golden_wait_s of it
    # on the run's path: all of it, or what was left after the launch when it overlaps the launch, OVERLAP; both
    # 0 on a rerun, which reuses them), prepare_s + execute_s (the launch), compare_s, result_s, total_s (the sum
    # of the stages on the path).
    stages: dict[str, float] = field(default_factory=dict, repr=False)
    # Where each of `timings` comes from (timesource.py): "emulator wall", "device-measured", "predicted", ...
    timing_sources: dict[str, TimeSource] = field(default_factory=dict, repr=False)
    # The emulator's event log of the launch with trace=True (events.py, docs/emulator.md#event-log), up to the fault
    # when the launch ended in a fatal record (events.fatal); else None, and with trace=True `events_missing` says why
    events: KernelEvents | None = field(default=None, repr=False, compare=False)
    events_missing: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "timing_sources", checked(self.timings, self.timing_sources))

    @property
    def faulted(self) -> bool:
        return backends.faulted(self.exit_code, self.diagnostics)

    @property
    def passed(self) -> bool:
        return not self.faulted and all(r.passed for r in self.reports.values())

    @property
    def verdict(self) -> str:
        return verdict(self.passed, self.faulted)

    def __repr__(self) -> str:
        return shown.render(self, "repr")

    def text(self) -> str:
        return shown.render(self, "text")

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    def to_json(self) -> dict[str, Any]:
        """Every time as {"seconds": ..., "source": ...} (timesource.py); `performance` holds the kernel, built-in
        and theoretical times and the op's performance criteria (criteria.performance_json)."""
        from ..judge.criteria import performance_json

        return {
            "backend": self.backend,
            "passed": self.passed,
            "verdict": self.verdict,
            "kernel_exit_status": self.exit_code,
            "seed": self.seed,
            "distribution": self.distribution,
            "outputs": {k: r.to_json() for k, r in self.reports.items()},
            "diagnostics": [_diag_json(d) for d in self.diagnostics],
            "timings": timed_json(self.timings, self.timing_sources),
            "stages": timed_json(self.stages, dict.fromkeys(self.stages, HOST_WALL)),
            "performance": performance_json(self),
            **({"baseline": baseline_json(self.baseline)} if self.baseline else {}),
        }


def _diag_json(d: Any) -> dict[str, Any]:
    fields = ("kind", "severity", "core", "api", "file", "line", "message", "count", "details")
    return {f: getattr(d, f) for f in fields if hasattr(d, f)}


def run(
    case: Case,
    backend: str = "emu",
    seed: int = 0,
    distribution: str | None = None,
    standard: str | None = None,
    inputs: Mapping[str, np.ndarray] | None = None,
    worst: int = 10,
    max_memory: Any = None,
    kernel: str | Path | None = None,
    trace: bool = False,
) -> Result:
    """Run `case` on `backend` and compare every output with the golden.

    Every option is checked before anything is allocated or built; `max_memory` (bytes or "8G"; default half of
    the available memory) bounds the host memory the run may need (memory.py). `kernel` runs an edited copy of the
    op's kernel source (see `copy_kernel`) instead of the shipped one, with the same tiling and report. A rerun of
    the same (case, seed, distribution) reuses the inputs and golden of an earlier one (reruns.py): a Result's
    inputs and expected arrays are read-only. In a notebook cell a build or a long launch shows a progress line
    that ends with the verdict (progress.notebook_line). `trace=True` (emu backend) records the emulator's event
    log of the launch as `Result.events` (docs/emulator.md#event-log).
    """
    if not isinstance(trace, (bool, np.bool_)):
        raise InvalidInput("trace", trace, "True or False")
    with progress.notebook_line() as finish:
        result = _run(case, backend, seed, distribution, standard, inputs, worst, max_memory, kernel, bool(trace))
        # the case too: a cell that runs several cases leaves one such line per run
        finish(f"done: {result.verdict} in {result.stages['total_s']:.1f} s — {case.label()}")
    return result


def _run(
    case: Case,
    backend: str,
    seed: int,
    distribution: str | None,
    standard: str | None,
    inputs: Mapping[str, np.ndarray] | None,
    worst: int,
    max_memory: Any,
    kernel: str | Path | None,
    trace: bool = False,
) -> Result:
    clock = time.perf_counter
    start = clock()
    be = backends.get(backend)
    if trace and backend != "emu":
        raise InvalidInput("trace", trace, f"False with backend {backend!r}: the event log is the emulator's ('emu')")
    source = kernel_path(kernel)
    seed, dist = check_seed(seed), check_distribution(case, distribution)
    check_standard(standard)
    tiling = plan(case)
    need = memory.check(case, tiling, max_memory)
    room = memory.trace_room(need, tiling, max_memory) if trace else None  # the event log's share of the budget
    if inputs is not None:
        check_inputs(case, inputs)
    planned = clock()
    key = (case, seed, dist)
    known = reruns.get(key) if inputs is None else None  # a rerun: the same inputs, so the same golden
    if known is not None:
        data, expected, golden_s = known  # the golden's own time, as measured when it was computed
    else:
        data = dict(inputs) if inputs is not None else make_inputs(case, seed, dist, max_memory)
    made = clock()
    if known is None:
        check_data(case, data)  # bad values are refused before the kernel sees them
    job = in_background(partial(_timed_golden, case, data)) if OVERLAP and known is None else None
    if known is None and job is None:
        expected, golden_s = _timed_golden(case, data)
    launch = prepare(case, tiling, data, source)
    if room is not None:
        launch = replace(launch, trace=True, max_events=room.max_events)
    prepared = clock()
    ex = be.execute(launch)
    executed = clock()
    if job is not None:
        expected, golden_s = job.result()
    if known is None and inputs is None:
        data, expected, _ = reruns.put(key, data, expected, golden_s)
    golden_done = clock()
    # exit >= 2 (strict fatal, deadlock, crash, harness): outputs are not a result to compare
    reports = verify(case, data, ex.outputs, expected, standard, worst, tiling) if ex.exit_code < 2 else {}
    compared = clock()
    timings = {**ex.timings, "golden_s": golden_s}
    timing_sources: dict[str, TimeSource] = {**ex.timing_sources, "golden_s": HOST_WALL}
    baseline = compare_builtin(reports, ex.outputs, ex.builtin, expected) if ex.builtin and reports else None
    serial_golden = 0.0 if job or known else golden_s
    stages = {
        "plan_s": planned - start,
        "inputs_s": made - planned,
        "golden_s": 0.0 if known else golden_s,  # a rerun's golden is an earlier run's: none on this run's path
        "golden_wait_s": golden_done - executed + serial_golden,  # what the golden added to the run's time
        "prepare_s": prepared - made - serial_golden,
        "execute_s": executed - prepared,
        "compare_s": compared - golden_done,
    }
    result = Result(
        case,
        tiling,
        backend,
        seed,
        dist,
        data,
        ex.outputs,
        expected,
        reports,
        ex.diagnostics,
        ex.trace,
        timings,
        ex.exit_code,
        "" if source is None else str(source),
        ex.builtin,
        baseline,
        stages,
        timing_sources,
        ex.events if ex.events is None or room is None else replace(ex.events, limit=room.limit),
        ex.events_missing,
    )
    end = clock()
    stages["result_s"], stages["total_s"] = end - compared, end - start
    return result


# The golden runs while the backend runs the kernel only when every thread gets a core (its pool's workers and
# the emulator's two core threads): on 2 cores, EDG's launch slowed by more than its golden took.
OVERLAP = (os.cpu_count() or 1) >= WORKERS + 2


def _timed_golden(case: Case, data: Mapping[str, np.ndarray]) -> tuple[dict[str, np.ndarray], float]:
    t0 = time.perf_counter()
    expected = get_op(case.op).golden(case, data)
    return expected, time.perf_counter() - t0


def kernel_path(kernel: str | Path | None) -> Path | None:
    """An edited kernel's path, resolved, once checked to be a readable text source (None: the shipped kernel)."""
    if kernel is None:
        return None
    path = Path(kernel).expanduser().resolve() if isinstance(kernel, (str, Path)) else None
    if path is None or not path.is_file():
        raise InvalidInput("kernel", str(kernel), "the path of an existing Ascend C source file (see copy_kernel)")
    check_text_source(path, "kernel")
    return path


def copy_kernel(case: Case, dest: str | Path) -> Path:
    """Copy the kernel source `case` runs to `dest` (a file, or a folder to put it in), to edit and run with
    `run(case, kernel=...)`; an existing file is never overwritten."""
    spec = get_op(case.op)
    if spec.kernel is None:
        raise InvalidInput("op", spec.name, "an op with a shipped kernel")
    source = resources.path(spec.kernel(case).source)
    target = Path(dest) / source.name if Path(dest).is_dir() else Path(dest)
    if target.exists():
        raise InvalidInput("dest", str(target), "a path that does not exist yet (copy_kernel never overwrites)")
    if not target.parent.is_dir():
        raise InvalidInput("dest", str(target), "a file path in an existing folder")
    shutil.copyfile(source, target)
    return target
