"""What an op's built-in (TBE) operator call looks like: its aclnn function and arguments, as data.

Each op describes its call in `ops/<op>/builtin.py`; the NPU layer (run/npu/aclnn.py) makes the call with ctypes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BuiltinArg:
    """One argument of phase 1, in C order. kind: tensor (value = our tensor name), dtype (value = our dtype name,
    passed as its aclDataType), int64, uint64 (negative values wrap, as C's conversion does), bool, double."""

    param: str  # the C parameter name, for messages
    kind: str
    value: Any


KINDS = ("tensor", "dtype", "int64", "uint64", "bool", "double")


def tensor(param: str, name: str) -> BuiltinArg:
    return BuiltinArg(param, "tensor", name)


def dtype(param: str, name: str) -> BuiltinArg:
    return BuiltinArg(param, "dtype", name)


def int64(param: str, value: int) -> BuiltinArg:
    return BuiltinArg(param, "int64", int(value))


def uint64(param: str, value: int) -> BuiltinArg:
    return BuiltinArg(param, "uint64", int(value))


def boolean(param: str, value: bool) -> BuiltinArg:
    return BuiltinArg(param, "bool", bool(value))


def double(param: str, value: float) -> BuiltinArg:
    return BuiltinArg(param, "double", float(value))


@dataclass(frozen=True)
class BuiltinCall:
    """The built-in operator's aclnn call for one Case.

    `function` is the base name (aclnnCast): phase 1 is `<function>GetWorkspaceSize`, phase 2 `<function>`.
    `unsupported` is non-empty when the built-in cannot express the case (an attribute or layout it lacks); the
    comparison is then "not comparable" and nothing is called. `note` is a caveat to show beside a comparison.
    """

    function: str
    args: tuple[BuiltinArg, ...]
    unsupported: str = ""
    note: str = ""
    library: str = ""  # the per-repository library that exports it (libopapi_math.so, ...); "" for any

    @property
    def tensor_names(self) -> tuple[str, ...]:
        """Our tensor names, in the order the call takes them."""
        return tuple(a.value for a in self.args if a.kind == "tensor")

    @property
    def phase1(self) -> str:
        return f"{self.function}GetWorkspaceSize"
