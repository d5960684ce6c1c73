"""Each op's performance criteria (the performance section of docs/ops/<op>.md), evaluated on a run.

Each op states its own rules (`workbench/ops/<op>/criteria.py`); this module gives them the times they judge, each
with its source (timesource.py):

- the kernel's time: device-measured (msprof task durations attached with profiling.attach, the npu backend's
  events, or a replay of a device record), else predicted by the performance model (npu under the emulated
  runtime, or the emulator's trace). The emulator's wall time is never judged: it times the emulator, not a device.
- the built-in (TBE) op's time: device-measured, else the op's documented offline proxy, else unknown ("needs an
  NPU").

A rule's outcome is "pass", "fail" or "explain" (the design asks for a profiling chart and an analysis instead of
a verdict). It is the criterion's verdict only when every time it rests on is device-measured (a theoretical bound
is part of a rule, not a measurement); otherwise the status is the neutral prediction "would pass", "would fail" or
"would explain". A criterion that lacks a time is "not evaluated" (with what it needs), and a run that failed
precision or faulted gets no verdict at all: "not judged".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.timesource import DEVICE, PREDICTED, THEORETICAL, TimeSource, check

if TYPE_CHECKING:
    from ..running.runner import Result

OUTCOMES = ("pass", "fail", "explain")
PREDICTIONS = tuple(f"would {o}" for o in OUTCOMES)
STATUSES = (*OUTCOMES, *PREDICTIONS, "not evaluated", "not judged")
SMALL_TBE_S, SMALL_GAP_S = 10e-6, 3e-6  # the ops' small-shape rule: T_TBE < 10 µs accepts a gap of at most 3 µs
JUDGED_ON = (DEVICE, THEORETICAL)  # the sources a verdict may rest on


@dataclass(frozen=True)
class Time:
    seconds: float | None
    source: TimeSource | None  # None: no time (`how` says what it needs)
    how: str

    def __post_init__(self) -> None:
        if self.source is not None:
            check("Time", self.source)

    def to_json(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "source": self.source, "how": self.how}


@dataclass(frozen=True)
class Criterion:
    name: str
    rule: str
    status: str
    detail: str
    times: tuple[tuple[str, Time], ...] = ()  # what the status rests on: ("kernel", t), ("TBE", tbe), ...

    def __post_init__(self) -> None:
        assert self.status in STATUSES, self.status

    @property
    def verdict(self) -> bool:
        """A pass/fail/explain the run has earned (device-measured times, or a path the design never gates)."""
        return self.status in OUTCOMES

    @property
    def label(self) -> str:
        """What the badge says: the status, a prediction marked as one."""
        return f"predicted: {self.status}" if self.status in PREDICTIONS else self.status

    @property
    def sources(self) -> str:
        """The times the status rests on and where each comes from: "kernel predicted, TBE proxy" (a prediction:
        "not measured: …")."""
        named = ", ".join(f"{what} {t.source}" for what, t in self.times)
        return f"not measured: {named}" if named and self.status in PREDICTIONS else named

    @property
    def headline(self) -> str:
        """The status as every report words it: "pass (kernel device-measured, TBE device-measured)", "predicted:
        would pass (not measured: kernel predicted, TBE proxy)", "not judged"."""
        return f"{self.label} ({self.sources})" if self.sources else self.label

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rule": self.rule,
            "status": self.status,
            "verdict": self.verdict,
            "detail": self.detail,
            "times": {what: t.to_json() for what, t in self.times},
        }


def judge(name: str, rule: str, outcome: str, detail: str, *times: tuple[str, Time]) -> Criterion:
    """The one place a rule's outcome becomes a status: a verdict when every time it rests on is device-measured
    (or a theoretical bound the rule states), else the neutral prediction "would <outcome>"."""
    assert outcome in OUTCOMES, outcome
    measured = all(t.source in JUDGED_ON for _, t in times) and any(t.source == DEVICE for _, t in times)
    return Criterion(name, rule, outcome if measured else f"would {outcome}", detail, times)


def min_traffic(result: Result) -> int:
    """The least GM traffic a kernel of this run can move: every input read once, every output written once."""
    return sum(a.nbytes for a in result.inputs.values()) + sum(a.nbytes for a in result.outputs.values())


def _msprof(result: Result, key: str) -> Time | None:
    summary = (result.trace.get("msprof") or {}).get(key) or {}
    if not summary.get("tasks"):
        return None
    how = (
        f"measured by msprof: median Task Duration of {summary['tasks']} task(s) in {result.trace['msprof']['source']}"
    )
    return Time(summary["median_us"] * 1e-6, DEVICE, how)


