"""`workbench demo`: a tour in the terminal. Every op's worked examples (§4 of its docs/ops/ page), end to end.

For each example: the host tiling decision and UB budget; the op's Ascend C kernel run on the `emu`
backend (ascemu) and compared with the golden; and the golden itself checked against an independent
reference (float64 oracle for SCE, the PyTorch summation rule for EDG, IEEE `astype` semantics for
Cast). One Cast example is chosen to fail that golden cross-check:
on the edge table, the 310P saturation semantics differ from IEEE exactly where docs/ops/cast.md §5.3 says
(NaN -> 0, Inf -> ±65504), and the report traces each difference to the core and tile that computes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .case import Case
from .pipeline import golden, make_inputs, plan, verify
from .render import plan_text
from .runner import run


@dataclass(frozen=True)
class Example:
    title: str
    case: Case
    reference: str  # what the golden is checked against
    options: Mapping[str, Any]  # golden options that give that reference
    distribution: str | None = None
    expect_pass: bool = True  # of the golden-vs-reference check; the kernel run must always pass


def examples() -> list[Example]:
    edg, sce = "embedding_dense_grad", "softmax_cross_entropy_with_logits"
    return [
        Example(
            "Cast E1 (docs/ops/cast.md §4.5): float32 -> float16, N = 1,000,000",
            Case("cast", ("float32", "float16"), (1_000_000,)),
            "IEEE astype",
            {"mode": "ieee"},
        ),
        Example(
            "Cast E2: bfloat16 -> int8, N = 100,003 (tail window on core 7)",
            Case("cast", ("bfloat16", "int8"), (100_003,)),
            "IEEE astype",
            {"mode": "ieee"},
        ),
        Example(
            "Cast E3: int64 -> int32, N = 1,000,001 (NARROW64)",
            Case("cast", ("int64", "int32"), (1_000_001,)),
            "IEEE astype",
            {"mode": "ieee"},
        ),
        Example(
            "Cast on the float32 edge table: 310P saturation vs IEEE (expected to differ)",
            Case("cast", ("float32", "float16"), (4099,)),
            "IEEE astype",
            {"mode": "ieee"},
            "edges",
            False,
        ),
        Example(
            "EmbeddingDenseGrad X1 (docs/ops/embedding_dense_grad.md §4): N 4096, D 512, num_weights 1000",
            Case(edg, ("float32",), (4096, 512), attrs={"num_weights": 1000}),
            "PyTorch rule",
            {"rule": "pytorch"},
        ),
        Example(
            "EmbeddingDenseGrad X3: scale_grad_by_freq, padding_idx 3",
            Case(edg, ("float32",), (16, 64), attrs={"num_weights": 10, "padding_idx": 3, "scale_grad_by_freq": True}),
            "PyTorch rule",
            {"rule": "pytorch"},
        ),
        Example(
            "SoftmaxCrossEntropyWithLogits E1 (docs/ops/softmax_cross_entropy_with_logits.md §4): fp32 [64, 1000]",
            Case(sce, ("float32",), (64, 1000)),
            "float64 oracle",
            {"oracle": True},
        ),
        Example(
            "SoftmaxCrossEntropyWithLogits E2: fp16 NCHW [2, 3, 4, 5]",
            Case(sce, ("float16",), (2, 3, 4, 5)),
            "float64 oracle",
            {"oracle": True},
        ),
        Example(
            "SoftmaxCrossEntropyWithLogits E3: fp32 [8, 100000] (SplitR)",
            Case(sce, ("float32",), (8, 100_000)),
            "float64 oracle",
            {"oracle": True},
        ),
    ]


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
