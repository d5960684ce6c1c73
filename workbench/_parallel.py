"""One shared thread pool for the goldens: numpy releases the GIL inside its loops, so large arrays
split into blocks use every core. (The benchmark references, PyTorch's CPU kernels, use all cores too.)"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TypeVar

T = TypeVar("T")
WORKERS = max(1, min(4, os.cpu_count() or 1))


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="workbench-golden")


def for_each(fn: Callable[[T], None], items: Sequence[T], parallel: bool = True) -> None:
    """Call fn(item) for every item. In parallel, each worker takes one contiguous run of items
    (fewer GIL hand-offs than one task per item); the first exception is re-raised here."""
    workers = min(WORKERS if parallel else 1, len(items))
    if workers < 2:
        for item in items:
            fn(item)
        return
    step = -(-len(items) // workers)

    def run(group: Sequence[T]) -> None:
        for item in group:
            fn(item)

    list(_pool().map(run, [items[i : i + step] for i in range(0, len(items), step)]))
