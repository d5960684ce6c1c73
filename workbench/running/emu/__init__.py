"""The `emu` backend: Ascend C kernels compiled with g++ against ascemu and run on emulated cores.

    kernel = workbench.running.emu.load("my_kernel.cpp", entry="my_kernel", platform="Ascend310P3")
    run = kernel[8](x, y, workspace=1 << 20, tiling=my_tiling_struct)   # y is filled in place
    run.diagnostics, run.trace, run.stdout

The arguments follow the parameters the kernel declares, in order: the positional ones first (arrays for GM_ADDR
parameters, numbers for scalar ones, bytes or a ctypes struct for a struct), then `workspace=` and `tiling=`, each
only if the kernel declares a parameter for it (`add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)` takes three arrays
and nothing else). Arrays are device memory: every writeable array argument is copied back after the launch
(msKL's `kernel[blockdim](...)` convention). Wrap an argument in `In(a)` to skip the copy back, or in
`Out(a, fill=0)` to start it zeroed (or `fill=POISON`) instead of copying its contents in. A kernel that takes a list
of tensors through one GM_ADDR (CANN's ListTensorDesc: AddN's inputs, a foreach op's outputs) gets
`TensorList([x0, x1, x2])`. Every argument is checked
before the launch (docs/emulator.md "Launch arguments"), most of them before the build: an array the launch must write
back is writeable, every array is little-endian and holds numbers (a GM buffer of a dtype kernels read: not float64),
and `timeout_s`, `workspace`, `tiling_key` and the launch options have valid values. A launch that did not finish leaves
every array it would have written back filled with the poison byte 0xFF.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...core._files import check_text_source
from ...core.dtypes import NUMPY
from ...core.errors import InvalidInput, UnsupportedPlatform
from ...core.platform import get_platform
from ...planning.pipeline import MAX_BLOCK_DIM  # the emulator refuses more as well (HARNESS)
from ..backends import faulted
from ..events import KernelEvents
from .build import PLATFORM_MACRO, Built, Variant, build, defines_of
from .launch import POISON, Arg, Diagnostic, LaunchOutcome, ListArg, check_launch_options, check_timeout, run_launch
from .program import run_program
from .signature import bind, signature

__all__ = [
    "POISON",
    "Diagnostic",
    "In",
    "Kernel",
    "KernelRun",
    "Out",
    "TensorList",
    "Workspace",
    "load",
    "run_program",
]

_EMU_PLATFORM = {2002: "P310", 2201: "P910B"}


def In(array: np.ndarray) -> Arg:
    """An input: copied into device memory, never copied back (a read-only array is fine)."""
    return Arg(np.asarray(array), "input")


def Out(array: np.ndarray, fill: int | None = None) -> Arg:
    """An output, copied back into `array` after the launch: its contents are copied in first, or with `fill` the
    device memory starts as that byte value (POISON: the emulator's poison)."""
    return Arg(array, "output", _fill(fill, allow_none=True))


def Workspace(nbytes: int, fill: int = POISON) -> Arg:
    """A workspace buffer: never copied back; poisoned unless `fill` is a byte value."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or not 0 <= int(nbytes) <= MAX_GM_BYTES:
        raise InvalidInput("workspace", nbytes, f"a number of bytes, an integer in [0, {MAX_GM_BYTES}]")
    return Arg(np.empty(max(int(nbytes), 32), np.uint8), "workspace", _fill(fill, allow_none=False))


def TensorList(tensors: Sequence[np.ndarray | Arg], shapes: bool = True) -> ListArg:
    """Tensors passed through one GM_ADDR as CANN lays out a dynamic input or output (ListTensorDesc): each tensor a
    GM buffer of its own, the parameter's buffer the list of their shapes and addresses (`shapes=False`: addresses
    only). Each tensor is an array (copied back, as a plain argument is), `In(a)` or `Out(a, fill=)`; all of one
    dtype, as the tensors of one dynamic input or output are."""
    if not isinstance(shapes, (bool, np.bool_)):
        raise InvalidInput(
            "TensorList shapes", shapes, "True (each tensor's shape in the list) or False (pointers only)"
        )
    if not isinstance(tensors, (list, tuple)):
        raise InvalidInput(
            "TensorList", type(tensors).__name__, "a list or tuple of numpy arrays, In(a) or Out(a), one per tensor"
        )
    if not tensors:
        # ListTensorDesc reads the count from the first or the last descriptor, so a list of none has no layout
        raise InvalidInput("TensorList", "an empty list", "at least one tensor (CANN's list layout has no empty form)")
    members = tuple(_member(t, f"TensorList[{k}]", bool(shapes)) for k, t in enumerate(tensors))
    first = members[0].array.dtype
    for k, m in enumerate(members):
        if m.array.dtype != first:
            # CANN: a DYNAMIC input or output has one DataType per kernel variant for all its tensors
            # (hicann/ops-math math/add_n/op_host/add_n_def.cpp, hicann/ops-nn foreach/*/op_host/*_def.cpp)
            raise InvalidInput(
                f"TensorList[{k}]",
                f"a {m.array.dtype} array in a list of {first} ones",
                "tensors of one dtype: the tensors of a CANN dynamic input or output share their data type",
            )
    return ListArg(members, bool(shapes))


def _member(t: Any, name: str, shapes: bool) -> Arg:
    if isinstance(t, np.ndarray):
        arg = Arg(_device_array(t, name), "inout")
    elif isinstance(t, Arg) and t.role in ("input", "output", "inout"):
        _device_array(t.array, name, contiguous=False)  # In/Out copy a strided array in and back through a temporary
        arg = t
    else:
        what = "a workspace" if isinstance(t, Arg) else type(t).__name__
        raise InvalidInput(name, what, "a numpy array, In(a) or Out(a) (a tensor of the list)")
    if shapes and arg.array.ndim == 0:
        raise InvalidInput(
            name,
            "a 0-d array",
            "an array of at least one dimension (a list's dim 0 means pointers only): a.reshape(1), or shapes=False",
        )
    _check_gm(arg, name)
    return arg


def _fill(fill: Any, allow_none: bool) -> int | None:
    if fill is None and allow_none:
        return None
    if isinstance(fill, (int, np.integer)) and not isinstance(fill, bool) and (fill == POISON or 0 <= fill <= 255):
        return int(fill)
    raise InvalidInput(
        "fill", fill, "a byte value in [0, 255] or POISON" + (", or None (copy in)" if allow_none else "")
    )


@dataclass(frozen=True)
class KernelRun:
    """What one launch produced besides the arrays it filled."""

    exit_code: int
    diagnostics: tuple[Diagnostic, ...]
    trace: dict[str, Any]
    build: Built
    wall_s: float  # the emulator process's part: a reused worker's request to report, or a one-shot child
    kernel_s: float  # the emulated launch inside the child
    total_s: float  # arrays in, the child, outputs back
    stderr: str = field(repr=False, default="")
    printf: tuple[tuple[int, str], ...] = field(repr=False, default=())  # (core, text) of AscendC::printf / PRINTF
    # the launch's event log with trace=True (docs/emulator.md#event-log), up to the fault when the launch ended in a
    # fatal record (events.fatal); None without trace, or when a fatal launch could not write it: events_missing says
    # why
    events: KernelEvents | None = field(repr=False, default=None)
    events_missing: str = field(repr=False, default="")

    @property
    def faulted(self) -> bool:
        return faulted(self.exit_code, self.diagnostics)

    @property
    def stdout(self) -> str:
        """What the kernel printed, core by core, every line prefixed "[core i] " as the emulator echoes it."""
        return "".join(f"[core {c}] {line}" for c, text in self.printf for line in text.splitlines(keepends=True))


@dataclass(frozen=True)
class _Bound:
    kernel: Kernel
    block_dim: int

    def __call__(
        self,
        *args: np.ndarray | Arg | ListArg | int | float | np.generic | bytes | ctypes.Structure,
        workspace: int | np.ndarray | Arg | None = None,
        tiling: ctypes.Structure | bytes | None = None,
        tiling_key: int = 0,
        timeout_s: float | None = None,
        **options: Any,
    ) -> KernelRun:
        values: list[tuple[str, Any]] = [(f"argument {i}", _checked(a, f"argument {i}")) for i, a in enumerate(args)]
        if workspace is not None:
            values.append(("workspace", _workspace(workspace)))
        if tiling is not None:
            values.append(("tiling", _checked(tiling, "tiling")))
        if isinstance(tiling_key, bool) or not isinstance(tiling_key, (int, np.integer)) or abs(tiling_key) >= 2**63:
            raise InvalidInput("tiling_key", tiling_key, "an integer (int64)")
        timeout_s = None if timeout_s is None else check_timeout(timeout_s)  # None: scaled to the launch
        options = check_launch_options(options)
        built = self.kernel.built()
        launch_args = bind(self.kernel.variant.entry, signature(built.path), values)
        for (name, _), bound in zip(values, launch_args, strict=True):
            if isinstance(bound, Arg):
                _check_gm(bound, name)
            elif isinstance(bound, ListArg):  # checked when made; an array may have been made read-only since
                for k, member in enumerate(bound.members):
                    _check_gm(member, f"{name}[{k}]")
        plat = self.kernel.platform
        out: LaunchOutcome = run_launch(
            built.path,
            PLATFORM_MACRO[_EMU_PLATFORM[plat.npu_arch]],
            plat.soc,
            self.block_dim,
            launch_args,
            tiling_key,
            timeout_s,
            {"core_count": plat.core_num, **options},
        )
        return KernelRun(
            out.exit_code,
            tuple(_localised(d, built) for d in out.diagnostics),
            out.trace,
            built,
            out.wall_s,
            out.kernel_s,
            out.total_s,
            built.local(out.stderr),
            out.printf,
            None if out.events is None else replace(out.events, strings=tuple(map(built.local, out.events.strings))),
            out.events_missing,
        )


def _localised(d: Diagnostic, built: Built) -> Diagnostic:
    """A diagnostic of a shared binary names the caller's files (the binary knows its sources by placeholders)."""
    return replace(d, file=built.local(d.file), message=built.local(d.message), details=_local_values(d.details, built))


