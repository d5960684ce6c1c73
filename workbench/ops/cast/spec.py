"""Cast op spec (docs/ops/cast.md §1, §2): tensor descriptions, validation in the contract's order, SPEC assembly."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...core.dtypes import GE_ENUM, NUMPY, canonical
from ...core.errors import ACLNN_ERR_PARAM_INVALID as INVALID
from ...core.errors import ACLNN_ERR_PARAM_NULLPTR as NULLPTR
from ...core.errors import InvalidAttr, InvalidDtype, InvalidFormat, InvalidShape, NullTensor
from ...core.opspec import Explore, KernelInfo, OpSpec, TensorDesc, TensorSpec
from .builtin import builtin
from .criteria import criteria
from .golden import golden
from .inputs import DISTRIBUTIONS, make_inputs
from .layout import CastTilingData
from .tables import PAIRS, TARGETS
from .tiling import plan

if TYPE_CHECKING:
    from ...planning.case import Case

MAX_RANK = 8  # D23
OUT_DTYPES = tuple(d for d in NUMPY if d != "bfloat16")  # BF16 output is never delivered (§2)
_ENUM_NAME = {v: k for k, v in GE_ENUM.items()}


def pair_error(src: str, dst: str) -> InvalidDtype:
    """The rejection of an undelivered (src, dst) pair, listing what that source can be cast to (§2)."""
    allowed = f"{src} -> {', '.join(TARGETS[src])}"
    if src == dst:
        allowed += " (identity pairs are an aclnn-level copy, not this kernel; docs/ops/cast.md D20)"
    elif dst == "bfloat16":
        allowed += " (BF16 is a source only)"
    return InvalidDtype("dtype", f"{src}:{dst}", allowed, code=INVALID)  # value spelled as Case.dtypes / the CLI


def dtype_fill(dtypes: tuple[str, ...]) -> tuple[str, ...]:
    # Cast needs both dtypes, so nothing is completed; an undelivered pair gets the per-source target list
    # here instead of the registry's generic "60 combinations" message.
    if len(dtypes) == 2 and dtypes not in PAIRS and dtypes[0] in TARGETS:
        raise pair_error(*dtypes)
    return dtypes


def describe(case: Case) -> dict[str, TensorDesc]:
    src, dst = case.dtypes
    return {"x": TensorDesc(src, case.shape, case.format), "y": TensorDesc(dst, case.shape, case.format)}


def _dst_type(value: Any) -> str:
    """dst_type as the ge/acl enum (int) or a dtype name -> canonical dtype name."""
    if isinstance(value, str) and not value.strip().lstrip("-").isdigit():
        return canonical(value, "dst_type")
    try:
        return _ENUM_NAME[int(value)]
    except (KeyError, TypeError, ValueError):
        raise InvalidAttr(
            "dst_type", value, "a ge::DataType enum: " + ", ".join(f"{k} {v}" for k, v in GE_ENUM.items()), code=INVALID
        ) from None


def check(tensors: Mapping[str, TensorDesc | None], attrs: Mapping[str, Any]) -> None:
    """§1 in order: null tensors, self (ND, dtype), out (ND, dtype), dst_type == out.dtype, pair, shape, rank."""
    x, y = tensors.get("x"), tensors.get("y")
    for name, t in (("self", x), ("out", y)):
        if t is None:
            raise NullTensor(name, None, "a tensor (aclnn nullptr check)", code=NULLPTR)
    assert x is not None and y is not None
    for name, t, allowed in (("self", x, tuple(NUMPY)), ("out", y, OUT_DTYPES)):
        if t.format != "ND":
            raise InvalidFormat(f"{name}.format", t.format, "ND", code=INVALID)
        if t.dtype not in allowed:
            hint = " (BF16 output is never delivered)" if t.dtype == "bfloat16" else ""
            raise InvalidDtype(f"{name}.dtype", t.dtype, ", ".join(allowed) + hint, code=INVALID)
    if attrs.get("dst_type") is not None:
        want = _dst_type(attrs["dst_type"])
        if want != y.dtype:
            raise InvalidAttr(
                "dst_type",
                attrs["dst_type"],
                f"{GE_ENUM[y.dtype]} ({y.dtype}): dst_type must equal out.dtype",
                code=INVALID,
            )
    if (x.dtype, y.dtype) not in PAIRS:
        raise pair_error(x.dtype, y.dtype)
    if tuple(y.shape) != tuple(x.shape):
        raise InvalidShape("out.shape", tuple(y.shape), f"{tuple(x.shape)} (out.shape == self.shape)", code=INVALID)
    if len(x.shape) > MAX_RANK:
        raise InvalidShape("self.rank", len(x.shape), f"0..{MAX_RANK} (docs/ops/cast.md D23)", code=INVALID)


def standard(output: str, dtype: str) -> str:
    """D18: integer/bool outputs bit-exact; float outputs use the single-benchmark MERE/MARE standard."""
    return "single_benchmark" if dtype in ("float16", "float32", "bfloat16") else "exact"


# Ascend C spellings of the dtypes; BF16 travels as int16_t and BOOL as uint8_t (§1.1, §3.5).
C_TYPE = {
    "float16": "half",
    "float32": "float",
    "int8": "int8_t",
    "uint8": "uint8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "bool": "uint8_t",
    "bfloat16": "int16_t",
}


def kernel(case: Case) -> KernelInfo:
    src, dst = case.dtypes
    defines = {
        "DTYPE_X": C_TYPE[src],
        "DTYPE_Y": C_TYPE[dst],
        "CAST_SRC_BF16": int(src == "bfloat16"),
        "CAST_SRC_BOOL": int(src == "bool"),
        "CAST_DST_BOOL": int(dst == "bool"),
    }
    return KernelInfo("kernels/cast/cast_kernel.cpp", "cast_kernel", defines, ("x", "y"))


SPEC = OpSpec(
    name="cast",
    # aclnnCast's dst_type is no attribute here: the pair (src, dst) of Case.dtypes implies it (the GE enum of dst);
    # check() still validates an explicit dst_type entry (as an aclnn call would pass it) against out.dtype.
    summary="y = cast(x): every element of x converted to the destination dtype, the second dtype of "
    "--dtype src:dst; 60 (src, dst) pairs on Ascend310P, as aclnnCast.",
    inputs=(TensorSpec("x", "any rank 0..8; bool, float16, float32, int8, uint8, int16, int32, int64, bfloat16"),),
    outputs=(TensorSpec("y", "the shape of x, in the destination dtype (bfloat16 is a source only)"),),
    attrs=(),
    dtype_roles=("src", "dst"),
    dtype_matrix=tuple(PAIRS),
    formats=("ND",),
    platforms=("Ascend310P",),  # any 310P SoC; a Case defaults to the first one (Ascend310P3)
    distributions=DISTRIBUTIONS,
    tiling_struct=CastTilingData,
    tiling_header="kernels/cast/cast_tiling.h",
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
    # ubFormer is set by the dtype pair alone (flat over sizes): what a size changes is the tiles each core runs
    explore=Explore(-1, "n", "formerTileNum", "tiles per core (formerTileNum)"),
)
