"""Run one launch of a built kernel in a child process and read back its outputs and report.

The child is the only place kernel code runs: a crash, a hang or an abort ends the child, never the
caller (or a Jupyter kernel). The child is a reused worker process when it can be (worker.py), else one
process per launch. An exception while the caller waits (KeyboardInterrupt: Ctrl-C, a Jupyter interrupt)
kills the child before it propagates, and no child outlives the interpreter. Arrays travel through files in a
private, reused directory on tmpfs when one exists (/dev/shm) that the child maps as its GM: one memory copy in
(pwrite), none in the child, one copy out (pread straight into the caller's array).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...core._files import os_error
from ...core.errors import InfrastructureError, InvalidInput
from ...planning.pipeline import MAX_BLOCK_DIM
from ..events import MAX_EVENTS, KernelEvents, read_events
from ..launch import POISON, Diagnostic, poison
from . import worker
from .scratch import SCRATCH_FIX, Scratch, acquire, gm_file_size, read_all, release, write_all

DIAG_PREFIX = "ASCEMU_DIAG "
MAX_TIMEOUT_S = 7 * 24 * 3600.0
# A scratch filesystem with less room than this when the child left no report is taken to be full (the report and
# the done file are what is left to write once the GM files are reserved), never for a kernel that ended the process.
_SCRATCH_LOW_BYTES = 1 << 20


def _integer(lo: int, hi: int) -> tuple[Any, str]:
    def ok(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and lo <= int(v) <= hi

    return ok, f"an integer in [{lo}, {hi}]"


def _one_of(*names: str) -> tuple[Any, str]:
    return (lambda v: isinstance(v, str) and v in names), " or ".join(repr(n) for n in names)


def _boolean() -> tuple[Any, str]:
    return (lambda v: isinstance(v, (bool, np.bool_))), "True or False"


def _mode() -> tuple[Any, str]:
    def ok(v: Any) -> bool:
        if not isinstance(v, str):
            return False
        name, sep, seed = v.partition(":")
        if name in ("serial", "parallel", "ordered") and not sep:
            return True
        return name == "interleave" and (not sep or (seed.isdigit() and int(seed) < 1 << 64))

    return ok, "'serial', 'parallel', 'ordered', 'interleave' or 'interleave:SEED' (SEED an integer >= 0)"


# The launch keys a caller may set (kernels/emu/README.md "Other top-level keys", docs/emulator.md "Launch options"),
# with the values the emulator reads correctly: it parses numbers as doubles and ignores a key of the wrong JSON type,
# so an unchecked value would silently become the default.
LAUNCH_OPTIONS: dict[str, tuple[Any, str]] = {
    "mode": _mode(),
    "strict": _boolean(),
    "threads": _integer(1, 1 << 16),
    "seed": _integer(0, 1 << 53),
    "core_count": _integer(1, MAX_BLOCK_DIM),
    "poll_yield": _integer(2, (1 << 31) - 1),
    "gm_alloc": _one_of("acl", "exact"),
    "ub_poison": _integer(0, 255),
    "ub_reserved": _integer(0, (1 << 32) - 1),
    "api_budget": _integer(1, 1 << 53),
    "overflow_mode": _one_of("saturation", "inf_nan"),
    "pipe_check": _one_of("on", "strict", "off"),
    "dcache": _one_of("model", "off"),
    "diag_stderr": _boolean(),
    "trace": _boolean(),  # record the event log (docs/emulator.md#event-log): LaunchOutcome.events
    "max_events": _integer(1, MAX_EVENTS),  # with trace: the log's cap (wb.run sets it from the memory budget)
}


def check_launch_options(options: dict[str, Any]) -> dict[str, Any]:
    """The launch keys in `options`, each checked; an unknown key is refused (a typo would be silently ignored)."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in LAUNCH_OPTIONS:
            raise InvalidInput(
                "launch option", key, f"one of {', '.join(LAUNCH_OPTIONS)} (docs/emulator.md, Launch options)"
            )
        ok, allowed = LAUNCH_OPTIONS[key]
        if not ok(value):
            raise InvalidInput(key, value, allowed)
        out[key] = value.item() if isinstance(value, np.generic) else value
    return out