def _local_values(value: Any, built: Built) -> Any:
    """Every string in `value` (a diagnostic's details: nested lists and objects, such as a TIMEOUT's cores) with the
    caller's files put back."""
    if isinstance(value, str):
        return built.local(value)
    if isinstance(value, dict):
        return {k: _local_values(v, built) for k, v in value.items()}
    if isinstance(value, list):
        return [_local_values(v, built) for v in value]
    return value


_ARGUMENT_TYPES = (np.ndarray, Arg, ListArg, bool, int, float, np.generic, bytes, bytearray, ctypes.Structure)
MAX_GM_BYTES = 1 << 40  # no host holds more; a larger workspace is a mistake, not a request
# What a GM_ADDR parameter takes: the element types Ascend C kernels keep in global memory. The binary's signature
# says only "pointer", so the dtype is checked against what any kernel can read; a structured dtype is a layout the
# caller wrote on purpose. float64 is refused: it is numpy's default (np.arange(n) / 3, np.array([1.0])), no Ascend C
# vector API reads it, and a kernel reading float32 would see its bytes as other numbers without any error.
_GM_TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16)
GM_DTYPES = frozenset({*map(np.dtype, (*_GM_TYPES, np.float32)), NUMPY["bfloat16"]})


def _checked(a: Any, name: str) -> Any:
    """A positional argument of a kind some parameter can take (which one is checked against the signature)."""
    if not isinstance(a, _ARGUMENT_TYPES):
        raise InvalidInput(
            name,
            type(a).__name__,
            "a numpy array (device memory), In(a), Out(a), TensorList([...]), a number, or bytes / a ctypes struct",
        )
    if isinstance(a, Arg):  # In/Out copy a strided array in and back through a temporary
        _device_array(a.array, name, contiguous=False)
    return _device_array(a, name) if isinstance(a, np.ndarray) else a


