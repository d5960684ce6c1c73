"""SoftmaxCrossEntropyWithLogits contract: shape inference and the §1.3 validation order (I1-I13 of §7)."""

from __future__ import annotations

import pytest

from workbench import OPS, Case
from workbench.core.errors import (
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    InvalidDtype,
    InvalidFormat,
    InvalidShape,
    NullTensor,
    WorkbenchError,
)
from workbench.core.opspec import TensorDesc

OP = "softmax_cross_entropy_with_logits"
SPEC = OPS[OP]


def descs(dtype: str = "float32", shape: tuple[int, ...] = (4, 6), fmt: str = "ND", **override: object) -> dict:
    x = TensorDesc(dtype, shape, fmt)
    loss = TensorDesc(dtype, (shape[0], *shape[2:]) if fmt == "NCHW" else shape[:1])
    return {"features": x, "labels": x, "loss": loss, "backprop": x, **override}


def test_describe_nd_and_nchw() -> None:
    d = SPEC.describe(Case(OP, "fp16", (8, 10)))
    assert d["loss"].shape == (8,) and d["backprop"].shape == (8, 10) and d["labels"] == d["features"]
    d = SPEC.describe(Case(OP, "bf16", (2, 3, 4, 5)))
    assert d["features"].format == "NCHW" and d["loss"].shape == (2, 4, 5) and d["backprop"].shape == (2, 3, 4, 5)


def test_case_defaults() -> None:
    case = Case(OP, "float", (64, 1000))
    assert case.platform == "Ascend910B3" and case.format == "ND" and case.dtypes == ("float32",)
    assert Case(OP, "fp32", (1, 2, 3, 4)).format == "NCHW"
    assert SPEC.standard("loss", "bfloat16") == SPEC.standard("backprop", "float32") == "double_thousandth"


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), (1, 2, 3, 4, 5)])
def test_other_ranks_rejected_at_check_6(shape: tuple[int, ...]) -> None:
    with pytest.raises(InvalidShape, match=r"features.rank: got \d; allowed: 2 for ND.*out of scope"):
        Case(OP, "fp32", shape)


def test_explicit_layout_must_agree_with_rank() -> None:  # DECISION-SCE-1
    with pytest.raises(InvalidShape, match=r"features.rank: got 2; allowed: 4 for NCHW"):
        Case(OP, "fp32", (4, 6), format="NCHW")
    with pytest.raises(InvalidShape, match=r"features.rank: got 4; allowed: 2 for ND"):
        Case(OP, "fp32", (1, 2, 3, 4), format="ND")


def test_case_rejects_other_dtypes_and_platforms() -> None:
    with pytest.raises(InvalidDtype):
        Case(OP, "int32", (4, 6))
    with pytest.raises(WorkbenchError, match="Ascend910B3"):
        Case(OP, "fp16", (4, 6), platform="Ascend310P3")
    assert Case(OP, "fp16", (4, 6), platform="Ascend910B1").soc.core_num_aiv == 48


INVALID = [
    ("I1 null labels", descs(labels=None), NullTensor, r"labels: got None; allowed: a non-null tensor", 161001),
    (
        "I2 int32 features",
        descs(features=TensorDesc("int32", (4, 6))),
        InvalidDtype,
        r"features.dtype: got 'int32'; allowed: float32, float16, bfloat16",
        161002,
    ),
    (
        "I3 double features",
        descs(features=TensorDesc("float64", (4, 6))),
        InvalidDtype,
        r"features.dtype: got 'float64'",
        161002,
    ),
    (
        "I4 fp16 features, fp32 labels",
        descs("float16", labels=TensorDesc("float32", (4, 6))),
        InvalidDtype,
        r"labels.dtype: got 'float32'; allowed: float16 \(= features.dtype\)",
        161002,
    ),
    (
        "I5 fp16 features, fp32 loss",
        descs("float16", loss=TensorDesc("float32", (4,))),
        InvalidDtype,
        r"loss.dtype: got 'float32'; allowed: float16",
        161002,
    ),
    (
        "I6 NHWC",
        descs(shape=(2, 4, 5, 3), fmt="NHWC"),
        InvalidFormat,
        r"features.format: got 'NHWC'; allowed: ND, NCHW",
        161002,
    ),
    (
        "I7 [1,C] broadcast",
        descs(labels=TensorDesc("float32", (1, 6))),
        InvalidShape,
        r"labels.shape: got \[1, 6\]; allowed: \[4, 6\] \(= features.shape; no broadcast\)",
        161002,
    ),
    ("I8 ND rank 3", descs(shape=(2, 3, 4)), InvalidShape, r"features.rank: got 3; allowed: 2 for ND", 161002),
    (
        "I9 NCHW rank 2",
        descs(shape=(4, 6), fmt="NCHW", loss=TensorDesc("float32", (4,))),
        InvalidShape,
        r"features.rank: got 2; allowed: 4 for NCHW",
        161002,
    ),
    (
        "I10 ND loss [N,1]",
        descs(loss=TensorDesc("float32", (4, 1))),
        InvalidShape,
        r"loss.shape: got \[4, 1\]; allowed: \[4\] \(\[N\]\)",
        161002,
    ),
    (
        "I11 NCHW loss [N,1,H,W]",
        descs(shape=(2, 3, 4, 5), fmt="NCHW", loss=TensorDesc("float32", (2, 1, 4, 5))),
        InvalidShape,
        r"loss.shape: got \[2, 1, 4, 5\]; allowed: \[2, 4, 5\] \(\[N,H,W\]\); CANN's \[N,1,H,W\] "
        r"TBE/GE view is an annotation only \(docs/ops/softmax_cross_entropy_with_logits\.md DECISION-SCE-2\)",
        161002,
    ),
    (
        "I12 backprop shape",
        descs(backprop=TensorDesc("float32", (4, 7))),
        InvalidShape,
        r"backprop.shape: got \[4, 7\]; allowed: \[4, 6\] \(= features.shape\)",
        161002,
    ),
    (
        "I13 ND features, NCHW labels",
        descs(labels=TensorDesc("float32", (4, 6), "NCHW")),
        InvalidFormat,
        r"labels.format: got 'NCHW'; allowed: ND \(= features.format\)",
        161002,
    ),
]


@pytest.mark.parametrize(
    ("label", "tensors", "exc", "message", "code"), INVALID, ids=[i[0][:3].strip() for i in INVALID]
)
def test_invalid_inputs(label: str, tensors: dict, exc: type[WorkbenchError], message: str, code: int) -> None:
    with pytest.raises(exc, match=message) as info:
        SPEC.check(tensors, {})
    assert info.value.code == code
    assert code in (ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID)


def test_checks_run_in_order() -> None:
    # several faults at once: the lowest-numbered check reports
    bad = descs(features=TensorDesc("int32", (4, 6)), labels=TensorDesc("float32", (1, 6)), loss=None)
    with pytest.raises(NullTensor, match="loss"):
        SPEC.check(bad, {})
    bad["loss"] = TensorDesc("float32", (4, 1))
    with pytest.raises(InvalidDtype, match=r"features.dtype"):
        SPEC.check(bad, {})
    bad["features"] = TensorDesc("float32", (4, 6))
    with pytest.raises(InvalidShape, match=r"labels.shape"):  # 5 before 7
        SPEC.check(bad, {})
    ok = descs("bfloat16", (2, 3, 4, 5), "NCHW")
    SPEC.check(ok, {})
    SPEC.check(descs("float16", (0, 3)), {})
    SPEC.check(descs("float16", (2, 0, 4, 5), "NCHW"), {})
