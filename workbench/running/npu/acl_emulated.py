"""The subset of pyACL's `acl` that the npu backend calls, implemented over the emulator (WORKBENCH_ACL=emulated).

In the spirit of numba's CUDA simulator: the npu backend's own code (acl_runtime.Device, the ctypes launch through
an `aclrtlaunch_<kernel>` symbol, event timing, copies back) runs unchanged on a CPU. What it models, each rule with
its source in docs/npu.md#the-emulated-acl-runtime:

- **One ACL per process.** `init` once: a second one while initialised is 100002; one after `finalize` is refused
  (100002, older CANN's answer; the documented rule is one aclInit per process).
- **Memory.** `rt.malloc` gives real host memory, 64-byte aligned, `ALIGN_UP(n, 32) + 32` bytes like aclrtMalloc,
  not zeroed. Copies and memsets are checked against the allocations (a device range outside every allocation is
  ACL's 107000).
- **Streams are queues.** A launch or a `memset_async` is a task on its stream; it counts as running until a
  `synchronize_stream`, or a `synchronize_event` of an event recorded after it. The work is done at once (the
  emulator is eager), but a host call that touches memory a queued task still uses (`rt.memset`, `rt.memcpy`,
  `rt.free`: they run at once and do not wait for the stream) raises `HostRace`: on a device it would race the
  kernel. That is how a launcher that resets outputs with the synchronous memset between launches is caught.
- **Launch.** `kernel_library(launch)` stands in for the `lib<kernel>.so` that `ascendc_library` builds: its
  `aclrtlaunch_<entry>` is a ctypes function with the generated prototype, so arguments are marshalled as on a
  device, and it runs the kernel inside the wrapper CANN generates around it (aclrtlaunch.device_wrapper), built
  with the npu build's defines. Outputs are read from and written back to device memory. A device buffer memset to
  one byte value and not written since starts the kernel as that fill; one never written starts as the emulator's
  poison, so reads of bytes nobody wrote are still reported.
- **Faults.** A launch whose emulator run reports an error makes the stream fail at the next synchronisation with
  the code a device gives (acl_runtime.KERNEL_FAULTS): a hang is a timeout, a trap() or failed assert a trap, any
  other error an exception; AI Core codes, or vector core codes on a SoC whose vector kernels run on vector cores.
  `diagnostics()` has the emulator's findings.
- **Time.** Each stream has a clock that only launches advance, by the performance model's prediction for the
  launch's trace (perfmodel.py). Events stamp it; `event_elapsed_time` gives milliseconds. These times are
  predictions and the npu backend labels them so. Events created without ACL_EVENT_TIME_LINE carry no timestamp
  (107006), which catches timing code that passes ACL_EVENT_SYNC by mistake.
- **Profiling.** `prof` checks the call contract (an absolute path under 4096 bytes for `init`, then create_config,
  start, stop, destroy_config, finalize) and collects nothing.
- **Not modelled:** built-in ops (aclnn; the TBE column says "needs an NPU"), several devices, overlap between
  streams.
"""

from __future__ import annotations

import ctypes
import itertools
import os
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import WorkbenchError
from .acl_runtime import KERNEL_FAULTS, PROF_PATH_MAX

if TYPE_CHECKING:
    from ..launch import PreparedLaunch

SOC = "Ascend310P3"  # set by the npu backend to the case's platform before init (`configure`)
_EVENT_TIME_LINE = 0x8
_INVALID, _UNINIT, _NO_TIMESTAMP, _INTERNAL = 107000, 100001, 107006, 500000
_PARAM, _REPEAT_INIT, _REPEAT_FINALIZE = 100000, 100002, 100037


class HostRace(WorkbenchError):
    """A host call touched device memory that a task queued on a stream still uses, with no synchronisation."""


@dataclass(frozen=True)
class _Task:
    seq: int
    what: str
    bases: frozenset[int]  # the allocations it uses


@dataclass
class _Allocation:
    buffer: np.ndarray = field(repr=False)
    size: int
    fill: int | None = None  # the byte every usable byte was memset to, while nothing wrote since
    written: bool = False


