"""The `npu` backend: the kernel built by CANN's `ascendc_library`, launched through pyACL and ctypes on a device,
timed with timeline events, its outputs copied back; the built-in (TBE) op of the same name run alongside through
aclnn.

With WORKBENCH_ACL=emulated every acl call goes to the emulated runtime instead (npu/acl_emulated.py): the same code
path runs on a CPU, the build is skipped (the emulator builds the kernel), event times are the performance model's
predictions and the built-in op is not run ("needs an NPU").

Not run on hardware: no NPU was available while writing this. What ran is this module against the emulated runtime
(tests/test_npu_backend.py) and the aclnn calls against ctypes stand-ins with the documented prototypes.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...core import progress
from ...core._files import cache_home
from ...core.dtypes import canonical
from ...core.errors import WorkbenchError
from ...core.timesource import DEVICE, EMULATOR_WALL, HOST_WALL, PREDICTED, TimeSource
from ..launch import POISON, Diagnostic, PreparedLaunch
from ..npu import aclrtlaunch
from ..npu.acl_runtime import KERNEL_FAULTS, AclError, Device, acl_module, emulated
from . import Execution, no_launch

WARMUP_ENV, REPEATS_ENV, PROFILE_ENV = "WORKBENCH_NPU_WARMUP", "WORKBENCH_NPU_REPEATS", "WORKBENCH_NPU_PROFILE"
# A device run is timed over several launches; under the emulated runtime every launch predicts the same time, so
# one launch (fully checked, like any other) is the default there.
DEVICE_COUNTS, EMULATED_COUNTS = (3, 10), (0, 1)
FAULT_POISON = 0xFF  # outputs not zeroed by contract start as all-ones bytes (NaN, -1): unwritten elements show


@dataclass(frozen=True)
class Counts:
    warmup: int
    repeats: int


def counts(is_emulated: bool) -> Counts:
    """Warm-up and timed launches: WORKBENCH_NPU_WARMUP / WORKBENCH_NPU_REPEATS, else the defaults above."""
    warmup, repeats = EMULATED_COUNTS if is_emulated else DEVICE_COUNTS
    return Counts(_count(WARMUP_ENV, warmup, 0), _count(REPEATS_ENV, repeats, 1))


def _count(env: str, default: int, least: int) -> int:
    raw = os.environ.get(env, "")
    if not raw:
        return default
    if not raw.isdigit() or not least <= int(raw) <= 10_000:
        raise WorkbenchError(env, raw, f"an integer in [{least}, 10000]")
    return int(raw)


def unavailable() -> str | None:
    if emulated() or importlib.util.find_spec("acl") is not None:
        return None
    return "no pyACL (`acl` from CANN) on this machine; WORKBENCH_ACL=emulated runs this path on the emulator"


def execute(launch: PreparedLaunch) -> Execution:
    if launch.block_dim == 0:
        return no_launch(launch)
    acl, is_emulated = acl_module(), emulated()
    n = counts(is_emulated)
    t0 = time.perf_counter()
    if is_emulated:
        acl.configure(launch.platform)
        library, build_s, cann = acl.kernel_library(launch), 0.0, None
    else:
        library, build_s, cann = _device_library(launch)
    fn = aclrtlaunch.bind(library, launch)
    with Device(acl) as dev:
        if not is_emulated:
            _check_soc(dev.soc, launch.platform)
        with progress.stage(f"launching {launch.entry} on {launch.block_dim} cores ({n.warmup} + {n.repeats} times)"):
            kernel = _run_kernel(dev, fn, launch, n)
        builtin = None if is_emulated else _run_builtin(dev, launch, n)
    timings = {"build_s": build_s, "launch_s": time.perf_counter() - t0 - build_s}
    # under the emulated runtime the launches ran the emulator and the events advanced by the model's prediction
    sources: dict[str, TimeSource] = {"build_s": HOST_WALL, "launch_s": EMULATOR_WALL if is_emulated else HOST_WALL}
    if kernel.median is not None:  # none when the kernel trapped
        timings["kernel_s"], sources["kernel_s"] = kernel.median, PREDICTED if is_emulated else DEVICE
    trace: dict[str, Any] = {
        "npu": {
            "timing": "predicted" if is_emulated else "measured",
            "how": _how(is_emulated, n),
            "kernel_samples_s": kernel.samples,
            "soc": launch.platform,
            "cann_version": cann,
            "emulated": is_emulated,
            "builtin": builtin.note if builtin else "needs an NPU (the emulated runtime runs no built-in op)",
        },
    }
    if kernel.fault is not None:
        kind, meaning = KERNEL_FAULTS[kernel.fault]
        trace["npu"]["fault"] = {"code": kernel.fault, "kind": kind, "meaning": meaning}
    if kernel.profile is not None:
        trace["npu"]["profile"] = str(kernel.profile) + (
            " (the emulated runtime checks acl.prof's calls and collects no data)" if is_emulated else ""
        )
    if is_emulated:
        trace.update(acl.trace())
    if builtin is not None and builtin.median is not None:
        timings["builtin_kernel_s"], sources["builtin_kernel_s"] = builtin.median, DEVICE
        trace["npu"]["builtin_samples_s"] = builtin.samples
    return Execution(
        launch.outputs,
        kernel.diagnostics,
        trace,
        timings,
        kernel.exit_code,
        builtin.outputs if builtin else None,
        sources,
    )


def _how(is_emulated: bool, n: Counts) -> str:
    if is_emulated:
        return (
            "predicted: the emulated ACL runtime's event times, from the performance model applied to the emulator's "
            f"trace (median of {n.repeats} launch(es) after {n.warmup} warm-up)"
        )
    return (
        f"measured on the device: timeline events around each launch, median of {n.repeats} after {n.warmup} "
        "warm-up; the launcher's memsets are outside the intervals"
    )


def _device_library(launch: PreparedLaunch) -> tuple[Any, float, str | None]:
    """Build (or reuse) lib<kernel>.so with CANN for the launch's SoC, with dumps off for timing."""
    from ..npu.build import build, cann_home, cann_version

    home = cann_home()
    cache = cache_home() / "npu"
    t0 = time.perf_counter()
    with progress.stage(f"building {launch.entry} for {launch.platform} with CANN"):
        built = build(launch.op, launch.platform, cache / f"{launch.op}-{launch.platform}", kernel=launch)
    build_s = time.perf_counter() - t0
    library = ctypes.CDLL(str(built.library), mode=ctypes.RTLD_GLOBAL)
    return library, build_s, cann_version(home)


