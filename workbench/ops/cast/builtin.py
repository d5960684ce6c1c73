"""The built-in Cast through aclnn: `aclnnCastGetWorkspaceSize(self, dtype, out, &workspaceSize, &executor)`.

`dtype` is the aclDataType of the destination, which the case's dtype pair fixes (docs/ops/cast.md §1.1: dst_type
equals out's dtype). The built-in has no other attribute, so every delivered pair is comparable. Source:
hicann/ops-math, `math/cast/op_api/aclnn_cast.h`; that repository's library is libopapi_math.so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.builtin_call import BuiltinCall, dtype, tensor

if TYPE_CHECKING:
    from ...planning.case import Case


def builtin(case: Case) -> BuiltinCall:
    _, dst = case.dtypes
    args = (tensor("self", "x"), dtype("dtype", dst), tensor("out", "y"))
    return BuiltinCall("aclnnCast", args, library="libopapi_math.so")
