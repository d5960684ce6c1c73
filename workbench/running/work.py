"""The work a run did, per pipe, when its backend did not count it: a device run or a replayed record has no emulator
trace, so the roofline and the guided analysis would have no bytes or repeats to divide a device-measured time by.

The emulator runs the very same kernel source on the very same inputs (a record's key covers both, store.py), and
its trace gives the bytes each pipe moved and the vector repeats: what the kernel does, which does not depend on
where it ran. The times stay the run's own (device-measured from msprof or the npu backend); the trace's counts only
say how much work those times were for, and `WORK_FROM` says so wherever they are shown (docs/analysis.md#roofline).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.errors import WorkbenchError
from .runner import Result, run

if TYPE_CHECKING:
    from ..judge.analysis import Analysis

WORK_FROM = "work counted by the emulator: the same kernel source on the same inputs"


def with_counted_work(result: Result) -> Result:
    """`result` with the emulator's trace of the same kernel and inputs beside its own (key "work_from" says where
    the counts come from); a run that has a trace, or one the emulator cannot repeat, comes back as it is, the
    latter with "work_from_error" saying why."""
    if result.backend == "emu" or (result.trace or {}).get("cores"):
        return result
    try:
        counted = run(
            result.case,
            backend="emu",
            seed=result.seed,
            distribution=result.distribution,
            inputs=result.inputs,
            kernel=result.kernel or None,
        )
    except WorkbenchError as err:
        return replace(result, trace={**result.trace, "work_from_error": f"the emulator could not repeat it: {err}"})
    if not counted.trace.get("cores"):
        why = f"the emulator's run of it ended with exit code {counted.exit_code} and no trace"
        return replace(result, trace={**result.trace, "work_from_error": why})
    emulator = {k: v for k, v in counted.trace.items() if k not in result.trace}
    return replace(result, trace={**result.trace, **emulator, "work_from": WORK_FROM})


def analyse(result: Result) -> Analysis:
    """The guided analysis and the roofline of a run (judge/analysis.py), its work counted by the emulator when its
    backend did not count it (with_counted_work)."""
    from ..judge.analysis import analysis_of

    return analysis_of(with_counted_work(result))