@dataclass
class _State:
    initialised: bool = False
    finalized: bool = False
    device: int | None = None
    allocations: dict[int, _Allocation] = field(default_factory=dict)
    clocks: dict[int, float] = field(default_factory=dict)  # stream -> seconds of predicted device time
    events: dict[int, tuple[int, float | None, int, int]] = field(default_factory=dict)  # (flag, stamp, stream, seq)
    queued: dict[int, list[_Task]] = field(default_factory=dict)  # stream -> tasks not yet synchronised
    failed: dict[int, int] = field(default_factory=dict)  # stream -> the fault code of a kernel that failed on it
    diagnostics: tuple[Any, ...] = ()
    trace: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None
    handles: itertools.count = field(default_factory=lambda: itertools.count(0x1000))
    seq: itertools.count = field(default_factory=lambda: itertools.count(1))
    profiling: str = ""  # "", or "init" / "start" after prof.init / prof.start


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
    if _S.initialised or _S.finalized:  # one aclInit per process; older CANN refuses one after aclFinalize
        return _REPEAT_INIT
    _S.initialised = True
    return 0


def finalize() -> int:
    if _S.finalized:
        return _REPEAT_FINALIZE
    if not _S.initialised:
        return _UNINIT
    for table in (_S.allocations, _S.clocks, _S.events, _S.queued, _S.failed):
        table.clear()
    _S.initialised, _S.finalized, _S.device = False, True, None
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
    _S.clocks[stream], _S.queued[stream] = 0.0, []
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
    alloc = _S.allocations.get(ptr)
    if alloc is None:
        return _INVALID
    _host_touch("rt.free", ptr, alloc.buffer.nbytes)
    del _S.allocations[ptr]
    return 0


def _find(ptr: int, count: int) -> _Allocation | None:
    for base, alloc in _S.allocations.items():
        if base <= ptr and ptr + count <= base + alloc.buffer.nbytes:
            return alloc
    return None


def _host_touch(call: str, ptr: int, count: int) -> None:
    """Raise HostRace when [ptr, ptr + count) lies in an allocation a task queued on a stream still uses."""
    for stream, tasks in _S.queued.items():
        for task in tasks:
            for base in task.bases:
                alloc = _S.allocations.get(base)
                if alloc is not None and ptr < base + alloc.buffer.nbytes and base < ptr + count:
                    raise HostRace(
                        f"acl.{call}",
                        f"{count} bytes at {ptr:#x}, in the {alloc.size}-byte allocation at {base:#x}",
                        f"memory no queued task uses: {task.what} on stream {stream:#x} still uses it, and "
                        f"{call} runs at once without waiting for the stream (CANN's aclrtMemset/aclrtMemcpy/aclrtFree "
                        "do no stream synchronisation). On a device this races the queued work; order it on the stream "
                        "(acl.rt.memset_async) or synchronise the stream first",
                    )


def _enqueue(stream: int, what: str, bases: set[int]) -> None:
    _S.queued[stream].append(_Task(next(_S.seq), what, frozenset(bases)))


def _memset(ptr: int, max_count: int, value: int, count: int) -> int:
    alloc = _find(ptr, count)
    if alloc is None or count > max_count:
        return _INVALID
    _host_touch("rt.memset", ptr, count)
    _fill(alloc, ptr, value, count)
    return 0


def _memset_async(ptr: int, max_count: int, value: int, count: int, stream: int) -> int:
    alloc = _find(ptr, count)
    if alloc is None or count > max_count or stream not in _S.queued:
        return _INVALID
    _fill(alloc, ptr, value, count)  # in stream order: every earlier task on the stream has run (eagerly)
    _enqueue(stream, "a memset_async", {alloc.buffer.ctypes.data})
    return 0


def _fill(alloc: _Allocation, ptr: int, value: int, count: int) -> None:
    ctypes.memset(ptr, value, count)
    whole = ptr == alloc.buffer.ctypes.data and count >= alloc.size
    alloc.fill, alloc.written = (value & 0xFF, False) if whole else (None, True)