# The watchdog's default, scaled with the launch (docs/emulator.md, Timeouts): a base that covers start-up and any
# small launch, plus the launch's GM bytes at a rate well below the emulator's slowest common case (a loop of
# GetValue/SetValue per element moves about 9 MiB/s here; a vector kernel with 1 KiB tiles about 150 MiB/s), plus a
# term per block (each core's start: a poisoned UB arena, a thread).
TIMEOUT_BASE_S = 20.0
TIMEOUT_GM_BYTES_PER_S = float(1 << 20)
TIMEOUT_PER_BLOCK_S = 0.01


def default_timeout_s(gm_bytes: int, block_dim: int) -> float:
    """The seconds a launch of `block_dim` blocks over `gm_bytes` bytes of GM gets when the caller names none."""
    return min(MAX_TIMEOUT_S, TIMEOUT_BASE_S + gm_bytes / TIMEOUT_GM_BYTES_PER_S + block_dim * TIMEOUT_PER_BLOCK_S)


def _gm_bytes(a: Arg | ListArg | bytes) -> int:
    """The GM a launch argument occupies: an array's bytes, a list's words and its tensors, a parameter's bytes."""
    if isinstance(a, Arg):
        return int(a.array.nbytes)
    if isinstance(a, ListArg):
        return int(a.header().nbytes) + sum(int(m.array.nbytes) for m in a.members)
    return len(a)


def check_timeout(timeout_s: Any) -> float:
    """The launch watchdog: a finite number of seconds > 0 (NaN, inf or a string would reach the child's JSON)."""
    number = isinstance(timeout_s, (int, float, np.integer, np.floating)) and not isinstance(
        timeout_s, (bool, np.bool_)
    )
    if not number or not 0 < float(timeout_s) <= MAX_TIMEOUT_S:  # NaN fails the comparison too
        raise InvalidInput(
            "timeout_s",
            timeout_s,
            f"a number of seconds > 0 and <= {MAX_TIMEOUT_S:.0f} (7 days), or None (scaled to the launch)",
        )
    return float(timeout_s)


@dataclass(frozen=True)
class Arg:
    """One GM buffer of a launch. `fill` None copies `array` in; POISON leaves the emulator's poison
    (so reads of never-written bytes are reported); another int fills every byte with that value."""

    array: np.ndarray
    role: str  # input | output | inout | workspace
    fill: int | None = None

    @property
    def writes_back(self) -> bool:
        return self.role in ("output", "inout") and self.array.flags.writeable


@dataclass(frozen=True)
class ListArg:
    """Tensors a kernel receives through one GM_ADDR as a list in CANN's ListTensorDesc layout (made by emu.TensorList).

    The parameter's GM buffer holds 64-bit words: [0] the byte offset of the pointer array; then one descriptor per
    tensor, (dim | index << 32) and its dim shape words, or, for a list of pointers only, the single descriptor
    (0 | count << 32, 0xffffffff); then one data pointer per tensor. Each tensor is a GM buffer of its own: the
    emulator maps it and writes its address into the pointer array (launch key "links", kernels/emu/README.md), so
    the kernel's accesses through a pointer are judged against that tensor's buffer. The layout is the one
    AscendC::ListTensorDesc decodes (asc-devkit impl/basic_api/*/kernel_operator_list_tensor_impl.h, ListTensorDecode;
    Ascend C API reference "ListTensorDesc": hiascend.com/document/detail/zh/canncommercial/800/apiref/ascendcopapi/
    atlasascendc_api_07_0009.html)."""

    members: tuple[Arg, ...]
    shapes: bool = True

    def header(self) -> np.ndarray:
        """The list's words, every data pointer 0 (the emulator writes the addresses)."""
        n = len(self.members)
        if not self.shapes:
            return np.array([24, n << 32, 0xFFFFFFFF, *[0] * n], np.uint64)
        words: list[int] = []
        for index, m in enumerate(self.members):
            words += [m.array.ndim | index << 32, *m.array.shape]
        return np.array([8 + 8 * len(words), *words, *[0] * n], np.uint64)


