"""wb.run(..., trace=True) of a kernel that ends in a fatal record: the result carries the event log up to the fault
(docs/emulator.md#event-log), and the annotated source and the access map read it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import workbench as wb
from workbench.running.access import result_access_map
from workbench.running.events import KernelEvents

CASE = wb.Case("cast", ("float32", "float16"), (1003,))  # 8 cores of 32-element blocks


@pytest.mark.slow  # builds an edited Cast kernel of its own
def test_a_run_that_faults_keeps_its_event_log_up_to_the_fault(tmp_path: Path) -> None:
    copy = wb.copy_kernel(CASE, tmp_path / "asserting.cpp")
    source = copy.read_text()
    planted = source.replace(
        "    op.Process();\n}", "    op.Process();\n    ASSERT(GetBlockIdx() != 1);  // planted\n}"
    )
    assert planted != source
    copy.write_text(planted)
    faulted = wb.run(CASE, kernel=copy, trace=True)
    assert faulted.verdict == "KERNEL FAULT" and [d.kind for d in faulted.diagnostics if d.severity == "fatal"] == [
        "KERNEL_ABORT"
    ]
    ev = faulted.events
    assert ev is not None and faulted.events_missing == ""
    assert (ev.fatal, ev.fault, ev.fault_core, ev.exit_code) == (True, "KERNEL_ABORT", 1, faulted.exit_code)
    # core 1 made every call of the shipped kernel's core 1 (the ASSERT follows them), at the same lines
    whole = wb.run(CASE, trace=True).events
    assert whole is not None and not whole.fatal

    def calls(events: KernelEvents, core: int) -> list[tuple[str, int]]:
        c = events.calls[events.calls["core"] == core]
        return list(zip(c["api"], c["line"], strict=True))

    assert calls(ev, 1) == calls(whole, 1) and len(calls(ev, 1)) > 3
    assert {Path(f).name for f in ev.calls["file"]} == {"asserting.cpp"}
    # the views read the partial log
    amap = result_access_map(faulted)
    assert 1 in set(amap.ranges["core"])
    annotated = wb.annotate_source(faulted)
    assert annotated.traced and "fatal record (KERNEL_ABORT on core 1)" in annotated.note
    lines = {line.number: line for line in annotated.files[0].lines}
    assert lines[calls(ev, 1)[-1][1]].api_counts
    planted_at = planted.splitlines().index("    ASSERT(GetBlockIdx() != 1);  // planted") + 1
    assert [d.kind for d in lines[planted_at].diagnostics] == ["KERNEL_ABORT"]


def test_the_views_say_why_a_fatal_run_has_no_log(capsys: pytest.CaptureFixture[str]) -> None:
    """A traced run whose fatal launch left no log: the --trace flag, the access map and the annotated source's note
    each give the reason (Result.events_missing), never a bare 'no log'."""
    from workbench.core.errors import InvalidInput
    from workbench.running.annotated import _note
    from workbench.view.cli import _write_trace

    why = "the launch ended in a fatal record and wrote no event log: core 3 was still recording an event"
    run = SimpleNamespace(events=None, events_missing=why, case=SimpleNamespace(label=lambda: "cast"))
    _write_trace(run, "trace.json")
    assert f"no event log ({why})" in capsys.readouterr().err
    with pytest.raises(InvalidInput, match="core 3 was still recording"):
        result_access_map(run)  # type: ignore[arg-type]
    assert _note(run) == f"No event log: {why}"  # type: ignore[arg-type]


def test_the_app_access_panel_shows_why_there_is_no_log() -> None:
    pytest.importorskip("ipywidgets")
    from workbench.view.ui.access_panel import AccessPanel

    panel = AccessPanel(lambda core, tile: None)
    why = "the launch ended in a fatal record and wrote no event log: core 3 was still recording an event"
    panel.update(SimpleNamespace(events=None, events_missing=why))  # type: ignore[arg-type]
    assert panel.widget.layout.display == "" and why in panel.note.value and panel.map is None
    assert panel.chart.layout.display == panel.controls.layout.display == "none"
    panel.update(SimpleNamespace(events=None, events_missing=""))  # type: ignore[arg-type]  # trace off: hidden
    assert panel.widget.layout.display == "none"
