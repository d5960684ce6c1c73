"""Reused emulator processes: a binary started once with `--serve` runs launch after launch.

A launch through a worker skips process start-up and, above all, re-mapping its GM files: the worker keeps
them mapped with their page tables filled (kernels/emu/include/ascemu/serve.h). Each launch still starts as a
fresh process would: new emulator state, and the kernel's own globals and function-local statics restored to
their values after static initialisation.

A launch that ends in a fatal record (crash, hang, harness error) ends its worker as it would end a one-shot
child, and is reported the same way; the next launch starts a new worker. Workers are per binary and per
concurrent caller; idle ones are kept up to a small limit and stopped at exit or by `stop_all()`.
ASCEMU_REUSE_PROCESS=0 turns reuse off (one child per launch).

An exception while a worker starts or runs a launch (KeyboardInterrupt: Ctrl-C, a Jupyter interrupt) kills that
worker before it propagates: a worker in the middle of a launch is never given back, and none outlives the
caller. At interpreter exit idle workers are stopped and any still running a launch are killed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from pathlib import Path

READY = "ASCEMU_READY "
EXIT_NOTE = "ASCEMU_EXIT "
_MAX_IDLE = 4  # idle workers kept across all binaries (each holds its last launch's GM mappings)
_START_TIMEOUT_S = 30.0


def exit_note_code(line: str) -> int | None:
    """The exit code an "ASCEMU_EXIT <code>" line carries, else None."""
    rest = line[len(EXIT_NOTE) :].strip() if line.startswith(EXIT_NOTE) else ""
    return int(rest) if rest.lstrip("-").isdigit() else None


def enabled() -> bool:
    return os.environ.get("ASCEMU_REUSE_PROCESS", "1") != "0"


class Worker:
    def __init__(self, binary: Path) -> None:
        self.binary = binary
        self.ready = False
        self.proc = subprocess.Popen(
            [str(binary), "--serve"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _track(self)
        assert self.proc.stderr is not None
        self._fd = self.proc.stderr.fileno()
        self._pending = b""
        try:
            note, _, _ = self._read_until(READY, time.monotonic() + _START_TIMEOUT_S)
        except BaseException:  # KeyboardInterrupt while it starts: it must not outlive the caller
            self.stop(kill=True)
            raise
        self.ready = note is not None
        if not self.ready:
            self.stop(kill=True)

    @property
    def alive(self) -> bool:
        return self.ready and self.proc.poll() is None

    def launch(self, launch_file: Path, timeout_s: float) -> tuple[int, str]:
        """(exit code, stderr of this launch); a negative code is the signal that ended the worker."""
        try:
            return self._launch(launch_file, timeout_s)
        except BaseException:  # KeyboardInterrupt mid-launch: the worker is busy with it and must not be reused
            self.stop(kill=True)
            raise

    def _launch(self, launch_file: Path, timeout_s: float) -> tuple[int, str]:
        deadline = time.monotonic() + timeout_s
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(f"{launch_file}\n".encode())
            self.proc.stdin.flush()
        except OSError:  # died since its last launch
            pass
        note, text, timed_out = self._read_until(EXIT_NOTE, deadline)
        code = exit_note_code(note or "")
        if code is not None:
            return code, text
        if timed_out:  # the emulator's own watchdog failed: kill and report
            self.stop(kill=True)
            return -signal.SIGKILL, text
        try:  # the launch ended the worker (a fatal record or a signal)
            return self.proc.wait(timeout=max(0.0, deadline - time.monotonic()) + 5), text
        except subprocess.TimeoutExpired:
            self.stop(kill=True)
            return -signal.SIGKILL, text

    def _read_until(self, prefix: str, deadline: float) -> tuple[str | None, str, bool]:
        """Read stderr up to a line starting with `prefix`: (that line or None, the text before it, timed out)."""
        head = prefix.encode()
        lines: list[bytes] = []
        with selectors.DefaultSelector() as sel:
            sel.register(self._fd, selectors.EVENT_READ)
            while True:
                while b"\n" in self._pending:
                    line, self._pending = self._pending.split(b"\n", 1)
                    if line.startswith(head):
                        return line.decode(errors="replace"), _text(lines), False
                    lines.append(line)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, _text([*lines, self._pending]), True
                if not sel.select(left):
                    continue
                data = os.read(self._fd, 1 << 16)
                if not data:
                    rest, self._pending = self._pending, b""
                    return None, _text([*lines, rest] if rest else lines), False
                self._pending += data

    def stop(self, kill: bool = False) -> None:
        try:
            if self.proc.poll() is None:
                if kill:
                    self.proc.kill()
                elif self.proc.stdin is not None:
                    try:
                        self.proc.stdin.close()  # end of input: the worker returns from its loop
                    except OSError:
                        self.proc.kill()
            for f in (self.proc.stdin, self.proc.stderr):
                if f is not None:
                    with contextlib.suppress(OSError):
                        f.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        except BaseException:  # interrupted while stopping: make sure it ends anyway
            with contextlib.suppress(OSError):
                self.proc.kill()
            raise
        finally:
            _untrack(self)


def _text(lines: list[bytes]) -> str:
    return "".join(x.decode(errors="replace") + "\n" for x in lines)


_lock = threading.Lock()
_idle: list[Worker] = []  # most recently used last
_unserveable: set[Path] = set()  # binaries whose worker did not start (no symbol table): one-shot children
_pid = -1
_live_lock = threading.Lock()
_live: dict[int, Worker] = {}  # every started, not yet stopped worker of this process (idle or busy), by pid
_live_pid = os.getpid()


def _track(w: Worker) -> None:
    global _live_pid
    with _live_lock:
        if _live_pid != os.getpid():  # a forked child: the parent's workers are not ours
            _live.clear()
            _live_pid = os.getpid()
        _live[w.proc.pid] = w


def _untrack(w: Worker) -> None:
    with _live_lock:
        if _live.get(w.proc.pid) is w:
            del _live[w.proc.pid]


def _own_pool() -> None:
    """A forked child must not talk to its parent's workers (their pipes are shared): start an empty pool."""
    global _pid
    if _pid != os.getpid():
        _idle.clear()
        _pid = os.getpid()


