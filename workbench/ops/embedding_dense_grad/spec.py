"""EmbeddingDenseGrad contract (docs/ops/embedding_dense_grad.md §1): tensors, attrs, validation order, SPEC."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import (
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    InvalidAttr,
    InvalidDtype,
    InvalidFormat,
    InvalidInput,
    InvalidShape,
    NullTensor,
)
from ...core.opspec import REQUIRED, AttrSpec, Explore, KernelInfo, OpSpec, TensorDesc, TensorSpec
from .builtin import builtin
from .criteria import criteria
from .golden import golden
from .inputs import DISTRIBUTIONS, make_inputs
from .layout import EmbeddingDenseGradTilingData
from .tiling import plan

if TYPE_CHECKING:
    from ...planning.case import Case

INT32_MAX = 2**31 - 1
TENSORS = ("grad", "sort_indices", "out")
DTYPES = {"grad": "float32", "sort_indices": "int32", "out": "float32"}  # §1.1: fp32 only, int32 indices only
_BAD = ACLNN_ERR_PARAM_INVALID


def flat_rows(shape: tuple[int, ...]) -> tuple[int, int]:
    """(N, D): grad flattened to [N, D], N = prod(shape[:-1]) (§1.1)."""
    return math.prod(shape[:-1]), (shape[-1] if shape else 0)


def describe(case: Case) -> dict[str, TensorDesc]:
    grad = tuple(case.shape)
    _, d = flat_rows(grad)
    return {
        "grad": TensorDesc(case.dtypes[0], grad, case.format),
        "sort_indices": TensorDesc(case.dtypes[1], grad[:-1], case.format),
        "out": TensorDesc(case.dtypes[0], (int(case.attrs["num_weights"]), d), case.format),
    }


def check(descs: Mapping[str, TensorDesc | None], attrs: Mapping[str, Any]) -> None:
    """§1.2 checks 1-7 in order; the first failing one raises (check 8 is data-dependent: check_data)."""
    for name in TENSORS:  # 1
        if descs.get(name) is None:
            raise NullTensor(
                name, None, "a non-null tensor (grad, sort_indices and out are required)", code=ACLNN_ERR_PARAM_NULLPTR
            )
    t: dict[str, TensorDesc] = {name: descs[name] for name in TENSORS}  # type: ignore[misc]
    for name in ("grad", "out", "sort_indices"):  # 2
        if t[name].dtype != DTYPES[name]:
            raise InvalidDtype(
                f"{name}.dtype",
                t[name].dtype,
                f"{DTYPES[name]} (310P EDG delivers fp32 grad/out and int32 indices only)",
                code=_BAD,
            )
    for name in TENSORS:  # 3
        if t[name].format != "ND":
            raise InvalidFormat(f"{name}.format", t[name].format, "ND", code=_BAD)
    grad, idx, out = t["grad"].shape, t["sort_indices"].shape, t["out"].shape
    if not 2 <= len(grad) <= 8:  # 4
        raise InvalidShape("grad.shape", grad, f"rank 2..8 (got rank {len(grad)})", code=_BAD)
    if not 1 <= len(idx) <= 8:
        raise InvalidShape("sort_indices.shape", idx, f"rank 1..8 (got rank {len(idx)})", code=_BAD)
    n, d = flat_rows(grad)
    if math.prod(idx) != n:  # 5
        raise InvalidShape(
            "sort_indices.shape",
            idx,
            f"numel == N = prod(grad.shape[:-1]) = {n} (got numel {math.prod(idx)})",
            code=_BAD,
        )
    nw = attrs["num_weights"]
    if not 0 <= nw <= INT32_MAX:  # 6
        raise InvalidAttr("num_weights", nw, f"0..{INT32_MAX} (INT32_MAX)", code=_BAD)
    if n > INT32_MAX:
        raise InvalidShape("grad.shape", grad, f"N = prod(shape[:-1]) <= {INT32_MAX} (got N = {n})", code=_BAD)
    if tuple(out) != (nw, d):  # 7
        raise InvalidShape("out.shape", out, f"[num_weights, D] = [{nw}, {d}]", code=_BAD)


def check_data(case: Case, inputs: Mapping[str, np.ndarray]) -> None:
    """§1.2 check 8 (debug validation, on by default): every index in [0, num_weights)."""
    grad, idx = np.asarray(inputs["grad"]), np.asarray(inputs["sort_indices"])
    n, _ = flat_rows(tuple(case.shape))
    if grad.shape != tuple(case.shape):
        raise InvalidShape("grad.shape", grad.shape, f"the case shape {tuple(case.shape)}", code=_BAD)
    if idx.size != n:
        raise InvalidShape("sort_indices.shape", idx.shape, f"numel == N = {n}", code=_BAD)
    nw = case.attrs["num_weights"]
    k = idx.reshape(-1)
    bad = (k < 0) | (k >= nw)
    if bad.any():
        pos = int(np.argmax(bad))
        raise InvalidInput(
            f"sort_indices[{pos}] (flat position)",
            int(k[pos]),
            f"[0, {nw}) = [0, num_weights) (debug validation, docs/ops/embedding_dense_grad.md §1.2 check 8)",
            code=_BAD,
        )


def dtype_fill(dtypes: tuple[str, ...]) -> tuple[str, ...]:
    return (*dtypes, "int32") if len(dtypes) == 1 else dtypes


def standard(output: str, dtype: str) -> str:
    # DECISION-EDG-11: docs/precision.md#double_thousandth at 1e-4 (plus exact zero rows, reported by the op tests)
    return "double_thousandth"


def kernel(case: Case) -> KernelInfo:
    # The launcher zeroes out and the whole workspace (counts, sync slots) before every launch (DECISION-EDG-4/5).
    return KernelInfo(
        "kernels/embedding_dense_grad/embedding_dense_grad_kernel.cpp",
        "embedding_dense_grad_kernel",
        {},
        ("grad", "sort_indices", "out"),
        output_fill=0,
        workspace_fill=0,
    )


SPEC = OpSpec(
    name="embedding_dense_grad",
    summary="out[k] = sum of grad rows whose index is k (optionally / count_k); the backward of nn.Embedding",
    inputs=(
        TensorSpec("grad", "float32, rank 2..8, flattened to [N, D]"),
        TensorSpec("sort_indices", "int32, numel N; flat element i is the weight row of grad row i (sorted = fast)"),
    ),
    outputs=(TensorSpec("out", "float32 [num_weights, D]; zeroed by the launcher, padding/untouched rows stay 0"),),
    attrs=(
        AttrSpec("num_weights", int, REQUIRED, "rows of out, 0..INT32_MAX"),
        AttrSpec(
            "padding_idx",
            int,
            -1,
            "row kept at zero; outside [0, num_weights) means none (docs/ops/embedding_dense_grad.md DECISION-EDG-2)",
        ),
        AttrSpec("scale_grad_by_freq", bool, False, "scale row k by 1/count_k when count_k >= 2 (tilingKey 1)"),
    ),
    dtype_matrix=(("float32", "int32"),),
    dtype_roles=("grad", "sort_indices"),
    formats=("ND",),
    platforms=("Ascend310P",),  # any 310P SoC; a Case defaults to the first one (Ascend310P3)
    distributions=DISTRIBUTIONS,
    tiling_struct=EmbeddingDenseGradTilingData,
    tiling_header="kernels/embedding_dense_grad/embedding_dense_grad_tiling.h",
    describe=describe,
    check=check,
    tiling=plan,
    make_inputs=make_inputs,
    golden=golden,
    standard=standard,
    dtype_fill=dtype_fill,
    kernel=kernel,
    builtin=builtin,
    criteria=criteria,
    check_data=check_data,
    explore=Explore(-1, "D", "colLoopNum", "column chunks (colLoopNum)"),
)
