"""Reruns of one case reuse its inputs and golden: the app's Run pressed again, a notebook cell run again, a loop
of `wb.run` over edits of one kernel. Inputs are a pure function of (case, seed, distribution) and the golden a pure
function of the inputs, so a second run of the same key needs neither again; what changes between reruns (the
kernel, the backend) is always run.

The cache is bounded in bytes (least recently used first out; WORKBENCH_RERUN_CACHE: bytes or a size such as 512M,
default 1 GiB, 0 turns it off) and holds read-only arrays: nothing a run hands out can change what a later run
compares against.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..planning.case import Case
from ..planning.memory import parse_size

DEFAULT_BYTES = 1 << 30
LIMIT_ENV = "WORKBENCH_RERUN_CACHE"

Key = tuple[Case, int, str]
Entry = tuple[dict[str, np.ndarray], dict[str, np.ndarray], float]  # (inputs, expected, golden seconds), read-only

_lock = threading.Lock()
_entries: OrderedDict[Key, tuple[Entry, int]] = OrderedDict()


def limit() -> int:
    """The cache's size in bytes: $WORKBENCH_RERUN_CACHE (a byte count or a size such as 512M; 0: off), else 1 GiB."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    if not text:
        return DEFAULT_BYTES
    return 0 if text == "0" else parse_size(text, LIMIT_ENV)


def get(key: Key) -> Entry | None:
    if limit() == 0:
        return None
    with _lock:
        found = _entries.get(key)
        if found is None:
            return None
        _entries.move_to_end(key)
        return found[0]


def put(key: Key, inputs: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray], golden_s: float) -> Entry:
    """Keep (inputs, expected) for `key` when they fit; return them read-only either way."""
    entry = (_frozen(inputs), _frozen(expected), golden_s)
    size = sum(a.nbytes for part in entry[:2] for a in part.values())
    budget = limit()
    if size > budget:
        return entry
    with _lock:
        _entries.pop(key, None)
        _entries[key] = (entry, size)
        held = sum(s for _, s in _entries.values())
        while held > budget:
            held -= _entries.popitem(last=False)[1][1]
    return entry


def clear() -> None:
    with _lock:
        _entries.clear()


def held() -> int:
    """Bytes the cache holds now."""
    with _lock:
        return sum(s for _, s in _entries.values())


def _frozen(arrays: Mapping[str, Any]) -> dict[str, np.ndarray]:
    out = {}
    for name, array in arrays.items():
        a = np.asarray(array)
        if a.flags.writeable:
            a = a.view()
            a.flags.writeable = False
        out[name] = a
    return out
