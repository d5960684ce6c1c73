"""Roofline: what a run achieved on each pipe against the platform's ceilings, every number with its source.

Work comes from the emulator's trace (bytes on MTE2 and MTE3, vector repeats x 256 B, scalar accesses, summed over
the cores; for a device run or a replayed record, the emulator's trace of the same kernel and inputs,
running/work.py); the time it is divided by is the kernel time, predicted by the performance model and, when the run has
one, measured on a device (criteria.kernel_time: an attached msprof op_summary, the npu backend, a replayed record).
The ceilings are chip-wide: the platform's memory bandwidth for MTE2 and MTE3 (one bandwidth they share; a theoretical
figure), and the performance model's vector and scalar rates times the platform's core count (model parameters, so
labelled predicted). docs/analysis.md#roofline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.platform import Platform, get_platform
from ..core.timesource import DEVICE, PREDICTED, THEORETICAL, TimeSource
from .perfmodel import PIPES, REPEAT_BYTES, ModelParams, Prediction, params_for, predict

if TYPE_CHECKING:
    from ..running.runner import Result


@dataclass(frozen=True)
class Ceiling:
    """A chip-wide peak rate: `rate` in `unit` per second, and where it comes from."""

    name: str
    rate: float
    unit: str  # "B" or "accesses"
    source: str
    kind: TimeSource  # theoretical: a platform figure; predicted: the performance model's parameters


@dataclass(frozen=True)
class PipePoint:
    """One pipe of the kernel against its ceiling, for one kernel time (`time_source`)."""

    pipe: str  # MTE2, V, MTE3, S
    work: float  # in `ceiling.unit`: GM bytes, vector bytes (repeats x 256 B) or scalar accesses, all cores
    busy_s: float  # the pipe's busy time: the slowest core's predicted one, or msprof's (PipeUtilization)
    busy_source: TimeSource
    kernel_s: float  # the kernel time the work is divided by
    time_source: TimeSource
    ceiling: Ceiling

    @property
    def busy_share(self) -> float:
        """Busy time over the kernel time."""
        return self.busy_s / self.kernel_s if self.kernel_s > 0 else 0.0

    @property
    def achieved(self) -> float:
        """Work per second of kernel time."""
        return self.work / self.kernel_s if self.kernel_s > 0 else 0.0

    @property
    def utilisation(self) -> float:
        """Achieved / ceiling: 1.0 means the pipe ran at the platform's peak for the whole kernel."""
        return self.achieved / self.ceiling.rate if self.ceiling.rate > 0 else 0.0


@dataclass(frozen=True)
class KernelPoint:
    """The whole kernel on the classic roofline: vector bytes per GM byte against vector bytes per second."""

    kernel_s: float
    time_source: TimeSource
    how: str
    gm_bytes: float
    vector_bytes: float

    @property
    def intensity(self) -> float | None:
        """Vector bytes per GM byte; None when the kernel moved no GM bytes."""
        return self.vector_bytes / self.gm_bytes if self.gm_bytes > 0 else None

    @property
    def achieved(self) -> float:
        return self.vector_bytes / self.kernel_s if self.kernel_s > 0 else 0.0


@dataclass(frozen=True)
class Roofline:
    """Per pipe and per kernel: achieved against the platform's ceilings, for each kernel time the run has."""

    platform: str
    cores: int
    memory: Ceiling
    vector: Ceiling
    scalar: Ceiling
    pipes: tuple[PipePoint, ...]  # PIPES in order, for each time source (predicted first)
    kernels: tuple[KernelPoint, ...]
    note: str  # why points are missing, or ""

    def bound(self, source: TimeSource = PREDICTED) -> str | None:
        """The pipe closest to its ceiling for that time source (MTE2 and MTE3 share one bandwidth: "MTE")."""
        points = [p for p in self.pipes if p.time_source == source]
        if not points:
            return None
        shared = sum(p.utilisation for p in points if p.pipe in ("MTE2", "MTE3"))
        scores = {"MTE": shared, **{p.pipe: p.utilisation for p in points if p.pipe in ("V", "S")}}
        return max(scores, key=lambda k: scores[k])

    def ridge(self) -> float:
        """The intensity (vector B per GM B) where the memory roof meets the vector roof."""
        return self.vector.rate / self.memory.rate if self.memory.rate > 0 else 0.0


def ceilings(platform: Platform | str, params: ModelParams | None = None) -> tuple[Ceiling, Ceiling, Ceiling]:
    """(memory, vector, scalar) chip-wide peaks of a platform, each with its source."""
    plat = get_platform(platform)
    p = params or params_for(plat)
    cores, src = plat.core_num, p.sources
    memory = Ceiling(
        "GM bandwidth",
        plat.memory_bandwidth,
        "B",
        f"memory_bandwidth of {plat.soc}: {plat.bandwidth_source}",
        THEORETICAL,
    )
    per_core = f"{cores} cores (GetCoreNum of {plat.soc}'s platform file) x clock_hz ({src['clock_hz']})"
    vector = Ceiling(
        "vector",
        cores * p.clock_hz * p.vec_bytes_per_cycle,
        "B",
        f"{per_core} x vec_bytes_per_cycle ({src['vec_bytes_per_cycle']})",
        PREDICTED,
    )
    scalar = Ceiling(
        "scalar",
        cores * p.clock_hz / p.scalar_ub_cycles,
        "accesses",
        f"{per_core} / ({src['scalar_ub_cycles']})",
        PREDICTED,
    )
    return memory, vector, scalar


