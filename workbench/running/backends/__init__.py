"""Backends run a prepared launch (workbench/running/launch.py). Each is a module exposing `execute(launch)`; it is
imported on first use, so `import workbench` never loads a backend (or acl)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...core.errors import UnknownName
from ...core.timesource import HOST_WALL, TimeSource, checked

if TYPE_CHECKING:
    from ..launch import PreparedLaunch

_MODULES = {
    "emu": "workbench.running.backends.emu",
    "npu": "workbench.running.backends.npu",
    "replay": "workbench.running.backends.replay",
}


@dataclass(frozen=True)
class Execution:
    """What a backend hands back: output arrays, diagnostics, a trace and timings (seconds), each timing with its
    source (timesource.py): the backend is the one that knows how it timed what."""

    outputs: dict[str, np.ndarray]
    diagnostics: tuple[Any, ...]
    trace: dict[str, Any]
    timings: dict[str, float]
    exit_code: int = 0
    builtin: dict[str, np.ndarray] | None = None  # the built-in (TBE) op's outputs on the same inputs (npu only)
    timing_sources: dict[str, TimeSource] = field(default_factory=dict)
    events: Any = None  # running.events.KernelEvents of a launch with trace on (emu backend), else None
    events_missing: str = ""  # trace on and no log (a fatal launch that could not write one): why

    def __post_init__(self) -> None:
        object.__setattr__(self, "timing_sources", checked(self.timings, self.timing_sources))


def faulted(exit_code: int, diagnostics: Sequence[Any]) -> bool:
    """The one fault rule for every backend: a non-zero exit, or any diagnostic of error/fatal severity."""
    return exit_code != 0 or any(getattr(d, "is_fault", False) for d in diagnostics)


class Backend(Protocol):
    def execute(self, launch: PreparedLaunch) -> Execution: ...


def no_launch(launch: PreparedLaunch) -> Execution:
    """block_dim 0: nothing runs; the outputs are what the launcher leaves in them (zeros), on every backend."""
    for arr in launch.outputs.values():
        arr.fill(0)
    timings = dict.fromkeys(("build_s", "launch_s", "run_s", "kernel_s"), 0.0)
    # nothing was built, launched or measured: the zeros are the host's, never a device's or the emulator's
    return Execution(launch.outputs, (), {}, timings, timing_sources=dict.fromkeys(timings, HOST_WALL))


def get(name: str) -> Backend:
    if name not in _MODULES:
        raise UnknownName("backend", name, ", ".join(_MODULES))
    module: Backend = importlib.import_module(_MODULES[name])
    return module


def names() -> tuple[str, ...]:
    return tuple(_MODULES)


def unavailable(name: str) -> str | None:
    """Why backend `name` cannot run on this machine, or None when it can."""
    why = getattr(get(name), "unavailable", None)
    return why() if why else None
