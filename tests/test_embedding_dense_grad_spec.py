"""EmbeddingDenseGrad contract: validation V1-V10 (spec §1.2 / §7) in order, shapes, empty cases."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.core.errors import (
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    InvalidAttr,
    InvalidDtype,
    InvalidFormat,
    InvalidInput,
    InvalidShape,
    NullTensor,
)
from workbench.core.opspec import TensorDesc
from workbench.ops.embedding_dense_grad import SPEC
from workbench.planning import pipeline
from workbench.planning.case import Case
from workbench.planning.registry import OPS

OP = "embedding_dense_grad"


def case(shape=(64, 16), nw=100, **attrs) -> Case:
    return Case(OP, ("float32",), shape, attrs={"num_weights": nw, **attrs})


def descs(**changes):
    d = SPEC.describe(case())
    d.update(changes)
    return d


def test_registered_and_filled():
    assert OPS[OP] is SPEC
    c = case((2, 3, 4, 64), 7)
    assert c.dtypes == ("float32", "int32") and c.platform == "Ascend310P3"
    assert dict(c.attrs) == {"num_weights": 7, "padding_idx": -1, "scale_grad_by_freq": False}
    d = SPEC.describe(c)
    assert d["sort_indices"].shape == (2, 3, 4) and d["out"].shape == (7, 64)
    assert SPEC.standard("out", "float32") == "double_thousandth"
    assert SPEC.tiling_header == "kernels/embedding_dense_grad/embedding_dense_grad_tiling.h"


def test_num_weights_required():
    with pytest.raises(InvalidAttr, match="num_weights"):
        Case(OP, ("float32",), (4, 8))


# -- V1..V10 (§7), each with its aclnn code -------------------------------------------------------------
def test_v1_null_out():
    with pytest.raises(NullTensor, match=r"out: got None; allowed: a non-null tensor.*\[aclnn 161001\]") as e:
        SPEC.check(descs(out=None), case().attrs)
    assert e.value.code == ACLNN_ERR_PARAM_NULLPTR


@pytest.mark.parametrize("name", ["grad", "sort_indices"])
def test_null_inputs(name):
    with pytest.raises(NullTensor, match=name):
        SPEC.check(descs(**{name: None}), case().attrs)


def test_v2_fp16_grad():
    with pytest.raises(InvalidDtype, match=r"grad.dtype: got 'float16'; allowed: float32.*161002") as e:
        SPEC.check(descs(grad=TensorDesc("float16", (64, 16))), case().attrs)
    assert e.value.code == ACLNN_ERR_PARAM_INVALID
    with pytest.raises(InvalidDtype, match="float16:int32"):
        Case(OP, ("float16", "int32"), (64, 16), attrs={"num_weights": 10})


def test_v3_int64_indices():
    with pytest.raises(InvalidDtype, match=r"sort_indices.dtype: got 'int64'; allowed: int32.*161002"):
        SPEC.check(descs(sort_indices=TensorDesc("int64", (64,))), case().attrs)
    with pytest.raises(InvalidDtype, match="float32:int64"):
        Case(OP, ("float32", "int64"), (64, 16), attrs={"num_weights": 10})


def test_out_dtype_and_format():
    with pytest.raises(InvalidDtype, match=r"out\.dtype"):
        SPEC.check(descs(out=TensorDesc("bfloat16", (100, 16))), case().attrs)
    with pytest.raises(InvalidFormat, match=r"sort_indices.format: got 'NZ'; allowed: ND.*161002"):
        SPEC.check(descs(sort_indices=TensorDesc("int32", (64,), "NZ")), case().attrs)


def test_v4_numel_mismatch():
    with pytest.raises(InvalidShape, match=r"sort_indices.shape: got \(63,\); allowed: numel == N .* = 64.*161002"):
        SPEC.check(descs(sort_indices=TensorDesc("int32", (63,))), case().attrs)
    SPEC.check(descs(sort_indices=TensorDesc("int32", (8, 8))), case().attrs)  # only numel matters


def test_v5_out_shape():
    with pytest.raises(InvalidShape, match=r"out.shape: got \(101, 16\); allowed: \[num_weights, D\] = \[100, 16\]"):
        SPEC.check(descs(out=TensorDesc("float32", (101, 16))), case().attrs)


def test_v6_grad_rank_1():
    with pytest.raises(InvalidShape, match=r"grad.shape: got \(64,\); allowed: rank 2..8.*161002"):
        case((64,))


def test_v7_v8_index_out_of_range():
    c = case((6, 8), 5)
    grad = np.zeros((6, 8), np.float32)
    for bad, value in ((3, 5), (4, -1)):
        idx = np.array([0, 1, 1, 2, 2, 4], np.int32)
        idx[bad] = value
        with pytest.raises(InvalidInput, match=rf"sort_indices\[{bad}\].*got {value}; allowed: \[0, 5\).*161002"):
            pipeline.golden(c, {"grad": grad, "sort_indices": idx})
    idx = np.array([9, 0, 0, 0, 0, -1], np.int32)  # the first bad position is named
    with pytest.raises(InvalidInput, match=r"sort_indices\[0\]"):
        SPEC.check_data(c, {"grad": grad, "sort_indices": idx})


def test_v9_negative_num_weights():
    with pytest.raises(InvalidAttr, match=r"num_weights: got -1; allowed: 0..2147483647.*161002"):
        case(nw=-1)
    with pytest.raises(InvalidAttr, match="num_weights"):
        case(nw=2**31)


def test_v10_grad_rank_9():
    with pytest.raises(InvalidShape, match=r"grad.shape: got \(1, 1, 1, 1, 1, 1, 1, 2, 8\); allowed: rank 2..8"):
        case((1,) * 7 + (2, 8))


def test_indices_rank_and_n_limit():
    with pytest.raises(InvalidShape, match=r"sort_indices\.shape.*rank 1\.\.8"):
        SPEC.check(descs(sort_indices=TensorDesc("int32", ())), case().attrs)
    big = (2**16, 2**15 + 1, 1)  # N > INT32_MAX; check 6 fires before the out shape
    d = {
        "grad": TensorDesc("float32", big),
        "sort_indices": TensorDesc("int32", big[:-1]),
        "out": TensorDesc("float32", (3, 3)),
    }
    with pytest.raises(InvalidShape, match=r"N = prod\(shape\[:-1\]\) <= 2147483647"):
        SPEC.check(d, {"num_weights": 3})


def test_order_first_failure_wins():
    bad = descs(grad=TensorDesc("float16", (64,), "NZ"), out=TensorDesc("float32", (1, 1)))
    with pytest.raises(InvalidDtype):  # check 2 before 3, 4 and 7
        SPEC.check(bad, case().attrs)
    with pytest.raises(NullTensor):  # check 1 before everything
        SPEC.check({**bad, "sort_indices": None}, case().attrs)


def test_g20_flattening_and_8d():
    c = case((1, 1, 1, 1, 1, 2, 3, 16), 6)
    assert SPEC.describe(c)["sort_indices"].shape == (1, 1, 1, 1, 1, 2, 3)
    x = pipeline.make_inputs(c, 0)
    flat = pipeline.golden(c, {"grad": x["grad"], "sort_indices": x["sort_indices"].reshape(-1)})["out"]
    assert np.array_equal(flat, pipeline.golden(c, x)["out"]) and flat.shape == (6, 16)


@pytest.mark.parametrize(("shape", "nw", "memset"), [((0, 64), 5, True), ((16, 0), 5, False), ((0, 8), 0, False)])
def test_g21_empty(shape, nw, memset):
    c = case(shape, nw)
    p = pipeline.plan(c)
    assert p.block_dim == 0 and p.cores == () and p.workspace_bytes == 0
    assert ("memsets out" in p.notes[0]) == memset and "no launch" in p.notes[0]
    out = pipeline.golden(c, pipeline.make_inputs(c, 0))["out"]
    assert out.shape == (nw, shape[-1]) and not out.any()


def test_case_is_frozen_value():
    c = case(scale_grad_by_freq="true", padding_idx=3)
    assert c.attrs["scale_grad_by_freq"] is True
    assert c == case(scale_grad_by_freq=True, padding_idx=3)
