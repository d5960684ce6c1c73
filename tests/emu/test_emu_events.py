"""The emulator's event log (ascemu/events.h) at the level of a user's kernel: each hook's fields, per core, at the
kernel's lines (docs/emulator.md#event-log)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from emu_helpers import EMU_DIR, marker_line

from workbench.running import emu

SOURCE = EMU_DIR / "events_kernel.cpp"


@pytest.fixture(scope="module")
def traced() -> emu.KernelRun:
    kernel = emu.load(SOURCE, entry="events_kernel", platform="Ascend310P3")
    x = np.arange(512, dtype=np.float32)
    y, z = np.zeros(64, np.float32), np.zeros(16, np.float32)
    return kernel[2](emu.In(x), y, z, trace=True)


def line(marker: str) -> int:
    return marker_line(SOURCE, marker)


def test_each_call_at_its_line_with_what_it_touched(traced: emu.KernelRun) -> None:
    ev = traced.events
    assert ev is not None and ev.block_dim == 2 and not ev.truncated
    calls = ev.calls
    assert set(calls["core"]) == {0, 1} and {Path(f).name for f in calls["file"]} == {"events_kernel.cpp"}
    for core in (0, 1):
        c = calls[calls["core"] == core].set_index("line")
        strided = c.loc[line("strided")]
        assert (strided["kind"], strided["pipe"], strided["tensor"]) == ("gm_read", "MTE2", "arg0:input")
        assert (strided["gm_off"], strided["gm_rows"], strided["gm_row_bytes"], strided["gm_pitch"]) == (
            core * 1024, 2, 64, 128,
        )  # fmt: skip
        assert (strided["bytes"], strided["ub_pos"], strided["ub_len"]) == (128, "VECIN", 128)
        adds = c.loc[line("adds")]  # GetValue on GM, then the vector instruction, both at the line
        assert list(adds["kind"]) == ["gm_read", "vector"] and list(adds["pipe"]) == ["S", "V"]
        assert adds.iloc[1]["repeats"] == 1 and adds.iloc[1]["count"] == 32 and adds.iloc[1]["ub_pos"] == "VECCALC"
        flag = c.loc[[line("set"), line("wait")]]
        assert list(flag["kind"]) == ["set_flag", "wait_flag"] and list(flag["pipe"]) == ["V", "MTE3"]
        assert list(flag["a"]) == [1, 1] and list(flag["b"]) == [3, 3] and list(flag["id"]) == [0, 0]
        assert c.loc[line("race")]["kind"] == "gm_write" and c.loc[line("atomic")]["kind"] == "gm_atomic"
        assert {"alloc", "enque", "deque", "free", "barrier"} <= set(c["kind"])


def test_overlapping_writes_of_two_cores(traced: emu.KernelRun) -> None:
    ev = traced.events
    assert ev is not None  # the emulator's own race check agrees on the plain write
    assert [(d.kind, d.line) for d in traced.diagnostics if d.kind == "GM_WRITE_RACE"] == [
        ("GM_WRITE_RACE", line("race"))
    ]
    got = ev.overlaps()[["tensor", "lo", "hi", "core_a", "core_b", "atomic"]].values.tolist()
    assert got == [["arg1:inout", 0, 128, 0, 1, False], ["arg2:inout", 0, 64, 0, 1, True]]


def test_the_flag_orders_the_modelled_timeline(traced: emu.KernelRun) -> None:
    ev = traced.events
    assert ev is not None
    c = ev.calls[ev.calls["core"] == 0].set_index("line")
    vector = c.loc[line("adds")].iloc[1]
    assert c.loc[line("race")]["start_s"] >= vector["start_s"] + vector["dur_s"] > 0
    assert c.loc[line("wait")]["start_s"] == pytest.approx(vector["start_s"] + vector["dur_s"])


def test_off_by_default_and_refused_when_not_a_bool() -> None:
    kernel = emu.load(SOURCE, entry="events_kernel", platform="Ascend310P3")
    x, y, z = np.arange(512, dtype=np.float32), np.zeros(64, np.float32), np.zeros(16, np.float32)
    assert kernel[2](emu.In(x), y, z).events is None
    with pytest.raises(emu.InvalidInput, match="trace"):
        kernel[2](emu.In(x), y, z, trace=1)


def test_a_missing_log_is_never_silent(tmp_path: Path) -> None:
    """A launch that finished without writing its log was refused the file: an infrastructure fault, no verdict. One
    that ended in a fatal record without a log says why (test_emu_events_fatal.py)."""
    from workbench.core.errors import InfrastructureError
    from workbench.running.emu.launch import _events

    with pytest.raises(InfrastructureError, match="event log"):
        _events(tmp_path / "events.bin", 1, {"exit_code": 1})
    events, why = _events(tmp_path / "events.bin", 2, {"exit_code": 2})
    assert events is None and why
