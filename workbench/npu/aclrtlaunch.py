"""The `aclrtlaunch_<kernel>` launch function CANN's `ascendc_library` generates for each kernel, as ctypes sees it.

The generated header declares, for `extern "C" __global__ __aicore__ void k(GM_ADDR x, ..., Tiling tiling)`:

    extern "C" uint32_t aclrtlaunch_k(uint32_t blockDim, aclrtStream stream, void* x, ..., Tiling* tiling);

GM_ADDR becomes `void*`; a struct passed by value becomes a host pointer to it, which the stub copies into the
launch's argument block; the return is 0 or a runtime error code (generated headers quoted in docs/npu.md). Our
kernels take their GM tensors in `KernelInfo.args` order, then the workspace, then the TilingData: by value (the
shipped kernels), or as `GM_ADDR tiling`, the other public pattern, which the launcher copies to device memory.
ctypes needs every type spelled out: an int defaults to a 32-bit C int, which would truncate device addresses.
"""

from __future__ import annotations

import ctypes
import re
from typing import TYPE_CHECKING, Any

from ..errors import WorkbenchError
from ..registry import get_op

if TYPE_CHECKING:
    from ..launch import PreparedLaunch


def symbol(launch: PreparedLaunch) -> str:
    return f"aclrtlaunch_{launch.entry}"


def tiling_in_gm(launch: PreparedLaunch) -> bool:
    """Whether the kernel's source declares its last parameter (the tiling) as a GM pointer rather than the struct
    by value; a declaration we cannot find (a macro-generated entry) is taken as the struct, our kernels' form."""
    found = re.search(rf"\bvoid\s+{re.escape(launch.entry)}\s*\(([^)]*)\)", launch.source.read_text(errors="replace"))
    last = found.group(1).split(",")[-1].split() if found else []
    return bool(last) and (last[0] == "GM_ADDR" or "__gm__" in last or last[0].endswith("*"))


def prototype(launch: PreparedLaunch) -> tuple[Any, list[Any]]:
    """(restype, argtypes) of the launch function."""
    pointers = [ctypes.c_void_p] * (len(launch.args) + 1)  # the GM tensors, then the workspace
    tiling = ctypes.c_void_p if tiling_in_gm(launch) else ctypes.POINTER(get_op(launch.op).tiling_struct)
    return ctypes.c_uint32, [ctypes.c_uint32, ctypes.c_void_p, *pointers, tiling]


def c_declaration(launch: PreparedLaunch) -> str:
    """The declaration the generated header carries, for the docs and for a reader comparing with a build."""
    params = ", ".join(f"void* {a.name}" for a in launch.args)
    struct = "void" if tiling_in_gm(launch) else get_op(launch.op).tiling_struct.__name__
    return (
        f'extern "C" uint32_t {symbol(launch)}(uint32_t blockDim, aclrtStream stream, {params}, void* workspace, '
        f"{struct}* tiling);"
    )


def bind(library: Any, launch: PreparedLaunch) -> Any:
    """The launch function of `library` (a ctypes.CDLL, or the emulated runtime's stand-in) with its prototype."""
    name = symbol(launch)
    try:
        fn = getattr(library, name)
    except AttributeError:
        raise WorkbenchError(
            "kernel library", getattr(library, "_name", library), f"a library exporting {name} (built for this kernel)"
        ) from None
    fn.restype, fn.argtypes = prototype(launch)
    return fn


def tiling_struct(launch: PreparedLaunch) -> ctypes.Structure:
    """The TilingData struct the kernel reads, rebuilt from the launch's bytes (the layouts are tested equal)."""
    struct: ctypes.Structure = get_op(launch.op).tiling_struct.from_buffer_copy(launch.tiling)
    return struct
