"""Ascend C kernel workbench: host tiling, UB budget, goldens and precision reports for Ascend C ops.

Public API: Case, plan, make_inputs, golden, compare, verify, run, copy_kernel, compare_runs, annotate_source,
access_map, analyse, sweep, grid, OPS, PLATFORMS.
Importing this package never imports ipywidgets, altair, pandas or acl; those load inside the functions that need them.
"""

from __future__ import annotations

from .core.errors import WorkbenchError
from .core.opspec import OpSpec
from .core.platform import PLATFORMS, Platform
from .core.tiling import TilingPlan
from .judge.compare import Report, assert_close, compare
from .planning.case import Case
from .planning.pipeline import golden, make_inputs, plan, verify
from .planning.registry import OPS
from .running.ab import RunComparison, compare_runs
from .running.annotated import annotate_source
from .running.runner import Result, copy_kernel, run
from .running.work import analyse
from .sweeps import grid, sweep
from .view import shown as _shown  # noqa: F401 (registers how records print and display)
from .view.render.access_map import access_map

__all__ = [
    "OPS",
    "PLATFORMS",
    "Case",
    "OpSpec",
    "Platform",
    "Report",
    "Result",
    "RunComparison",
    "TilingPlan",
    "WorkbenchError",
    "access_map",
    "analyse",
    "annotate_source",
    "assert_close",
    "compare",
    "compare_runs",
    "copy_kernel",
    "golden",
    "grid",
    "make_inputs",
    "plan",
    "run",
    "sweep",
    "verify",
]
__version__ = "0.1.0"
