"""The built-in EmbeddingDenseGrad through aclnn:
`aclnnEmbeddingDenseBackwardGetWorkspaceSize(grad, indices, uint64_t numWeights, uint64_t paddingIdx,
bool scaleGradByFreq, out, &workspaceSize, &executor)`.

- `indices` is our `sort_indices`: row i of grad pairs with element i, which is what the built-in computes
  (it sorts internally; the order changes its speed, not its result).
- `paddingIdx` is a uint64_t, yet "a negative paddingIdx means no padding row" (the API page). Callers pass a
  signed -1 through C's conversion: torch_npu hands its int64_t padding_idx straight in (Ascend/op-plugin,
  `op_plugin/ops/opapi/EmbeddingDenseBackwardKernelNpuOpApi.cpp`), so "none" arrives as 2**64 - 1, and the API
  forwards it unchanged to the op's int64 attribute padding_idx (hicann/ops-nn,
  `index/embedding_dense_grad_v2/op_host/op_api/aclnn_embedding_dense_backward.cpp`), where it reads -1 again.
  We pass the normalised value of docs/ops/embedding_dense_grad.md DECISION-EDG-2: padding_idx when it is in
  [0, num_weights), else -1.
- The API page (hicann/ops-nn, `index/embedding_dense_grad/docs/aclnnEmbeddingDenseBackward.md`) marks Atlas
  inference products (Ascend310P) as not supported, so on 310P the call may fail with the built-in's own status:
  that is a fact about CANN, not about the kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.builtin_call import BuiltinCall, boolean, tensor, uint64

if TYPE_CHECKING:
    from ...planning.case import Case

NO_PADDING = -1
NOT_LISTED_310P = (
    "aclnnEmbeddingDenseBackward's API page does not list Atlas inference products (Ascend310P): a failing status "
    "on 310P is the built-in's, not the kernel's"
)


def padding_idx(case: Case) -> int:
    """DECISION-EDG-2: padding_idx outside [0, num_weights) means none (-1)."""
    pad, weights = int(case.attrs["padding_idx"]), int(case.attrs["num_weights"])
    return pad if 0 <= pad < weights else NO_PADDING


def builtin(case: Case) -> BuiltinCall:
    args = (
        tensor("grad", "grad"),
        tensor("indices", "sort_indices"),
        uint64("numWeights", int(case.attrs["num_weights"])),
        uint64("paddingIdx", padding_idx(case)),  # -1 wraps to 2**64 - 1, as the C conversion does
        boolean("scaleGradByFreq", bool(case.attrs["scale_grad_by_freq"])),
        tensor("out", "out"),
    )
    note = NOT_LISTED_310P if case.soc.short_soc == "Ascend310P" else ""
    return BuiltinCall("aclnnEmbeddingDenseBackward", args, note=note, library="libopapi_nn.so")  # hicann/ops-nn
