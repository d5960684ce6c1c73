"""The access map of a traced launch (`trace=True`): which GM bytes each core and tile read and wrote, where two
cores wrote the same bytes, what ran past a tensor's end, and the UB its queues held, as small frames for a chart
(workbench/view/render/access_map.py, docs/workbench.md#access-map).

Built from the event log (running/events.py) and nothing else: pure functions, no I/O. A tensor's byte ranges are
merged per core, direction and tile; when that leaves more than ROWS_PER_BIN x `bins` rows, they are snapped
outward to at most `bins` equal bins first (and, if still too many, merged across tiles), so a 16M-element run
gives a few thousand rows, not one per DataCopy. Every access has a `step`: its rank in the launch's modelled
timeline (the performance model's start times, all cores merged), which the chart's step-through slider counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import InvalidInput
from .events import KernelEvents, access_rows

if TYPE_CHECKING:
    import pandas as pd

    from ..core.tiling import TilingPlan
    from .runner import Result

BINS = 512  # the default most bins per tensor: a chart of a few thousand rects stays responsive in a browser
ROWS_PER_BIN = 4  # past bins x this many rows for a tensor, tiles are merged (tile -1): the chart stays small
RANGE_COLUMNS = ["tensor", "role", "core", "direction", "tile", "lo", "hi", "accesses", "bytes", "step", "step_last"]
RANGE_COLUMNS += ["start_us", "plan_core"]


@dataclass(frozen=True)
class TensorArray:
    """What the access map knows of one GM tensor beyond the log: its elements' size, and the output whose element
    indices it shares (TilingPlan.locate's `output`; None when no output has its element count)."""

    itemsize: int
    elements: int
    output: str | None


@dataclass(frozen=True, eq=False)  # equal only to itself: it holds frames
class AccessMap:
    """The frames of one launch's access map.

    `tensors`: tensor, role, bytes, bin_bytes, binned (its ranges were snapped to multiples of bin_bytes to keep the
    chart small), tiled (False: its tiles were merged too). `ranges`: RANGE_COLUMNS, one row per merged run of bytes
    that `core` read or wrote (direction read | write | atomic) for `tile` (the plan's tile of the access's last
    element, TilingPlan.locate; without a plan, the access's ordinal among its core's accesses of the tensor), with
    the first and last step, the modelled start of the first (µs) and plan_core (the core the plan gives that
    element; -1 unknown). `overlaps`: the exact bytes two cores both wrote (events.overlaps) and the step by which
    both had. `past_end`: tensor, core, direction, tile, lo, hi, outside, step, line: the bytes an access reached
    beyond the tensor's size (outside: beyond its allocation too). `ub`: core, queue, position, step, start_us,
    in_use: the UB bytes each queue held after each AllocTensor and FreeTensor, in step order. `steps`: how many
    events the timeline has; `tile_source`: "plan" or "order"; `truncation`: the log's note when it stopped early."""

    tensors: pd.DataFrame
    ranges: pd.DataFrame
    overlaps: pd.DataFrame
    past_end: pd.DataFrame
    ub: pd.DataFrame
    steps: int
    tile_source: str
    truncation: str = ""  # KernelEvents.truncation: the log stopped early, so the map shows only its first part

    def rows(self) -> int:
        """Every row the chart draws."""
        return len(self.ranges) + len(self.overlaps) + len(self.past_end) + len(self.ub)


def timeline_steps(events: KernelEvents) -> np.ndarray:
    """Each record's step: its rank when every core's events are ordered by modelled start (then core, then
    program order)."""
    r = events.records
    start, _ = events.schedule
    order = np.lexsort((r["seq"], r["core"], start))
    step = np.empty(len(r), np.int64)
    step[order] = np.arange(len(r))
    return step


def access_map(
    events: KernelEvents,
    plan: TilingPlan | None = None,
    arrays: Mapping[str, TensorArray] | None = None,
    inputs: Mapping[str, Any] | None = None,
    bins: int = BINS,
) -> AccessMap:
    """The access map of `events`. With `plan` and `arrays` (tensor name in the log -> TensorArray), each access is
    labelled with the plan's tile of its last element (plan.locate_many, with the run's `inputs` for data-dependent
    owners); otherwise with its ordinal. `bins`: the most bins a tensor's bytes are snapped to (at least 1)."""
    import pandas as pd

    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidInput("bins", bins, "a whole number of bins per tensor, at least 1")
    steps = timeline_steps(events)
    start_us = events.schedule[0] * 1e6
    record_keys = [events.records["core"].astype(np.int64), events.records["seq"].astype(np.int64)]
    by_key = pd.Series(np.arange(len(events.records)), index=pd.MultiIndex.from_arrays(record_keys))
    acc = events.gm_accesses
    at = by_key.reindex(pd.MultiIndex.from_arrays([acc["core"], acc["seq"].astype(np.int64)])).to_numpy()
    size = {t.name: t.bytes for t in events.tensors}
    tensors = pd.DataFrame(
        {
            "tensor": [t.name for t in events.tensors],
            "role": [t.role for t in events.tensors],
            "bytes": [t.bytes for t in events.tensors],
        }
    )
    order = {t.name: t.arg if t.arg >= 0 else len(events.tensors) for t in events.tensors}  # the kernel's, then ours
    tensors = tensors.sort_values("tensor", key=lambda names: names.map(order)).reset_index(drop=True)
    tensors["bin_bytes"] = [max(1, -(-b // bins)) for b in tensors["bytes"]]
    acc = acc.assign(step=steps[at], start_us=start_us[at])
    use_plan = plan is not None and arrays is not None
    if plan is not None and arrays is not None:
        tiles, plan_core = _tiles(acc, plan, arrays, inputs)
        acc = acc.assign(tile=tiles, plan_core=plan_core)
    else:
        acc = acc.assign(tile=acc["ordinal"].to_numpy(), plan_core=-1)

    ranges, binned, tiled = [], [], []
    for t in tensors.itertuples():
        a = acc[acc["tensor"] == t.tensor]
        cap, width = ROWS_PER_BIN * bins, int(t.bin_bytes)
        merged = _binned(a, 1)  # exact, when that is small enough
        binned.append(len(merged) > cap)
        if binned[-1]:
            merged = _binned(a, width)
        tiled.append(len(merged) <= cap)
        if not tiled[-1]:
            merged = _binned(a.assign(tile=-1), width)
        ranges.append(merged.assign(role=t.role))
    tensors["binned"], tensors["tiled"] = binned, tiled
    frame = pd.concat(ranges, ignore_index=True) if ranges else pd.DataFrame(columns=RANGE_COLUMNS)
    return AccessMap(
        tensors=tensors,
        ranges=frame.reindex(columns=RANGE_COLUMNS),
        overlaps=_overlap_steps(events.overlaps(), frame),
        past_end=_past_end(acc, size),
        ub=_ub(events, steps, start_us),
        steps=len(events.records),
        tile_source="plan" if use_plan else "order",
        truncation=events.truncation,
    )


def result_access_map(result: Result, bins: int = BINS) -> AccessMap:
    """The access map of a run with trace=True: tiles from its plan (Result.plan.locate_many) on its inputs."""
    from ..planning.registry import get_op

    if result.events is None:
        if result.events_missing:  # traced, but a fatal launch that could not write its log
            raise InvalidInput("result", result.case.label(), f"a run with an event log; {result.events_missing}")
        raise InvalidInput("result", result.case.label(), "a run with trace=True (wb.run(..., trace=True))")
    spec = get_op(result.case.op)
    names = spec.kernel(result.case).args if spec.kernel is not None else ()
    outputs = {k: np.asarray(v) for k, v in result.outputs.items()}
    arrays: dict[str, TensorArray] = {}
    for t in result.events.tensors:
        if not 0 <= t.arg < len(names):
            continue
        name = names[t.arg]
        array = outputs.get(name, result.inputs.get(name))
        if array is None:
            continue
        same = [o for o, v in outputs.items() if v.size == np.asarray(array).size]
        output = name if name in outputs else (same[0] if same else None)
        arrays[t.name] = TensorArray(np.asarray(array).itemsize, int(np.asarray(array).size), output)
    return access_map(result.events, result.plan, arrays, result.inputs, bins)


def _tiles(
    acc: pd.DataFrame, plan: TilingPlan, arrays: Mapping[str, TensorArray], inputs: Mapping[str, Any] | None
) -> tuple[np.ndarray, np.ndarray]:
    """(tile, plan's core) of each access's last element (a back-stepped tail window starts inside the tile before
    it and ends in its own); (-1, -1) where the tensor has no output to locate in."""
    tile = np.full(len(acc), -1, np.int64)
    owner = np.full(len(acc), -1, np.int64)
    for name, info in arrays.items():
        rows = np.flatnonzero((acc["tensor"] == name).to_numpy())
        if info.output is None or not len(rows) or info.elements == 0:
            continue
        end = acc["offset"].to_numpy()[rows] + acc["length"].to_numpy()[rows] - 1
        last = np.clip(end // info.itemsize, 0, info.elements - 1)
        who = plan.locate_many(last, info.output, inputs)
        pos, at = np.unique(who.pos, return_index=True)  # an atomic element has a row per core: the first
        tile[rows[pos]] = who.tile[at]
        owner[rows[pos]] = who.core[at]
    return tile, owner


def _binned(acc: pd.DataFrame, width: int) -> pd.DataFrame:
    """The accesses' bytes (each row of a strided copy on its own), snapped outward to multiples of `width` and
    merged where they touch, per core, direction and tile."""
    import pandas as pd

    keys = ["tensor", "core", "direction", "tile"]
    if acc.empty:
        return pd.DataFrame(columns=[c for c in RANGE_COLUMNS if c != "role"])
    idx, k, lo, hi = access_rows(acc)
    f = pd.DataFrame({c: acc[c].to_numpy()[idx] for c in [*keys, "step", "start_us", "plan_core"]})
    f["lo"], f["hi"] = lo // width * width, -(-hi // width) * width
    f["bytes"], f["first"] = hi - lo, k == 0  # an access counts once, however many rows it has
    f = f.sort_values([*keys, "lo"], kind="stable").reset_index(drop=True)
    group = f.groupby(keys, sort=False).ngroup().to_numpy()
    reach = pd.Series(f["hi"].to_numpy()).groupby(group).cummax().to_numpy()
    fresh = np.ones(len(f), bool)
    fresh[1:] = (group[1:] != group[:-1]) | (f["lo"].to_numpy()[1:] > reach[:-1])
    f["run"] = np.cumsum(fresh)
    out = f.groupby("run", sort=True).agg(
        tensor=("tensor", "first"),
        core=("core", "first"),
        direction=("direction", "first"),
        tile=("tile", "first"),
        lo=("lo", "min"),
        hi=("hi", "max"),
        accesses=("first", "sum"),
        bytes=("bytes", "sum"),
        step=("step", "min"),
        step_last=("step", "max"),
        start_us=("start_us", "min"),
        plan_core=("plan_core", "max"),
    )
    return out.reset_index(drop=True).astype({"accesses": np.int64})


def _overlap_steps(overlaps: pd.DataFrame, ranges: pd.DataFrame) -> pd.DataFrame:
    """`overlaps` with the step at which both cores had written there (the later of their first writes)."""
    writes = ranges[ranges["direction"].isin(("write", "atomic"))]
    steps = []
    for o in overlaps.itertuples():
        w = writes[(writes["tensor"] == o.tensor) & (writes["lo"] < o.hi) & (writes["hi"] > o.lo)]
        firsts = [w.loc[w["core"] == c, "step"].min() for c in (o.core_a, o.core_b)]
        steps.append(int(max(firsts)) if all(f == f for f in firsts) else 0)  # f != f: NaN, none found
    return overlaps.assign(step=np.array(steps, np.int64))


def marks(amap: AccessMap) -> pd.DataFrame:
    """The access map's ranges, overlaps and past-the-end bytes as one long frame for the chart: tensor, layer
    (read | write | atomic | overlap | shared atomic | past end), core, direction, tile, lo, hi, step, accesses,
    bytes, start_us, note. An overlap has a row on each of its two cores; "shared atomic" is one where both cores'
    writes were atomic adds, which do not race."""
    import pandas as pd

    r = amap.ranges
    parts = [
        r.assign(layer=r["direction"], note="").drop(columns=["role", "step_last", "plan_core"]),
    ]
    o = amap.overlaps
    for mine, other in (("core_a", "core_b"), ("core_b", "core_a")):
        note = [
            f"core {a} and core {b} both wrote here{' (atomic adds)' if atomic else ': a race'}"
            for a, b, atomic in zip(o[mine], o[other], o["atomic"], strict=True)
        ]
        parts.append(
            pd.DataFrame(
                {
                    "tensor": o["tensor"],
                    "core": o[mine],
                    "direction": "write",
                    "tile": -1,
                    "lo": o["lo"],
                    "hi": o["hi"],
                    "layer": np.where(o["atomic"].to_numpy(bool), "shared atomic", "overlap"),
                    "step": o["step"],
                    "note": note,
                }
            )
        )
    p = amap.past_end
    parts.append(
        p.assign(
            layer="past end",
            note=[f"past the tensor's end{' and its allocation' if x else ''}" for x in p["outside"]],
        ).drop(columns=["outside", "line"])
    )
    columns = ["tensor", "layer", "core", "direction", "tile", "lo", "hi", "step", "accesses", "bytes"]
    columns += ["start_us", "note"]
    frame = pd.concat([x for x in parts if len(x)], ignore_index=True) if any(len(x) for x in parts) else None
    if frame is None:
        return pd.DataFrame(columns=columns)
    frame = frame.reindex(columns=columns)
    frame["bytes"] = frame["bytes"].fillna(frame["hi"] - frame["lo"])
    return frame.fillna({"accesses": 1, "start_us": -1.0}).astype({"core": np.int64, "tile": np.int64})


def _past_end(acc: pd.DataFrame, size: Mapping[str, int]) -> pd.DataFrame:
    """The bytes of each access beyond its tensor's size."""
    import pandas as pd

    p = acc[acc["past_end"]]
    end = p["tensor"].map(size).to_numpy()
    return pd.DataFrame(
        {
            "tensor": p["tensor"].to_numpy(),
            "core": p["core"].to_numpy(),
            "direction": p["direction"].to_numpy(),
            "tile": p["tile"].to_numpy(),
            "lo": np.maximum(p["offset"].to_numpy(), end),
            "hi": (p["offset"] + p["length"]).to_numpy(),
            "outside": p["outside"].to_numpy(),
            "step": p["step"].to_numpy(),
            "line": p["line"].to_numpy(),
        }
    )


def _ub(events: KernelEvents, steps: np.ndarray, start_us: np.ndarray) -> pd.DataFrame:
    """Every core's queues' UB bytes after each AllocTensor and FreeTensor, in the modelled timeline's order (a
    double-buffered queue's second AllocTensor need not wait for the first FreeTensor, so the bytes held are summed
    in step order, not program order)."""
    import pandas as pd

    columns = ["core", "queue", "position", "step", "start_us", "in_use"]
    c = events.calls
    cores = sorted(set(c.loc[c["kind"].isin(("alloc", "free")), "core"].tolist()))
    parts = []
    for core in cores:
        occ = events.ub_occupancy(core)
        at = np.flatnonzero(events.records["core"] == core)
        seq_at = dict(zip(events.records["seq"][at].tolist(), at.tolist(), strict=True))
        rec = np.array([seq_at[int(s)] for s in occ["seq"]], np.int64)
        delta = occ.groupby("buffer")["in_use"].diff().fillna(occ["in_use"]).to_numpy()
        frame = pd.DataFrame(
            {
                "core": core,
                "queue": [f"{p} #{b}" for p, b in zip(occ["position"], occ["buffer"], strict=True)],
                "position": occ["position"].to_numpy(),
                "step": steps[rec],
                "start_us": start_us[rec],
                "delta": delta.astype(np.int64),
            }
        ).sort_values("step", kind="stable")
        frame["in_use"] = frame.groupby("queue")["delta"].cumsum()
        parts.append(frame.drop(columns="delta"))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
