"""The pyACL calls the npu backend makes, with every return code checked.

pyACL is the `acl` module inside CANN (`<cann>/python/site-packages`, on PYTHONPATH after `set_env.sh`); it is
never installed from PyPI. It is imported here, inside `acl_module()`, and nowhere else. With
`WORKBENCH_ACL=emulated` the same calls go to `acl_emulated`, the subset of `acl` this module uses implemented over
the emulator, so this code runs end to end on a CPU.

pyACL exports no constants (every sample keeps its own table) and returns either `ret` or a tuple whose last item
is `ret`. The values below are from CANN's public `acl/acl_base_rt.h` and `acl/error_codes/rt_error_codes.h`
(hicann/runtime, `include/external/acl/`). Not run on a device here: the calls and their order follow the public
pyACL samples (Ascend/samples `acl_execute_add.py`) and CANN's API reference pages cited in docs/npu.md.

The rules this module keeps, each from CANN's reference (docs/npu.md#sources):
- one `acl.init` per process, paired with one `acl.finalize` at exit (`session`): older CANN refuses a second
  init, and finalize can take up to 2 s;
- `acl.rt.memset`, `acl.rt.memcpy` and `acl.rt.free` run at once and do no stream synchronisation: device memory a
  queued launch uses is reset with `acl.rt.memset_async` on the stream, and read or freed after a synchronisation;
- `acl.prof.init` takes an absolute path.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from ...core.errors import WorkbenchError

ACL_ENV = "WORKBENCH_ACL"
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_EVENT_TIME_LINE = 0x8  # record timestamps (aclrtCreateEventWithFlag); 0x1 is ACL_EVENT_SYNC, no timing
ACL_ERROR_REPEAT_INITIALIZE = 100002

# Kernel faults: what the stream reports at the synchronisation after a kernel failed (rt_error_codes.h). The
# runtime gives AIV (vector) tasks the vector core codes (hicann/runtime davinci_kernel_task_v100.cc); each is a
# fault of the kernel, never of the launcher, with the kind its diagnostic carries.
KERNEL_FAULTS = {
    507014: ("AICORE_TIMEOUT", "AI Core timeout: the kernel did not finish (a hang: a flag, queue or barrier wait "
             "that is never released, or a loop that does not end)"),
    507015: ("AICORE_EXCEPTION", "AI Core exception: the kernel trapped (an out-of-bounds access, a misaligned "
             "address or an illegal instruction)"),
    507016: ("AICORE_TRAP", "AI Core trap exception: the kernel executed a trap (trap(), or a failed assert in a "
             "build that keeps them)"),
    507034: ("VECTOR_CORE_TIMEOUT", "vector core timeout: the kernel did not finish on an AIV core (a hang)"),
    507035: ("VECTOR_CORE_EXCEPTION", "vector core exception: the kernel trapped on an AIV core (an out-of-bounds "
             "access, a misaligned address or an illegal instruction)"),
    507036: ("VECTOR_CORE_TRAP", "vector core trap exception: the kernel executed a trap on an AIV core"),
    507042: ("AICORE_TRAP_READ_OVERFLOW", "AI Core trap: a read out of bounds"),
    507043: ("AICORE_TRAP_WRITE_OVERFLOW", "AI Core trap: a write out of bounds"),
    507044: ("VECTOR_CORE_TRAP_READ_OVERFLOW", "vector core trap: a read out of bounds"),
    507045: ("VECTOR_CORE_TRAP_WRITE_OVERFLOW", "vector core trap: a write out of bounds"),
}  # fmt: skip

ERRORS = {
    100000: "invalid parameter",
    100001: "ACL not initialised",
    100002: "ACL initialised twice",
    200000: "host memory allocation failed",
    200001: "API not supported",
    200002: "invalid device",
    500000: "ACL internal error",
    500003: "runtime failure",
    107000: "runtime parameter invalid",
    107002: "no current context",
    107003: "stream not in the current context",
    107006: "event timestamp invalid",
    107007: "event timestamp reversal",
    107008: "address not aligned",
    207001: "out of device memory",
    207004: "no device",
    100003: "invalid file (a profiling folder that cannot be created or written)",
    100037: "ACL finalised twice",
    **{code: meaning for code, (_, meaning) in KERNEL_FAULTS.items()},
}


class AclError(WorkbenchError):
    """A pyACL call returned a non-zero code."""

    def __init__(self, call: str, ret: int) -> None:
        meaning = ERRORS.get(ret, "see CANN's acl_base_rt.h / rt_error_codes.h")
        super().__init__(f"acl.{call}", ret, f"0 (ACL_SUCCESS); {ret} means {meaning}", code=ret)
        self.call, self.ret = call, ret


def emulated() -> bool:
    return os.environ.get(ACL_ENV, "") == "emulated"


def acl_module() -> ModuleType:
    """pyACL, or its emulated twin under WORKBENCH_ACL=emulated."""
    value = os.environ.get(ACL_ENV, "")
    if value == "emulated":
        from . import acl_emulated

        return acl_emulated
    if value not in ("", "device"):
        raise WorkbenchError(ACL_ENV, value, "unset or 'device' (pyACL from CANN), or 'emulated'")
    try:
        import acl
    except ImportError:
        from .build import CannNotFound

        raise CannNotFound(
            "pyACL (python module acl)",
            None,
            "the CANN toolkit installed and `source <install>/set_env.sh` run (it puts pyACL on PYTHONPATH); "
            f"pyACL is not on PyPI. Without a device: `--backend emu`, or {ACL_ENV}=emulated",
        ) from None
    return acl


def ok(result: Any, call: str) -> Any:
    """The value of a pyACL call: `ret` alone, or a tuple whose last item is `ret`."""
    ret = result[-1] if isinstance(result, tuple) else result
    if ret != 0:
        raise AclError(call, int(ret))
    if not isinstance(result, tuple):
        return None
    return result[0] if len(result) == 2 else result[:-1]


_SESSIONS: dict[int, bool] = {}  # id(acl module) -> whether this process's acl.init was ours


def session(acl: ModuleType) -> None:
    """ACL initialised once for the process: the first call runs `acl.init` and registers one `acl.finalize` at
    exit; later calls do nothing. CANN: "aclInit can be called only once in a process" and must be paired with
    aclFinalize before the process exits (acl_rt.h), and aclFinalize may wait up to 2 s for device logs. An init
    someone else made (100002: torch_npu, the user's own code) is used as it is and left for them to finalise."""
    if id(acl) in _SESSIONS:
        return
    ret = acl.init()
    if ret not in (0, ACL_ERROR_REPEAT_INITIALIZE):
        raise AclError("init", ret)
    _SESSIONS[id(acl)] = ours = ret == 0
    if ours:
        atexit.register(acl.finalize)


class Device:
    """One device, its context and stream, and every allocation made through it (freed on close).

    Use as a context manager: `with Device(acl, 0) as dev: ...`. ACL itself stays initialised for the process
    (`session`); a Device sets the device, creates a context and a stream, and releases them on close.
    """

    def __init__(self, acl: ModuleType, device_id: int = 0) -> None:
        self.acl, self.device_id = acl, device_id
        self.stream = 0
        self._context = 0
        self._allocations: list[int] = []
        self._events: list[int] = []

    def __enter__(self) -> Device:
        rt = self.acl.rt
        session(self.acl)
        try:
            ok(rt.set_device(self.device_id), "rt.set_device")
            self._context = ok(rt.create_context(self.device_id), "rt.create_context")
            self.stream = ok(rt.create_stream(), "rt.create_stream")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Wait for the stream, then free everything; errors on the way out are not raised over the one that brought
        us here (aclrtFree does not wait for the tasks that use the memory: the stream is synchronised first)."""
        rt = self.acl.rt
        if self.stream:
            rt.synchronize_stream(self.stream)
        for ev in self._events:
            rt.destroy_event(ev)
        for ptr in self._allocations:
            rt.free(ptr)
        self._events, self._allocations = [], []
        if self.stream:
            rt.destroy_stream(self.stream)
        if self._context:
            rt.destroy_context(self._context)
        rt.reset_device(self.device_id)
        self.stream = self._context = 0

    @property
    def soc(self) -> str:
        return str(self.acl.get_soc_name())

    def malloc(self, nbytes: int) -> int:
        ptr = int(ok(self.acl.rt.malloc(max(int(nbytes), 1), ACL_MEM_MALLOC_HUGE_FIRST), "rt.malloc"))
        self._allocations.append(ptr)
        return ptr

    def memset(self, ptr: int, nbytes: int, value: int) -> None:
        """Fill device memory on the stream, after everything queued before it (acl.rt.memset_async): the host
        memset runs at once and would race a launch still running on the stream."""
        ok(self.acl.rt.memset_async(ptr, nbytes, value, nbytes, self.stream), "rt.memset_async")

    def to_device(self, array: Any) -> int:
        """A device copy of a C-contiguous array (its buffer is read in place, zero copy on the host side)."""
        ptr = self.malloc(array.nbytes)
        if array.nbytes:
            ok(self.acl.rt.memcpy(ptr, array.nbytes, array.ctypes.data, array.nbytes, ACL_MEMCPY_HOST_TO_DEVICE),
               "rt.memcpy")  # fmt: skip
        return ptr

    def to_host(self, ptr: int, out: Any) -> None:
        """Copy device memory into `out` (C-contiguous, written in place); synchronise the stream first."""
        if out.nbytes:
            ok(self.acl.rt.memcpy(out.ctypes.data, out.nbytes, ptr, out.nbytes, ACL_MEMCPY_DEVICE_TO_HOST), "rt.memcpy")

    def synchronize(self) -> None:
        ok(self.acl.rt.synchronize_stream(self.stream), "rt.synchronize_stream")

    def event(self) -> int:
        ev = int(ok(self.acl.rt.create_event_with_flag(ACL_EVENT_TIME_LINE), "rt.create_event_with_flag"))
        self._events.append(ev)
        return ev

    def time_launches(
        self, launch: Callable[[], None], before: Callable[[], None], warmup: int, repeats: int
    ) -> list[float]:
        """Seconds of each of `repeats` launches after `warmup` untimed ones, each between its own pair of
        timeline events on the stream, so the `before` step (the resets it queues on the stream) is outside every
        interval. Events are read after a stream synchronisation, the order CANN's event_elapsed_time page gives
        (record, record, synchronize_stream, elapsed); a kernel fault surfaces there as its AclError. The median is
        the figure to report; the spread shows the noise."""
        rt, times = self.acl.rt, []
        pairs = [(self.event(), self.event()) for _ in range(repeats)]
        for i in range(warmup + repeats):
            before()
            if i < warmup:
                launch()
                continue
            start, end = pairs[i - warmup]
            ok(rt.record_event(start, self.stream), "rt.record_event")
            launch()
            ok(rt.record_event(end, self.stream), "rt.record_event")
        self.synchronize()
        for start, end in pairs:
            times.append(float(ok(rt.event_elapsed_time(start, end), "rt.event_elapsed_time")) / 1e3)
        return times

    @contextmanager
    def profiling(self, folder: str | Path) -> Iterator[Path]:
        """Collect msprof data (task time and AI Core pipe utilisation) around the block, through acl.prof
        (CANN `acl_prof.h`: ACL_PROF_ACL_API|TASK_TIME|AICORE_METRICS, ACL_AICORE_PIPE_UTILIZATION), into `folder`
        made absolute and created: pyACL's acl.prof.init takes "an absolute path" (a relative one is 100000)."""
        prof = getattr(self.acl, "prof", None)
        if prof is None:
            raise WorkbenchError("profile", str(folder), "a pyACL with acl.prof (CANN's profiling API)")
        path = profile_folder(folder)
        ok(prof.init(str(path)), "prof.init")
        try:
            config = prof.create_config([self.device_id], 1, 0, 0x1 | 0x2 | 0x4)
            if not config:
                raise AclError("prof.create_config", 100000)
            try:
                ok(prof.start(config), "prof.start")
                try:
                    yield path
                    self.synchronize()
                finally:
                    ok(prof.stop(config), "prof.stop")
            finally:
                prof.destroy_config(config)
        finally:
            prof.finalize()


PROF_PATH_MAX = 4096  # bytes: aclprofInit's limit on the path's length (acl_prof page)


def profile_folder(folder: str | Path) -> Path:
    """`folder` as acl.prof.init needs it: absolute (relative to the current directory), existing, under 4096 bytes;
    an error naming WORKBENCH_NPU_PROFILE when it cannot be."""
    path = Path(folder).expanduser().resolve()
    if len(str(path).encode()) >= PROF_PATH_MAX:
        raise WorkbenchError(
            "WORKBENCH_NPU_PROFILE", str(folder), f"a folder whose absolute path is under {PROF_PATH_MAX} bytes"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        what = f"a folder this process can create ({exc.strerror})"
        raise WorkbenchError("WORKBENCH_NPU_PROFILE", str(folder), what) from None
    return path
