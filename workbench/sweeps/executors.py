"""Where a sweep's tasks run, behind one interface: an Executor takes batches of Tasks and yields their rows as
batches finish, in any order. `Serial` runs them in this process; `LocalPool` (the default) in a pool of worker
processes on this machine; the cluster executor (cluster.py) on a Ray cluster. Each calls `tasks.run_task`."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from itertools import groupby
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Protocol

from ..core.errors import InvalidInput
from .tasks import Task, run_task

Row = dict[str, Any]


class Executor(Protocol):
    """Runs batches of tasks; `rows` yields each batch's rows when that batch is done (any order)."""

    name: str
    workers: int  # how many tasks run at once: the sweep splits its work so that each worker has some

    def rows(self, batches: Sequence[Sequence[Task]]) -> Iterator[list[Row]]: ...

    def close(self) -> None: ...


def run_batch(batch: Sequence[Task]) -> list[Row]:
    """One worker call: a batch of tasks of one build variant, so the worker loads that kernel once."""
    return [run_task(t) for t in batch]


def batches(tasks: Sequence[Task], workers: int, per_worker: int = 4) -> list[list[Task]]:
    """Tasks grouped by build variant (the kernel each needs), cut so that every worker gets about `per_worker`
    batches: few loads of each kernel, and rows that arrive while the sweep runs."""
    size = max(1, math.ceil(len(tasks) / max(1, workers * per_worker)))
    ordered = sorted(range(len(tasks)), key=lambda i: repr(tasks[i].variant))
    out: list[list[Task]] = []
    for _, group in groupby(ordered, key=lambda i: repr(tasks[i].variant)):
        items = [tasks[i] for i in group]
        out.extend(items[k : k + size] for k in range(0, len(items), size))
    return out


class Serial:
    """Every task in this process, one after the other (for debugging, and what the bench compares against)."""

    name = "serial"
    workers = 1

    def rows(self, batches: Sequence[Sequence[Task]]) -> Iterator[list[Row]]:
        for batch in batches:
            yield run_batch(batch)

    def close(self) -> None:
        pass


def _worker_init() -> None:
    from ..core import progress

    progress.set_enabled(False)  # a worker has no terminal of its own: the sweep's bar is the progress


class LocalPool:
    """A pool of worker processes on this machine, one per core by default. Workers start with `spawn` (a fresh
    interpreter: no locks or threads inherited from a notebook) and live for the whole sweep, so each keeps the
    kernels it has loaded. Each task's memory is bounded by the memory guard with the sweep's budget shared
    between the workers (see `sweep`)."""

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise InvalidInput("workers", workers, "a positive integer (default: one per core)")
        self.workers = workers or max(1, os.cpu_count() or 1)
        self._pool: ProcessPoolExecutor | None = None

    def rows(self, batches: Sequence[Sequence[Task]]) -> Iterator[list[Row]]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, get_context("spawn"), initializer=_worker_init)
        with _main_importable():  # the workers start here, at the first submits
            pending: set[Future[list[Row]]] = {self._pool.submit(run_batch, list(b)) for b in batches}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


@contextmanager
def _main_importable() -> Iterator[None]:
    """A spawned worker re-imports the parent's __main__ from its file: a script read from stdin or `-c` has none
    ("<stdin>"), and every worker would die at start. Such a __main__ is started as if it were interactive."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or Path(path).is_file():
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def get_executor(executor: Any, workers: int | None) -> Executor:
    """ "local" (default), "serial", "ray" or "ray://host:port" / an address (cluster.py), or an Executor."""
    if executor is None or executor == "local":
        return Serial() if workers == 1 else LocalPool(workers)
    if executor == "serial":
        return Serial()
    if isinstance(executor, str) and (executor == "ray" or executor.startswith("ray:")):
        from .cluster import RayExecutor

        # "ray": RAY_ADDRESS or a new local cluster; "ray://host:10001": Ray Client; "ray:host:6379": that cluster
        address = None if executor == "ray" else executor if executor.startswith("ray://") else executor[4:]
        return RayExecutor(address, workers)
    if all(hasattr(executor, a) for a in ("rows", "close", "workers", "name")):
        return executor
    raise InvalidInput("executor", executor, "'local', 'serial', 'ray', 'ray:<address>' or an Executor object")