def _memcpy(dst: int, dst_max: int, src: int, count: int, kind: int) -> int:
    if count > dst_max or kind not in (1, 2, 3):
        return _INVALID
    if kind in (2, 3) and _find(src, count) is None:
        return _INVALID
    target = _find(dst, count) if kind in (1, 3) else None
    if kind in (1, 3) and target is None:
        return _INVALID
    for device_ptr in (dst if kind in (1, 3) else None, src if kind in (2, 3) else None):
        if device_ptr is not None:
            _host_touch("rt.memcpy", device_ptr, count)
    ctypes.memmove(dst, src, count)
    if target is not None:
        target.fill, target.written = None, True
    return 0


def _synchronize_stream(stream: int) -> int:
    if stream not in _S.clocks:
        return 107003
    return _complete(stream, None)


def _complete(stream: int, upto: int | None) -> int:
    """The stream's tasks up to `upto` (all: None) have finished; a kernel fault among them is the answer."""
    _S.queued[stream] = [t for t in _S.queued[stream] if upto is not None and t.seq > upto]
    return _S.failed.pop(stream, 0)  # the fault surfaces at the first synchronisation after it, as on a device


def _create_event_with_flag(flag: int) -> tuple[int, int]:
    event = next(_S.handles)
    _S.events[event] = (flag, None, 0, 0)
    return event, 0


def _record_event(event: int, stream: int) -> int:
    if event not in _S.events or stream not in _S.clocks:
        return _INVALID
    _S.events[event] = (_S.events[event][0], _S.clocks[stream], stream, next(_S.seq))
    return 0


def _synchronize_event(event: int) -> int:
    if event not in _S.events:
        return _INVALID
    _, _, stream, seq = _S.events[event]
    return _complete(stream, seq) if stream in _S.queued else 0


def _event_elapsed_time(start: int, end: int) -> tuple[float, int]:
    (f0, t0, *_), (f1, t1, *_) = _S.events.get(start, (0, None)), _S.events.get(end, (0, None))
    if not (f0 & f1 & _EVENT_TIME_LINE) or t0 is None or t1 is None:
        return 0.0, _NO_TIMESTAMP
    if t1 < t0:
        return 0.0, 107007
    return (t1 - t0) * 1e3, 0


def _destroy(table: str) -> Any:
    return lambda handle: 0 if getattr(_S, table).pop(handle, None) is not None else _INVALID


def _destroy_stream(stream: int) -> int:
    _S.queued.pop(stream, None)
    return 0 if _S.clocks.pop(stream, None) is not None else _INVALID


def _reset_device(device_id: int) -> int:
    _S.device = None
    return 0


rt = SimpleNamespace(
    set_device=_set_device,
    create_context=_create_context,
    destroy_context=lambda context: 0,
    create_stream=_create_stream,
    destroy_stream=_destroy_stream,
    malloc=_malloc,
    free=_free,
    memset=_memset,
    memset_async=_memset_async,
    memcpy=_memcpy,
    synchronize_stream=_synchronize_stream,
    create_event_with_flag=_create_event_with_flag,
    record_event=_record_event,
    synchronize_event=_synchronize_event,
    event_elapsed_time=_event_elapsed_time,
    destroy_event=_destroy("events"),
    reset_device=_reset_device,
)


# ------------------------------------------------------------------------------------------------ acl.prof.*
def _prof_init(path: Any) -> int:
    if not _S.initialised:
        return _UNINIT
    if _S.profiling:
        return _REPEAT_INIT
    if not isinstance(path, str) or not 0 < len(path.encode()) < PROF_PATH_MAX or not os.path.isabs(path):
        return _PARAM  # pyACL's acl.prof.init: "this path is an absolute path"
    _S.profiling = "init"
    return 0


def _prof_step(before: str, after: str) -> Any:
    def step(*args: Any) -> int:
        if _S.profiling != before:
            return _PARAM
        _S.profiling = after
        return 0

    return step


def _prof_create_config(device_ids: Any, metrics: int, events: Any, data_types: int) -> int:
    return next(_S.handles) if _S.profiling == "init" and list(device_ids) == [_S.device] else 0


prof = SimpleNamespace(
    init=_prof_init,
    create_config=_prof_create_config,
    start=_prof_step("init", "start"),
    stop=_prof_step("start", "init"),
    destroy_config=lambda config: 0,
    finalize=_prof_step("init", ""),
)


