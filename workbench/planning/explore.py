"""Where a tiling decision changes: the neighbourhood of a case along the op's explored dimension, and what a
change of the controls switched (the tiling panel's banner). Pure: plan() only, microseconds a plan.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import WorkbenchError
from ..core.tiling import TilingPlan
from .case import Case
from .pipeline import plan
from .registry import get_op

SAMPLES = 40  # values sampled along the dimension (log-spaced), before the switches are pinned down exactly
SPAN = 16  # the neighbourhood runs from 1 to value x SPAN (log-spaced: the small values are where paths change)


@dataclass(frozen=True)
class Point:
    value: int
    path: str
    quantity: float
    block_dim: int


@dataclass(frozen=True)
class Switch:
    """The tiling path changes from `before` at `at - 1` to `after` at `at`, by `rule` (the new plan's reason)."""

    at: int
    before: str
    after: str
    rule: str


@dataclass(frozen=True)
class Neighbourhood:
    name: str  # the dimension, as the op's docs call it
    dim: int  # its index in the shape
    current: int
    label: str  # the quantity's title
    points: tuple[Point, ...]
    switches: tuple[Switch, ...]


def _quantity(p: TilingPlan, quantity: str) -> float:
    if quantity == "ub_percent":
        return round(100 * p.ub_fraction, 2)
    return float(p.fields[quantity])


def _with(case: Case, dim: int, value: int) -> Case:
    shape = list(case.shape)
    shape[dim] = value
    return dataclasses.replace(case, shape=tuple(shape))


def _plan_at(case: Case, dim: int, value: int, what_if: dict[str, int]) -> TilingPlan | None:
    try:
        return plan(_with(case, dim, value), **what_if)
    except WorkbenchError:  # a value the op refuses, or nothing fits: no point there
        return None


def neighbourhood(case: Case, what_if: dict[str, int] | None = None, samples: int = SAMPLES) -> Neighbourhood | None:
    """The op's explored quantity and path over its explored dimension around `case` (with the same what-if), each
    path switch found exactly by bisection. None when the op declares no dimension or the case has no such axis."""
    explore = get_op(case.op).explore
    if explore is None or not -len(case.shape) <= explore.dim < len(case.shape):
        return None
    what_if = what_if or {}
    dim = explore.dim % len(case.shape)
    current = case.shape[dim]
    top = max(current * SPAN, 64)
    grid = np.unique(np.geomspace(1, top, samples).round().astype(np.int64))
    plans = {v: p for v in sorted({*grid.tolist(), current}) if (p := _plan_at(case, dim, v, what_if)) is not None}
    switches = []
    values = sorted(plans)
    for lo, hi in itertools.pairwise(values):
        if plans[lo].tiling_name != plans[hi].tiling_name:
            last, first = _bisect(case, dim, lo, hi, plans, what_if)
            before, after = plans[last], plans[first]
            switches.append(Switch(first, before.tiling_name, after.tiling_name, rule(before, after)))
    points = tuple(
        Point(v, p.tiling_name, _quantity(p, explore.quantity), p.block_dim) for v, p in sorted(plans.items())
    )
    return Neighbourhood(explore.name, dim, current, explore.label, points, tuple(switches))


def _bisect(
    case: Case, dim: int, lo: int, hi: int, plans: dict[int, TilingPlan], what_if: dict[str, int]
) -> tuple[int, int]:
    """The adjacent values lo, lo + 1 between which the path of plans[lo] ends (plans gains what it plans)."""
    start = plans[lo].tiling_name
    while hi - lo > 1:
        mid = (lo + hi) // 2
        p = _plan_at(case, dim, mid, what_if)
        if p is None:
            break
        plans[mid] = p
        lo, hi = (mid, hi) if p.tiling_name == start else (lo, mid)
    return lo, hi


_NUMBERS = re.compile(r"\d+")


def rule(before: TilingPlan, after: TilingPlan) -> str:
    """The reason `after` gives that `before` did not: its first note that differs in more than its numbers (the
    rule that decided), else its first note."""
    seen = {_NUMBERS.sub("#", n) for n in before.notes}
    fresh = [n for n in after.notes if _NUMBERS.sub("#", n) not in seen and not n.startswith("what-if:")]
    return (fresh or list(after.notes) or [""])[0]


def change(before: Case, after: Case, what_if_before: dict[str, int], what_if_after: dict[str, int]) -> str:
    """What the user changed between two cases, in their words: "C = 4705", "dtype float32 → float16", ..."""
    if before.op != after.op:
        return f"op {before.op} → {after.op}"
    parts = []
    if before.shape != after.shape:
        dim = _only_changed_dim(before, after)
        explore = get_op(after.op).explore
        if dim is not None and explore is not None and dim == explore.dim % len(after.shape):
            parts.append(f"{explore.name} = {after.shape[dim]}")
        else:
            parts.append(f"shape {'x'.join(map(str, before.shape))} → {'x'.join(map(str, after.shape))}")
    if before.dtypes != after.dtypes:
        parts.append(f"dtype {':'.join(before.dtypes)} → {':'.join(after.dtypes)}")
    for field in ("format", "platform"):
        if getattr(before, field) != getattr(after, field):
            parts.append(f"{field} {getattr(before, field)} → {getattr(after, field)}")
    parts += [f"{k} = {v}" for k, v in after.attrs.items() if before.attrs.get(k) != v]
    names = {"ub_size": "UB size", "ub_reserve": "reserve", "core_count": "cores"}
    for k in sorted({*what_if_before, *what_if_after}):
        if what_if_before.get(k) != what_if_after.get(k):
            parts.append(f"what-if {names.get(k, k)} = {what_if_after.get(k, 'platform value')}")
    return ", ".join(parts) or "nothing"


@dataclass(frozen=True)
class PathSwitch:
    """A change of the controls that switched the tiling path: the tiling panel's banner."""

    before: str
    after: str
    at: str  # what changed, e.g. "C = 4705"
    rule: str
    exact: str = ""  # where the switch lies when the dimension jumped past it: "between C = 4704 and 4705"

    @property
    def headline(self) -> str:
        where = f"{self.at} (the path changes {self.exact})" if self.exact else self.at
        return f"{self.before} → {self.after} at {where}"

    def __str__(self) -> str:
        return f"{self.headline}: {self.rule}"


def path_switch(
    before: tuple[Case, TilingPlan, dict[str, int]], after: tuple[Case, TilingPlan, dict[str, int]]
) -> PathSwitch | None:
    """The switch from the plan `before` to the plan `after` (each with its case and what-if), or None when the
    path and the tiling key stayed. When only the explored dimension changed and it jumped, the exact value where
    the path switched is found by bisection."""
    (c0, p0, w0), (c1, p1, w1) = before, after
    if c0.op != c1.op or (p0.tiling_name == p1.tiling_name and p0.tiling_key == p1.tiling_key):
        return None
    at = change(c0, c1, w0, w1)
    exact = ""
    explore = get_op(c1.op).explore
    dim = _only_changed_dim(c0, c1)
    if explore is not None and w0 == w1 and dim == explore.dim % len(c1.shape):
        lo, hi = sorted((c0.shape[dim], c1.shape[dim]))
        if dataclasses.replace(c0, shape=c1.shape) == c1 and hi - lo > 1:
            plans: dict[int, Any] = {c0.shape[dim]: p0, c1.shape[dim]: p1}
            last, first = _bisect(c1, dim, lo, hi, plans, w1)
            exact = f"between {explore.name} = {last} and {first}"
    return PathSwitch(p0.tiling_name, p1.tiling_name, at, rule(p0, p1), exact)


def _only_changed_dim(before: Case, after: Case) -> int | None:
    """The one shape index whose extent changed, None when the rank changed or several did."""
    if len(before.shape) != len(after.shape):
        return None
    differ = [i for i, (a, b) in enumerate(zip(before.shape, after.shape, strict=True)) if a != b]
    return differ[0] if len(differ) == 1 else None
