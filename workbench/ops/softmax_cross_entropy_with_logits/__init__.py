"""SoftmaxCrossEntropyWithLogits on 910B (docs/ops/softmax_cross_entropy_with_logits.md)."""

from .spec import SPEC

__all__ = ["SPEC"]
