"""Performance model: an emulator trace and a platform -> per-core pipe times, kernel time and the memory bound.

The emulator has no clock; its per-core trace counts what each pipe did (bytes and copies on MTE2/MTE3, vector
repeats, scalar accesses). `predict` prices those counts with `ModelParams` and combines the pipes per core:
overlapped when every queue is double-buffered, back to back otherwise. `fit` rescales the parameters to measured
kernel times. Every parameter, its default and its source: docs/performance-model.md#parameters.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from ..core.errors import WorkbenchError
from ..core.platform import Platform, get_platform

REPEAT_BYTES = 256  # one vector repeat covers 256 B (the trace counts repeats as ceil(count * max(sizeof) / 256))
_MODEL_DOC = "docs/performance-model.md#parameters"
_POSITIVE = ("clock_hz", "bandwidth", "eta", "mte_rate", "vec_bytes_per_cycle")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class ModelParams:
    """Every constant of the cost model; `sources` says where each value comes from (or that it is assumed)."""

    clock_hz: float  # core clock: converts vector and scalar cycles to seconds
    bandwidth: float  # whole-chip GM bandwidth, B/s
    eta: float  # share of `bandwidth` a kernel reaches
    mte_rate: float  # beta: one core's GM<->UB rate cap, B/s
    mte_op_s: float  # alpha: fixed cost of one DataCopy, s
    atomic_factor: float  # gamma: an atomically added byte costs gamma plain bytes
    mte_shared: bool  # MTE2 and MTE3 draw on one per-core rate, so their times add even when overlapped
    vec_bytes_per_cycle: float  # V: a repeat (256 B) costs 256 / V cycles unless repeat_cycles overrides it
    vec_call_cycles: float  # alpha_v: fixed cycles per vector instruction
    repeat_cycles: Mapping[str, float] = field(hash=False)  # rho overrides: "Exp" or "Cast:float:half" -> cycles
    scalar_ub_cycles: float  # sigma_ub: one scalar Get/SetValue
    scalar_gm_miss_cycles: float  # sigma_gm: one scalar data-cache line miss
    launch_s: float  # launch overhead added once per kernel
    sources: Mapping[str, str] = field(hash=False)

    def __post_init__(self) -> None:
        for name in (f.name for f in fields(self) if f.type == "float"):
            value, positive = getattr(self, name), name in _POSITIVE
            if not _finite(value) or value < 0 or (positive and value == 0):
                raise WorkbenchError(f"ModelParams.{name}", value, f"a finite number {'> 0' if positive else '>= 0'}")
        if not all(_finite(v) and v >= 0 for v in self.repeat_cycles.values()):
            raise WorkbenchError("ModelParams.repeat_cycles", dict(self.repeat_cycles), "cycles per repeat >= 0")
        given = dict(self.sources)
        unsourced = [f.name for f in fields(self) if f.name not in given and f.name != "sources"]
        missing = dict.fromkeys(unsourced, "given by the caller (no source recorded)")
        object.__setattr__(self, "sources", MappingProxyType({**missing, **given}))
        object.__setattr__(self, "repeat_cycles", MappingProxyType(dict(self.repeat_cycles)))

    def repeat_cost(self, api: str, src: str, dst: str) -> float:
        """Cycles per vector repeat of `api` on (src, dst)."""
        for key in (f"{api}:{src}:{dst}", api):
            if key in self.repeat_cycles:
                return float(self.repeat_cycles[key])
        return REPEAT_BYTES / self.vec_bytes_per_cycle


PIPES = ("MTE2", "V", "MTE3", "S")  # the pipes the model prices, in the order data flows through a core


@dataclass(frozen=True)
class PipeTimes:
    """One core (block) of a launch: busy seconds per pipe and the core's predicted time."""

    core: int
    mte2_s: float
    vec_s: float
    mte3_s: float
    scalar_s: float
    overlapped: bool  # every TQue double-buffered: the pipes run concurrently
    core_s: float
    tiles: int = 1  # loads per input queue: how many stages the pipeline fills and drains over
    start_s: float = 0.0  # > 0 only when there are more blocks than physical cores

    @property
    def busy(self) -> dict[str, float]:
        """Busy seconds per pipe, keyed by PIPES."""
        return {"MTE2": self.mte2_s, "V": self.vec_s, "MTE3": self.mte3_s, "S": self.scalar_s}


