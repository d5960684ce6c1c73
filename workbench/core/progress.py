"""Progress on stderr for what takes seconds (g++ builds, long launches): what is running and for how long.

Shown only when stderr is a terminal and not silenced (`--quiet`, `set_enabled(False)`); a block that ends
within `after` seconds draws nothing. tqdm draws the line and is imported only then. Other front ends (the
widgets' Run) follow the same stages through `listening(callback)`. In a Jupyter kernel with no listener (a
notebook cell, not the app, whose listener has a widget of its own) the stages go to a line in the cell
instead (notebook_progress.py); `notebook_line()` groups a block's stages on one line, as `wb.run` does.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from . import notebook_progress
from .shown import WIDTH

_enabled: bool | None = None  # None: when stderr is a terminal
_listeners: list[Callable[[str, bool], None]] = []
_line: notebook_progress.NotebookLine | None = None  # the line of the running notebook_line() block


@contextmanager
def listening(callback: Callable[[str, bool], None]) -> Iterator[None]:
    """Call `callback(what, True)` when a stage starts and `callback(what, False)` when it ends, in this block."""
    _listeners.append(callback)
    try:
        yield
    finally:
        _listeners.remove(callback)


def set_enabled(flag: bool | None) -> None:
    """True/False forces progress on/off; None restores the default (on when stderr is a terminal)."""
    global _enabled
    _enabled = flag


def enabled() -> bool:
    return sys.stderr.isatty() if _enabled is None else _enabled


def shown() -> bool:
    """Whether progress is shown anywhere: a terminal, or a notebook kernel's cell (unless silenced)."""
    return enabled() or (_enabled is not False and notebook_progress.in_kernel())


@contextmanager
def stage(what: str, after: float = 0.5) -> Iterator[None]:
    """Show `what` with a ticking elapsed time while the block runs longer than `after` seconds."""
    for listener in tuple(_listeners):
        listener(what, True)
    try:
        with _terminal(what, after), _notebook(what, after):
            yield
    finally:
        for listener in tuple(_listeners):
            listener(what, False)


@contextmanager
def notebook_line() -> Iterator[Callable[[str], None]]:
    """In a notebook cell, this block's stages share one line, and the yielded `finish(text)` leaves `text` on it
    (e.g. "done: PASS in 14.2 s"); without a call it ends as "done in N s", or "stopped after N s while ..." when
    the block raises. The line appears only once a stage has run its `after` seconds. Elsewhere, and inside
    another such block (whose line it uses), nothing happens here."""
    global _line
    if _line is not None or not _notebook_wanted():
        yield _ignore
        return
    line = _line = notebook_progress.NotebookLine()
    last: list[str] = []
    try:
        yield last.append
    except BaseException:
        line.close(line.stopped_text())
        raise
    else:
        line.close(last[-1] if last else f"done in {time.perf_counter() - line.started:.1f} s")
    finally:
        _line = None


def _ignore(text: str) -> None:
    pass


def _notebook_wanted() -> bool:
    # a listener (the app) shows the stages itself: a second line in its page would repeat them
    return _enabled is not False and not _listeners and notebook_progress.in_kernel()


@contextmanager
def _notebook(what: str, after: float) -> Iterator[None]:
    """The stage on the notebook_line() block's line; outside one (a build of `emu.load(...).built()`, a program)
    on a line of its own, which ends with the stage's time."""
    line = _line
    own = line is None and _notebook_wanted()
    if own:
        line = notebook_progress.NotebookLine()
    if line is None:
        yield
        return
    line.begin(what, after)
    try:
        yield
    except BaseException:
        line.end(what)
        if own:
            line.close(line.stopped_text())
        raise
    line.end(what)
    if own:
        line.close(f"done: {what} in {time.perf_counter() - line.started:.1f} s")


@contextmanager
def _terminal(what: str, after: float) -> Iterator[None]:
    if not enabled():
        yield
        return
    stream = sys.stderr
    done = threading.Event()

    def show() -> None:
        if done.wait(after):
            return
        from tqdm import tqdm

        size = shutil.get_terminal_size((WIDTH, 24))  # a pty may report no size, and tqdm then prints nothing
        bar = tqdm(
            total=None,
            desc=what,
            bar_format="{desc} ({elapsed})",
            file=stream,
            leave=False,
            ncols=size.columns,
            nrows=size.lines,
        )
        try:
            while not done.wait(0.2):
                bar.refresh()
        finally:
            bar.close()

    ticker = threading.Thread(target=show, name="workbench-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