def take(binary: Path) -> Worker | None:
    """An idle worker for `binary`, else a new one; None when the binary cannot serve."""
    found, dead = None, []
    with _lock:
        _own_pool()
        if binary in _unserveable:
            return None
        for i in range(len(_idle) - 1, -1, -1):
            if _idle[i].binary == binary:
                w = _idle.pop(i)
                if w.alive:
                    found = w
                    break
                dead.append(w)
    for d in dead:
        d.stop()
    if found is not None:
        return found
    w = Worker(binary)
    if not w.ready:
        with _lock:
            _unserveable.add(binary)
        return None
    return w


def give_back(w: Worker) -> None:
    if not w.alive:
        w.stop()
        return
    surplus = []
    with _lock:
        if _pid != os.getpid():
            surplus.append(w)
        else:
            _idle.append(w)
            while len(_idle) > _MAX_IDLE:
                surplus.append(_idle.pop(0))
    for s in surplus:
        s.stop()


def stop_all() -> None:
    """Stop every idle worker of this process (they hold GM mappings); the next launch starts new ones."""
    with _lock:
        mine = list(_idle) if _pid == os.getpid() else []
        _idle.clear()
    for w in mine:
        w.stop()


def _stop_at_exit() -> None:
    """Interpreter exit: idle workers end as usual, and any still running a launch (a caller interrupted in a
    way that skipped its clean-up) is killed: no worker outlives this process."""
    stop_all()
    with _live_lock:
        busy = list(_live.values()) if _live_pid == os.getpid() else []
    for w in busy:
        w.stop(kill=True)


atexit.register(_stop_at_exit)