@dataclass(frozen=True)
class Prediction:
    """What `predict` says about one launch; `how` is the label to show next to its figures."""

    cores: tuple[PipeTimes, ...]
    kernel_s: float  # slowest core + launch overhead
    bound_s: float  # every GM byte the trace moved / the chip bandwidth (eta = 1)
    bottleneck: str  # "MTE2", "V", "MTE3", "S" (the slowest core's busiest pipe) or "launch"
    params: ModelParams
    how: str
    gm_bytes: int
    physical_cores: int

    @property
    def slowest(self) -> PipeTimes | None:
        return max(self.cores, key=_end, default=None)


def params_for(platform: Platform | str) -> ModelParams:
    """Default parameters for a SoC: sourced values from the platform file, named assumptions for the rest."""
    plat = get_platform(platform)
    coupled = plat.traits.coupled  # 310P-style AI Core vs A2 vector core
    if plat.clock_mhz:
        clock, clock_src = plat.clock_mhz * 1e6, f"cube_freq of {plat.soc}'s platform file"
    elif coupled:
        clock, clock_src = 1.0e9, f"assumed 1.0 GHz: no public AI Core clock for {plat.soc} ({_MODEL_DOC})"
    else:
        clock, clock_src = 1.8e9, "assumed 1.8 GHz, as docs/ops/softmax_cross_entropy_with_logits.md §6 does"
    if coupled:
        eta, eta_src = 0.5, "the utilisation of docs/ops/embedding_dense_grad.md §6 and docs/ops/cast.md §7"
        rate = plat.memory_bandwidth / max(plat.core_num, 1)
        rate_src = f"assumed: an equal share of the chip bandwidth per AI Core, no public per-core rate ({_MODEL_DOC})"
    else:
        eta, eta_src = 1.0, "the bandwidth is used as BW_eff (docs/ops/softmax_cross_entropy_with_logits.md §6)"
        rate = 32 * clock
        rate_src = "ddr_rate 32 B/cycle/core (docs/hardware.md#memory-bandwidth) x clock_hz"
    assumed = f"assumed ({_MODEL_DOC})"
    return ModelParams(
        clock_hz=clock,
        bandwidth=plat.memory_bandwidth,
        eta=eta,
        mte_rate=rate,
        mte_op_s=0.0,
        atomic_factor=1.0,
        mte_shared=True,
        vec_bytes_per_cycle=256.0,
        vec_call_cycles=0.0,
        repeat_cycles={},
        scalar_ub_cycles=1.0,
        scalar_gm_miss_cycles=500.0,
        launch_s=3e-6,
        sources={
            "clock_hz": clock_src,
            "bandwidth": plat.bandwidth_source,
            "eta": eta_src,
            "mte_rate": rate_src,
            "mte_op_s": f"{assumed}: 0, no public per-DataCopy cost; fit() or a device calibration sets it",
            "atomic_factor": f"{assumed}: atomics land in L2, priced as writes (docs/ops/embedding_dense_grad.md §6)",
            "mte_shared": "the op models count read and written bytes against one bandwidth (docs/ops/cast.md §7)",
            "vec_bytes_per_cycle": f"{assumed}: one 256 B repeat per cycle",
            "vec_call_cycles": f"{assumed}: 0, the Cast model prices repeats only",
            "repeat_cycles": "no per-API cost is public: every repeat costs 256 / vec_bytes_per_cycle cycles",
            "scalar_ub_cycles": f"{assumed}: one cycle per scalar access, a lower bound",
            "scalar_gm_miss_cycles": f"{assumed}: the order of a DRAM round trip; no public figure",
            "launch_s": "assumed 3 µs, as docs/ops/embedding_dense_grad.md §6 and "
            "docs/ops/softmax_cross_entropy_with_logits.md §6 do",
        },
    )


def _n(section: Any, key: str) -> float:
    return float(section.get(key, 0) or 0) if isinstance(section, Mapping) else 0.0


