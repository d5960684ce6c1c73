"""Guided analysis: rules stated as data, evaluated on a run into findings that point into docs/analysis.md.

A `Rule` names a metric (a pure function of the run in `METRICS`), a threshold with its source, a comparison, a
message template and a docs anchor. `evaluate` measures every rule whose metric applies to the run; `analyse` keeps
the ones that fire. Nothing here is a verdict: a finding is a hint, with the measured or predicted value next to the
threshold it crossed.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core import shown
from ..core.errors import WorkbenchError
from ..core.timesource import DEVICE, PREDICTED

if TYPE_CHECKING:
    from ..running.runner import Result
    from .perfmodel import Prediction
    from .roofline import Roofline

DOC = "docs/analysis.md"
# The emulator counts a DataCopy as small below this many bytes (kernels/emu/include/ascemu/datacopy.h, mte_count)
SMALL_COPY_BYTES = 512
COMPARISONS: Mapping[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
TRACE = "emulator trace"
PLAN = "tiling plan"


@dataclass(frozen=True)
class Measured:
    """A metric's value, where it comes from (device-measured, predicted, emulator trace, tiling plan), and the
    numbers its message may quote."""

    value: float
    source: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Context:
    """What the metrics read: the run and, when it has an emulator trace, the model's prediction of it."""

    result: Result
    prediction: Prediction | None

    @property
    def cores(self) -> list[Mapping[str, Any]]:
        return list((self.result.trace or {}).get("cores") or [])


def _n(section: Any, key: str) -> float:
    return float(section.get(key, 0) or 0) if isinstance(section, Mapping) else 0.0


def gm_share(ctx: Context) -> Measured | None:
    """Share of the kernel time spent in GM transfers (MTE2 + MTE3: one shared rate): msprof's pipe times over its task
    duration when an attached op_summary has them, else the slowest core's predicted times over the predicted kernel
    time."""
    msprof = ((ctx.result.trace or {}).get("msprof") or {}).get("kernel") or {}
    pipes, task_us = msprof.get("pipes_us") or {}, msprof.get("median_us")
    if task_us and "MTE2" in pipes:
        m2, m3 = pipes["MTE2"] / task_us, pipes.get("MTE3", 0.0) / task_us
        details = {"mte2": m2, "mte3": m3, "core": "medians of the msprof tasks", "time": "device-measured"}
        return Measured(m2 + m3, DEVICE, details)
    p = ctx.prediction
    slow = p.slowest if p else None
    if p is None or slow is None or p.kernel_s <= 0:
        return None
    m2, m3 = slow.mte2_s / p.kernel_s, slow.mte3_s / p.kernel_s
    return Measured(m2 + m3, PREDICTED, {"mte2": m2, "mte3": m3, "core": f"core {slow.core}", "time": "predicted"})


def launch_share(ctx: Context) -> Measured | None:
    """Share of the predicted kernel time that is launch overhead."""
    p = ctx.prediction
    if p is None or p.kernel_s <= 0:
        return None
    return Measured(p.params.launch_s / p.kernel_s, PREDICTED, {"launch_us": p.params.launch_s * 1e6})


def busy_cores(ctx: Context) -> Measured | None:
    """block_dim over the platform's core count (GetCoreNum)."""
    cores = ctx.result.case.soc.core_num
    blocks = ctx.result.plan.block_dim
    return Measured(blocks / cores, PLAN, {"busy": min(blocks, cores), "cores": cores, "block_dim": blocks})


def ub_used(ctx: Context) -> Measured | None:
    """The plan's UB budget: bytes allocated over the UB the kernel may use."""
    plan = ctx.result.plan
    if not plan.ub_capacity:
        return None
    single = sorted(
        {
            q.get("pos", "?")
            for c in ctx.cores
            for q in (c.get("ub") or {}).get("queues", [])
            if q.get("pos") != "TBuf" and _n(q, "num") < 2
        }
    )
    if not ctx.cores:
        consequence = "no emulator trace says whether every queue is double-buffered"
    elif single:
        consequence = f"double buffering does not fit ({', '.join(single)} queues single-buffered)"
    else:
        consequence = "the tiles are as large as UB allows"
    details = {"used": plan.ub_used, "capacity": plan.ub_capacity, "consequence": consequence}
    return Measured(plan.ub_fraction, PLAN, details)


def small_copies(ctx: Context) -> Measured | None:
    """Share of the DataCopy calls (MTE2 and MTE3, all cores) that moved under SMALL_COPY_BYTES."""
    ops = sum(_n(c.get(p), "ops") for c in ctx.cores for p in ("mte2", "mte3"))
    if not ops:
        return None
    small = sum(_n(c.get(p), "small_ops") for c in ctx.cores for p in ("mte2", "mte3"))
    return Measured(small / ops, TRACE, {"small": int(small), "ops": int(ops), "bytes": SMALL_COPY_BYTES})


def single_repeats(ctx: Context) -> Measured | None:
    """Share of the vector instructions issued with a single repeat (256 B or less), all cores."""
    entries = [e for c in ctx.cores for e in c.get("vec", []) or [] if isinstance(e, Mapping)]
    calls = sum(_n(e, "calls") for e in entries)
    if not calls or not all("single_repeat_calls" in e for e in entries):
        return None  # a trace from before the emulator counted them (a replayed record) says nothing
    single = sum(_n(e, "single_repeat_calls") for e in entries)
    return Measured(single / calls, TRACE, {"single": int(single), "calls": int(calls)})


METRICS: Mapping[str, Callable[[Context], Measured | None]] = {
    "gm_share": gm_share,
    "launch_share": launch_share,
    "busy_cores": busy_cores,
    "ub_used": ub_used,
    "small_copies": small_copies,
    "single_repeats": single_repeats,
}


