"""What describes an op: OpSpec (pure functions over a Case), its tensors, attributes and shipped kernel."""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from .errors import InvalidAttr, InvalidDtype, InvalidFormat, UnsupportedPlatform
from .platform import PLATFORMS, Platform

if TYPE_CHECKING:
    from ..planning.case import Case
    from .builtin_call import BuiltinCall
    from .tiling import TilingPlan


@dataclass(frozen=True)
class TensorDesc:
    """What the aclnn layer sees of one tensor: dtype, shape, format. None in a mapping = a null tensor."""

    dtype: str
    shape: tuple[int, ...]
    format: str = "ND"


@dataclass(frozen=True)
class TensorSpec:
    name: str
    doc: str


@dataclass(frozen=True)
class AttrSpec:
    name: str
    type: type  # int, bool or float
    default: Any  # REQUIRED for a required attr
    doc: str


REQUIRED = object()


@dataclass(frozen=True)
class KernelInfo:
    """How the shipped Ascend C kernel of an op is built and called for one Case.

    The entry takes GM_ADDR tensors in `args` order, then GM_ADDR workspace, then the TilingData struct
    by value (docs/emulator.md#using-it). A fill of -1 leaves the emulator's poison in an output or workspace (so
    unwritten or uninitialised bytes are reported); another value is what the launcher pre-fills
    (e.g. EmbeddingDenseGrad's launcher zeroes `out` and the workspace, DECISION-EDG-4/5).
    """

    source: str  # relative to the repository root
    entry: str
    defines: Mapping[str, object]
    args: tuple[str, ...]
    output_fill: int = -1
    workspace_fill: int = -1


@dataclass(frozen=True)
class Explore:
    """The dimension a user walks to find the op's next tiling decision, and the quantity that shows it coming
    (the app's neighbourhood chart, explore.py)."""

    dim: int  # the shape index walked (negative counts from the end)
    name: str  # what the op's docs call that dimension
    quantity: str  # the TilingData field plotted, or "ub_percent" (UB used, % of what tiling may allocate)
    label: str  # the quantity's axis title


