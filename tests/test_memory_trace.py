"""The memory guard counts the event log of a run with trace=True (planning/memory.py trace_room): the log's cap is
what the budget leaves after the run's own estimate, every view of a log cut at that cap says so, and a budget with
no room for a log refuses the trace up front."""

from __future__ import annotations

import dataclasses
import gc
import html
import json
import tracemalloc
from pathlib import Path

import pytest

import workbench as wb
from workbench.core import resources
from workbench.core.errors import InvalidInput
from workbench.planning import memory
from workbench.running.access import result_access_map
from workbench.running.emu.launch import check_launch_options
from workbench.running.events import EVENT_DTYPE, MAX_EVENTS, KernelEvents, to_chrome_trace
from workbench.view.render.access_map import access_map_chart

CAST = wb.Case("cast", ("float32", "float16"), (100_003,))  # 8 cores, 133 events (tests/test_events.py)
CAP = 40  # below the Cast's events, above one per core


def _budget_for(case: wb.Case, events: int) -> int:
    """A max_memory that leaves room for exactly `events` events after the run's estimate."""
    plan = wb.plan(case)
    blocks = plan.block_dim * memory.EVENT_BLOCK * memory.EVENT_BYTES_EMULATOR
    return memory.estimate(case, plan).total + blocks + events * memory.EVENT_BYTES + memory.EVENT_BYTES // 2


def _flat(text: str) -> str:
    """`text` without whitespace: what wrapping a line (also at a hyphen) cannot change."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def capped() -> wb.Result:
    return wb.run(CAST, trace=True, max_memory=_budget_for(CAST, CAP))


def test_the_cap_is_what_the_budget_leaves(capped: wb.Result) -> None:
    ev = capped.events
    assert ev is not None and capped.passed  # the outputs are whole; only the log stops
    # the cores reserve events a few at a time (ascemu's g_event_block), so the log stays close to its cap
    assert ev.truncated and ev.max_events == CAP and CAP - capped.plan.block_dim <= len(ev) <= CAP
    note = f"event log truncated at {len(ev)} events (cap {CAP}: memory budget"
    assert ev.truncation.startswith(note) and "max_memory" in ev.truncation


def test_every_view_of_a_truncated_log_says_so(capped: wb.Result) -> None:
    ev = capped.events
    assert ev is not None
    note = ev.truncation
    flat, escaped = _flat(note), _flat(html.escape(note))
    assert flat in _flat(capped.text()) and escaped in _flat(capped._repr_html_())
    source = wb.annotate_source(capped)
    assert flat in _flat(source.text()) and escaped in _flat(source._repr_html_())
    amap = result_access_map(capped)
    assert amap.truncation == note and access_map_chart(amap).to_dict()["title"]["text"] == note
    doc = to_chrome_trace(ev)
    assert doc["otherData"]["truncation"] == note and doc["otherData"]["max_events"] == CAP
    marks = [e for e in doc["traceEvents"] if e.get("cat") == "truncated"]
    assert [(m["ph"], m["s"], m["name"]) for m in marks] == [("i", "g", note)]
    assert marks[0]["ts"] == max(e["ts"] + e.get("dur", 0) for e in doc["traceEvents"] if "ts" in e)


def test_enough_memory_keeps_the_whole_log() -> None:
    r = wb.run(CAST, trace=True, max_memory="4G")
    ev = r.events
    need = memory.estimate(CAST, r.plan).total + r.plan.block_dim * memory.EVENT_BLOCK * memory.EVENT_BYTES_EMULATOR
    assert ev is not None and not ev.truncated and ev.truncation == "" and len(ev) == 133
    assert ev.max_events == ((4 << 30) - need) // memory.EVENT_BYTES < MAX_EVENTS
    assert "truncated" not in r.text() and "event log: 133 events" in r.text()
    assert "title" not in access_map_chart(result_access_map(r)).to_dict()
    assert "truncation" not in to_chrome_trace(ev)["otherData"]


def test_a_budget_without_room_for_a_log_refuses_the_trace() -> None:
    tiny = _budget_for(CAST, 4)  # fewer events than the Cast's 8 cores
    with pytest.raises(memory.MemoryBudgetExceeded, match=r"max_memory setting\); trace=True needs room for 8 events"):
        wb.run(CAST, trace=True, max_memory=tiny)
    assert wb.run(CAST, max_memory=tiny).passed  # trace=False: the budget is the run's alone, as before


def test_the_launch_cap_is_checked() -> None:
    assert check_launch_options({"trace": True, "max_events": 5}) == {"trace": True, "max_events": 5}
    for bad in (0, MAX_EVENTS + 1, 2.5, True):
        with pytest.raises(InvalidInput, match="max_events"):
            check_launch_options({"max_events": bad})


def test_the_per_event_bytes_match_their_sources() -> None:
    """EVENT_BYTES_* name the emulator's Event, the file's record and the numpy records; MAX_EVENTS is kMaxEvents."""
    header = Path(resources.path("kernels/emu/include/ascemu/events.h")).read_text()
    assert f"sizeof(Event) == {memory.EVENT_BYTES_EMULATOR}" in header
    assert f"sizeof(EventDisk) == {memory.EVENT_BYTES_FILE}" in header
    assert f"kEventBlock = {memory.EVENT_BLOCK}" in header and "kMaxEvents = 8u << 20" in header
    assert EVENT_DTYPE.itemsize == memory.EVENT_BYTES_RECORDS and memory.MAX_EVENTS == MAX_EVENTS == 8 << 20


def test_the_python_side_of_a_log_stays_within_its_share() -> None:
    """Frames, the access map, the annotated source and the Chrome trace export of a traced SCE run, measured with
    tracemalloc per event, stay under EVENT_BYTES_FRAMES + EVENT_BYTES_EXPORT (the records are counted apart)."""
    case = wb.Case("softmax_cross_entropy_with_logits", ("float32",), (256, 1000))
    r = wb.run(case, trace=True)
    ev = r.events
    assert ev is not None and len(ev) > 5000
    warm = wb.run(CAST, trace=True)  # first use of pandas, altair and the views: not the log's cost
    json.dumps(to_chrome_trace(warm.events))  # type: ignore[arg-type]
    wb.annotate_source(warm)
    result_access_map(warm)
    fresh = KernelEvents(ev.records, ev.strings, ev.kinds, ev.tensors, ev.block_dim, ev.platform)  # no cached frames
    again = dataclasses.replace(r, events=fresh)
    gc.collect()
    tracemalloc.start()
    try:
        result_access_map(again)
        wb.annotate_source(again)
        json.dumps(to_chrome_trace(fresh), separators=(",", ":")).encode()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_event = peak / len(ev)
    assert per_event <= memory.EVENT_BYTES_FRAMES + memory.EVENT_BYTES_EXPORT, per_event
    assert per_event > (memory.EVENT_BYTES_FRAMES + memory.EVENT_BYTES_EXPORT) / 2, "the share is a measurement"
