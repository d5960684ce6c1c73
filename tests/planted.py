"""A kernel with a planted bug, for tests that need a run to fail for a known reason."""

from __future__ import annotations

from pathlib import Path

import workbench as wb

# The Cast kernel rounds float -> half to odd instead of to nearest: 1 ULP off wherever rounding matters, inside the
# default standard's tolerance, so `exact` fails it; on 310P the pairs whose Cast has no CAST_ODD fault instead.
ROUND_BUG = (
    "toInt ? RoundMode::CAST_TRUNC : RoundMode::CAST_NONE",
    "toInt ? RoundMode::CAST_TRUNC : RoundMode::CAST_ODD",
)


def round_to_odd_kernel(dest: Path) -> Path:
    """An edited copy of the Cast kernel with ROUND_BUG, in `dest` (a folder or a new file)."""
    copy = wb.copy_kernel(wb.Case("cast", ("float32", "float16"), (8,)), dest)
    text = copy.read_text()
    assert ROUND_BUG[0] in text, "the Cast kernel no longer has the line the planted bug edits"
    copy.write_text(text.replace(*ROUND_BUG))
    return copy
