"""`workbench demo`: a tour in the terminal. Every op's worked examples (§4 of its docs/ops/ page), end to end.

For each example: the host tiling decision and UB budget; the op's Ascend C kernel run on the `emu`
backend (ascemu) and compared with the golden; and the golden itself checked against an independent
reference (float64 oracle for SCE, the PyTorch summation rule for EDG, IEEE `astype` semantics for
Cast). One Cast example is chosen to fail that golden cross-check:
on the edge table, the 310P saturation semantics differ from IEEE exactly where docs/ops/cast.md §5.3 says
(NaN -> 0, Inf -> ±65504), and the report traces each difference to the core and tile that computes it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..planning.pipeline import golden, make_inputs, plan, verify
from ..planning.worked import Example, examples
from ..running.runner import run
from .render import plan_text


def run_example(ex: Example, emit: Callable[[str], None] = print, backend: str | None = "emu") -> bool:
    """Show one example; True when every verdict is the expected one."""
    emit(f"\n=== {ex.title}")
    emit(plan_text(plan(ex.case), ex.case.label(), max_cores=4))
    inputs = make_inputs(ex.case, seed=0, distribution=ex.distribution)
    kernel_ok = True
    if backend is not None:
        result = run(ex.case, backend, inputs=inputs, distribution=ex.distribution, worst=3)
        emit(f"\nkernel on {backend}:")
        emit(result.text())
        kernel_ok = result.passed
    expected = golden(ex.case, inputs)
    reference = golden(ex.case, inputs, **ex.options)
    emit(f"\ngolden vs {ex.reference} ({ex.distribution or 'default'} inputs, seed 0):")
    reports = verify(ex.case, inputs, reference, expected, worst=3)
    for report in reports.values():
        emit(report.text())
    passed = all(r.passed for r in reports.values())
    return kernel_ok and passed == ex.expect_pass


def run_demo(emit: Callable[[str], None] = print, backend: str | None = "emu") -> int:
    results = [run_example(ex, emit, backend) for ex in examples()]
    emit(f"\n{sum(results)}/{len(results)} examples gave the expected verdict")
    return 0 if all(results) else 1