@dataclass(frozen=True)
class OpSpec:
    """Everything the workbench knows about one op; each function is pure.

    dtype_matrix lists every valid `Case.dtypes` tuple (Cast: (src, dst) pairs; EDG: (grad, indices);
    SCE: (features,)). `check` runs the spec's validation order over full tensor descriptions (as an
    aclnn call would receive them); `describe` infers those descriptions from a Case.
    """

    name: str
    summary: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    attrs: tuple[AttrSpec, ...]
    dtype_matrix: tuple[tuple[str, ...], ...]
    formats: tuple[str, ...]
    platforms: tuple[str, ...]
    distributions: tuple[str, ...]  # the first is the default
    tiling_struct: type[ctypes.Structure]
    tiling_header: str  # relative to the repository root
    describe: Callable[[Case], dict[str, TensorDesc]]
    check: Callable[[Mapping[str, TensorDesc | None], Mapping[str, Any]], None]
    tiling: Callable[..., TilingPlan]  # tiling(case, soc=None, reserve=<the op's UB reserve>)
    make_inputs: Callable[[Case, np.random.Generator, str], dict[str, np.ndarray]]
    golden: Callable[..., dict[str, np.ndarray]]  # golden(case, inputs, **options)
    standard: Callable[[str, str], str]  # (output name, dtype) -> default comparison standard
    dtype_fill: Callable[[tuple[str, ...]], tuple[str, ...]] = lambda d: d  # complete a short spelling
    dtype_roles: tuple[str, ...] = ()  # what each dtype of `--dtype A:B` sets, for people (`workbench ops OP`)
    check_data: Callable[[Case, Mapping[str, np.ndarray]], None] | None = None
    default_format: Callable[[tuple[int, ...]], str] = lambda shape: "ND"
    # (case, inputs, output name, output index) -> input values that produced that element, for reports.
    # None = the generic rule: inputs with the output's shape contribute their element at the same index.
    input_values: Callable[[Case, Mapping[str, np.ndarray], str, tuple[int, ...]], dict[str, Any]] | None = None
    kernel: Callable[[Case], KernelInfo] | None = None  # None: no shipped kernel yet
    builtin: Callable[[Case], BuiltinCall] | None = None  # the built-in (TBE) op's aclnn call; None: none known
    # (result, kernel time, built-in time, reference result) -> the op's performance criteria (criteria.py)
    criteria: Callable[..., list[Any]] | None = None
    explore: Explore | None = None  # None: the app shows no neighbourhood chart

    # -- normalisation used by Case ---------------------------------------------------------------
    def normalize_dtypes(self, dtypes: tuple[str, ...]) -> tuple[str, ...]:
        if not dtypes:
            raise InvalidDtype("dtype", "", self.dtype_help())
        names = self.dtype_fill(tuple(_dt.canonical(d) for d in dtypes))
        if names not in self.dtype_matrix:
            raise InvalidDtype("dtype", ":".join(names), self.dtype_help())
        return names

    def dtype_help(self) -> str:
        if len(self.dtype_matrix) > 12:
            return f"{len(self.dtype_matrix)} combinations, see `workbench ops {self.name}`"
        return ", ".join(":".join(d) for d in self.dtype_matrix)

    def normalize_format(self, fmt: str, shape: tuple[int, ...]) -> str:
        name = (fmt or self.default_format(shape)).strip().upper()
        if name not in self.formats:
            raise InvalidFormat("format", fmt, ", ".join(self.formats))
        return name

    def normalize_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        known = {a.name: a for a in self.attrs}
        for name in attrs:
            if name not in known:
                raise InvalidAttr("attr", name, ", ".join(known) or f"no attributes for {self.name}")
        out: dict[str, Any] = {}
        for a in self.attrs:
            if a.name not in attrs:
                if a.default is REQUIRED:
                    raise InvalidAttr(a.name, None, f"{_KIND[a.type]}: it is a required attribute of {self.name}")
                out[a.name] = a.default
                continue
            out[a.name] = _coerce(a, attrs[a.name])
        return out

    def target_platforms(self) -> tuple[str, ...]:
        """The platforms this op runs on: every platform file whose SoC or short SoC name is a target."""
        return tuple(name for name, plat in PLATFORMS.items() if _platform_matches(plat, self.platforms))

    def validate(self, case: Case) -> None:
        if case.platform not in PLATFORMS:
            raise UnsupportedPlatform("platform", case.platform, ", ".join(PLATFORMS))
        if not _platform_matches(PLATFORMS[case.platform], self.platforms):
            raise UnsupportedPlatform("platform", case.platform, f"{self.name} targets {', '.join(self.platforms)}")
        self.check(self.describe(case), case.attrs)


def _platform_matches(plat: Platform, targets: tuple[str, ...]) -> bool:
    return plat.soc in targets or plat.short_soc in targets


_KIND = {int: "an integer", bool: "a boolean (true/false)", float: "a number"}


def _coerce(a: AttrSpec, value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip().lower()
        if a.type is bool:
            if text not in ("true", "1", "yes", "on", "false", "0", "no", "off"):
                raise InvalidAttr(a.name, value, _KIND[bool])
            return text in ("true", "1", "yes", "on")
        try:
            value = a.type(int(text)) if a.type is int else a.type(text)
        except ValueError:
            raise InvalidAttr(a.name, value, _KIND[a.type]) from None
        return value
    if a.type is bool and isinstance(value, (bool, np.bool_, int)) and int(value) in (0, 1):
        return bool(value)
    if a.type is int and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if a.type is float and isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(value, bool):
        return float(value)
    raise InvalidAttr(a.name, value, _KIND[a.type])
