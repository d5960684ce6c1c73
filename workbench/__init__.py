"""Ascend C kernel workbench: host tiling, UB budget, goldens and precision reports for Ascend C ops.

Public API: Case, plan, make_inputs, golden, compare, verify, run, copy_kernel, OPS, PLATFORMS. Importing this
package never imports ipywidgets, altair, pandas or acl; those load inside the functions that need them.
"""

from __future__ import annotations

from .case import Case
from .compare import Report, assert_close, compare
from .errors import WorkbenchError
from .opspec import OpSpec
from .pipeline import golden, make_inputs, plan, verify
from .platform import PLATFORMS, Platform
from .registry import OPS
from .runner import Result, copy_kernel, run
from .tiling import TilingPlan

__all__ = [
    "OPS",
    "PLATFORMS",
    "Case",
    "OpSpec",
    "Platform",
    "Report",
    "Result",
    "TilingPlan",
    "WorkbenchError",
    "assert_close",
    "compare",
    "copy_kernel",
    "golden",
    "make_inputs",
    "plan",
    "run",
    "verify",
]
__version__ = "0.1.0"