def _n(section: Any, key: str) -> float:
    return float(section.get(key, 0) or 0) if isinstance(section, Mapping) else 0.0


def trace_work(trace: Mapping[str, Any]) -> dict[str, float]:
    """Work per pipe summed over the trace's cores: GM bytes (MTE2, MTE3), vector bytes (V), scalar accesses (S)."""
    work = dict.fromkeys(PIPES, 0.0)
    for core in trace.get("cores", []) or []:
        work["MTE2"] += _n(core.get("mte2"), "bytes")
        work["MTE3"] += _n(core.get("mte3"), "bytes")
        vec = [e for e in core.get("vec", []) or [] if isinstance(e, Mapping)]
        work["V"] += sum(_n(e, "repeats") + _n(e, "internal_repeats") for e in vec) * REPEAT_BYTES
        work["V"] += _n(core.get("ub2ub"), "bytes")  # priced as vector work by the model too
        work["S"] += sum(_n(core.get("scalar"), k) for k in ("ub_get", "ub_set", "gm_get", "gm_set"))
    return work


def roofline(result: Result, prediction: Prediction | None = None) -> Roofline:
    """The roofline of a run (pure: reads `result.trace`, its platform and its kernel times)."""
    from .criteria import kernel_time

    plat = result.case.soc
    memory, vector, scalar = ceilings(plat)
    trace = result.trace or {}
    if not trace.get("cores"):
        why = "no emulator trace (a device run or a replayed record without one): no work per pipe to plot"
        if trace.get("work_from_error"):
            why += f" ({trace['work_from_error']})"
        return Roofline(plat.soc, plat.core_num, memory, vector, scalar, (), (), why)
    pred = prediction or predict(trace, plat)
    work = trace_work(trace)
    slow = pred.slowest
    times: list[tuple[float, TimeSource, str]] = [(pred.kernel_s, PREDICTED, pred.how)]
    measured = kernel_time(result)
    note = "no device time: the points are predicted (attach an msprof op_summary for measured ones)"
    if measured.source == DEVICE and measured.seconds:
        times.append((measured.seconds, DEVICE, measured.how))
        note = ""
    if trace.get("work_from"):  # a device run or a record: its work per pipe is the emulator's count (running/work.py)
        note = "; ".join(filter(None, (note, str(trace["work_from"]))))
    ceiling_of = {"MTE2": memory, "MTE3": memory, "V": vector, "S": scalar}
    measured_busy = ((trace.get("msprof") or {}).get("kernel") or {}).get("pipes_us") or {}

    def busy(pipe: str, source: TimeSource) -> tuple[float, TimeSource]:
        if source == DEVICE and pipe in measured_busy:
            return measured_busy[pipe] * 1e-6, DEVICE
        return (slow.busy[pipe] if slow else 0.0), PREDICTED

    pipes = tuple(
        PipePoint(pipe, work[pipe], *busy(pipe, source), seconds, source, ceiling_of[pipe])
        for seconds, source, _ in times
        for pipe in PIPES
    )
    gm = work["MTE2"] + work["MTE3"]
    kernels = tuple(KernelPoint(seconds, source, how, gm, work["V"]) for seconds, source, how in times)
    return Roofline(plat.soc, plat.core_num, memory, vector, scalar, pipes, kernels, note)


def roofline_json(rl: Roofline) -> dict[str, Any]:
    """What `--json` says: the ceilings with their sources, every pipe point and every kernel point."""
    ceiling = {c.name: {"rate": c.rate, "unit": f"{c.unit}/s", "kind": c.kind, "source": c.source} for c in
               (rl.memory, rl.vector, rl.scalar)}  # fmt: skip
    pipes = [
        {
            "pipe": p.pipe,
            "time_source": p.time_source,
            "work": p.work,
            "unit": p.ceiling.unit,
            "kernel_s": p.kernel_s,
            "achieved": p.achieved,
            "ceiling": p.ceiling.name,
            "utilisation": p.utilisation,
            "busy_s": p.busy_s,
            "busy_source": p.busy_source,
        }
        for p in rl.pipes
    ]
    kernels = [
        {"time_source": k.time_source, "kernel_s": k.kernel_s, "how": k.how, "gm_bytes": k.gm_bytes,
         "vector_bytes": k.vector_bytes, "intensity": k.intensity, "bound": rl.bound(k.time_source)}
        for k in rl.kernels
    ]  # fmt: skip
    return {"platform": rl.platform, "cores": rl.cores, "ceilings": ceiling, "pipes": pipes, "kernels": kernels,
            "note": rl.note}  # fmt: skip
