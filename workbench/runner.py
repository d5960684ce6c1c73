"""workbench.run: Case -> plan -> inputs -> golden -> backend run -> comparison reports, as one Result."""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import backends, memory, resources
from .baseline import Baseline, baseline_json, compare_builtin
from .case import Case
from .compare import Report, check_standard
from .errors import InvalidInput
from .launch import prepare
from .pipeline import check_distribution, check_inputs, check_seed, golden, make_inputs, plan, verify
from .registry import get_op
from .tiling import TilingPlan


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

    @property
    def faulted(self) -> bool:
        return backends.faulted(self.exit_code, self.diagnostics)

    @property
    def passed(self) -> bool:
        return not self.faulted and all(r.passed for r in self.reports.values())

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else ("KERNEL FAULT" if self.faulted else "PRECISION FAIL")

    def __repr__(self) -> str:
        from .render.text import result_repr

        return result_repr(self)

    def text(self) -> str:
        from .render.text import result_text

        return result_text(self)

    def _repr_html_(self) -> str:
        from .render.html import result_html

        return result_html(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "passed": self.passed,
            "verdict": self.verdict,
            "kernel_exit_status": self.exit_code,
            "seed": self.seed,
            "distribution": self.distribution,
            "outputs": {k: r.to_json() for k, r in self.reports.items()},
            "diagnostics": [_diag_json(d) for d in self.diagnostics],
            "timings": self.timings,
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
) -> Result:
    """Run `case` on `backend` and compare every output with the golden.

    Every option is checked before anything is allocated or built; `max_memory` (bytes or "8G"; default half
    of the available memory) bounds the host memory the run may need (memory.py). `kernel` runs an edited copy
    of the op's kernel source (see `copy_kernel`) instead of the shipped one, with the same tiling and report.
    """
    be = backends.get(backend)
    source = _kernel_path(kernel)
    seed, dist = check_seed(seed), check_distribution(case, distribution)
    check_standard(standard)
    tiling = plan(case)
    memory.check(case, tiling, max_memory)
    if inputs is not None:
        check_inputs(case, inputs)
    data = dict(inputs) if inputs is not None else make_inputs(case, seed, dist, max_memory)
    t0 = time.perf_counter()
    expected = golden(case, data)
    golden_s = time.perf_counter() - t0
    ex = be.execute(prepare(case, tiling, data, source))
    # exit >= 2 (strict fatal, deadlock, crash, harness): outputs are not a result to compare
    reports = verify(case, data, ex.outputs, expected, standard, worst, tiling) if ex.exit_code < 2 else {}
    timings = {**ex.timings, "golden_s": golden_s}
    baseline = compare_builtin(reports, ex.outputs, ex.builtin, expected) if ex.builtin and reports else None
    return Result(
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
    )


def _kernel_path(kernel: str | Path | None) -> Path | None:
    if kernel is None:
        return None
    path = Path(kernel).expanduser().resolve() if isinstance(kernel, (str, Path)) else None
    if path is None or not path.is_file():
        raise InvalidInput("kernel", str(kernel), "the path of an existing Ascend C source file (see copy_kernel)")
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
