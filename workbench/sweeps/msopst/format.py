"""msOpST's case file as published (the field tables docs/msopst.md cites), the ops' tensor and attribute names in
it, the msOpST form of each op's input distributions, and what an import or an export returns."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.dtypes import FLOATS, NUMPY
from ...ops.cast.inputs import _float_range as _cast_float_range
from ...planning.case import Case
from ...planning.registry import get_op
from ..points import Point

DOC = "docs/msopst.md"
NOT_SUPPORTED = "docs/msopst.md#what-is-not-supported"

# msOpST op types (the CANN prototype names) and their tensors' prototype names, in prototype order.
OP_TYPES: dict[str, str] = {
    "cast": "Cast",
    "embedding_dense_grad": "EmbeddingDenseGrad",
    "softmax_cross_entropy_with_logits": "SoftmaxCrossEntropyWithLogits",
}
PROTO: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cast": (("x",), ("y",)),
    "embedding_dense_grad": (("grad", "indices"), ("y",)),
    "softmax_cross_entropy_with_logits": (("features", "labels"), ("loss", "backprop")),
}
# Where each op's Case.dtypes come from: (input|output, position). Case.shape is always input 0's shape.
DTYPES_FROM: dict[str, tuple[tuple[str, int], ...]] = {
    "cast": (("input", 0), ("output", 0)),
    "embedding_dense_grad": (("input", 0), ("input", 1)),
    "softmax_cross_entropy_with_logits": (("input", 0),),
}
# Attributes the op prototype has but Case does not keep: validated against the case (spec.check), then dropped,
# because Case.dtypes already implies them (Cast's dst_type is the GE enum of the destination dtype).
CHECK_ONLY: dict[str, tuple[str, ...]] = {"cast": ("dst_type",)}
# What an export writes for a distribution msOpST cannot draw (named in the export's report).
FALLBACK = {"cast": "uniform", "embedding_dense_grad": "normal", "softmax_cross_entropy_with_logits": "raw"}

# The published field table (docs/msopst.md cites it).
CASE_FIELDS = (
    "case_name",
    "op",
    "error_threshold",
    "st_mode",
    "run_torch_api",
    "expect",
    "fuzz_impl",
    "fuzz_case_num",
    "input_desc",
    "output_desc",
    "attr",
    "calc_expect_func_file",
)
_TENSOR_FIELDS = ("name", "format", "ori_format", "type", "shape", "ori_shape", "typical_shape", "shape_range")
INPUT_FIELDS = (*_TENSOR_FIELDS, "is_const", "data_distribute", "value_range", "value")
OUTPUT_FIELDS = _TENSOR_FIELDS
DATA_DISTRIBUTES = ("uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid", "softmax", "tanh")
TENSOR_TYPES = (
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float",
    "bfloat16",
    "complex64",
    "complex128",
    "UNDEFINED",
)
ATTR_TYPES = (
    "bool",
    "int",
    "float",
    "string",
    "list_bool",
    "list_int",
    "list_float",
    "list_string",
    "list_list_int",
    "data_type",
)
DATA_TYPE_VALUES = (
    "int8",
    "int32",
    "int16",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float",
    "float16",
    "float32",
    "bool",
    "double",
    "complex64",
    "complex128",
    "bfloat16",
)
ST_MODES = ("ms_python_train", "pt_python_train")
EXPECTS = ("success", "failed")
SEED_SUFFIX = re.compile(r"_seed(\d+)$")
ATTR_TYPE_NAME = {int: "int", bool: "bool", float: "float"}
EXPECT_OF = {"pass": "success", "fail": "failed", "fault": "failed", "error": "failed"}

Draw = tuple[str, tuple[float, float] | None]  # (data_distribute, value_range); None: any range (bool inputs)


# -- results ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Skipped:
    """A case (index -1) or one of its sub-cases that gives no Point, with the reason."""

    case: str
    index: int
    reason: str

    def __str__(self) -> str:
        where = f"case {self.case}" + (f" sub-case {self.index}" if self.index >= 0 else "")
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class MsopstImport:
    """The Points of a msOpST file (in file and sub-case order), where each came from ("case_name[sub-case]"), what of
    the file the workbench does not honour (one line each: case, field, value, why) and the skipped (sub-)cases."""

    points: tuple[Point, ...]
    origins: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()
    skipped: tuple[Skipped, ...] = ()

    def __len__(self) -> int:
        return len(self.points)

    def __iter__(self) -> Iterator[Point]:
        return iter(self.points)


@dataclass(frozen=True)
class MsopstExport:
    """The msOpST cases written (one per Point, in order) and what of the Points msOpST cannot represent."""

    cases: tuple[Mapping[str, Any], ...]
    unrepresentable: tuple[str, ...] = ()

    def to_json(self) -> list[dict[str, Any]]:
        return [json.loads(json.dumps(c)) for c in self.cases]


# -- the msOpST form of the ops' distributions ----------------------------------------------------------------------
# msOpST draws an input with numpy from (data_distribute, value_range): uniform over [min, max); normal with
# value_range read as [mean, standard deviation]; a bool input is uniform 0/1 whatever its range (docs/msopst.md).
DRAW_NOTES: dict[tuple[str, str], tuple[str, ...]] = {
    ("embedding_dense_grad", "normal"): (
        "input_desc[1] (indices): msOpST draws them in random order, the workbench's 'normal' sorts them "
        "(any order is correct, docs/ops/embedding_dense_grad.md DECISION-EDG-1)",
    ),
}


def msopst_draws(case: Case, distribution: str) -> tuple[Draw, ...] | None:
    """How msOpST would draw the inputs of `case` for the op's `distribution`: one (data_distribute, value_range)
    per input (value_range None: any, for a bool input), or None when msOpST has no such draw."""
    dist = distribution or get_op(case.op).distributions[0]
    if case.op == "cast":
        src = case.dtypes[0]
        if dist == "uniform":
            return (("uniform", _cast_uniform_range(*case.dtypes)),)
        if dist == "normal" and src != "bool":  # N(0, 1)·100 (docs/ops/cast.md §5.5); msOpST draws bool 0/1
            return (("normal", (0, 100)),)
    elif case.op == "embedding_dense_grad":
        if dist == "normal":  # grad N(0, 1), indices uniform in [0, num_weights)
            return (("normal", (0, 1)), ("uniform", (0, int(case.attrs["num_weights"]))))
    elif case.op == "softmax_cross_entropy_with_logits" and dist == "raw":  # features N(0, 1), labels U(0, 1)
        return (("normal", (0, 1)), ("uniform", (0, 1)))
    return None


def _cast_uniform_range(src: str, dst: str) -> tuple[float, float] | None:
    """Cast's 'uniform': floats over [-R, R] with R per pair, integers over the source's whole range."""
    if src == "bool":
        return None
    if src in FLOATS:
        r = _cast_float_range(src, dst)
        return (-r, r)
    info = np.iinfo(NUMPY[src])
    return (int(info.min), int(info.max))


def brief(value: Any, limit: int = 80) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
