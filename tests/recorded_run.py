"""The case the record tests record and replay (their fixtures are in conftest.py)."""

from __future__ import annotations

import workbench as wb

RECORDED_CASE = wb.Case("cast", ("bfloat16", "float16"), (333,))  # a bf16 input: stored as raw bytes, not pickled
