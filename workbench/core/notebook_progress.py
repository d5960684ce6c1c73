"""Progress in a Jupyter (IPython) kernel: one output line of the running cell, updated in place.

A kernel build in a notebook cell takes 10-90 s with a cold build cache, and stderr progress (progress.py) draws
nothing there. This line names the innermost running stage with its elapsed seconds ("⏳ building cast_kernel for
ascend310p with g++ … 12 s") and ends with the caller's last word ("done: PASS in 14.2 s"). It is an IPython
display updated through its display_id: no widget library is needed, and JupyterLab, Voilà and notebooks executed
by nbclient/nbconvert all show it. Nothing is displayed until a stage has run its `after` seconds, so a quick,
cached run leaves no line behind.
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from typing import Any, Protocol

TICK_S = 1.0  # the elapsed seconds count up once a second: at most one display update a second


class Handle(Protocol):
    def update(self, obj: Any, **kwargs: Any) -> None: ...


def in_kernel() -> bool:
    """A Jupyter kernel runs this process (a notebook, JupyterLab, Voilà, nbclient). A terminal IPython has no kernel
    and keeps the terminal's progress."""
    ipython = sys.modules.get("IPython")  # a process that never imported IPython is no kernel
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def display_text(text: str) -> Handle:
    """Display `text` as a new output of the running cell; the handle replaces it in place."""
    from IPython.display import display

    handle = display({"text/plain": text}, raw=True, display_id=True)
    assert handle is not None  # display_id=True always returns one
    return handle


class NotebookLine:
    """The cell's progress line: the innermost running stage and its elapsed seconds, drawn by a ticker thread once
    the stage has run its `after` seconds, until `close` leaves the last word on it."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self._lock = threading.Lock()
        self._stages: list[tuple[str, float, float]] = []  # (what, started, after) of the running stages
        self._last = ""  # the stage drawn last: what a stopped run was doing
        self._handle: Handle | None = None
        self._drawn = ""
        self._drawing = threading.Lock()  # the ticker and the caller's thread draw: one display, never two
        self._wake = threading.Event()
        self._closed = False
        self._ticker: threading.Thread | None = None

    @property
    def shown(self) -> bool:
        return self._handle is not None

    def begin(self, what: str, after: float) -> None:
        with self._lock:
            self._stages.append((what, time.perf_counter(), after))
            if self._ticker is None:
                # with the cell's context: ipykernel sends a display to the cell whose request the context holds
                run_in_cell = contextvars.copy_context().run
                self._ticker = threading.Thread(
                    target=run_in_cell, args=(self._tick,), name="workbench-notebook-progress", daemon=True
                )
                self._ticker.start()
            text = self._running_text()[0] if after <= 0 else ""
        if text:  # a stage to show at once is on the line before the caller goes on
            self._draw(text)
        self._wake.set()

    def end(self, what: str) -> None:
        with self._lock:
            for i in reversed(range(len(self._stages))):
                if self._stages[i][0] == what:
                    del self._stages[i]
                    break
        self._wake.set()

    def close(self, text: str) -> None:
        """Stop the ticker and, when the line was shown, leave `text` on it."""
        with self._lock:
            self._closed = True
            ticker = self._ticker
        self._wake.set()
        if ticker is not None and ticker is not threading.current_thread():
            ticker.join()
        if self.shown:
            self._draw(text)

    def stopped_text(self) -> str:
        """The last word of a block that raised: how long it ran and the stage it was in."""
        doing = f" while {self._last}" if self._last else ""
        return f"stopped after {time.perf_counter() - self.started:.1f} s{doing}"

    def _tick(self) -> None:
        while True:
            self._wake.clear()  # before reading the state: a change after this wakes the wait below
            with self._lock:
                if self._closed:
                    return
                text, wait = self._running_text()
            if text:
                self._draw(text)
            self._wake.wait(wait)

    def _running_text(self) -> tuple[str, float]:
        """The innermost stage's line once it has run its `after` seconds ("" before), and how long to sleep."""
        if not self._stages:
            return "", TICK_S
        what, started, after = self._stages[-1]
        elapsed = time.perf_counter() - started
        if elapsed < after:
            return "", after - elapsed
        self._last = what
        return f"⏳ {what} … {int(elapsed)} s", TICK_S - elapsed % TICK_S

    def _draw(self, text: str) -> None:
        with self._drawing:
            if text == self._drawn:
                return
            self._drawn = text
            if self._handle is None:
                self._handle = display_text(text)
            else:
                self._handle.update({"text/plain": text}, raw=True)