def _check_soc(device_soc: str, platform: str) -> None:
    if device_soc != platform:
        raise WorkbenchError(
            "platform", platform, f"the SoC of the device this process sees ({device_soc}): choose that platform"
        )


@dataclass(frozen=True)
class _Timed:
    samples: list[float]
    outputs: dict[str, np.ndarray] | None = None
    diagnostics: tuple[Any, ...] = ()
    exit_code: int = 0
    note: str = ""
    profile: Path | None = None  # the msprof folder the timed launches were collected into
    fault: int | None = None  # the runtime's code for a kernel that failed (acl_runtime.KERNEL_FAULTS)

    @property
    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None


def _run_kernel(dev: Device, fn: Any, launch: PreparedLaunch, n: Counts) -> _Timed:
    pointers = [dev.to_device(a.array) if a.role == "input" else dev.malloc(a.array.nbytes) for a in launch.args]
    workspace = dev.malloc(launch.workspace_bytes) if launch.workspace_bytes else 0
    if aclrtlaunch.tiling_in_gm(launch):  # `GM_ADDR tiling`: the struct's bytes in device memory
        tiling: Any = dev.to_device(np.frombuffer(launch.tiling, np.uint8))
    else:  # the struct by value: the stub takes a host pointer and copies it into the argument block
        tiling = ctypes.byref(aclrtlaunch.tiling_struct(launch))
    resets = [(p, a.array.nbytes, FAULT_POISON if a.fill in (None, POISON) else a.fill)
              for p, a in zip(pointers, launch.args, strict=True) if a.role == "output"]  # fmt: skip
    if workspace and launch.workspace_fill != POISON:
        resets.append((workspace, launch.workspace_bytes, launch.workspace_fill))

    def before() -> None:  # what the launcher guarantees before every launch (docs/device-readiness.md)
        for ptr, nbytes, value in resets:
            dev.memset(ptr, nbytes, value)  # on the stream: the previous launch may still be running

    def launch_once() -> None:
        ret = fn(launch.block_dim, dev.stream, *pointers, workspace, tiling)
        if ret != 0:
            raise _launch_error(dev, ret, aclrtlaunch.symbol(launch))

    extra = getattr(dev.acl, "diagnostics", lambda: ())
    profile = os.environ.get(PROFILE_ENV, "")
    try:
        with dev.profiling(profile) if profile else contextlib.nullcontext() as folder:
            samples = dev.time_launches(launch_once, before, n.warmup, n.repeats)
    except AclError as exc:
        if exc.ret not in KERNEL_FAULTS:
            raise
        return _Timed([], None, tuple(extra()) or (_kernel_fault(launch, exc),), exit_code=1, fault=exc.ret)
    for ptr, arg in zip(pointers, launch.args, strict=True):
        if arg.role == "output":
            dev.to_host(ptr, arg.array)
    return _Timed(samples, None, tuple(extra()), profile=folder)


