"""The worked examples of the op docs (docs/ops/), as Cases: what `workbench demo` runs and checks, what the app
opens on, and what a build is for when only the op is named."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .case import Case


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