def kernel_time(result: Result) -> Time:
    """The kernel time a criterion judges: device-measured when there is one, else the model's prediction."""
    if profiled := _msprof(result, "kernel"):
        return profiled
    seconds, source = result.timings.get("kernel_s"), result.timing_sources.get("kernel_s")
    npu, replay = result.trace.get("npu"), result.trace.get("replay")
    if seconds is not None and source in (DEVICE, PREDICTED):  # the npu backend's events, or a record of them
        how = f"replayed from {replay['path']}: {replay['timing']}" if replay else str((npu or {}).get("how", ""))
        return Time(seconds, source, how)
    if result.trace.get("cores"):
        from .perfmodel import predict

        p = predict(result.trace, result.case.soc)
        return Time(p.kernel_s, PREDICTED, p.how)
    if replay:
        return Time(None, None, f"replayed {source or 'no'} time: no device time and no trace to predict from")
    return Time(None, None, f"no device time from the {result.backend} backend")


def builtin_time(result: Result) -> Time:
    """The built-in (TBE) op's device-measured time, or None and what it needs (the ops' rules fall back on their
    documented proxy)."""
    if profiled := _msprof(result, "builtin"):
        return profiled
    seconds = result.timings.get("builtin_kernel_s")
    if seconds is not None and result.timing_sources.get("builtin_kernel_s") == DEVICE:
        return Time(seconds, DEVICE, "the built-in op through aclnn on the device, timeline events")
    npu = result.trace.get("npu") or {}
    return Time(None, None, str(npu.get("builtin") or "needs an NPU: the built-in op runs only on a device"))


def theoretical_time(result: Result) -> Time:
    """The memory bound: every input read once and every output written once, at the platform's bandwidth."""
    soc, traffic = result.case.soc, min_traffic(result)
    how = (
        f"memory bound: {traffic} B of minimum GM traffic (every input read once, every output written once) / "
        f"{soc.memory_bandwidth / 1e9:g} GB/s ({soc.bandwidth_source})"
    )
    return Time(traffic / soc.memory_bandwidth, THEORETICAL, how)


NOT_JUDGED = "performance is judged only on a run that passed precision"


def evaluate(result: Result, reference: Result | None = None) -> tuple[Criterion, ...]:
    """Every performance criterion of the op for this run. `reference` is a second run some rules compare with (Cast's
    BF16 rule: the float32-input run on the same shape). A run that failed precision or faulted is not judged."""
    rules = result.case.spec.criteria  # the op's own rules (ops/<op>/criteria.py), found through its Case
    if rules is None:
        return ()
    criteria = rules(result, kernel_time(result), builtin_time(result), reference)
    if result.passed:
        return tuple(criteria)
    why = f"the kernel faulted (exit {result.exit_code})" if result.faulted else "the run failed precision"
    return tuple(Criterion(c.name, c.rule, "not judged", f"{why}: {NOT_JUDGED}") for c in criteria)


def performance_json(result: Result) -> dict[str, Any]:
    """What `--json` says about performance: the kernel, built-in and theoretical times with their sources, and
    every criterion with its status and the times it rests on."""
    return {
        "kernel": kernel_time(result).to_json(),
        "builtin": builtin_time(result).to_json(),
        "theoretical": theoretical_time(result).to_json(),
        "criteria": [c.to_json() for c in evaluate(result)],
    }


def versus_tbe(name: str, t: Time, tbe: Time, share: float, rule: str) -> Criterion:
    """T ≤ T_TBE / share, with the small-shape rule (T_TBE < 10 µs: a gap ≤ 3 µs passes, more explains)."""
    if t.seconds is None or tbe.seconds is None:
        missing = t if t.seconds is None else tbe
        return Criterion(name, rule, "not evaluated", missing.how)
    limit = tbe.seconds / share
    detail = f"kernel {_us(t.seconds)} ({t.source}) vs TBE {_us(tbe.seconds)} ({tbe.source}): limit {_us(limit)}"
    outcome = "pass"
    if t.seconds > limit and tbe.seconds < SMALL_TBE_S:
        gap = t.seconds - tbe.seconds
        outcome = "pass" if gap <= SMALL_GAP_S else "explain"
        detail += f"; small shape: gap {_us(gap)} (≤ 3 µs passes)"
    elif t.seconds > limit:
        outcome = "fail"
    return judge(name, rule, outcome, detail, ("kernel", t), ("TBE", tbe))


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} µs"


def calibrate(result: Result) -> tuple[Any, Any, Time] | None:
    """(prediction, fit, measured time) when the run has both an emulator trace and a device-measured kernel time
    (an msprof CSV attached to an emulator run, say): the model fitted to the measurement and its error before and
    after. None otherwise."""
    t = kernel_time(result)
    if t.source != DEVICE or t.seconds is None or not result.trace.get("cores"):
        return None
    from .perfmodel import fit, predict

    prediction = predict(result.trace, result.case.soc)
    return prediction, fit([(prediction, t.seconds)]), t