def _launch_error(dev: Device, ret: int, name: str) -> BaseException:
    take = getattr(dev.acl, "take_error", None)
    cause = take() if take else None
    return cause if cause is not None else AclError(name, ret)


def _kernel_fault(launch: PreparedLaunch, exc: AclError) -> Diagnostic:
    return Diagnostic(
        kind=KERNEL_FAULTS[exc.ret][0],
        severity="error",
        core=-1,
        api=exc.call,
        file=str(launch.source),
        line=0,
        message=f"{exc}. The device does not say where: run the same case with --backend emu for the emulator's "
        "diagnostics (file:line, core, API)",
    )


def _run_builtin(dev: Device, launch: PreparedLaunch, n: Counts) -> _Timed | None:
    """The built-in op through aclnn on the same inputs, into its own output buffers, timed the same way."""
    call = launch.builtin
    if call is None:
        return None
    if call.unsupported:
        return _Timed([], note=f"not comparable: {call.unsupported}")
    try:
        return _time_builtin(dev, launch, call, n)
    except WorkbenchError as exc:  # the built-in's failure is a fact about CANN; the kernel's result stands
        return _Timed([], note=f"the built-in op failed: {exc}" + (f" ({call.note})" if call.note else ""))


def _time_builtin(dev: Device, launch: PreparedLaunch, call: Any, n: Counts) -> _Timed:
    from ..npu.aclnn import Builtin, DeviceTensor, load

    tensors: dict[str, DeviceTensor] = {}
    outputs: dict[str, np.ndarray] = {}
    for arg in launch.args:
        array = arg.array if arg.role == "input" else np.empty_like(arg.array)
        ptr = dev.to_device(array) if arg.role == "input" else dev.malloc(array.nbytes)
        tensors[arg.name] = DeviceTensor(ptr, canonical(str(array.dtype)), tuple(array.shape))
        if arg.role == "output":
            outputs[arg.name] = array
    library = load(library=call.library)
    with Builtin(library, call, tensors) as op:
        workspace = dev.malloc(op.workspace_bytes) if op.workspace_bytes else 0
        samples = dev.time_launches(lambda: op.launch(workspace, dev.stream), _nothing, n.warmup, n.repeats)
    for name, array in outputs.items():
        dev.to_host(tensors[name].ptr, array)
    note = f"{call.function} through aclnn from {library.describe()} ({len(samples)} timed launches)" + (
        f"; {call.note}" if call.note else ""
    )
    return _Timed(samples, outputs, note=note)


_nothing: Callable[[], None] = lambda: None  # noqa: E731  the built-in op initialises its own outputs
