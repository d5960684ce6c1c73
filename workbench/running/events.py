"""The emulator's per-core event log of one launch (`trace=True`), as arrays and frames (docs/emulator.md#event-log).

The emulator writes the log as fixed-size binary records and a JSON trailer (kernels/emu/include/ascemu/events.h);
`read_events` maps the records into a numpy structured array without copying them one by one. Every event carries
the core, the API and the kernel's file:line, the pipe it ran on and what it touched; `KernelEvents` turns that into
pandas frames (calls, GM accesses, per-core merged GM ranges, cross-core write overlaps, UB occupancy) and gives each
event a modelled start and duration from the performance model (workbench/judge/perfmodel.py, the one source of its
constants). `to_chrome_trace` writes the timeline in the Chrome trace-event format that Perfetto opens.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core._files import atomic_write
from ..core.errors import InvalidInput
from ..core.platform import get_platform
from ..judge.perfmodel import ModelParams, block_starts, core_rate, params_for
from ..planning.memory import MAX_EVENTS  # ascemu's kMaxEvents: a launch's largest event cap, and its default

if TYPE_CHECKING:  # pandas is imported by the functions that build frames (`import workbench` stays light)
    import pandas as pd

# One record of the file: ascemu's EventDisk (events.h), packed, little-endian. A change there changes this.
EVENT_DTYPE = np.dtype(
    [
        *[(n, "<u8") for n in ("seq", "gm_off", "gm_span", "gm_ok", "gm_pitch", "bytes", "repeats")],
        ("count", "<i8"),
        ("id", "<i8"),
        *[
            (n, "<u4")
            for n in ("core", "api", "file", "line", "gm_rows", "gm_row_bytes", "ub_lo", "ub_len", "s1", "s2", "s3")
        ],
        ("a", "<i4"),
        ("b", "<i4"),
        ("gm_tensor", "<i4"),
        ("ub_buffer", "<i2"),
        ("kind", "u1"),
        ("pipe", "u1"),
        ("ub_pos", "u1"),
        ("flags", "u1"),
    ]
)
MAGIC = b"ASCEVT1\0"
VERSION = 2  # 2: the trailer says whether the launch ended in a fatal record
_HEADER = 8 + 4 + 4 + 8

PIPES = ("S", "V", "MTE2", "MTE3")  # ascemu's PipeIx order: the `pipe` column's codes
GM_KINDS = ("gm_read", "gm_write", "gm_atomic")
# pipe_t (ascemu/api_types.h) of a PipeBarrier; PIPE_ALL drains every pipe
_PIPE_T = {0: "S", 1: "V", 2: "M", 3: "MTE1", 4: "MTE2", 5: "MTE3", 6: "ALL"}
# TPosition (ascemu/api_types.h) of a UB buffer; a queue at VECIN is filled by MTE2 and read by V, and so on
POSITIONS = {9: "VECIN", 10: "VECOUT", 11: "VECCALC"}
_QUEUE_PIPES = {9: (2, 1), 10: (1, 3), 11: (1, 1)}  # position -> (producer, consumer) PipeIx
_OUTSIDE = 1  # EVF_OUTSIDE: the access ran past its tensor's allocation (the emulator reported it)


@dataclass(frozen=True)
class GmTensor:
    """One GM allocation of the launch: `arg` is the kernel parameter's index (-1: a buffer the emulator made)."""

    name: str
    arg: int
    role: str  # input | output | workspace | tiling | other
    bytes: int


