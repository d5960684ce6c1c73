"""Backends run an op's kernel for a Case. Each is a module exposing `execute(case, plan, inputs)`;
it is imported on first use, so `import workbench` never loads a backend (or acl)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import UnknownName
from ..tiling import TilingPlan

_MODULES = {"emu": "workbench.backends.emu"}


@dataclass(frozen=True)
class Execution:
    """What a backend hands back: output arrays, diagnostics, a trace and timings (seconds)."""

    outputs: dict[str, np.ndarray]
    diagnostics: tuple[Any, ...]
    trace: dict[str, Any]
    timings: dict[str, float]
    exit_code: int = 0


def faulted(exit_code: int, diagnostics: Sequence[Any]) -> bool:
    """The one fault rule for every backend: a non-zero exit, or any diagnostic of error/fatal severity."""
    return exit_code != 0 or any(getattr(d, "is_fault", False) for d in diagnostics)


class Backend(Protocol):
    def execute(
        self, case: Any, plan: TilingPlan, inputs: Mapping[str, np.ndarray], kernel: Path | None = None
    ) -> Execution: ...


def get(name: str) -> Backend:
    if name not in _MODULES:
        raise UnknownName("backend", name, ", ".join(_MODULES))
    module: Backend = importlib.import_module(_MODULES[name])
    return module


def names() -> tuple[str, ...]:
    return tuple(_MODULES)