def _cores_of(trace: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    cores = trace.get("cores", []) if isinstance(trace, Mapping) else None
    if not isinstance(cores, Sequence) or not all(isinstance(c, Mapping) for c in cores):
        raise WorkbenchError("trace", type(trace).__name__, "an emulator trace: a mapping with a 'cores' list")
    return list(cores)


def core_seconds(m2: float, v: float, m3: float, s: float, tiles: int, overlapped: bool, shared: bool) -> float:
    """Back to back unless overlapped; overlapped: the busiest stage plus one tile of the others (fill and drain)."""
    if not overlapped:
        return m2 + v + m3 + s
    stages = (m2 + m3, v) if shared else (m2, v, m3)
    top = max(stages)
    return top + (sum(stages) - top) / max(tiles, 1) + s


def _vector_cycles(raw: Mapping[str, Any], p: ModelParams) -> float:
    vec = raw.get("vec", [])
    entries = [e for e in (vec if isinstance(vec, Sequence) else []) if isinstance(e, Mapping)]
    cycles = sum(
        _n(e, "calls") * p.vec_call_cycles
        + (_n(e, "repeats") + _n(e, "internal_repeats"))
        * p.repeat_cost(e.get("api", ""), e.get("src", ""), e.get("dst", ""))
        for e in entries
    )
    ub2ub = raw.get("ub2ub", {})  # UB->UB copies are priced as vector work (an assumption, docs/performance-model.md)
    return cycles + _n(ub2ub, "ops") * p.vec_call_cycles + _n(ub2ub, "bytes") / p.vec_bytes_per_cycle


def _overlap(raw: Mapping[str, Any]) -> tuple[bool, int]:
    """Whether every TQue is double-buffered, and the tiles the pipeline runs over (MTE2 copies per VECIN queue)."""
    ub = raw.get("ub", {})
    queues = [q for q in (ub.get("queues", []) if isinstance(ub, Mapping) else []) if q.get("pos") != "TBuf"]
    inputs = sum(1 for q in queues if q.get("pos") == "VECIN") or 1
    tiles = max(1, int(_n(raw.get("mte2"), "ops")) // inputs)
    return bool(queues) and all(_n(q, "num") >= 2 for q in queues), tiles


def _pipe_times(index: int, raw: Mapping[str, Any], p: ModelParams, rate: float) -> PipeTimes:
    mte2, mte3, scalar = raw.get("mte2"), raw.get("mte3"), raw.get("scalar")
    atomic_b = _n(raw.get("atomic"), "bytes")
    m2 = _n(mte2, "ops") * p.mte_op_s + _n(mte2, "bytes") / rate
    m3 = _n(mte3, "ops") * p.mte_op_s + (_n(mte3, "bytes") - atomic_b + p.atomic_factor * atomic_b) / rate
    v = _vector_cycles(raw, p) / p.clock_hz
    accesses = sum(_n(scalar, k) for k in ("ub_get", "ub_set", "gm_get", "gm_set"))
    s = (accesses * p.scalar_ub_cycles + _n(scalar, "dcache_miss_lines") * p.scalar_gm_miss_cycles) / p.clock_hz
    overlapped, tiles = _overlap(raw)
    core_s = core_seconds(m2, v, m3, s, tiles, overlapped, p.mte_shared)
    return PipeTimes(int(raw.get("core", index)), m2, v, m3, s, overlapped, core_s, tiles)


def _end(c: PipeTimes) -> float:
    return c.start_s + c.core_s


def block_starts(core_s: Sequence[float], physical: int) -> list[float]:
    """When each block starts, given each block's own time: blocks beyond the physical cores start, in order, on the
    first core to free up."""
    free = [0.0] * max(1, min(physical, len(core_s)))
    starts = []
    for seconds in core_s:
        start = heapq.heappop(free)
        heapq.heappush(free, start + seconds)
        starts.append(start)
    return starts


def core_rate(p: ModelParams, moving: int, physical: int) -> float:
    """One core's GM rate: the chip's bandwidth shared by the cores that move GM (at most the physical ones)."""
    return min(p.mte_rate, p.bandwidth * p.eta / (min(moving, physical) or 1))


def _schedule(cores: Sequence[PipeTimes], physical: int) -> list[PipeTimes]:
    starts = block_starts([c.core_s for c in cores], physical)
    return [replace(c, start_s=start) for c, start in zip(cores, starts, strict=True)]


def predict(trace: Mapping[str, Any], platform: Platform | str, params: ModelParams | None = None) -> Prediction:
    """Price an emulator trace (`Result.trace`) on `platform`; `params` default to `params_for(platform)`."""
    plat = get_platform(platform)
    p = params or params_for(plat)
    raw = _cores_of(trace)
    gm = [_n(c.get("mte2"), "bytes") + _n(c.get("mte3"), "bytes") for c in raw]
    rate = core_rate(p, sum(1 for b in gm if b > 0), plat.core_num)
    cores = tuple(_schedule([_pipe_times(i, c, p, rate) for i, c in enumerate(raw)], plat.core_num))
    slow = max(cores, key=_end, default=None)
    busy = slow.busy if slow else {}
    bottleneck = "launch" if slow is None or p.launch_s >= slow.core_s else max(busy, key=lambda k: busy[k])
    how = (
        f"predicted by the performance model from the emulator trace: {len(cores)} cores at "
        f"{rate / 1e9:.3g} GB/s each (η {p.eta:.3g} of {p.bandwidth / 1e9:g} GB/s), "
        + (f"slowest core {slow.core} ({'overlapped' if slow.overlapped else 'not double-buffered'}), " if slow else "")
        + f"bound by {bottleneck}, launch {p.launch_s * 1e6:.3g} µs (docs/performance-model.md)"
    )
    kernel = (_end(slow) if slow else 0.0) + p.launch_s
    return Prediction(cores, kernel, sum(gm) / p.bandwidth, bottleneck, p, how, int(sum(gm)), plat.core_num)


def pipe_spans(prediction: Prediction) -> list[tuple[int, str, float, float, bool]]:
    """(core, pipe, start_s, end_s, overlapped) per busy pipe, as the model combines them: overlapped pipes from the
    core's start (MTE3 after MTE2 when they share one rate), others back to back; scalar work last."""
    spans = []
    for c in prediction.cores:
        t = c.start_s
        if c.overlapped:
            m3_start = t + c.mte2_s if prediction.params.mte_shared else t
            parts = [("MTE2", t, c.mte2_s), ("V", t, c.vec_s), ("MTE3", m3_start, c.mte3_s)]
        else:
            parts = [("MTE2", t, c.mte2_s), ("V", t + c.mte2_s, c.vec_s), ("MTE3", t + c.mte2_s + c.vec_s, c.mte3_s)]
        parts.append(("S", t + c.core_s - c.scalar_s, c.scalar_s))
        spans += [(c.core, pipe, start, start + busy, c.overlapped) for pipe, start, busy in parts if busy > 0]
    return spans


@dataclass(frozen=True)
class Fit:
    """What `fit` found, and how well the fitted model reproduces each measured row."""

    params: ModelParams  # the input parameters with the fitted scales applied
    mem_scale: float  # MTE time multiplier (1 / effective-bandwidth scale)
    vec_scale: float  # vector time multiplier
    launch_s: float
    fitted: tuple[str, ...]  # which of mem_scale, vec_scale, launch_s were fitted (the rest kept)
    predicted_s: tuple[float, ...]
    measured_s: tuple[float, ...]
    rel_errors: tuple[float, ...]  # (predicted - measured) / measured
    note: str

    @property
    def max_rel_error(self) -> float:
        return max((abs(e) for e in self.rel_errors), default=0.0)


def _rescaled(pred: Prediction, k_mem: float, k_vec: float, launch: float) -> float:
    """The kernel time of `pred` with its MTE and vector times scaled (what `fit` adjusts)."""
    shared, cores = pred.params.mte_shared, []
    for c in pred.cores:
        m2, v, m3 = c.mte2_s * k_mem, c.vec_s * k_vec, c.mte3_s * k_mem
        cores.append(replace(c, core_s=core_seconds(m2, v, m3, c.scalar_s, c.tiles, c.overlapped, shared)))
    return max(map(_end, _schedule(cores, pred.physical_cores)), default=0.0) + launch


def _nnls(a: Any, b: Any) -> Any:
    """Non-negative least squares for a handful of columns: the best unconstrained fit over every column subset."""
    import numpy as np

    best, best_res = np.zeros(a.shape[1]), float(np.sum(b**2))
    for mask in range(1, 1 << a.shape[1]):
        cols = [j for j in range(a.shape[1]) if mask >> j & 1]
        x = np.linalg.lstsq(a[:, cols], b, rcond=None)[0]
        if np.all(x >= 0) and (res := float(np.sum((a[:, cols] @ x - b) ** 2))) < best_res - 1e-30:
            best, best_res = np.zeros(a.shape[1]), res
            best[cols] = x
    return best


def fit(rows: Sequence[tuple[Prediction, float]]) -> Fit:
    """Fit the MTE time scale, the vector time scale and the launch overhead to measured kernel seconds.

    `rows` are (prediction, measured_kernel_s) made with one set of parameters. The model is piecewise linear in the
    three unknowns, so it is linearised at the current guess and solved by non-negative least squares until the guess
    settles. With fewer rows than unknowns only the MTE scale (the effective bandwidth) is fitted."""
    import numpy as np

    allowed = "a non-empty sequence of (Prediction, measured kernel seconds > 0), all made with the same params"
    if not rows or not all(isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], Prediction) for r in rows):
        raise WorkbenchError("rows", rows, allowed)
    preds, measured = [r[0] for r in rows], np.array([float(r[1]) for r in rows])
    p = preds[0].params
    if not np.all(np.isfinite(measured) & (measured > 0)) or any(q.params != p for q in preds):
        raise WorkbenchError("rows", [r[1] for r in rows], allowed)
    names = ("mem_scale", "vec_scale", "launch_s")
    free = [0, 1, 2] if len(rows) >= len(names) else [0]
    theta = np.array([1.0, 1.0, p.launch_s])
    for _ in range(50):
        f0 = np.array([_rescaled(q, theta[0], theta[1], 0.0) for q in preds])
        step = 1e-6 * np.maximum(theta[:2], 1.0)
        d_mem = (np.array([_rescaled(q, theta[0] + step[0], theta[1], 0.0) for q in preds]) - f0) / step[0]
        d_vec = (np.array([_rescaled(q, theta[0], theta[1] + step[1], 0.0) for q in preds]) - f0) / step[1]
        a = np.column_stack([d_mem, d_vec, np.ones(len(preds))])
        offset = f0 - d_mem * theta[0] - d_vec * theta[1]  # the scalar work, which no unknown scales
        kept = [j for j in range(3) if j not in free]
        target = measured - offset - a[:, kept] @ theta[kept]
        informative = [j for j in free if np.any(a[:, j] > 0)]
        new = theta.copy()
        if informative:
            new[informative] = _nnls(a[:, informative], target)
        new[:2] = np.maximum(new[:2], 1e-9)  # a zero scale would mean an infinitely fast pipe
        done = np.allclose(new, theta, rtol=1e-10, atol=1e-15)
        theta = new
        if done:
            break
    k_mem, k_vec, launch = (float(x) for x in theta)
    fitted_names = tuple(names[j] for j in informative)
    note = f"fitted {', '.join(fitted_names) or 'nothing'} by non-negative least squares over {len(rows)} rows"
    if len(rows) < len(names):
        note += f"; fewer rows than the {len(names)} unknowns, so vector cost and launch overhead are kept"
    src = f"fitted to {len(rows)} measured rows"
    scaled = {
        "mem_scale": dict.fromkeys(("eta", "mte_rate", "mte_op_s"), f"{src}: MTE time x{k_mem:.4g}"),
        "vec_scale": dict.fromkeys(("vec_bytes_per_cycle", "vec_call_cycles"), f"{src}: vector time x{k_vec:.4g}"),
        "launch_s": {"launch_s": src},
    }
    fitted = replace(
        p,
        eta=p.eta / k_mem,
        mte_rate=p.mte_rate / k_mem,
        mte_op_s=p.mte_op_s * k_mem,
        vec_bytes_per_cycle=p.vec_bytes_per_cycle / k_vec,
        vec_call_cycles=p.vec_call_cycles * k_vec,
        repeat_cycles={k: v * k_vec for k, v in p.repeat_cycles.items()},
        launch_s=launch,
        sources={**p.sources, **{k: v for name in fitted_names for k, v in scaled[name].items()}},
    )
    predicted = np.array([_rescaled(q, k_mem, k_vec, launch) for q in preds])
    rel = (predicted - measured) / measured
    return Fit(fitted, k_mem, k_vec, launch, fitted_names, tuple(predicted), tuple(measured), tuple(rel), note)