@dataclass(frozen=True)
class LaunchOutcome:
    exit_code: int
    diagnostics: tuple[Diagnostic, ...]
    trace: dict[str, Any]
    wall_s: float  # the child's part: a worker's launch request to its end, or a one-shot process end to end
    kernel_s: float  # what the emulator reports for the launch itself
    stderr: str
    total_s: float = 0.0  # run_launch end to end: arrays into the scratch files, the child, outputs back
    printf: tuple[tuple[int, str], ...] = ()  # (core, text) the kernel printed (AscendC::printf / PRINTF), by core
    events: KernelEvents | None = None  # the event log, with options trace=True (docs/emulator.md#event-log)
    events_missing: str = ""  # with trace=True and no log (a fatal launch that could not write one): why


def run_launch(
    binary: Path,
    platform: str,
    soc: str,
    block_dim: int,
    args: Sequence[Arg | ListArg | bytes],
    tiling_key: int = 0,
    timeout_s: float | None = None,
    options: dict[str, Any] | None = None,
) -> LaunchOutcome:
    """One launch; `args` holds one entry per parameter the kernel declares, in order: a GM buffer (Arg) or a list of
    them (ListArg) for a pointer, else the parameter's bytes (a struct's, a scalar's, or a tiling struct the driver
    puts in GM).

    Every array the launch writes back ends as the kernel left its device memory, or, when the child did not finish
    the launch (KERNEL_EXIT, or a kill before the outputs were settled), filled with the poison byte 0xFF: an output
    that was never written back never looks like a result. A launch the driver refused before the kernel ran
    (HARNESS) leaves them as they were. A scratch folder the machine refuses (full, read-only, missing) is an
    InfrastructureError, never a kernel verdict. `timeout_s` None: default_timeout_s of the launch's GM."""
    if timeout_s is None:
        timeout_s = default_timeout_s(sum(map(_gm_bytes, args)), block_dim)
    t0 = time.perf_counter()
    sc = acquire()
    try:
        d = sc.dir
        report_path, done_path, events_path = d / "report.json", d / "done", d / "events.bin"
        options = dict(options or {})
        trace = bool(options.pop("trace", False))
        settings = {
            "platform": platform,
            "soc": soc,
            "block_dim": int(block_dim),
            "tiling_key": int(tiling_key),
            "mode": "serial",
            "seed": 0,
            "strict": False,
            "timeout_s": float(timeout_s),
            **options,
            "report_path": str(report_path),
            "done_file": str(done_path),
            "exit_note": True,
            **({"events_path": str(events_path)} if trace else {}),
        }
        try:
            gm_args, fds = _stage(sc, args, settings)
        except OSError as exc:
            raise os_error("emulator scratch folder", d, exc, SCRATCH_FIX) from exc
        t0 = time.perf_counter()
        code, stderr = _run_child(binary, d / "launch.json", timeout_s + 15)
        wall = time.perf_counter() - t0
        report = _read_report(report_path)
        finished = done_path.exists()
        diags = [Diagnostic.from_json(x) for x in report.get("diagnostics", [])]
        diags += _stderr_diagnostics(stderr, known=diags)
        if code < 0:  # killed by a signal the emulator could not catch
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            diags.append(Diagnostic("CRASH", "fatal", -1, "", "", 0, f"kernel process killed by {name}"))
        exit_code = int(report.get("exit_code", code if code >= 0 else 4))
        if not (finished and report) and not any(x.severity == "fatal" for x in diags):
            _check_room(d)
            diags.append(_kernel_exit(code, finished, bool(report)))
            exit_code = 2  # a fatal record: the outputs are not a result
        refused = any(x.kind == "HARNESS" for x in diags)  # the launch never started: nothing was written
        exited = any(x.kind == "KERNEL_EXIT" for x in diags)  # also when the emulator recorded it and settled GM
        for a, fd in zip(gm_args, fds, strict=True):
            if not a.writes_back:
                continue
            if finished and not exited:  # the child settled its outputs (also after a fault)
                read_all(fd, a.array)  # in place, like device memory
            elif exited or not refused:  # ended mid-launch: no result, whatever the memory holds
                poison(a.array)
        return LaunchOutcome(
            exit_code,
            tuple(diags),
            dict(report.get("trace") or {}),
            wall,
            float(report.get("wall_time_s", wall)),
            stderr,
            time.perf_counter() - t0,
            tuple((int(p.get("core", -1)), str(p.get("text", ""))) for p in report.get("printf") or []),
            *(_events(events_path, exit_code, report) if trace else (None, "")),
        )
    finally:
        release(sc)


