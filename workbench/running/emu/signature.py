"""The parameter list a built kernel entry declares, and the launch arguments that follow it.

A kernel binary prints its entry's parameters with `--signature` (kernels/emu/include/ascemu/driver.h): one per
declared parameter, a GM pointer (`GM_ADDR`), a scalar of a named type, or a struct passed by value (a tiling
struct). The answer is kept beside the binary, which the build cache names by content, so it is asked once.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import InfrastructureError, InvalidInput
from .launch import Arg, ListArg

# ascemu's scalar type names (types.h dtype_name) as numpy dtypes; bfloat16 is encoded by hand
_SCALAR_DTYPES = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int64": np.int64,
    "uint64": np.uint64,
    "half": np.float16,
    "float": np.float32,
    "double": np.float64,
}


@dataclass(frozen=True)
class Param:
    """One declared parameter of a kernel entry."""

    kind: str  # "gm" | "scalar" | "struct"
    nbytes: int = 0
    dtype: str = ""  # a scalar's type name

    def describe(self) -> str:
        if self.kind == "gm":
            return "GM_ADDR"
        if self.kind == "scalar":
            return self.dtype
        return f"{self.nbytes}-byte struct"


@cache
def signature(binary: Path) -> tuple[Param, ...]:
    """The parameters the entry compiled into `binary` declares, in order (asked once, then read from beside it)."""
    sidecar = binary.with_name(binary.name + ".sig.json")
    try:
        return _params(sidecar.read_text())
    except (OSError, ValueError, KeyError, TypeError):  # missing or damaged: ask the binary again
        pass
    try:
        proc = subprocess.run([str(binary), "--signature"], capture_output=True, text=True, timeout=60)
        text = proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 and proc.stdout.strip() else ""
        params = _params(text)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError, IndexError):
        raise InfrastructureError(
            "kernel binary", binary, "does not answer --signature", "delete it; the next run builds it again"
        ) from None
    with contextlib.suppress(OSError):  # a read-only cache only costs the question next time
        tmp = sidecar.with_name(f".{sidecar.name}.{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, sidecar)
    return params


def _params(text: str) -> tuple[Param, ...]:
    raw = json.loads(text)["params"]
    params = tuple(Param(str(p["kind"]), int(p.get("bytes", 0)), str(p.get("type", ""))) for p in raw)
    if any(p.kind not in ("gm", "scalar", "struct") for p in params):
        raise ValueError("unknown parameter kind")
    return params


def bind(entry: str, params: tuple[Param, ...], values: list[tuple[str, Any]]) -> list[Arg | ListArg | bytes]:
    """The launch arguments for `values` ((what the caller called it, value) in order), one per declared parameter:
    a GM buffer (Arg) or a list of them (ListArg) for a pointer, else the parameter's bytes."""
    if len(values) != len(params):
        given = ", ".join(name for name, _ in values) or "nothing"
        declared = ", ".join(p.describe() for p in params)
        raise InvalidInput(
            "kernel arguments",
            f"{len(values)} ({given})",
            f"exactly the {len(params)} parameters {entry} declares ({declared}): the arrays in order, then "
            "workspace= and tiling= only if the kernel declares them",
        )
    return [_bound(name, value, p) for (name, value), p in zip(values, params, strict=True)]


def _bound(name: str, value: Any, p: Param) -> Arg | ListArg | bytes:
    if isinstance(value, ListArg) and p.kind != "gm":
        raise InvalidInput(
            name, "a TensorList", f"a value for the kernel's {p.describe()} parameter: a list goes to a GM_ADDR one"
        )
    if p.kind == "gm":
        if isinstance(value, (Arg, ListArg)):
            return value
        if isinstance(value, np.ndarray):
            if not value.flags.c_contiguous:
                raise InvalidInput(name, "non-contiguous array", "a C-contiguous array (np.ascontiguousarray)")
            return Arg(value, "inout")
        if isinstance(value, (bytes, bytearray, ctypes.Structure)):
            return bytes(value)  # a tiling struct behind a GM_ADDR parameter: copied into a GM buffer of its own
        raise InvalidInput(
            name, type(value).__name__, "a numpy array (device memory), In(a), Out(a), TensorList([...]) or bytes"
        )
    if p.kind == "scalar":
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
        if not isinstance(value, (bool, int, float, np.generic)):
            raise InvalidInput(name, type(value).__name__, f"a {p.dtype} scalar (the kernel's parameter type)")
        return _scalar_bytes(name, value, p)
    # a struct's (or a scalar's) bytes go as given: the driver checks their size against sizeof (HARNESS)
    if isinstance(value, (bytes, bytearray, ctypes.Structure)):
        return bytes(value)
    if isinstance(value, np.ndarray) and value.flags.c_contiguous:
        return value.tobytes()
    raise InvalidInput(name, type(value).__name__, f"the {p.nbytes} bytes of the kernel's struct (ctypes or bytes)")


def _scalar_bytes(name: str, value: Any, p: Param) -> bytes:
    if p.dtype == "bfloat16":  # round to nearest even from float32, as the emulator's bfloat16_t does
        bits = int(np.array(value, np.float32).view(np.uint32))
        if (bits & 0x7FFFFFFF) > 0x7F800000:
            return np.uint16((bits >> 16) | 0x40).tobytes()
        return np.uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).tobytes()
    dtype = _SCALAR_DTYPES.get(p.dtype)
    if dtype is None:
        raise InvalidInput(name, p.dtype, "a kernel scalar parameter of a type numpy has (pass its bytes instead)")
    if np.issubdtype(dtype, np.integer) and not isinstance(value, (np.integer, bool)):
        info = np.iinfo(dtype)
        if not float(value).is_integer() or not info.min <= int(value) <= info.max:
            raise InvalidInput(name, value, f"an integer in [{info.min}, {info.max}] ({p.dtype})")
    return np.array(value).astype(dtype).tobytes()