@dataclass(frozen=True)
class Rule:
    """One check: `metric` (a key of METRICS) compared with `threshold`; `message` is formatted with `value`,
    `threshold` and the metric's details; `doc` is the anchor in docs/analysis.md that says what to do."""

    id: str
    title: str
    metric: str
    threshold: float
    comparison: str
    message: str
    doc: str
    threshold_source: str

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise WorkbenchError(f"Rule {self.id!r} metric", self.metric, ", ".join(METRICS))
        if self.comparison not in COMPARISONS:
            raise WorkbenchError(f"Rule {self.id!r} comparison", self.comparison, ", ".join(COMPARISONS))
        if isinstance(self.threshold, bool) or not math.isfinite(self.threshold):
            raise WorkbenchError(f"Rule {self.id!r} threshold", self.threshold, "a finite number")


RULES: tuple[Rule, ...] = (
    Rule(
        "gm-bound",
        "GM-transfer bound",
        "gm_share",
        0.7,
        ">=",
        "MTE-bound: {value:.0%} of {time} time in MTE2 + MTE3 (MTE2 {mte2:.0%}, MTE3 {mte3:.0%}; {core})",
        f"{DOC}#gm-bound",
        "[CHOICE] 70 %: most of the kernel is the GM transfers, so only fewer or larger transfers make it faster",
    ),
    Rule(
        "launch-bound",
        "launch bound",
        "launch_share",
        0.5,
        ">=",
        "launch-bound: {value:.0%} of predicted time is the {launch_us:.3g} µs launch overhead",
        f"{DOC}#launch-bound",
        "[CHOICE] 50 %: the launch costs more than the work; launch_s is the model's assumed 3 µs "
        "(docs/performance-model.md#parameters)",
    ),
    Rule(
        "idle-cores",
        "idle cores",
        "busy_cores",
        0.75,
        "<",
        "{busy} of {cores} cores busy (block_dim {block_dim})",
        f"{DOC}#idle-cores",
        "[CHOICE] 75 %: a quarter of the chip idle; the core count is GetCoreNum of the platform file",
    ),
    Rule(
        "ub-full",
        "UB nearly full",
        "ub_used",
        0.9,
        ">=",
        "UB {value:.0%} used ({used} of {capacity} B): {consequence}",
        f"{DOC}#ub-full",
        "[CHOICE] 90 %: too little left to add a buffer or a second one per queue",
    ),
    Rule(
        "small-copies",
        "small DataCopy calls",
        "small_copies",
        0.5,
        ">=",
        "{small} of {ops} DataCopy calls under {bytes} B",
        f"{DOC}#small-copies",
        f"[CHOICE] half of the copies; 'small' is the emulator's own {SMALL_COPY_BYTES} B "
        "(kernels/emu/include/ascemu/datacopy.h, mte_count)",
    ),
    Rule(
        "repeat-one",
        "vector instructions with repeat 1",
        "single_repeats",
        0.5,
        ">=",
        "{single} of {calls} vector instructions with repeat 1 (256 B or less each)",
        f"{DOC}#repeat-one",
        "[CHOICE] half of the vector instructions",
    ),
)


@dataclass(frozen=True)
class Finding:
    """A rule measured on a run: the value next to its threshold, where the value comes from, the message and the
    docs anchor. `fired` says whether the value crossed the threshold."""

    rule: Rule
    value: float
    threshold: float
    source: str
    message: str
    doc: str
    fired: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule.id,
            "title": self.rule.title,
            "value": self.value,
            "threshold": self.threshold,
            "comparison": self.rule.comparison,
            "threshold_source": self.rule.threshold_source,
            "source": self.source,
            "message": self.message,
            "doc": self.doc,
            "fired": self.fired,
        }


def context(result: Result, prediction: Prediction | None = None) -> Context:
    trace = result.trace or {}
    if prediction is None and trace.get("cores"):
        from .perfmodel import predict

        prediction = predict(trace, result.case.soc)
    return Context(result, prediction)


def evaluate(
    result: Result, rules: Sequence[Rule] = RULES, prediction: Prediction | None = None
) -> tuple[Finding, ...]:
    """Every rule whose metric applies to the run, fired or not, in the rules' order."""
    ctx = context(result, prediction)
    out = []
    for rule in rules:
        measured = METRICS[rule.metric](ctx)
        if measured is None:
            continue
        fired = COMPARISONS[rule.comparison](measured.value, rule.threshold)
        message = rule.message.format(value=measured.value, threshold=rule.threshold, **measured.details)
        out.append(Finding(rule, measured.value, rule.threshold, measured.source, message, rule.doc, fired))
    return tuple(out)


def fired_findings(
    result: Result, rules: Sequence[Rule] = RULES, prediction: Prediction | None = None
) -> tuple[Finding, ...]:
    """The findings that fired."""
    return tuple(f for f in evaluate(result, rules, prediction) if f.fired)


@dataclass(frozen=True)
class Analysis:
    """A run's guided analysis: every rule that applied (fired or not) and the roofline. Shown as text in a terminal
    and as HTML in a notebook (view/render/analysis.py)."""

    findings: tuple[Finding, ...]
    roofline: Roofline

    @property
    def fired(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.fired)

    def text(self) -> str:
        return shown.render(self, "text")

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    def to_json(self) -> dict[str, Any]:
        from .roofline import roofline_json

        return {"findings": [f.to_json() for f in self.findings], "roofline": roofline_json(self.roofline)}


def analysis_of(result: Result) -> Analysis:
    """The findings and the roofline of a run, from one prediction of its trace."""
    from .roofline import roofline

    ctx = context(result)
    return Analysis(evaluate(result, RULES, ctx.prediction), roofline(result, ctx.prediction))