def _stage(sc: Scratch, args: Sequence[Arg | ListArg | bytes], settings: dict[str, Any]) -> tuple[list[Arg], list[int]]:
    """Write the launch's files into the scratch directory: the GM buffers, the bytes arguments and launch.json
    (`settings` and the GM entries)."""
    d = sc.dir
    # left by the previous launch in this directory
    for stale in (settings["report_path"], settings["done_file"], d / "events.bin"):
        Path(stale).unlink(missing_ok=True)
    entries: list[dict[str, Any]] = []
    gm_args: list[Arg] = []
    fds: list[int] = []

    def gm_entry(a: Arg) -> dict[str, Any]:
        nbytes = int(a.array.nbytes)
        fd, path = sc.gm(len(fds), gm_file_size(nbytes))
        gm_args.append(a)
        fds.append(fd)
        entry: dict[str, Any] = {"kind": "gm", "bytes": nbytes, "role": a.role, "gm_file": path}
        if a.fill is None:
            write_all(fd, a.array)
            entry["preloaded"] = True
            entry["gm_map"] = "shared" if a.writes_back else "private"
        else:
            entry["gm_map"] = "shared"
            if a.fill != POISON:
                entry["fill"] = int(a.fill)
        return entry

    for i, a in enumerate(args):
        if isinstance(a, bytes):
            (d / f"arg{i}.bin").write_bytes(a)
            entries.append({"kind": "bytes", "in_file": str(d / f"arg{i}.bin")})
        elif isinstance(a, ListArg):
            header = a.header()
            entry = gm_entry(Arg(header, "input"))
            first_pointer = int(header[0])  # the byte offset of the pointer array
            links = [{**gm_entry(m), "at": first_pointer + 8 * k} for k, m in enumerate(a.members)]
            entries.append({**entry, "links": links})
        else:
            entries.append(gm_entry(a))
    sc.trim(len(fds))  # slots a previous, longer launch used
    (d / "launch.json").write_text(json.dumps({**settings, "args": entries}, allow_nan=False))
    return gm_args, fds


def _events(path: Path, exit_code: int, report: dict[str, Any]) -> tuple[KernelEvents | None, str]:
    """The event log the child wrote, or None and why there is none. A launch that ended in a fatal record (exit code
    >= 2) writes its log up to the fault when the emulator can stop every core first, else the report says why not;
    one that finished and left none was refused the file by the machine: no log is ever silently missing."""
    if path.exists():
        events = read_events(path)
        path.unlink(missing_ok=True)  # on tmpfs it is memory: the records live on in `events`, read into the caller
        return events, ""
    if exit_code >= 2:
        skipped = str(report.get("events_skipped") or "")
        if skipped:
            return None, f"the launch ended in a fatal record and wrote no event log: {skipped}"
        if not report:  # killed, or refused before it ran, without a report: no log either
            return None, "the launch ended in a fatal record before the emulator could write its event log"
        return None, (
            "the launch ended in a fatal record and wrote no event log (the driver refused the launch before the "
            "kernel ran, or the crash handler ran out of time before the log was out)"
        )
    _check_room(path.parent)
    raise InfrastructureError("emulator scratch folder", path.parent, "the event log was not written", SCRATCH_FIX)


def _check_room(scratch_dir: Path) -> None:
    """A child that left no report on a scratch filesystem with (almost) no room left may have failed to write it:
    that is the machine's fault, not the kernel's, and no verdict can be given."""
    try:
        st = os.statvfs(scratch_dir)
    except OSError:
        return
    free = st.f_bavail * st.f_frsize
    if free < _SCRATCH_LOW_BYTES:
        raise InfrastructureError(
            "emulator scratch folder",
            scratch_dir,
            f"full ({free} bytes free): the emulator could not write its report",
            SCRATCH_FIX,
        )


def _kernel_exit(code: int, finished: bool, reported: bool) -> Diagnostic:
    """The record of a child that ended without finishing the launch and did not say why (no fatal record)."""
    missing = " and ".join(w for w, ok in (("the report", reported), ("the outputs", finished)) if not ok)
    return Diagnostic(
        "KERNEL_EXIT",
        "fatal",
        -1,
        "",
        "",
        0,
        f"the kernel process ended before the launch finished (exit status {code}, {missing} never written): "
        "exit()/_exit() in kernel code, or the process was ended from outside",
        details={"exit_status": code, "report_written": reported, "outputs_settled": finished},
    )


