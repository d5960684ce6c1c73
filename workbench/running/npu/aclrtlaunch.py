"""The `aclrtlaunch_<kernel>` launch function CANN's `ascendc_library` generates for each kernel, as ctypes sees it,
and the device-side wrapper the same generator writes around the kernel.

The generated header declares, for `extern "C" __global__ __aicore__ void k(GM_ADDR x, ..., Tiling tiling)`:

    extern "C" uint32_t aclrtlaunch_k(uint32_t blockDim, aclrtStream stream, void* x, ..., Tiling* tiling);

GM_ADDR becomes `void*`; a struct passed by value becomes a host pointer to it, which the stub copies into the
launch's argument block; the return is 0 or a runtime error code (generated headers quoted in docs/npu.md). Our
kernels take their GM tensors in `KernelInfo.args` order, then the workspace, then the TilingData: by value (the
shipped kernels), or as `GM_ADDR tiling`, the other public pattern, which the launcher copies to device memory.
ctypes needs every type spelled out: an int defaults to a 32-bit C int, which would truncate device addresses.

**The wrapper and the HAVE_* macros.** On the device the kernel is not the entry: the stub generator
(asc-devkit `cmake/asc/legacy_modules/util/extract_host_stub.py`, `_generate_sub_source` and
`_generate_workspace_param_source`) writes an entry that takes the same parameters and, when the build defines
`HAVE_WORKSPACE`, hands one of them to `SetSysWorkspaceForce`, replaces it with `GetUserWorkspace` of it, and then
calls the kernel. Which one: the second to last parameter when `HAVE_TILING` is defined too, else the *last*. A
kernel whose last parameter is its tiling therefore needs both, or the wrapper assigns the tiling to a `GM_ADDR`
and the device compile fails. `stub_defines` is that rule, `check_stub_contract` refuses a signature the wrapper
cannot compile, and `device_wrapper` writes the wrapper's text so the emulated ACL runtime runs the kernel the way
the device does (its `workspace` argument is the user workspace; the system workspace is set).
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...core.errors import WorkbenchError
from ...planning.registry import get_op

if TYPE_CHECKING:
    from pathlib import Path

    from ..launch import PreparedLaunch

HAVE_WORKSPACE, HAVE_TILING = "HAVE_WORKSPACE", "HAVE_TILING"


@dataclass(frozen=True)
class KernelParam:
    """One declared parameter of a kernel entry: its C type as written (GM_ADDR, a struct name, ...) and name."""

    type: str
    name: str

    @property
    def is_gm(self) -> bool:
        return self.type == "GM_ADDR" or self.type.endswith("*")


def declared_params(source: str, entry: str) -> tuple[KernelParam, ...] | None:
    """The parameters `entry` declares in `source` (comments dropped), or None when no declaration is found (an entry
    a macro generates)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    found = re.search(rf"\bvoid\s+{re.escape(entry)}\s*\(([^)]*)\)", text)
    if found is None or not found.group(1).strip():
        return None
    params = []
    for raw in found.group(1).split(","):
        words = [w for w in raw.replace("*", " * ").split() if w not in ("const", "__restrict__")]
        if len(words) < 2:
            return None
        name, kind = words[-1], " ".join(words[:-1]).replace(" *", "*")
        params.append(KernelParam("GM_ADDR" if "__gm__" in kind else kind, name))
    return tuple(params)


def launch_params(launch: PreparedLaunch) -> tuple[KernelParam, ...]:
    """The entry's parameters: as declared, else the launch contract (GM tensors, workspace, tiling struct)."""
    declared = declared_params(launch.source.read_text(errors="replace"), launch.entry)
    if declared is not None:
        return declared
    struct = get_op(launch.op).tiling_struct.__name__
    return (*(KernelParam("GM_ADDR", a.name) for a in launch.args), KernelParam("GM_ADDR", "workspace"),
            KernelParam(struct, "tiling"))  # fmt: skip


