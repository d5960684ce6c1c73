"""The subset of pyACL's `acl` that the npu backend calls, implemented over the emulator (WORKBENCH_ACL=emulated).

In the spirit of numba's CUDA simulator: the npu backend's own code (acl_runtime.Device, the ctypes launch through
an `aclrtlaunch_<kernel>` symbol, event timing, copies back) runs unchanged on a CPU. What it models:

- **Memory.** `rt.malloc` gives real host memory, 64-byte aligned, `ALIGN_UP(n, 32) + 32` bytes like aclrtMalloc,
  not zeroed. Copies and memsets are checked against the allocations (a device range outside every allocation is
  ACL's 107000), then done at once.
- **Launch.** `kernel_library(launch)` stands in for the `lib<kernel>.so` that `ascendc_library` builds: its
  `aclrtlaunch_<entry>` is a ctypes function with the generated prototype, so arguments are marshalled as on a
  device. Each call runs the kernel on the emulator with the arguments read from device memory, and writes the
  outputs back. A device buffer memset to one byte value and not written since starts the kernel as that fill;
  one never written starts as the emulator's poison, so reads of bytes nobody wrote are still reported.
- **Faults.** A launch whose emulator run reports an error diagnostic makes the stream fail at the next
  synchronize with 507015 (AI Core exception), as a trapped kernel does on a device. `diagnostics()` has them.
- **Time.** Each stream has a clock that only launches advance, by the performance model's prediction for the
  launch's trace (perfmodel.py). Events stamp it; `event_elapsed_time` gives milliseconds. These times are
  predictions and the npu backend labels them so. Events created without ACL_EVENT_TIME_LINE carry no timestamp
  (107006), which catches timing code that passes ACL_EVENT_SYNC by mistake.
- **Not modelled:** built-in ops (aclnn; the TBE column says "needs an NPU"), acl.prof, several devices, async
  overlap between streams.
"""

from __future__ import annotations

import ctypes
import itertools
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..launch import PreparedLaunch

SOC = "Ascend310P3"  # set by the npu backend to the case's platform before init (`configure`)
_EVENT_TIME_LINE = 0x8
_INVALID, _UNINIT, _NO_TIMESTAMP, _AICORE_EXCEPTION, _INTERNAL = 107000, 100001, 107006, 507015, 500000


@dataclass
class _Allocation:
    buffer: np.ndarray = field(repr=False)
    size: int
    fill: int | None = None  # the byte every usable byte was memset to, while nothing wrote since
    written: bool = False


@dataclass
class _State:
    initialised: bool = False
    device: int | None = None
    allocations: dict[int, _Allocation] = field(default_factory=dict)
    clocks: dict[int, float] = field(default_factory=dict)  # stream -> seconds of predicted device time
    events: dict[int, tuple[int, float | None, int]] = field(default_factory=dict)  # event -> (flag, stamp, stream)
    failed: set[int] = field(default_factory=set)  # streams with a trapped kernel
    diagnostics: tuple[Any, ...] = ()
    trace: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None
    handles: itertools.count = field(default_factory=lambda: itertools.count(0x1000))


_S = _State()


def configure(soc: str) -> None:
    global SOC
    SOC = soc


def diagnostics() -> tuple[Any, ...]:
    """The emulator's diagnostics of the last launch."""
    return _S.diagnostics


def trace() -> dict[str, Any]:
    """The emulator's trace of the last launch."""
    return _S.trace


def take_error() -> BaseException | None:
    """The exception a launch could not turn into an ACL code (a build error, say), once."""
    err, _S.error = _S.error, None
    return err


# ------------------------------------------------------------------------------------------------ acl.*
def init(config: str | None = None) -> int:
    if _S.initialised:
        return 100002
    _S.initialised = True
    return 0


def finalize() -> int:
    if not _S.initialised:
        return _UNINIT
    for table in (_S.allocations, _S.clocks, _S.events):
        table.clear()  # in place: rt's destroy functions hold these very tables
    _S.failed.clear()
    _S.initialised, _S.device = False, None
    return 0


def get_soc_name() -> str:
    return SOC