def _workspace(workspace: Any) -> Arg:
    if isinstance(workspace, Arg):
        return _checked(workspace, "workspace")
    if isinstance(workspace, np.ndarray):
        return Arg(_device_array(workspace, "workspace"), "workspace")
    return Workspace(workspace)


def _device_array(a: Any, name: str, contiguous: bool = True) -> np.ndarray:
    """An array whose bytes can be device memory: numbers, little-endian, and (a plain array, used as the device
    memory itself) C-contiguous."""
    if not isinstance(a, np.ndarray):
        raise InvalidInput(name, type(a).__name__, "a numpy array (device memory), In(a) or Out(a)")
    if a.dtype.hasobject:
        raise InvalidInput(
            name, f"an array of dtype {a.dtype}", "an array of numbers: device memory holds bytes, not Python objects"
        )
    if a.dtype != a.dtype.newbyteorder("<"):
        raise InvalidInput(
            name,
            f"a big-endian {a.dtype} array",
            "a little-endian array: device memory is little-endian (a.astype(a.dtype.newbyteorder('<')))",
        )
    if contiguous and not a.flags.c_contiguous:
        raise InvalidInput(name, "non-contiguous array", "a C-contiguous array (np.ascontiguousarray)")
    return a


def _check_gm(arg: Arg, name: str) -> None:
    """An array bound to a GM_ADDR parameter: a dtype kernels read, and writeable when the launch writes it back."""
    a = arg.array
    if arg.role == "workspace":
        return  # scratch for the kernel: its bytes are never read back, so no dtype is assumed
    if a.dtype not in GM_DTYPES and a.dtype.fields is None:
        raise InvalidInput(
            name,
            f"a {a.dtype} array",
            "an array of a type Ascend C kernels keep in GM (bool, int8-int64, uint8-uint64, float16, bfloat16, "
            "float32, or a structured dtype); for float64 convert with a.astype(np.float32), or pass a.view(np.uint8) "
            "if the kernel reads doubles on purpose",
        )
    if arg.role in ("output", "inout") and not a.flags.writeable:
        raise InvalidInput(
            name,
            "a read-only array",
            "a writeable array (the launch copies the kernel's output back into it), or In(a) for an input",
        )