def stub_defines(n_tensors: int, params: tuple[KernelParam, ...] | None) -> tuple[str, ...]:
    """The HAVE_* macros a kernel-launch build of the launch contract (n_tensors GM tensors, the workspace, the
    tiling) needs: the framework must set the system workspace from the workspace parameter (HAVE_WORKSPACE) and
    find it second to last, before the tiling (HAVE_TILING)."""
    defines = (HAVE_WORKSPACE, HAVE_TILING)
    if params is not None:
        check_stub_contract(params, defines, workspace_index=n_tensors)
    return defines


def wrapper_workspace(params: tuple[KernelParam, ...], defines: Collection[str]) -> KernelParam | None:
    """The parameter CANN's generated wrapper takes as the workspace under `defines` (None: it takes none)."""
    if HAVE_WORKSPACE not in defines or not params:
        return None
    return params[-2] if HAVE_TILING in defines and len(params) > 1 else params[-1]


def check_stub_contract(params: tuple[KernelParam, ...], defines: Collection[str], workspace_index: int) -> None:
    """Raise unless the wrapper generated under `defines` compiles and takes parameter `workspace_index` as the
    workspace: it assigns that parameter to a GM_ADDR and back, so it must be one."""
    taken = wrapper_workspace(params, defines)
    if taken is None:
        return
    where = ", ".join(f"{p.type} {p.name}" for p in params)
    if not taken.is_gm:
        raise WorkbenchError(
            "kernel signature",
            f"({where}) built with {' and '.join(d for d in (HAVE_WORKSPACE, HAVE_TILING) if d in defines)}",
            f"a GM_ADDR where CANN's generated wrapper takes the workspace ({taken.name} is a {taken.type}: the device "
            "compile fails); HAVE_TILING makes it the second to last parameter",
        )
    index = params.index(taken)
    if index != workspace_index:
        raise WorkbenchError(
            "kernel signature", f"({where})", f"{workspace_index} GM tensors, the workspace, then the tiling: the "
            f"launcher passes the workspace as parameter {workspace_index + 1}, and CANN's generated wrapper takes "
            f"parameter {index + 1} ({taken.name}) as the workspace",
        )  # fmt: skip


def device_wrapper(source: Path, entry: str, params: tuple[KernelParam, ...]) -> tuple[str, str]:
    """(entry, C++ text) of the entry CANN's stub generator writes around `entry`: the kernel is included as an
    inline function under another name, and the new entry sets the system workspace and passes the user workspace
    in place of the workspace parameter (under HAVE_WORKSPACE, from the parameter HAVE_TILING picks)."""
    new_entry = f"auto_gen_{entry}_kernel"
    names = [p.name for p in params]
    decl = ", ".join(f"{p.type} {p.name}" for p in params)
    last, before = names[-1], names[-2] if len(names) > 1 else names[-1]
    text = f"""#include "kernel_operator.h"
// CANN's generated wrapper around {entry} (asc-devkit extract_host_stub.py), as the workbench models it.
#define {entry} {entry}_origin
#include "{source.as_posix()}"
#undef {entry}
extern "C" __global__ __aicore__ void {new_entry}({decl})
{{
#if defined(HAVE_WORKSPACE)
    GM_ADDR workspace_param;
    GM_ADDR workspace_usr;
#if defined(HAVE_TILING)
    workspace_param = {before};
#else
    workspace_param = {last};
#endif
    AscendC::SetSysWorkspaceForce(workspace_param);
    workspace_usr = AscendC::GetUserWorkspace(workspace_param);
#if defined(HAVE_TILING)
    {before} = workspace_usr;
#else
    {last} = workspace_usr;
#endif
#endif
    {entry}_origin({", ".join(names)});
}}
"""
    return new_entry, text


def symbol(launch: PreparedLaunch) -> str:
    return f"aclrtlaunch_{launch.entry}"


def tiling_in_gm(launch: PreparedLaunch) -> bool:
    """Whether the kernel declares its last parameter (the tiling) as a GM pointer rather than the struct by value;
    a declaration we cannot find (a macro-generated entry) is taken as the struct, our kernels' form."""
    return launch_params(launch)[-1].is_gm


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
