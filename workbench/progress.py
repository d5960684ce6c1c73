"""Progress on stderr for what takes seconds (g++ builds, long launches): what is running and for how long.

Shown only when stderr is a terminal and not silenced (`--quiet`, `set_enabled(False)`); a block that ends
within `after` seconds draws nothing. tqdm draws the line and is imported only then. Other front ends (the
widgets' Run) follow the same stages through `listening(callback)`.
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .render.text import WIDTH

_enabled: bool | None = None  # None: when stderr is a terminal
_listeners: list[Callable[[str, bool], None]] = []


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


@contextmanager
def stage(what: str, after: float = 0.5) -> Iterator[None]:
    """Show `what` with a ticking elapsed time while the block runs longer than `after` seconds."""
    for listener in tuple(_listeners):
        listener(what, True)
    try:
        with _terminal(what, after):
            yield
    finally:
        for listener in tuple(_listeners):
            listener(what, False)


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