@dataclass(frozen=True)
class Kernel:
    """A kernel entry point compiled for one platform; index it with block_dim to launch."""

    variant: Variant
    platform: Any  # workbench.core.platform.Platform

    def built(self) -> Built:
        return build(self.variant)

    def __getitem__(self, block_dim: int) -> _Bound:
        if not isinstance(block_dim, int) or isinstance(block_dim, bool) or not 1 <= block_dim <= MAX_BLOCK_DIM:
            raise InvalidInput("block_dim", block_dim, f"an integer in 1..{MAX_BLOCK_DIM} (CANN's limit)")
        return _Bound(self, block_dim)


def load(
    sources: str | Path | Sequence[str | Path],
    entry: str,
    platform: str = "Ascend310P3",
    defines: Mapping[str, object] | None = None,
    include_dirs: Sequence[str | Path] = (),
    opt: str = "-O2",
) -> Kernel:
    """Compile (or find in the cache) an Ascend C kernel for the emulator; nothing is built until first use."""
    plat = get_platform(platform)
    if plat.npu_arch not in _EMU_PLATFORM:
        raise UnsupportedPlatform("platform", platform, "an Ascend310P or Ascend910B SoC")
    srcs = (sources,) if isinstance(sources, (str, Path)) else tuple(sources)
    paths = tuple(Path(s).resolve() for s in srcs)
    for p in paths:
        if not p.is_file():
            raise InvalidInput("sources", str(p), "existing Ascend C source files")
        check_text_source(p, "sources")
    variant = Variant(
        paths,
        entry,
        _EMU_PLATFORM[plat.npu_arch],
        defines_of(defines or {}),
        tuple(Path(d).resolve() for d in include_dirs),
        opt,
    )
    return Kernel(variant, plat)