@dataclass(frozen=True, eq=False)  # equal only to itself: its records are an array
class KernelEvents:
    """The event log of one launch: `records` (EVENT_DTYPE, in core then program order) and what their codes name.

    A launch that ended in a fatal record has a log up to the fault: `fatal` is set, `fault` is that record's kind
    (KERNEL_ABORT, CRASH, TIMEOUT, ...) and `fault_core` its core (-1: none), and each core's log ends at its latest
    API call (the faulting core's: the call before its fault; the others': where the fault stopped them).

    Frames are built on first use and cached; times are modelled by the performance model with `params` (default:
    `params_for(platform)`), never measured."""

    records: np.ndarray = field(repr=False)
    strings: tuple[str, ...] = field(repr=False)
    kinds: tuple[str, ...] = field(repr=False)
    tensors: tuple[GmTensor, ...]
    block_dim: int
    platform: str
    truncated: bool = False  # the launch made more events than its cap (`max_events`): the log stops there
    fatal: bool = False  # the launch ended in a fatal record: the log stops at the fault
    exit_code: int = 0  # the launch's (docs/emulator.md, exit codes)
    fault: str = ""  # the fatal record's kind ("" when not fatal)
    fault_core: int = -1  # the fatal record's core (-1: not fatal, or a record of no core)
    params: ModelParams | None = field(default=None, repr=False, compare=False)
    max_events: int = MAX_EVENTS  # the launch's cap (the launch file's "max_events", at most ascemu's kMaxEvents)
    limit: str = ""  # what set the cap: the memory budget of the run (memory.trace_room), "" the emulator's limit

    def __len__(self) -> int:
        return len(self.records)

    @property
    def truncation(self) -> str:
        """A note for every view of a truncated log ("" when the log is whole): where it stopped and why."""
        if not self.truncated:
            return ""
        why = self.limit or (
            f"the emulator's limit, {MAX_EVENTS:,} events" if self.max_events >= MAX_EVENTS else "max_events"
        )
        return (
            f"event log truncated at {len(self):,} events (cap {self.max_events:,}: {why}): later events are missing "
            "from this view"
        )

    @property
    def model(self) -> ModelParams:
        return self.params or params_for(self.platform)

    @cached_property
    def calls(self) -> pd.DataFrame:
        """One row per event: seq, core, kind, api, file, line, pipe, bytes, repeats, count, the UB range (ub_lo,
        ub_len, ub_buffer, ub_pos), the GM access (tensor, gm_off, gm_span, gm_rows, gm_row_bytes, gm_pitch,
        outside: past the tensor's allocation), flags (a, b, id) and the modelled start_s / dur_s."""
        import pandas as pd

        r = self.records
        names = np.array(self.strings, dtype=object)
        tensor_names = np.array([t.name for t in self.tensors] + [""], dtype=object)
        start, dur = self.schedule
        return pd.DataFrame(
            {
                "seq": r["seq"],
                "core": r["core"].astype(np.int64),
                "kind": pd.Categorical.from_codes(r["kind"].astype(np.int64), categories=list(self.kinds)),
                "api": names[r["api"]],
                "file": names[r["file"]],
                "line": r["line"].astype(np.int64),
                "pipe": pd.Categorical.from_codes(r["pipe"].astype(np.int64), categories=list(PIPES)),
                "bytes": r["bytes"].astype(np.int64),
                "repeats": r["repeats"].astype(np.int64),
                "count": r["count"],
                "ub_lo": r["ub_lo"].astype(np.int64),
                "ub_len": r["ub_len"].astype(np.int64),
                "ub_buffer": r["ub_buffer"].astype(np.int64),
                "ub_pos": [POSITIONS.get(int(p), "") for p in r["ub_pos"]],
                "tensor": tensor_names[r["gm_tensor"]],
                "gm_off": r["gm_off"].astype(np.int64),
                "gm_span": r["gm_span"].astype(np.int64),
                "gm_rows": r["gm_rows"].astype(np.int64),
                "gm_row_bytes": r["gm_row_bytes"].astype(np.int64),
                "gm_pitch": r["gm_pitch"].astype(np.int64),
                "outside": (r["flags"] & _OUTSIDE) != 0,
                "a": r["a"],
                "b": r["b"],
                "id": r["id"],
                "start_s": start,
                "dur_s": dur,
            }
        )

    @cached_property
    def gm_accesses(self) -> pd.DataFrame:
        """The GM accesses: core, seq, api, file, line, tensor, arg, role, direction (read | write | atomic), ordinal
        (the access's index among its core's accesses of that tensor in that direction: the tile, in a kernel that
        copies each tile once), offset and length (bytes from the tensor's start; the span of a strided copy), rows /
        row_bytes / pitch, past_end (the access reaches bytes past the tensor's size: a DataCopy's 32-byte tail, or an
        overrun) and outside (past the tensor's allocation too, which the emulator reports as a diagnostic)."""
        import pandas as pd

        c = self.calls
        g = c[c["kind"].isin(GM_KINDS)]
        arg = {t.name: t.arg for t in self.tensors}
        role = {t.name: t.role for t in self.tensors}
        size = {t.name: t.bytes for t in self.tensors}
        frame = pd.DataFrame(
            {
                "core": g["core"],
                "seq": g["seq"],
                "api": g["api"],
                "file": g["file"],
                "line": g["line"],
                "tensor": g["tensor"],
                "arg": g["tensor"].map(arg).fillna(-1).astype(np.int64),
                "role": g["tensor"].map(role).fillna(""),
                "direction": g["kind"].astype(str).str.removeprefix("gm_"),
                "offset": g["gm_off"],
                "length": g["gm_span"],
                "rows": g["gm_rows"],
                "row_bytes": g["gm_row_bytes"],
                "pitch": g["gm_pitch"],
                "past_end": (g["gm_off"] + g["gm_span"]).to_numpy() > g["tensor"].map(size).fillna(0).to_numpy(),
                "outside": g["outside"],
            }
        ).reset_index(drop=True)
        frame.insert(9, "ordinal", frame.groupby(["core", "tensor", "direction"]).cumcount().astype(np.int64))
        return frame

    def per_core_ranges(self, rows: bool = True) -> pd.DataFrame:
        """Each core's GM bytes per tensor and direction, merged into disjoint [lo, hi) intervals (byte offsets in
        the tensor): a 16M-element Cast gives a few intervals per core, not one row per DataCopy. `rows=False`
        merges each strided copy's whole span instead of its rows."""
        import pandas as pd

        g = self.gm_accesses
        if g.empty:
            return pd.DataFrame(columns=["core", "tensor", "direction", "lo", "hi", "accesses"])
        if rows:
            idx, _, lo, hi = access_rows(g)
        else:
            idx, lo = np.arange(len(g)), g["offset"].to_numpy()
            hi = lo + g["length"].to_numpy()
        frame = pd.DataFrame(
            {
                "core": g["core"].to_numpy()[idx],
                "tensor": g["tensor"].to_numpy()[idx],
                "direction": g["direction"].to_numpy()[idx],
                "lo": lo,
                "hi": hi,
            }
        )
        return _merge(frame, ["core", "tensor", "direction"])

    def overlaps(self) -> pd.DataFrame:
        """GM bytes that two cores both wrote (plain or atomic): tensor, lo, hi, core_a < core_b, and whether both
        writes were atomic adds (which do not race). Without a barrier between them these are races."""
        import pandas as pd

        r = self.per_core_ranges()
        w = r[r["direction"].isin(("write", "atomic"))]
        out: list[tuple[str, int, int, int, int, bool]] = []
        for tensor, t in w.groupby("tensor", sort=True):
            t = t.sort_values(["lo", "hi"])
            lo, hi = t["lo"].to_numpy(), t["hi"].to_numpy()
            core, atomic = t["core"].to_numpy(), (t["direction"] == "atomic").to_numpy()
            active: list[int] = []  # intervals that may still overlap the next one
            for i in range(len(t)):
                active = [j for j in active if hi[j] > lo[i]]
                for j in active:
                    if core[j] != core[i]:
                        a, b = sorted((int(core[i]), int(core[j])))
                        both = bool(atomic[i] and atomic[j])
                        out.append((str(tensor), int(lo[i]), int(min(hi[i], hi[j])), a, b, both))
                active.append(i)
        cols = ["tensor", "lo", "hi", "core_a", "core_b", "atomic"]
        return pd.DataFrame(out, columns=cols).drop_duplicates().reset_index(drop=True)

    def ub_occupancy(self, core: int = 0, buffer: int | None = None) -> pd.DataFrame:
        """UB bytes held by the queues of `core` (one queue: `buffer`, its index in `calls.ub_buffer`) after each
        AllocTensor and FreeTensor: seq, start_s, buffer, position, in_use (bytes of that queue), total (bytes of
        every queue of the core)."""
        import pandas as pd

        c = self.calls
        q = c[(c["core"] == core) & c["kind"].isin(("alloc", "free"))]
        sign = np.where(q["kind"] == "alloc", 1, -1) * q["ub_len"].to_numpy()
        frame = pd.DataFrame(
            {
                "seq": q["seq"].to_numpy(),
                "start_s": q["start_s"].to_numpy(),
                "buffer": q["ub_buffer"].to_numpy(),
                "position": q["ub_pos"].to_numpy(),
                "delta": sign,
            }
        )
        frame["in_use"] = frame.groupby("buffer")["delta"].cumsum()
        frame["total"] = frame["delta"].cumsum()
        if buffer is not None:
            frame = frame[frame["buffer"] == buffer]
        return frame.drop(columns="delta").reset_index(drop=True)

    @cached_property
    def schedule(self) -> tuple[np.ndarray, np.ndarray]:
        """(start_s, dur_s) per record: each pipe of a core runs its events in program order, an event starts when
        its pipe is free and what it waits for has happened (WaitFlag after the matching SetFlag's source pipe,
        DeQue after EnQue's producer, AllocTensor after the slot's FreeTensor, PipeBarrier<PIPE_ALL> and SyncAll
        after every pipe), and blocks beyond the physical cores start when a core frees up, as perfmodel does."""
        r, p = self.records, self.model
        dur = _durations(r, self.strings, self.kinds, p, self._rate(p))
        start = np.zeros(len(r))
        core_ends: dict[int, float] = {}
        kinds = {name: i for i, name in enumerate(self.kinds)}
        order = np.lexsort((r["seq"], r["core"]))
        for core, idx in _groups(r["core"][order], order):
            core_ends[core] = _schedule_core(r, idx, dur, start, kinds)
        cores = sorted(core_ends)  # blocks beyond the physical cores start when one frees up, as the model has it
        starts = block_starts([core_ends[c] for c in cores], get_platform(self.platform).core_num)
        offset = dict(zip(cores, starts, strict=True))
        start += np.array([offset.get(int(c), 0.0) for c in r["core"]]) if len(r) else 0.0
        return start, dur

    def _rate(self, p: ModelParams) -> float:
        """One core's GM rate, as perfmodel.predict sets it: the chip's bandwidth shared by the cores that move GM."""
        r = self.records
        moving = np.unique(r["core"][(r["bytes"] > 0) & np.isin(r["pipe"], (2, 3))])
        return core_rate(p, len(moving), get_platform(self.platform).core_num)


