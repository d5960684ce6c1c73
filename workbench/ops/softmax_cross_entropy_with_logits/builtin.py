"""The built-in SoftmaxCrossEntropyWithLogits through aclnn:
`aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(features, labels, loss, backprop, &workspaceSize, &executor)`.

The aclnn API takes rank-2 [N, C] features only (its parameter check rejects any other rank; hicann/ops-nn,
`activation/softmax_cross_entropy_with_logits/op_api/aclnn_softmax_cross_entropy_with_logits.cpp`). An NCHW case
has its classes on axis 1, which no reshape of the same bytes turns into [N*H*W, C], so it is not comparable
(docs/ops/softmax_cross_entropy_with_logits.md §1.2 for the NCHW contract).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.builtin_call import BuiltinCall, tensor

if TYPE_CHECKING:
    from ...planning.case import Case

NCHW_UNSUPPORTED = (
    "aclnnSoftmaxCrossEntropyWithLogits accepts rank-2 [N, C] features only; NCHW has no aclnn built-in "
    "(the classes are on axis 1, not the last axis)"
)


def builtin(case: Case) -> BuiltinCall:
    names = ("features", "labels", "loss", "backprop")
    return BuiltinCall(
        "aclnnSoftmaxCrossEntropyWithLogits",
        tuple(tensor(name, name) for name in names),
        unsupported="" if case.format == "ND" else NCHW_UNSUPPORTED,
        library="libopapi_nn.so",  # hicann/ops-nn
    )