# ------------------------------------------------------------------------------------------------ the kernel .so
def kernel_library(launch: PreparedLaunch) -> SimpleNamespace:
    """What `ctypes.CDLL("lib<kernel>.so")` gives on a device: one `aclrtlaunch_<entry>` function pointer with
    the generated prototype (aclrtlaunch.prototype), here running `launch`'s kernel on the emulator inside the
    wrapper CANN generates around it, built with the npu build's defines."""
    from .aclrtlaunch import prototype, tiling_in_gm

    restype, argtypes = prototype(launch)
    in_gm = tiling_in_gm(launch)
    on_device = as_built_for_the_device(launch)

    def aclrtlaunch(block_dim: int, stream: int | None, *pointers: Any) -> int:
        try:
            if in_gm and _find(pointers[-1] or 0, len(launch.tiling)) is None:
                return _INVALID  # a GM tiling pointer must be device memory
            return _launch(on_device, block_dim, stream or 0, pointers[:-1], pointers[-1], len(launch.tiling))
        except BaseException as exc:  # a ctypes callback cannot raise: keep it for the caller
            _S.error = exc
            return _INTERNAL

    fn = ctypes.CFUNCTYPE(restype, *argtypes)(aclrtlaunch)
    return SimpleNamespace(**{f"aclrtlaunch_{launch.entry}": fn, "_keep": aclrtlaunch})


def as_built_for_the_device(launch: PreparedLaunch) -> PreparedLaunch:
    """`launch` as `workbench build --target npu` compiles it: the generated wrapper as the entry (its file in the
    emulator's cache, named by its text), the kernel's folder on the include path, the npu build's defines."""
    import hashlib

    from ..emu.cache import cache_root, ensure_file
    from .aclrtlaunch import device_wrapper, launch_params
    from .build import device_defines

    entry, text = device_wrapper(launch.source, launch.entry, launch_params(launch))
    path = cache_root() / "npu-wrappers" / f"{entry}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.cpp"
    ensure_file(path, text)
    return replace(
        launch,
        source=path,
        entry=entry,
        defines={**launch.defines, **device_defines(launch)},
        include_dirs=(*launch.include_dirs, launch.source.parent),
    )


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
    from ...core.platform import get_platform
    from ...judge.perfmodel import predict
    from ...planning.pipeline import MAX_BLOCK_DIM
    from ..backends import emu
    from ..launch import POISON

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
    used = {alloc.buffer.ctypes.data for alloc, _ in views} | ({ws.buffer.ctypes.data} if ws is not None else set())
    tiling_alloc = _find(tiling, size) if isinstance(tiling, int) else None  # GM_ADDR tiling: device memory
    if tiling_alloc is not None:
        used.add(tiling_alloc.buffer.ctypes.data)
    _enqueue(stream, f"the launch of {launch.entry}", used)
    platform = get_platform(launch.platform)
    if ex.exit_code != 0 or any(getattr(d, "is_fault", False) for d in ex.diagnostics):
        _S.failed.setdefault(stream, fault_code(ex.diagnostics, vector_cores=not platform.traits.coupled))
    _S.clocks[stream] += predict(ex.trace, platform).kernel_s
    return 0


_HANGS, _TRAPS = frozenset({"DEADLOCK", "TIMEOUT", "EVENT_WAIT_WITHOUT_SET"}), frozenset({"KERNEL_ABORT"})
_CODES = {kind: code for code, (kind, _) in KERNEL_FAULTS.items()}


def fault_code(diagnostics: Any, vector_cores: bool) -> int:
    """The code a device reports for a failed kernel (acl_runtime.KERNEL_FAULTS): a hang is a timeout, a trap() or
    failed assert a trap, anything else an exception. Vector kernels on a split SoC (A2: AIV cores) get the vector
    core codes, the runtime's choice for AIV tasks (hicann/runtime davinci_kernel_task_v100.cc)."""
    kinds = {getattr(d, "kind", "") for d in diagnostics if getattr(d, "is_fault", False)}
    what = "TIMEOUT" if kinds & _HANGS else "TRAP" if kinds & _TRAPS else "EXCEPTION"
    return _CODES[f"{'VECTOR_CORE' if vector_cores else 'AICORE'}_{what}"]
