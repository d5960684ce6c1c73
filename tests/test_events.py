"""The event log of a run with trace=True (workbench/running/events.py, docs/emulator.md#event-log) and its Chrome
trace export (`workbench run --trace FILE`), on the shipped Cast kernel and on hand-made records."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.core.platform import get_platform
from workbench.judge.perfmodel import params_for, predict
from workbench.running.events import (
    EVENT_DTYPE,
    PIPES,
    GmTensor,
    KernelEvents,
    read_events,
    to_chrome_trace,
    write_chrome_trace,
)

KINDS = ("call", "gm_read", "gm_write", "gm_atomic", "vector", "ub_copy", "set_flag", "wait_flag", "barrier")
KINDS += ("sync_all", "alloc", "enque", "deque", "free")
CAST = wb.Case("cast", ("float32", "float16"), (100_003,))  # 8 cores; the last one has two tiles


@pytest.fixture(scope="module")
def cast_run() -> wb.Result:
    return wb.run(CAST, trace=True)


def test_trace_off_has_no_log() -> None:
    assert wb.run(CAST).events is None


def test_each_core_copies_its_tiles(cast_run: wb.Result) -> None:
    ev = cast_run.events
    assert ev is not None and cast_run.passed and not ev.truncated
    calls = ev.calls
    tiles = {c.core: c.tiles + (1 if c.tail else 0) for c in cast_run.plan.cores}
    for kind in ("gm_read", "gm_write"):
        copies = calls[(calls["kind"] == kind) & (calls["api"] == "DataCopy")].groupby("core").size().to_dict()
        assert copies == tiles, kind
    assert tiles[7] == 2 and tiles[0] == 1  # what the case was chosen for
    # each event names the kernel's own line, and the pipe a DataCopy occupies
    reads = calls[calls["kind"] == "gm_read"]
    assert set(reads["pipe"]) == {"MTE2"} and set(calls[calls["kind"] == "gm_write"]["pipe"]) == {"MTE3"}
    assert all(Path(f).name == "cast_kernel.cpp" for f in calls["file"]) and (calls["line"] > 0).all()
    assert set(calls[calls["kind"] == "vector"]["api"]) == {"Cast"}
    # per core, events are in program order: seq grows
    assert all(g["seq"].is_monotonic_increasing for _, g in calls.groupby("core"))


def test_gm_ranges_tile_the_tensors_without_overlap(cast_run: wb.Result) -> None:
    ev = cast_run.events
    assert ev is not None
    size = {t.role: t.bytes for t in ev.tensors}
    assert size["input"] == 100_003 * 4 and size["output"] == 100_003 * 2
    ranges = ev.per_core_ranges()
    for direction, tensor in (("read", "arg0:input"), ("write", "arg1:output")):
        r = ranges[(ranges["direction"] == direction) & (ranges["tensor"] == tensor)].sort_values("lo")
        assert list(r["core"]) == list(range(8))  # one merged interval per core, in core order
        assert r["lo"].iloc[0] == 0 and (r["lo"].to_numpy()[1:] == r["hi"].to_numpy()[:-1]).all()
        assert r["hi"].iloc[-1] == (size["input"] if direction == "read" else size["output"])
    assert ev.overlaps().empty
    acc = ev.gm_accesses
    assert set(acc["direction"]) == {"read", "write"} and not acc["outside"].any()
    assert set(acc["role"]) == {"input", "output"} and set(acc["arg"]) == {0, 1}
    last = acc[(acc["core"] == 7) & (acc["direction"] == "read")]
    assert last["ordinal"].tolist() == [0, 1] and last["offset"].is_monotonic_increasing  # its two tiles, in order


def test_modelled_durations_add_up_to_the_performance_model(cast_run: wb.Result) -> None:
    """The per-event times use perfmodel's parameters: per core and pipe they sum to predict()'s pipe times."""
    assert cast_run.events is not None
    base = params_for(cast_run.case.platform)  # with a fixed cost per copy and per instruction too
    params = replace(base, mte_op_s=1e-6, vec_call_cycles=10.0, repeat_cycles={"Cast": 3.0})
    ev = replace(cast_run.events, params=params)
    pred = predict(cast_run.trace, cast_run.case.platform, params)
    busy = ev.calls.groupby(["core", "pipe"], observed=False)["dur_s"].sum()
    for core in pred.cores:
        for pipe, want in (("MTE2", core.mte2_s), ("V", core.vec_s), ("MTE3", core.mte3_s)):
            assert busy[(core.core, pipe)] == pytest.approx(want, rel=1e-9), (core.core, pipe)
    # a tile's Cast starts after its DataCopy in, its DataCopy out after the Cast (queue order)
    c0 = ev.calls[ev.calls["core"] == 0].set_index("kind", drop=False)
    read, cast, write = (c0[c0["kind"] == k].iloc[0] for k in ("gm_read", "vector", "gm_write"))
    assert cast["start_s"] >= read["start_s"] + read["dur_s"] > 0
    assert write["start_s"] >= cast["start_s"] + cast["dur_s"]


def test_ub_occupancy_follows_alloc_and_free(cast_run: wb.Result) -> None:
    ev = cast_run.events
    assert ev is not None
    occ = ev.ub_occupancy(core=7)
    assert list(occ["total"])[-1] == 0 and (occ["total"] >= 0).all()
    assert 0 < occ["total"].max() <= get_platform(cast_run.case.platform).ub_size
    vecin = ev.ub_occupancy(core=7, buffer=0)
    assert set(vecin["position"]) == {"VECIN"} and list(vecin["in_use"])[::2] == [vecin["in_use"].max()] * 2


def test_chrome_trace_structure(cast_run: wb.Result, tmp_path: Path) -> None:
    """The JSON object form of the trace-event format: traceEvents with ph, ts (µs), dur for "X", pid / tid, and
    "M" metadata naming each process (core) and thread (pipe)."""
    ev = cast_run.events
    assert ev is not None
    path = write_chrome_trace(ev, tmp_path / "t.json")
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    assert {e["ph"] for e in events} == {"X", "i", "M", "C"}  # no flags in this kernel: no flows
    meta = [e for e in events if e["ph"] == "M"]
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert procs == {c: f"core {c}" for c in range(8)}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert threads == {(c, t): PIPES[t] for c in range(8) for t in range(4)}
    for e in events:
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if e["ph"] not in ("M", "C"):
            assert isinstance(e["ts"], float) and e["ts"] >= 0 and "source" in e["args"]
        if e["ph"] == "X":
            assert e["dur"] > 0 and threads[(e["pid"], e["tid"])] in PIPES
    copies = [e for e in events if e["ph"] == "X" and e["name"] == "DataCopy"]
    ub = [e["args"]["bytes"] for e in events if e["ph"] == "C" and e["pid"] == 7]
    assert ub[-1] == 0 and max(ub) == ev.ub_occupancy(7)["total"].max()  # UB held by core 7's queues over time
    per_core = {c: sum(1 for e in copies if e["pid"] == c) for c in range(8)}
    assert per_core == {c: 4 if c == 7 else 2 for c in range(8)}  # in and out per tile
    assert all(e["args"]["source"].rsplit(":", 1)[0].endswith("cast_kernel.cpp") for e in copies)


def test_trace_needs_the_emulator() -> None:
    with pytest.raises(InvalidInput, match="trace"):
        wb.run(CAST, backend="replay", trace=True)
    with pytest.raises(InvalidInput, match="trace"):
        wb.run(CAST, trace="yes")  # type: ignore[arg-type]


def test_cli_trace_file(tmp_path: Path) -> None:
    out = tmp_path / "run.trace.json"
    cmd = [sys.executable, "-m", "workbench", "run", "cast", "--dtype", "float32:float16", "--shape", "1003"]
    done = subprocess.run([*cmd, "--quiet", "--trace", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert any(e["ph"] == "X" and e["name"] == "DataCopy" for e in doc["traceEvents"])
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary file, renamed
    folder = subprocess.run([*cmd, "--trace", str(tmp_path)], capture_output=True, text=True)
    assert folder.returncode == 4 and "--trace" in folder.stderr and "folder" in folder.stderr
    replay = subprocess.run([*cmd, "--backend", "npu", "--trace", str(out)], capture_output=True, text=True)
    assert replay.returncode == 2 and "trace" in replay.stderr


def test_read_events_refuses_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"not an event log")
    with pytest.raises(InvalidInput, match="event log"):
        read_events(bad)


def _records(*rows: dict) -> KernelEvents:
    rec = np.zeros(len(rows), EVENT_DTYPE)
    rec["gm_tensor"], rec["ub_buffer"], rec["a"], rec["b"], rec["id"] = -1, -1, -1, -1, -1
    for i, row in enumerate(rows):
        for k, v in row.items():
            rec[k][i] = v
    rec["seq"] = np.arange(len(rows))
    tensors = (GmTensor("arg0:output", 0, "output", 4096),)
    return KernelEvents(rec, ("", "DataCopy", "k.cpp"), KINDS, tensors, 3, "Ascend310P3")


def _write(core: int, lo: int, n: int, kind: int = 2, rows: int = 1, pitch: int = 0) -> dict:
    row = {"core": core, "kind": kind, "pipe": 3, "api": 1, "file": 2, "line": 7, "gm_tensor": 0, "gm_off": lo}
    return row | {"gm_span": n, "bytes": n, "gm_rows": rows, "gm_row_bytes": n if rows == 1 else 32, "gm_pitch": pitch}


def test_overlaps_are_the_bytes_two_cores_wrote() -> None:
    ev = _records(
        _write(0, 0, 512),
        _write(0, 512, 512),  # merges with the one before: [0, 1024)
        _write(1, 1000, 100),  # overlaps core 0 on [1000, 1024): a race
        _write(2, 2048, 96, rows=2, pitch=64),  # rows [2048, 2080) and [2112, 2144): a strided copy
        _write(1, 2080, 32),  # lands in core 2's gap: no overlap by rows
        _write(0, 3000, 64, kind=3),
        _write(2, 3032, 64, kind=3),  # atomic adds on both sides: flagged as such
    )
    ranges = ev.per_core_ranges()
    core0 = ranges[(ranges["core"] == 0) & (ranges["direction"] == "write")]
    assert core0[["lo", "hi", "accesses"]].values.tolist() == [[0, 1024, 2]]
    core2 = ranges[(ranges["core"] == 2) & (ranges["direction"] == "write")]
    assert core2[["lo", "hi"]].values.tolist() == [[2048, 2080], [2112, 2144]]
    assert ev.per_core_ranges(rows=False).query("core == 2 and direction == 'write'")["hi"].tolist() == [2144]
    got = ev.overlaps()[["lo", "hi", "core_a", "core_b", "atomic"]].values.tolist()
    assert got == [[1000, 1024, 0, 1, False], [3032, 3064, 0, 2, True]]
    past = _records(_write(0, 4000, 128)).gm_accesses
    assert past["past_end"].tolist() == [True] and past["outside"].tolist() == [False]


def test_to_chrome_trace_of_flags_pairs_set_and_wait() -> None:
    """Each SetFlag and WaitFlag is a zero-length complete event (a slice of its own) and a flow v2 arrow joins them
    (bind_id, flow_out -> flow_in): a v1 flow ("s" / "f") is bound by looking a slice up at its time, and a SetFlag
    starts exactly where its pipe's previous slice ends, which catapult would pick instead (events.to_chrome_trace)."""
    flag = {"core": 0, "api": 1, "file": 2, "a": 2, "b": 1, "id": 0}  # MTE2 -> V, event ID 0
    set_flag, wait_flag = flag | {"kind": 6, "pipe": 2, "line": 3}, flag | {"kind": 7, "pipe": 1, "line": 4}
    unmatched = flag | {"kind": 7, "pipe": 1, "line": 5, "id": 1}
    doc = to_chrome_trace(_records(_write(0, 0, 64, kind=1) | {"pipe": 2}, set_flag, wait_flag, unmatched))
    events = doc["traceEvents"]
    assert not [e for e in events if e["ph"] in ("s", "t", "f")]
    copy, *flags = [e for e in events if e["ph"] == "X"]
    assert [(e["cat"], e["tid"], e["dur"]) for e in flags] == [("set_flag", 2, 0), *[("wait_flag", 1, 0)] * 2]
    set_ev, wait_ev, lone = flags
    assert copy["tid"] == 2 and set_ev["ts"] == copy["ts"] + copy["dur"] > 0  # the slice a v1 lookup would find
    assert set_ev["flow_out"] is True and "flow_in" not in set_ev
    assert wait_ev["flow_in"] is True and "flow_out" not in wait_ev and wait_ev["bind_id"] == set_ev["bind_id"]
    assert wait_ev["ts"] >= set_ev["ts"] and "bind_id" not in lone  # a WaitFlag with no SetFlag draws no arrow


@pytest.mark.slow
def test_a_16m_element_cast_stays_small() -> None:
    """16M elements: a few thousand events, one merged GM interval per core and direction, a trace of the same size."""
    r = wb.run(wb.Case("cast", ("float32", "float16"), (1 << 24,)), trace=True)
    ev = r.events
    assert ev is not None and r.passed and 0 < len(ev) < 20_000
    ranges = ev.per_core_ranges()
    cores = {c.core for c in r.plan.cores}
    assert len(ranges) == 2 * len(cores) and ev.overlaps().empty
    assert ranges.groupby("direction")["hi"].max().to_dict() == {"read": 4 << 24, "write": 2 << 24}
    assert len(to_chrome_trace(ev)["traceEvents"]) < 2 * len(ev) + 8 * len(cores)
