"""One shared thread pool for the goldens and the comparison: numpy releases the GIL inside its loops, so large arrays
split into blocks use every core. (The benchmark references, PyTorch's CPU kernels, use all cores too.)"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from typing import TypeVar

import numpy as np

T = TypeVar("T")
R = TypeVar("R")
WORKERS = max(1, min(4, os.cpu_count() or 1))


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="workbench-golden")


@cache
def _side() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="workbench-side")


def in_background(fn: Callable[[], R]) -> Future[R]:
    """Run fn() on a thread of its own, outside the pool (fn may fan out over the pool itself)."""
    return _side().submit(fn)


def runs(items: int, min_run: int = 1) -> int:
    """How many workers map_runs uses for `items` items, each taking at least `min_run` of them."""
    return max(1, min(WORKERS, items // max(min_run, 1)))


def map_runs(fn: Callable[[Sequence[T]], R], items: Sequence[T], parallel: bool = True, min_run: int = 1) -> list[R]:
    """fn(run) for each worker's contiguous run of items (one run per worker: fewer GIL hand-offs than one task
    per item, and fn can carry state from one item to the next), each run at least `min_run` items long; the
    results in item order. The first exception is re-raised here."""
    workers = runs(len(items), min_run) if parallel else 1
    if workers < 2:
        return [fn(items)]
    step = -(-len(items) // workers)
    return list(_pool().map(fn, [items[i : i + step] for i in range(0, len(items), step)]))


def for_each(fn: Callable[[T], object], items: Sequence[T], parallel: bool = True) -> None:
    """Call fn(item) for every item, in parallel over contiguous runs (map_runs)."""

    def run(group: Sequence[T]) -> None:
        for item in group:
            fn(item)

    map_runs(run, items, parallel)


# Elements per independently seeded block of random draws. Part of what the inputs are: changing it changes the
# values of every array larger than one block.
DRAW_BLOCK = 1 << 16
_local = threading.local()


def scratch(n: int, dtype: np.typing.DTypeLike, slot: str) -> np.ndarray:
    """This thread's reusable buffer `slot` of n elements. Block-sized temporaries allocated afresh are worse than
    they look: glibc returns freed blocks of this size to the kernel, and touching their pages again (a page fault
    each 4 KiB, dearer still in a VM) costs more than the arithmetic on them."""
    bufs: dict[tuple[str, np.dtype], np.ndarray] = _local.__dict__.setdefault("bufs", {})
    key = (slot, np.dtype(dtype))
    buf = bufs.get(key)
    if buf is None or buf.size < n:
        buf = bufs[key] = np.empty(n, dtype)
    return buf[:n]


def draw_blocks(
    rng: np.random.Generator, out: np.ndarray, fill: Callable[[np.random.Generator, np.ndarray], object]
) -> None:
    """fill(generator, block) for each DRAW_BLOCK-element block of contiguous `out`, in parallel: block 0 with rng
    itself, so an array of at most one block is exactly one sequential draw from rng; block i with the i-th
    child of rng.spawn. The values depend on rng's seed and DRAW_BLOCK only, never on the number of workers."""
    flat = out.reshape(-1)
    starts = range(0, flat.size, DRAW_BLOCK)
    gens = [rng, *rng.spawn(len(starts) - 1)] if len(starts) > 1 else [rng]
    for_each(lambda i: fill(gens[i], flat[starts[i] : starts[i] + DRAW_BLOCK]), range(len(starts)), len(starts) > 1)
