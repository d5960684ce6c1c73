"""Each op's performance criteria (the performance section of docs/ops/<op>.md), evaluated on a run as badges.

Each op states its own rules (`workbench/ops/<op>/criteria.py`); this module
gives them the two times they judge, each labelled with how it was obtained:

- the kernel's time: measured on a device (msprof task durations attached with profiling.attach, the npu backend's
  events, or a replay of a device record), else predicted by the
  performance model (npu under the emulated runtime, or the emulator's trace). The emu backend's own wall time is
  never used: it times the emulator, not a device.
- the built-in (TBE) op's time: measured on a device, else the op's documented offline proxy (labelled so), else
  unknown ("needs an NPU").

A criterion's status is "pass", "fail", "explain" (the design asks for a profiling chart and an analysis instead of
a verdict) or "not evaluated" (with what it needs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import Result

STATUSES = ("pass", "fail", "explain", "not evaluated")
SMALL_TBE_S, SMALL_GAP_S = 10e-6, 3e-6  # the ops' small-shape rule: T_TBE < 10 µs accepts a gap of at most 3 µs


@dataclass(frozen=True)
class Time:
    seconds: float | None
    basis: str  # "measured", "predicted", "proxy" or "" (unknown)
    how: str


@dataclass(frozen=True)
class Criterion:
    name: str
    rule: str
    status: str
    detail: str
    basis: str = ""

    def __post_init__(self) -> None:
        assert self.status in STATUSES, self.status


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
    return Time(summary["median_us"] * 1e-6, "measured", how)


def kernel_time(result: Result) -> Time:
    npu, replay = result.trace.get("npu"), result.trace.get("replay")
    seconds = result.timings.get("kernel_s")
    if profiled := _msprof(result, "kernel"):
        return profiled
    if npu:
        return Time(seconds, npu["timing"], npu["how"])
    if replay:
        timing = str(replay.get("timing", ""))
        basis = next((b for b in ("measured", "predicted") if timing.startswith(b)), "")
        return Time(seconds if basis else None, basis, f"replayed: {timing or 'emulator wall time, not a device time'}")
    if result.trace.get("cores"):
        from .perfmodel import predict

        p = predict(result.trace, result.case.soc)
        return Time(p.kernel_s, "predicted", p.how)
    return Time(None, "", f"no device time from the {result.backend} backend")


def builtin_time(result: Result) -> Time:
    if profiled := _msprof(result, "builtin"):
        return profiled
    seconds = result.timings.get("builtin_kernel_s")
    if seconds is not None:
        return Time(seconds, "measured", "the built-in op through aclnn on the device, timeline events")
    npu = result.trace.get("npu") or {}
    return Time(None, "", str(npu.get("builtin") or "needs an NPU: the built-in op runs only on a device"))


def evaluate(result: Result, reference: Result | None = None) -> tuple[Criterion, ...]:
    """Every performance criterion of the op for this run. `reference` is a second run some rules compare with (Cast's
    BF16 rule: the float32-input run on the same shape)."""
    from .registry import get_op

    rules = get_op(result.case.op).criteria
    if rules is None or result.exit_code != 0:
        return ()
    return tuple(rules(result, kernel_time(result), builtin_time(result), reference))


def basis_of(*times: Time) -> str:
    """The weakest basis among the times a verdict rests on: one predicted input makes the verdict predicted."""
    for basis in ("proxy", "predicted", "measured"):
        if any(t.basis == basis for t in times):
            return basis
    return ""


def versus_tbe(name: str, t: Time, tbe: Time, share: float, rule: str) -> Criterion:
    """T ≤ T_TBE / share, with the small-shape rule (T_TBE < 10 µs: a gap ≤ 3 µs passes, more explains)."""
    if t.seconds is None or tbe.seconds is None:
        missing = t if t.seconds is None else tbe
        return Criterion(name, rule, "not evaluated", missing.how)
    limit = tbe.seconds / share
    detail = f"kernel {_us(t.seconds)} ({t.basis}) vs TBE {_us(tbe.seconds)} ({tbe.basis}): limit {_us(limit)}"
    if t.seconds <= limit:
        return Criterion(name, rule, "pass", detail, basis_of(t, tbe))
    if tbe.seconds < SMALL_TBE_S:
        gap = t.seconds - tbe.seconds
        status = "pass" if gap <= SMALL_GAP_S else "explain"
        return Criterion(name, rule, status, f"{detail}; small shape: gap {_us(gap)} (≤ 3 µs passes)", basis_of(t, tbe))
    return Criterion(name, rule, "fail", detail, basis_of(t, tbe))


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} µs"


def calibrate(result: Result) -> tuple[Any, Any, Time] | None:
    """(prediction, fit, measured time) when the run has both an emulator trace and a measured kernel time (an
    msprof CSV attached to an emulator run, say): the model fitted to the measurement and its error before and
    after. None otherwise."""
    t = kernel_time(result)
    if t.basis != "measured" or t.seconds is None or not result.trace.get("cores"):
        return None
    from .perfmodel import fit, predict

    prediction = predict(result.trace, result.case.soc)
    return prediction, fit([(prediction, t.seconds)]), t
