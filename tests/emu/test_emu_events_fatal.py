"""The event log of a launch that ends in a fatal record (docs/emulator.md#event-log): written up to the fault, in
every launch mode, marked fatal, each core's log ending at its latest API call; the access map and the Chrome trace
read it like any other log."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from emu_helpers import EMU_DIR, marker_line

from workbench.running import emu
from workbench.running.access import access_map
from workbench.running.events import KernelEvents, to_chrome_trace

SOURCE = EMU_DIR / "events_fatal_kernel.cpp"
CORES = 3
# tiling_key -> the fault core 1 hits (events_fatal_kernel.cpp); +4: the other cores copy until the fault
ASSERT, WILD, SPIN, OTHERS_COPYING = 1, 2, 3, 4


@pytest.fixture(scope="module")
def kernel() -> emu.Kernel:
    return emu.load(SOURCE, entry="events_fatal_kernel", platform="Ascend910B3")


def launch(kernel: emu.Kernel, key: int, mode: str, **kw: object) -> emu.KernelRun:
    x, y = np.arange(CORES * 64, dtype=np.float32), np.zeros(CORES * 64, np.float32)
    return kernel[CORES](emu.In(x), y, tiling_key=key, trace=True, mode=mode, **kw)


def line(marker: str) -> int:
    return marker_line(SOURCE, marker)


def last_call(ev: KernelEvents, core: int) -> tuple[str, int, str]:
    c = ev.calls[ev.calls["core"] == core]
    assert list(c["seq"]) == list(range(len(c)))  # the core's log is whole: every event up to its last
    last = c.iloc[-1]
    return str(last["api"]), int(last["line"]), Path(str(last["file"])).name


def check_faulting_core(run: emu.KernelRun, kind: str, code: int) -> KernelEvents:
    ev = run.events
    assert ev is not None, run.events_missing
    assert (run.exit_code, ev.fatal, ev.exit_code, ev.fault) == (code, True, code, kind)
    assert [d.kind for d in run.diagnostics if d.severity == "fatal"] == [kind]
    # core 1's last event is its call before the fault, at its line; its earlier calls are there too
    assert last_call(ev, 1) == ("DataCopy", line("last"), "events_fatal_kernel.cpp")
    c1 = ev.calls[ev.calls["core"] == 1]
    assert {line("first_in"), line("first_out"), line("last")} <= set(c1["line"])
    assert c1.iloc[-1]["kind"] == "gm_write" and c1.iloc[-1]["tensor"] == "arg1:inout"
    # every core's copies before the SyncAll are in the log
    for core in range(CORES):
        lines = set(ev.calls.loc[ev.calls["core"] == core, "line"])
        assert {line("first_in"), line("first_out")} <= lines, core
    return ev


@pytest.mark.parametrize(("key", "kind", "code"), [(ASSERT, "KERNEL_ABORT", 2), (WILD, "CRASH", 4)])
def test_serial_launch_keeps_its_log_up_to_the_fault(kernel: emu.Kernel, key: int, kind: str, code: int) -> None:
    run = launch(kernel, key, "serial")
    ev = check_faulting_core(run, kind, code)
    assert ev.fault_core == 1 and run.events_missing == ""
    # the partial log serves the views: per-core GM ranges, the access map, the Chrome trace
    ranges = ev.per_core_ranges()
    assert set(ranges["core"]) == set(range(CORES))
    amap = access_map(ev)
    assert set(amap.ranges["core"]) == set(range(CORES)) and amap.steps == len(ev)
    spans = [e for e in to_chrome_trace(ev)["traceEvents"] if e.get("ph") == "X" and e["pid"] == 1]
    assert spans[-1]["args"]["source"].endswith(f"events_fatal_kernel.cpp:{line('last')}")


def stopped_in_the_loop(ev: KernelEvents) -> bool:
    """Core 0 was in its copy loop when core 1 faulted (the kernel waits for it): its log ends in the loop, and core
    2's at the SyncAll (its thread had not gone on yet) or in the loop; every event before their last is whole."""
    loop, sync = ("DataCopy", line("loop")), ("SyncAll", line("sync"))
    assert last_call(ev, 2)[:2] in (loop, sync)
    return last_call(ev, 0)[:2] == loop and line("loop") in set(ev.calls.loc[ev.calls["core"] == 0, "line"])


@pytest.mark.parametrize(("key", "kind", "code"), [(ASSERT, "KERNEL_ABORT", 2), (WILD, "CRASH", 4)])
def test_parallel_launch_stops_the_recording_cores_and_writes_the_log(
    kernel: emu.Kernel, key: int, kind: str, code: int
) -> None:
    """Cores 0 and 2 copy for ever, each on a thread of its own, while core 1 faults: the fault stops them at their
    next hook, and their logs end there, every event before it whole."""
    run = launch(kernel, key + OTHERS_COPYING, "parallel", threads=CORES)
    ev = check_faulting_core(run, kind, code)
    assert ev.fault_core == 1
    assert stopped_in_the_loop(ev)


def test_a_timeout_of_the_watchdog_stops_the_cores_too(kernel: emu.Kernel) -> None:
    """The TIMEOUT record is raised on the launch's own thread while core 1 spins and cores 0 and 2 copy."""
    run = launch(kernel, SPIN + OTHERS_COPYING, "parallel", threads=CORES, timeout_s=1.0)
    ev = check_faulting_core(run, "TIMEOUT", 3)
    assert ev.fault_core in range(CORES)  # the watchdog names a running core
    assert stopped_in_the_loop(ev)


def test_a_missing_log_of_a_fatal_launch_says_why(tmp_path: Path) -> None:
    """No log beside a fatal record: None, with the emulator's reason (the report's events_skipped), else a general
    one; never silently None."""
    from workbench.running.emu.launch import _events

    path = tmp_path / "events.bin"
    events, why = _events(path, 2, {"exit_code": 2, "events_skipped": "core 3 was still recording an event"})
    assert events is None and why.endswith("core 3 was still recording an event") and "fatal record" in why
    events, why = _events(path, 4, {"exit_code": 4})
    assert events is None and "crash handler ran out of time" in why
    events, why = _events(path, 4, {})
    assert events is None and "before the emulator could write" in why
