"""SoftmaxCrossEntropyWithLogits contract (docs/ops/softmax_cross_entropy_with_logits.md §1).

Shape inference and the aclnn validation order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import (
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    InvalidDtype,
    InvalidFormat,
    InvalidShape,
    NullTensor,
)
from ...core.opspec import Explore, KernelInfo, OpSpec, TensorDesc, TensorSpec
from .builtin import builtin
from .criteria import criteria
from .golden import golden
from .inputs import DISTRIBUTIONS, make_inputs
from .layout import HEADER, SoftmaxCrossEntropyWithLogitsTilingData
from .tiling import plan

if TYPE_CHECKING:
    from ...planning.case import Case

NAME = "softmax_cross_entropy_with_logits"
DTYPES = ("float32", "float16", "bfloat16")
LAYOUTS = ("ND", "NCHW")
TENSORS = ("features", "labels", "loss", "backprop")
RANK = {"ND": 2, "NCHW": 4}
TBE_VIEW = (
    "CANN's [N,1,H,W] TBE/GE view is an annotation only (docs/ops/softmax_cross_entropy_with_logits.md DECISION-SCE-2)"
)


def default_format(shape: tuple[int, ...]) -> str:
    # DECISION-SCE-1: rank 4 -> NCHW; every other rank gets ND so that check 6 names the bad rank.
    return "NCHW" if len(shape) == 4 else "ND"


def loss_shape(shape: tuple[int, ...], layout: str) -> tuple[int, ...]:
    """ND [N,C] -> [N]; NCHW [N,C,H,W] -> [N,H,W] (§1.2); other ranks keep N so check 6 speaks first."""
    return (*shape[:1], *shape[2:]) if layout == "NCHW" else tuple(shape[:1])


def describe(case: Case) -> dict[str, TensorDesc]:
    dtype, shape, fmt = case.dtypes[0], tuple(case.shape), case.format
    x = TensorDesc(dtype, shape, fmt)
    return {"features": x, "labels": x, "loss": TensorDesc(dtype, loss_shape(shape, fmt), "ND"), "backprop": x}


def check(t: Mapping[str, TensorDesc | None], attrs: Mapping[str, Any]) -> None:
    """§1.3 checks 1-8 in order; the first failing one raises."""
    bad = ACLNN_ERR_PARAM_INVALID
    for name in TENSORS:  # 1
        if t.get(name) is None:
            raise NullTensor(name, None, "a non-null tensor", code=ACLNN_ERR_PARAM_NULLPTR)
    d = {name: desc for name in TENSORS if (desc := t[name]) is not None}
    x, y, loss, bp = (d[name] for name in TENSORS)
    for name in TENSORS:  # 2
        if d[name].dtype not in DTYPES:
            raise InvalidDtype(f"{name}.dtype", d[name].dtype, ", ".join(DTYPES), code=bad)
    for name in TENSORS[1:]:  # 3
        if d[name].dtype != x.dtype:
            raise InvalidDtype(f"{name}.dtype", d[name].dtype, f"{x.dtype} (= features.dtype)", code=bad)
    for name, desc in (("features", x), ("labels", y)):  # 4
        if desc.format not in LAYOUTS:
            raise InvalidFormat(f"{name}.format", desc.format, ", ".join(LAYOUTS), code=bad)
    if y.format != x.format:
        raise InvalidFormat("labels.format", y.format, f"{x.format} (= features.format)", code=bad)
    if tuple(y.shape) != tuple(x.shape):  # 5
        raise InvalidShape("labels.shape", list(y.shape), f"{list(x.shape)} (= features.shape; no broadcast)", code=bad)
    rank = RANK[x.format]
    if len(x.shape) != rank:  # 6
        raise InvalidShape(
            "features.rank",
            len(x.shape),
            f"{rank} for {x.format} (rank 2 -> ND, rank 4 -> NCHW; an explicit layout must "
            f"agree with the rank; ranks 3 and >= 5 are out of scope)",
            code=bad,
        )
    want = loss_shape(tuple(x.shape), x.format)
    if tuple(loss.shape) != want:  # 7
        hint = f"; {TBE_VIEW}" if x.format == "NCHW" else " ([N,1] is not accepted)"
        raise InvalidShape(
            "loss.shape",
            list(loss.shape),
            f"{list(want)} ({'[N,H,W]' if x.format == 'NCHW' else '[N]'}){hint}",
            code=bad,
        )
    if tuple(bp.shape) != tuple(x.shape):  # 8
        raise InvalidShape("backprop.shape", list(bp.shape), f"{list(x.shape)} (= features.shape)", code=bad)


def standard(output: str, dtype: str) -> str:
    return "double_thousandth"  # DECISION-SCE-11 (thresholds per dtype live in workbench.judge.compare)


def check_data(case: Case, inputs: Mapping[str, np.ndarray]) -> None:
    """features and labels have the case's shape (§1.3 check 5 on the arrays a caller hands over)."""
    for name in ("features", "labels"):
        shape = np.shape(inputs[name])
        if shape != tuple(case.shape):
            raise InvalidShape(
                f"{name}.shape", shape, f"the case shape {tuple(case.shape)}", code=ACLNN_ERR_PARAM_INVALID
            )


def kernel(case: Case) -> KernelInfo:
    dtype = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t"}[case.dtypes[0]]
    return KernelInfo(
        "kernels/softmax_cross_entropy_with_logits/softmax_cross_entropy_with_logits_kernel.cpp",
        "softmax_cross_entropy_with_logits_kernel",
        {"DTYPE_FEATURES": dtype},
        ("features", "labels", "loss", "backprop"),
    )


SPEC = OpSpec(
    name=NAME,
    summary="Per-row softmax cross entropy and its logits gradient (TF semantics), ND [N,C] or NCHW over C.",
    inputs=(
        TensorSpec("features", "logits; class axis last (ND) or axis 1 (NCHW)"),
        TensorSpec("labels", "same dtype/shape/format as features; need not be one-hot or sum to 1"),
    ),
    outputs=(
        TensorSpec("loss", "ND: [N]; NCHW: [N,H,W] (CANN's TBE/GE view [N,1,H,W] has identical bytes)"),
        TensorSpec("backprop", "softmax(features) - labels, shape of features"),
    ),
    attrs=(),
    dtype_matrix=tuple((d,) for d in DTYPES),
    dtype_roles=("features and labels",),
    formats=LAYOUTS,
    # The first entry is Case's default platform: the worked examples (§4) use 910B3 (coreNum 40).
    platforms=("Ascend910B3", "Ascend910B"),  # any 910B works
    distributions=DISTRIBUTIONS,
    tiling_struct=SoftmaxCrossEntropyWithLogitsTilingData,
    tiling_header=HEADER,
    describe=describe,
    check=check,
    tiling=plan,
    make_inputs=make_inputs,
    golden=golden,
    standard=standard,
    check_data=check_data,
    kernel=kernel,
    builtin=builtin,
    criteria=criteria,
    default_format=default_format,
    explore=Explore(1, "C", "ub_percent", "UB used (%)"),
)