# ------------------------------------------------------------------------------------------------ acl.rt.*
def _set_device(device_id: int) -> int:
    if not _S.initialised:
        return _UNINIT
    if device_id != 0:
        return 107001 if device_id < 0 else 207004
    _S.device = device_id
    return 0


def _create_context(device_id: int) -> tuple[int, int]:
    return (next(_S.handles), 0) if _S.device == device_id else (0, 107002)


def _create_stream() -> tuple[int, int]:
    if _S.device is None:
        return 0, 107002
    stream = next(_S.handles)
    _S.clocks[stream] = 0.0
    return stream, 0


def _malloc(size: int, policy: int) -> tuple[int, int]:
    if _S.device is None:
        return 0, 107002
    if size <= 0:
        return 0, _INVALID
    total = -(-size // 32) * 32 + 32
    raw = np.empty(total + 64, np.uint8)
    offset = -raw.ctypes.data % 64
    buffer = raw[offset : offset + total]
    buffer.fill(0xA5)  # aclrtMalloc does not zero: stale bytes, never a convenient zero
    _S.allocations[buffer.ctypes.data] = _Allocation(buffer, size)
    return buffer.ctypes.data, 0


def _free(ptr: int) -> int:
    return 0 if _S.allocations.pop(ptr, None) is not None else _INVALID


def _find(ptr: int, count: int) -> _Allocation | None:
    for base, alloc in _S.allocations.items():
        if base <= ptr and ptr + count <= base + alloc.buffer.nbytes:
            return alloc
    return None


def _memset(ptr: int, max_count: int, value: int, count: int) -> int:
    alloc = _find(ptr, count)
    if alloc is None or count > max_count:
        return _INVALID
    ctypes.memset(ptr, value, count)
    whole = ptr == alloc.buffer.ctypes.data and count >= alloc.size
    alloc.fill, alloc.written = (value & 0xFF, False) if whole else (None, True)
    return 0


def _memcpy(dst: int, dst_max: int, src: int, count: int, kind: int) -> int:
    if count > dst_max or kind not in (1, 2, 3):
        return _INVALID
    if kind in (2, 3) and _find(src, count) is None:
        return _INVALID
    target = _find(dst, count) if kind in (1, 3) else None
    if kind in (1, 3) and target is None:
        return _INVALID
    ctypes.memmove(dst, src, count)
    if target is not None:
        target.fill, target.written = None, True
    return 0


def _synchronize_stream(stream: int) -> int:
    if stream not in _S.clocks:
        return 107003
    if stream in _S.failed:
        _S.failed.discard(stream)
        return _AICORE_EXCEPTION
    return 0


def _create_event_with_flag(flag: int) -> tuple[int, int]:
    event = next(_S.handles)
    _S.events[event] = (flag, None, 0)
    return event, 0


def _record_event(event: int, stream: int) -> int:
    if event not in _S.events or stream not in _S.clocks:
        return _INVALID
    _S.events[event] = (_S.events[event][0], _S.clocks[stream], stream)
    return 0


def _synchronize_event(event: int) -> int:
    if event not in _S.events:
        return _INVALID
    stream = _S.events[event][2]
    if stream in _S.failed:  # the trap surfaces at the first synchronisation after it, as on a device
        _S.failed.discard(stream)
        return _AICORE_EXCEPTION
    return 0


def _event_elapsed_time(start: int, end: int) -> tuple[float, int]:
    (f0, t0, _), (f1, t1, _) = _S.events.get(start, (0, None, 0)), _S.events.get(end, (0, None, 0))
    if not (f0 & f1 & _EVENT_TIME_LINE) or t0 is None or t1 is None:
        return 0.0, _NO_TIMESTAMP
    if t1 < t0:
        return 0.0, 107007
    return (t1 - t0) * 1e3, 0


def _destroy(table: dict[int, Any]) -> Any:
    return lambda handle: 0 if table.pop(handle, None) is not None else _INVALID


def _reset_device(device_id: int) -> int:
    _S.device = None
    return 0


rt = SimpleNamespace(
    set_device=_set_device,
    create_context=_create_context,
    destroy_context=lambda context: 0,
    create_stream=_create_stream,
    destroy_stream=_destroy(_S.clocks),
    malloc=_malloc,
    free=_free,
    memset=_memset,
    memcpy=_memcpy,
    synchronize_stream=_synchronize_stream,
    create_event_with_flag=_create_event_with_flag,
    record_event=_record_event,
    synchronize_event=_synchronize_event,
    event_elapsed_time=_event_elapsed_time,
    destroy_event=_destroy(_S.events),
    reset_device=_reset_device,
)


# ------------------------------------------------------------------------------------------------ the kernel .so
def kernel_library(launch: PreparedLaunch) -> SimpleNamespace:
    """What `ctypes.CDLL("lib<kernel>.so")` gives on a device: one `aclrtlaunch_<entry>` function pointer with
    the generated prototype (aclrtlaunch.prototype), here running `launch`'s kernel on the emulator."""
    from .aclrtlaunch import prototype, tiling_in_gm

    restype, argtypes = prototype(launch)
    in_gm = tiling_in_gm(launch)

    def aclrtlaunch(block_dim: int, stream: int | None, *pointers: Any) -> int:
        try:
            if in_gm and _find(pointers[-1] or 0, len(launch.tiling)) is None:
                return _INVALID  # a GM tiling pointer must be device memory
            return _launch(launch, block_dim, stream or 0, pointers[:-1], pointers[-1], len(launch.tiling))
        except BaseException as exc:  # a ctypes callback cannot raise: keep it for the caller
            _S.error = exc
            return _INTERNAL

    fn = ctypes.CFUNCTYPE(restype, *argtypes)(aclrtlaunch)
    return SimpleNamespace(**{f"aclrtlaunch_{launch.entry}": fn, "_keep": aclrtlaunch})


def _device_view(ptr: int | None, nbytes: int) -> _Allocation:
    alloc = _find(ptr or 0, nbytes)
    if alloc is None:
        raise _LaunchRefused
    return alloc


class _LaunchRefused(Exception):
    pass


def _launch(
    launch: PreparedLaunch, block_dim: int, stream: int, pointers: tuple[Any, ...], tiling: Any, size: int
) -> int:
    from ..backends import emu
    from ..launch import POISON
    from ..perfmodel import predict
    from ..pipeline import MAX_BLOCK_DIM
    from ..platform import get_platform

    if stream not in _S.clocks or not 0 < block_dim <= MAX_BLOCK_DIM:
        return _INVALID
    tensor_ptrs, workspace_ptr = pointers[: len(launch.args)], pointers[len(launch.args)]
    try:
        args, views = [], []
        for arg, ptr in zip(launch.args, tensor_ptrs, strict=True):
            alloc = _device_view(ptr, arg.array.nbytes)
            offset = (ptr or 0) - alloc.buffer.ctypes.data
            device = alloc.buffer[offset : offset + arg.array.nbytes].view(arg.array.dtype).reshape(arg.array.shape)
            fill = (
                alloc.fill if not alloc.written and alloc.fill is not None else (POISON if not alloc.written else None)
            )
            host = np.array(device) if arg.role == "input" else np.empty_like(arg.array)
            if arg.role == "output" and fill is None:
                np.copyto(host, device)  # written before the launch: the kernel sees those bytes
            args.append(replace(arg, array=host, fill=fill if arg.role == "output" else None))
            views.append((alloc, device))
        ws = _device_view(workspace_ptr, launch.workspace_bytes) if launch.workspace_bytes else None
    except _LaunchRefused:
        return _INVALID
    ws_fill = ws.fill if ws is not None and not ws.written and ws.fill is not None else POISON
    run = replace(
        launch,
        args=tuple(args),
        tiling=ctypes.string_at(tiling, size),
        block_dim=block_dim,
        workspace_fill=ws_fill,
    )
    ex = emu.execute(run)
    for arg, (alloc, device) in zip(run.args, views, strict=True):
        if arg.role == "output":
            np.copyto(device, arg.array)
            alloc.fill, alloc.written = None, True
    _S.diagnostics, _S.trace = tuple(ex.diagnostics), dict(ex.trace)
    if ex.exit_code != 0 or any(getattr(d, "is_fault", False) for d in ex.diagnostics):
        _S.failed.add(stream)
    _S.clocks[stream] += predict(ex.trace, get_platform(launch.platform)).kernel_s
    return 0