# ------------------------------------------------------------------------------------------------ the child
def _run_child(binary: Path, launch_file: Path, timeout_s: float) -> tuple[int, str]:
    w = worker.take(binary) if worker.enabled() else None
    if w is None:
        return _spawn([str(binary), "--launch", str(launch_file)], timeout_s)
    try:
        return w.launch(launch_file, timeout_s)
    finally:
        worker.give_back(w)


_exiting_lock = threading.Lock()
_exiting: list[subprocess.Popen[bytes]] = []  # children that reported their exit code and are still tearing down


def _reap(block: bool = False) -> None:
    with _exiting_lock:
        pending = list(_exiting)
        _exiting.clear()
    alive = []
    for proc in pending:
        if block:  # interpreter exit: they only unmap their memory; one that does not end is killed
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _kill(proc)
        elif proc.poll() is None:
            alive.append(proc)
    if alive:
        with _exiting_lock:
            _exiting.extend(alive)


atexit.register(_reap, True)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL and reap `proc`; close its pipes."""
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored; only a D-state delays it
        proc.wait(timeout=5)
    for f in (proc.stdout, proc.stderr):
        if f is not None:
            with contextlib.suppress(OSError):
                f.close()


def _spawn(cmd: list[str], timeout_s: float) -> tuple[int, str]:
    """Run the child to completion (or kill it after timeout_s); return (exit code, stderr).

    A run that ends normally writes "ASCEMU_EXIT <code>" and closes stdout/stderr before it exits (launch key
    "exit_note"): its code is known at EOF, and the process is reaped later instead of waiting milliseconds for the
    kernel to unmap its memory. Any other end (crash, fatal record, timeout) is waited for as usual."""
    _reap()
    deadline = time.monotonic() + timeout_s
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        return _finish(proc, deadline)
    except BaseException:  # KeyboardInterrupt while the kernel runs: the child must not outlive the caller
        _kill(proc)
        raise


def _finish(proc: subprocess.Popen[bytes], deadline: float) -> tuple[int, str]:
    chunks, timed_out = _collect(proc, deadline)
    assert proc.stderr is not None and proc.stdout is not None
    stderr = b"".join(chunks[proc.stderr.fileno()]).decode(errors="replace")
    proc.stdout.close()
    proc.stderr.close()
    if timed_out:  # the emulator's own watchdog failed: kill and report
        _kill(proc)
        return -signal.SIGKILL, stderr
    head, _, last = stderr.rstrip("\n").rpartition("\n")
    code = worker.exit_note_code(last)
    if code is not None:
        if proc.poll() is None:
            with _exiting_lock:
                _exiting.append(proc)
        return code, head + "\n" if head else ""
    try:
        return proc.wait(timeout=max(0.0, deadline - time.monotonic()) + 5), stderr
    except subprocess.TimeoutExpired:
        _kill(proc)
        return -signal.SIGKILL, stderr


def _collect(proc: subprocess.Popen[bytes], deadline: float) -> tuple[dict[int, list[bytes]], bool]:
    """Read the child's stdout and stderr to EOF or the deadline: (chunks by fd, timed out)."""
    chunks: dict[int, list[bytes]] = {}
    with selectors.DefaultSelector() as sel:
        for f in (proc.stdout, proc.stderr):
            assert f is not None
            sel.register(f, selectors.EVENT_READ)
            chunks[f.fileno()] = []
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return chunks, True
            for key, _ in sel.select(left):
                data = os.read(key.fd, 1 << 16)
                if data:
                    chunks[key.fd].append(data)
                else:
                    sel.unregister(key.fileobj)
    return chunks, False


def _read_report(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


def _stderr_diagnostics(stderr: str, known: Sequence[Diagnostic]) -> list[Diagnostic]:
    """CRASH records a dying child wrote to stderr (the report file may not have been completed)."""
    seen = {(d.kind, d.core, d.line) for d in known}
    out = []
    for line in stderr.splitlines():
        if line.startswith(DIAG_PREFIX):
            try:
                d = Diagnostic.from_json(json.loads(line[len(DIAG_PREFIX) :]))
            except ValueError:
                continue
            if (d.kind, d.core, d.line) not in seen:
                out.append(d)
    return out
