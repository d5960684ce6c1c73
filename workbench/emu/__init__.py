"""The `emu` backend: Ascend C kernels compiled with g++ against ascemu and run on emulated cores.

    kernel = workbench.emu.load("my_kernel.cpp", entry="my_kernel", platform="Ascend310P3")
    run = kernel[8](x, y, workspace=1 << 20, tiling=my_tiling_struct)   # y is filled in place
    run.diagnostics, run.trace, run.stdout

The arguments follow the parameters the kernel declares, in order: the positional ones first (arrays for GM_ADDR
parameters, numbers for scalar ones, bytes or a ctypes struct for a struct), then `workspace=` and `tiling=`, each
only if the kernel declares a parameter for it (`add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z)` takes three arrays
and nothing else). Arrays are device memory: every writeable array argument is copied back after the launch
(msKL's `kernel[blockdim](...)` convention). Wrap an argument in `In(a)` to skip the copy back, or in
`Out(a, fill=0)` to start it zeroed (or `fill=POISON`) instead of copying its contents in.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..backends import faulted
from ..errors import InvalidInput, UnsupportedPlatform
from ..platform import get_platform
from .build import PLATFORM_MACRO, Built, Variant, build, defines_of
from .launch import POISON, Arg, Diagnostic, LaunchOutcome, run_launch
from .program import run_program
from .signature import bind, signature

__all__ = ["POISON", "Diagnostic", "In", "Kernel", "KernelRun", "Out", "Workspace", "load", "run_program"]

_EMU_PLATFORM = {2002: "P310", 2201: "P910B"}
MAX_BLOCK_DIM = 65535  # CANN's limit on the blocks of one launch; the emulator refuses more as well (HARNESS)


def In(array: np.ndarray) -> Arg:
    return Arg(np.asarray(array), "input")


def Out(array: np.ndarray, fill: int | None = None) -> Arg:
    return Arg(array, "output", fill)


def Workspace(nbytes: int, fill: int = POISON) -> Arg:
    """A workspace buffer: never copied back; poisoned unless `fill` is a byte value."""
    return Arg(np.empty(max(int(nbytes), 32), np.uint8), "workspace", fill)


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
        *args: np.ndarray | Arg | int | float | np.generic | bytes | ctypes.Structure,
        workspace: int | np.ndarray | Arg | None = None,
        tiling: ctypes.Structure | bytes | None = None,
        tiling_key: int = 0,
        timeout_s: float = 60.0,
        **options: Any,
    ) -> KernelRun:
        values: list[tuple[str, Any]] = [(f"argument {i}", _checked(a, f"argument {i}")) for i, a in enumerate(args)]
        if workspace is not None:
            ws = Workspace(workspace) if isinstance(workspace, int) else workspace
            if isinstance(ws, np.ndarray):
                ws = Arg(_device_array(ws, "workspace"), "workspace")
            values.append(("workspace", ws))
        if tiling is not None:
            values.append(("tiling", tiling))
        built = self.kernel.built()
        launch_args = bind(self.kernel.variant.entry, signature(built.path), values)
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
            out.diagnostics,
            out.trace,
            built,
            out.wall_s,
            out.kernel_s,
            out.total_s,
            out.stderr,
            out.printf,
        )


_ARGUMENT_TYPES = (np.ndarray, Arg, bool, int, float, np.generic, bytes, bytearray, ctypes.Structure)


def _checked(a: Any, name: str) -> Any:
    """A positional argument of a kind some parameter can take (which one is checked against the signature)."""
    if not isinstance(a, _ARGUMENT_TYPES):
        raise InvalidInput(
            name, type(a).__name__, "a numpy array (device memory), In(a), Out(a), a number, or bytes / a ctypes struct"
        )
    return _device_array(a, name) if isinstance(a, np.ndarray) else a


def _device_array(a: Any, name: str) -> np.ndarray:
    if not isinstance(a, np.ndarray):
        raise InvalidInput(name, type(a).__name__, "a numpy array (device memory), In(a) or Out(a)")
    if not a.flags.c_contiguous:
        raise InvalidInput(name, "non-contiguous array", "a C-contiguous array (np.ascontiguousarray)")
    return a


@dataclass(frozen=True)
class Kernel:
    """A kernel entry point compiled for one platform; index it with block_dim to launch."""

    variant: Variant
    platform: Any  # workbench.platform.Platform

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
    variant = Variant(
        paths,
        entry,
        _EMU_PLATFORM[plat.npu_arch],
        defines_of(defines or {}),
        tuple(Path(d).resolve() for d in include_dirs),
        opt,
    )
    return Kernel(variant, plat)
