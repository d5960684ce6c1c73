"""The prepared launch: what one run of an op's kernel needs, decided once from the op's description, so every
backend (emu today; the NPU runtime, its emulated twin and replay next) only executes it.

`prepare(case, plan, inputs)` fixes the kernel source and entry, the arguments in the kernel's parameter order
with their roles (inputs read-only, outputs allocated here with the byte each starts as), the workspace size and
fill, the TilingData bytes, the tiling key and block_dim. `Diagnostic` is the one record type every backend
reports a kernel's problems in (docs/diagnostics.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import resources
from ..core.dtypes import np_dtype
from ..core.errors import InvalidInput, WorkbenchError
from ..planning.registry import get_op

if TYPE_CHECKING:
    from ..core.tiling import TilingPlan
    from ..planning.case import Case

POISON = -1  # an output or workspace fill: leave the device's poison, so reads of never-written bytes are reported
POISON_BYTE = 0xFF  # the device's poison: NaN in every float type, -1 in signed integers


def poison(array: np.ndarray) -> np.ndarray:
    """Fill `array` with the poison byte, in place: what an output holds until a launch writes it back, so an output
    that was never written back can never equal a golden."""
    if array.flags.c_contiguous:
        array.reshape(-1).view(np.uint8).fill(POISON_BYTE)
    else:  # a strided view: the same bytes element by element (a same-dtype copy moves bytes as they are)
        array[...] = poison(np.empty(array.shape, array.dtype))
    return array


@dataclass(frozen=True)
class Diagnostic:
    """One structured record of a kernel's problem (docs/diagnostics.md#reading-a-diagnostic).

    `file` and `line` are the kernel's source line, or "" and 0 for a launch-level record: never a line of the
    emulator's own headers. The emulator names none; a record that does (an older binary, a stored record) is placed
    at the kernel's call its details name (`api_file`, `api_line`), else at the launch."""

    kind: str
    severity: str
    core: int
    api: str
    file: str
    line: int
    message: str
    function: str = ""
    count: int = 1
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if is_emulator_header(self.file):
            file, line = kernel_call_site(self.details)
            object.__setattr__(self, "file", file)
            object.__setattr__(self, "line", line)
            object.__setattr__(self, "function", "")

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Diagnostic:
        return cls(
            kind=str(d.get("kind", "?")),
            severity=str(d.get("severity", "error")),
            core=int(d.get("core", -1)),
            api=str(d.get("api", "")),
            file=str(d.get("file", "")),
            line=int(d.get("line", 0) or 0),
            message=str(d.get("message", "")),
            function=str(d.get("function", "")),
            count=int(d.get("count", 1) or 1),
            details=dict(d.get("details") or {}),
        )

    @property
    def is_fault(self) -> bool:
        return self.severity in ("error", "fatal")

    def __str__(self) -> str:
        where = f"{Path(self.file).name}:{self.line}" if self.file else "launch"
        core = f"core {self.core}" if self.core >= 0 else "launch"
        times = f" (x{self.count})" if self.count > 1 else ""
        return (
            f"{where}: {self.severity} {self.kind} [{core}{', ' + self.api if self.api else ''}]: {self.message}{times}"
        )


def is_emulator_header(file: str) -> bool:
    """Whether `file` lies in the emulator's include folder: by its path (a relative one as a stored record names a
    shipped file, from the package's root, store._portable), or by the placeholder a cached binary names that folder
    by (emu/build.py)."""
    if not file:
        return False
    if file.startswith(f"{resources.EMU_PLACEHOLDER}/include/"):
        return True
    path = Path(file)
    try:
        return any(p.resolve().is_relative_to(_emulator_headers()) for p in (path, resources.root() / path))
    except (OSError, ValueError):  # not a path this machine can resolve: no file of the emulator's
        return False


@cache
def _emulator_headers() -> Path:
    return resources.emu_include_dir().resolve()


def kernel_call_site(details: Mapping[str, Any]) -> tuple[str, int]:
    """The kernel's call a record's details name (a CRASH's or KERNEL_EXIT's last API call), or ("", 0)."""
    file, line = details.get("api_file"), details.get("api_line")
    if isinstance(file, str) and file and not is_emulator_header(file) and isinstance(line, int) and line > 0:
        return file, line
    return "", 0


@dataclass(frozen=True)
class Argument:
    """One GM tensor argument. Inputs are read-only views of the run's data; outputs are allocated by `prepare`
    (poisoned, until a completed launch writes them back) and filled by the backend, their device memory starting
    as `fill` (a byte value, or POISON)."""

    name: str
    role: str  # "input" | "output"
    array: np.ndarray = field(repr=False)
    fill: int | None = None


@dataclass(frozen=True)
class PreparedLaunch:
    """Everything a backend needs to run the kernel once; nothing in it depends on which backend runs it."""

    op: str
    platform: str
    source: Path  # the kernel source: the shipped one, or an edited copy (`edited`)
    include_dirs: tuple[Path, ...]  # an edited copy still finds the shipped <op>_tiling.h
    entry: str
    defines: Mapping[str, object]
    args: tuple[Argument, ...]  # in the kernel's parameter order
    workspace_bytes: int
    workspace_fill: int
    tiling: bytes  # the TilingData struct, as the kernel reads it
    tiling_key: int
    block_dim: int  # 0: no launch; the outputs are what the launcher leaves (zeros)
    edited: bool = False
    builtin: Any = None  # npu.aclnn.BuiltinCall: the built-in op of the same name on the same tensors, or None
    trace: bool = False  # record the emulator's event log (docs/emulator.md#event-log); emu backend only
    max_events: int | None = None  # with trace: the log's cap (memory.trace_room); None: the emulator's limit

    @property
    def outputs(self) -> dict[str, np.ndarray]:
        return {a.name: a.array for a in self.args if a.role == "output"}


def prepare(
    case: Case, plan: TilingPlan, inputs: Mapping[str, np.ndarray], kernel: Path | None = None
) -> PreparedLaunch:
    """The launch of `case`'s kernel (or of `kernel`, an edited copy with the same entry, defines and TilingData)
    with `plan`'s tiling on `inputs`."""
    spec = get_op(case.op)
    if spec.kernel is None:
        raise InvalidInput("op", case.op, "an op with a shipped kernel")
    info = spec.kernel(case)
    tensors = spec.describe(case)
    args = []
    for name in info.args:
        if name in inputs:
            view = np.ascontiguousarray(inputs[name]).view()
            view.flags.writeable = False
            args.append(Argument(name, "input", view))
        else:
            desc = tensors[name]
            assert desc is not None, f"{case.op}: kernel argument {name} has no tensor description"
            out = poison(np.empty(desc.shape, np_dtype(desc.dtype)))
            args.append(Argument(name, "output", out, info.output_fill))
    missing = [t.name for t in spec.outputs if t.name not in info.args]
    if missing:
        raise WorkbenchError("kernel args", info.args, f"every output of {case.op} as an argument (missing {missing})")
    shipped = resources.path(info.source)
    return PreparedLaunch(
        op=case.op,
        platform=case.platform,
        source=shipped if kernel is None else kernel,
        include_dirs=() if kernel is None else (shipped.parent,),
        entry=info.entry,
        defines=info.defines,
        args=tuple(args),
        workspace_bytes=plan.workspace_bytes,
        workspace_fill=info.workspace_fill,
        tiling=plan.tiling_bytes(),
        tiling_key=plan.tiling_key,
        block_dim=plan.block_dim,
        edited=kernel is not None,
        builtin=spec.builtin(case) if spec.builtin is not None else None,
    )