def access_rows(acc: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row of the GM accesses `acc` (gm_accesses' columns) on its own: a strided copy's rows apart, any other
    access whole. Returns (the access of each row, the row's index within it, lo, hi) in bytes from the tensor's
    start."""
    n = acc["rows"].to_numpy().clip(1)
    idx = np.repeat(np.arange(len(acc)), n)
    k = np.arange(len(idx)) - np.repeat(np.cumsum(n) - n, n)
    strided = n[idx] > 1
    lo = acc["offset"].to_numpy()[idx] + np.where(strided, k * acc["pitch"].to_numpy()[idx], 0)
    hi = lo + np.where(strided, acc["row_bytes"].to_numpy()[idx], acc["length"].to_numpy()[idx])
    return idx, k, lo, hi


def _groups(keys: np.ndarray, order: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(key, the indices of `order` with it) for sorted `keys`."""
    if not len(keys):
        return []
    cuts = np.flatnonzero(np.diff(keys)) + 1
    return [(int(keys[s]), order[s:e]) for s, e in zip(np.r_[0, cuts], np.r_[cuts, len(keys)], strict=True)]


def _durations(r: np.ndarray, strings: tuple[str, ...], kinds: tuple[str, ...], p: ModelParams, rate: float) -> Any:
    """Modelled seconds of each event, priced with perfmodel's parameters exactly as `predict` prices the counts:
    MTE bytes / rate (+ mte_op_s per copy, atomics x atomic_factor), vector repeats x repeat_cost / clock, UB->UB
    bytes / vec_bytes_per_cycle, one scalar Get/SetValue scalar_ub_cycles. Flags, queue calls and barriers take 0."""
    k = {name: i for i, name in enumerate(kinds)}
    kind, pipe, nbytes = r["kind"], r["pipe"], r["bytes"].astype(np.float64)
    dur = np.zeros(len(r))
    mte = np.isin(kind, [k["gm_read"], k["gm_write"], k["gm_atomic"]]) & np.isin(pipe, (2, 3))
    factor = np.where(kind == k["gm_atomic"], p.atomic_factor, 1.0)
    dur[mte] = p.mte_op_s + nbytes[mte] * factor[mte] / rate
    vec = np.flatnonzero(kind == k["vector"])
    if len(vec):
        cost = {
            key: p.repeat_cost(strings[key[0]], strings[key[1]], strings[key[2]])
            for key in set(zip(r["s1"][vec].tolist(), r["s2"][vec].tolist(), r["s3"][vec].tolist(), strict=True))
        }
        per = np.array([cost[key] for key in zip(r["s1"][vec], r["s2"][vec], r["s3"][vec], strict=True)])
        dur[vec] = (p.vec_call_cycles + r["repeats"][vec] * per) / p.clock_hz
    ub = kind == k["ub_copy"]
    dur[ub] = (p.vec_call_cycles + nbytes[ub] / p.vec_bytes_per_cycle) / p.clock_hz
    api = np.array(strings, dtype=object)[r["api"]]
    scalar = (pipe == 0) & np.array([s.endswith(("GetValue", "SetValue")) for s in api], dtype=bool)
    dur[scalar] = p.scalar_ub_cycles / p.clock_hz
    return dur


def _schedule_core(r: np.ndarray, idx: np.ndarray, dur: np.ndarray, start: np.ndarray, k: dict[str, int]) -> float:
    """Start times of one core's events (in place in `start`); returns the core's end."""
    free = [0.0] * 4  # per PipeIx: when the pipe has finished what it was given
    ready = [0.0] * 4  # per PipeIx: the earliest its next event may start (what it waited for)
    flags: dict[tuple[int, int, int], list[float]] = {}
    slots: dict[tuple[int, int], float] = {}  # (buffer, ub_lo) -> EnQue / FreeTensor time
    kind, pipe, a, b, ident = r["kind"], r["pipe"], r["a"], r["b"], r["id"]
    buf, lo, pos = r["ub_buffer"], r["ub_lo"], r["ub_pos"]
    for i in idx.tolist():
        kd = int(kind[i])
        if kd == k["set_flag"]:
            src = int(a[i]) if a[i] >= 0 else 0
            start[i] = free[src]
            flags.setdefault((src, int(b[i]), int(ident[i])), []).append(free[src])
        elif kd == k["wait_flag"]:
            dst = int(b[i]) if b[i] >= 0 else 0
            times = flags.get((int(a[i]), dst, int(ident[i])))
            ready[dst] = max(ready[dst], times.pop(0) if times else 0.0)
            start[i] = ready[dst]
        elif kd in (k["enque"], k["free"], k["alloc"], k["deque"]):
            producer, consumer = _QUEUE_PIPES.get(int(pos[i]), (1, 1))
            key = (int(buf[i]), int(lo[i]))
            if kd in (k["enque"], k["free"]):
                start[i] = slots[key] = free[producer if kd == k["enque"] else consumer]
            else:
                waiter = consumer if kd == k["deque"] else producer
                ready[waiter] = max(ready[waiter], slots.get(key, 0.0))
                start[i] = ready[waiter]
        elif kd == k["sync_all"] or (kd == k["barrier"] and int(a[i]) == 6):
            t = max(free)
            ready = [max(x, t) for x in ready]
            start[i] = t
        else:
            q = int(pipe[i])
            start[i] = max(free[q], ready[q])
            free[q] = start[i] + dur[i]
    return max(free)


def _merge(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Touching or overlapping [lo, hi) intervals of each group merged; `accesses` counts the intervals merged."""

    import pandas as pd

    f = frame.sort_values([*keys, "lo"], kind="stable").reset_index(drop=True)
    if f.empty:
        return f.assign(accesses=np.zeros(0, np.int64))
    group = f.groupby(keys, sort=False).ngroup().to_numpy()
    lo, hi = f["lo"].to_numpy(), f["hi"].to_numpy()
    reach = pd.Series(hi).groupby(group).cummax().to_numpy()  # the furthest end so far within the group
    fresh = np.ones(len(f), bool)
    fresh[1:] = (group[1:] != group[:-1]) | (lo[1:] > reach[:-1])
    run = np.cumsum(fresh) - 1
    out = f.loc[fresh, keys].reset_index(drop=True)
    out["lo"] = lo[fresh]
    out["hi"] = pd.Series(hi).groupby(run).max().to_numpy()
    out["accesses"] = np.bincount(run)
    return out


def read_events(path: str | Path, local: Callable[[str], str] = str) -> KernelEvents:
    """The log the emulator wrote to `path`; `local` maps each file name of the binary to the caller's (a shared
    binary knows its sources by placeholders: workbench.running.emu.Built.local)."""
    raw = Path(path).read_bytes()
    if len(raw) < _HEADER or raw[:8] != MAGIC:
        raise InvalidInput("event log", str(path), "a file the emulator wrote with trace on (it starts ASCEVT1)")
    version, size = np.frombuffer(raw, "<u4", 2, 8)
    (count,) = np.frombuffer(raw, "<u8", 1, 16)
    if version != VERSION or size != EVENT_DTYPE.itemsize:
        raise InvalidInput("event log", str(path), f"version {VERSION} with {EVENT_DTYPE.itemsize}-byte records")
    end = _HEADER + int(count) * EVENT_DTYPE.itemsize
    records = np.frombuffer(raw, EVENT_DTYPE, int(count), _HEADER)
    meta = json.loads(raw[end:].decode("utf-8"))
    strings = tuple(local(s) for s in meta["strings"])
    tensors = tuple(GmTensor(t["name"], int(t["arg"]), t["role"], int(t["bytes"])) for t in meta["tensors"])
    cap = int(meta.get("max_events", MAX_EVENTS))
    return KernelEvents(
        records,
        strings,
        tuple(meta["kinds"]),
        tensors,
        int(meta["block_dim"]),
        meta["platform"],
        meta["truncated"],
        max_events=cap,
        fatal=bool(meta["fatal"]),
        exit_code=int(meta["exit_code"]),
        fault=str(meta["fault"]),
        fault_core=int(meta["fault_core"]),
    )


def to_chrome_trace(events: KernelEvents) -> dict[str, Any]:
    """The timeline in Chrome's trace-event format (the JSON object form; Perfetto and chrome://tracing open it):
    one process per core, one thread per pipe (S, V, MTE2, MTE3), each event with a modelled duration as a
    complete ("X") event with its API and file:line in args, each SetFlag and WaitFlag as a zero-length complete
    event joined by a flow arrow (flow v2: `bind_id` with `flow_out` on the SetFlag, `flow_in` on its WaitFlag),
    queue and other zero-time calls as instant ("i") events, and the UB bytes the core's queues hold as a counter
    ("C"). A truncated log says so in `otherData` and as a global instant at its end. Times are the performance
    model's, in µs.

    Why flow v2 on "X" events rather than v1 ("s" / "f" with bp "e") beside instants: a v1 flow is bound to a slice
    looked up by its timestamp, and a flag's time is shared with the calls around it. catapult's importer
    (tracing/tracing/extras/importer/trace_event_importer.html, createFlowSlices_ -> SliceGroup.findSliceAtTs in
    tracing/tracing/model/slice_group.html, a search of closed intervals) picked the neighbours: imported with it, a
    traced SCE run's 64 arrows all left from the vector call before the SetFlag and reached a GetValue, and an EDG
    run lost 172 of its 472. Perfetto (src/trace_processor/importers/json/json_trace_parser.cc, ParseJsonPacket
    cases 's' / 'f' -> FlowTracker::Begin / End -> SliceTracker::GetTopmostSliceOnTrack) takes the slice on top of
    the thread's stack. A v2 flow is carried by the slice's own event: catapult binds it to the "X" event's slice
    (processCompleteEvent, then processFlowEvent(event, slice); it reads v2 flows on "X" only), Perfetto to the slice
    that event has just opened (JsonTraceParser::MaybeAddFlow, called for "X"); with it every arrow of both runs
    joins its SetFlag to its WaitFlag in catapult (docs/emulator.md, "Chrome trace")."""
    c = events.calls
    out: list[dict[str, Any]] = []
    for core in sorted(set(c["core"].tolist())):
        out.append({"ph": "M", "name": "process_name", "pid": core, "tid": 0, "args": {"name": f"core {core}"}})
        out.append({"ph": "M", "name": "process_sort_index", "pid": core, "tid": 0, "args": {"sort_index": core}})
        for tid, pipe in enumerate(PIPES):
            out.append({"ph": "M", "name": "thread_name", "pid": core, "tid": tid, "args": {"name": pipe}})
            out.append({"ph": "M", "name": "thread_sort_index", "pid": core, "tid": tid, "args": {"sort_index": tid}})
    for core in sorted(set(c["core"].tolist())):  # UB held by the core's queues, as a counter track
        occ = events.ub_occupancy(core)
        for ts, total in zip(occ["start_s"].to_numpy() * 1e6, occ["total"].tolist(), strict=True):
            counter = {"ph": "C", "name": "UB bytes in queues", "pid": core, "tid": 0, "ts": float(ts)}
            out.append({**counter, "args": {"bytes": total}})
    pending: dict[tuple[int, int, int, int], list[int]] = {}
    flow = 0
    end_us = 0.0
    for e in c.itertuples(index=False):
        core, kind = int(e.core), str(e.kind)
        args: dict[str, Any] = {"api": e.api, "source": f"{e.file}:{e.line}", "seq": int(e.seq)}
        if kind in GM_KINDS:
            args.update(tensor=e.tensor, offset=int(e.gm_off), length=int(e.gm_span), bytes=int(e.bytes))
        elif kind == "vector":
            args.update(repeats=int(e.repeats), count=int(e.count))
        elif kind in ("alloc", "enque", "deque", "free"):
            args.update(queue=int(e.ub_buffer), position=e.ub_pos, ub_lo=int(e.ub_lo), ub_len=int(e.ub_len))
        elif kind in ("set_flag", "wait_flag"):
            args.update(src=_pipe_name(e.a), dst=_pipe_name(e.b), event_id=int(e.id))
        elif kind == "barrier":
            args.update(pipe=_PIPE_T.get(int(e.a), str(e.a)))
        ts, tid = e.start_s * 1e6, PIPES.index(str(e.pipe))
        end_us = max(end_us, ts + e.dur_s * 1e6)
        if kind == "set_flag" and e.a >= 0:
            tid = int(e.a)
        elif kind == "wait_flag" and e.b >= 0:
            tid = int(e.b)
        base = {"name": e.api, "cat": kind, "pid": core, "tid": tid, "ts": ts, "args": args}
        if kind in ("set_flag", "wait_flag"):  # a slice of its own, so the flow arrow binds to it (docstring)
            flag = {**base, "ph": "X", "dur": e.dur_s * 1e6}
            key = (core, int(e.a), int(e.b), int(e.id))
            if kind == "set_flag":
                flow += 1
                pending.setdefault(key, []).append(flow)
                flag.update(bind_id=flow, flow_out=True)
            elif pending.get(key):
                flag.update(bind_id=pending[key].pop(0), flow_in=True)
            out.append(flag)
        elif e.dur_s > 0:
            out.append({**base, "ph": "X", "dur": e.dur_s * 1e6})
        else:
            out.append({**base, "ph": "i", "s": "t"})
    if events.truncated:  # on the timeline itself, where the partial picture is seen
        out.append(
            {"ph": "i", "s": "g", "name": events.truncation, "cat": "truncated", "pid": 0, "tid": 0, "ts": end_us}
        )
    return {
        "traceEvents": out,
        "displayTimeUnit": "ns",
        "otherData": {
            "source": "workbench: the emulator's event log, times predicted by the performance model "
            "(docs/performance-model.md), not measured",
            "platform": events.platform,
            "block_dim": events.block_dim,
            "truncated": events.truncated,
            "max_events": events.max_events,
            **({"truncation": events.truncation} if events.truncated else {}),
        },
    }


def _pipe_name(code: Any) -> str:
    return PIPES[int(code)] if 0 <= int(code) < len(PIPES) else ""


def write_chrome_trace(events: KernelEvents, path: str | Path, what: str = "trace file") -> Path:
    """`to_chrome_trace` written to `path` atomically (a temporary file beside it, then renamed)."""
    target = Path(path).expanduser()
    atomic_write(target, json.dumps(to_chrome_trace(events), separators=(",", ":")).encode(), what)
    return target
