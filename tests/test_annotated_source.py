"""The annotated source (workbench/running/annotated.py, render/source.py, docs/workbench.md#annotated-source): a traced
Cast run's lines carry their API counts, bytes and predicted µs; an edited kernel's warning lands on its line; an
untraced run says the counts are unavailable; the HTML view, the report section, the app panel and the CLI flag."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from planted import round_to_odd_kernel

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.running.annotated import NO_TRACE, annotate_source
from workbench.view.render.report import html_report, source_section
from workbench.view.render.source import HOT_SHARE, source_html, source_text

CAST = wb.Case("cast", ("float32", "float16"), (100_003,))  # 8 cores; the last one copies a tail tile too
SMALL = wb.Case("cast", ("float32", "float16"), (4096,))
DATACOPY_IN = "            DataCopy(x, xGm_[offset], n);\n"
PLANTED = "            DataCopy(x, xGm_[offset], 1);  // planted: 4 bytes < 32, nothing moves\n"


@pytest.fixture(scope="module")
def traced() -> wb.Result:
    return wb.run(CAST, trace=True)


def _line_of(path: str, text: str) -> int:
    lines = Path(path).read_text().splitlines(keepends=True)
    assert lines.count(text) == 1, text
    return lines.index(text) + 1


def test_datacopy_lines_count_the_plans_tiles_and_move_the_tensors(traced: wb.Result) -> None:
    a = annotate_source(traced)
    assert a.traced and a.note == "" and a.files[0].path == a.kernel and a.files[0].name == "cast_kernel.cpp"
    copy_in = a.line(_line_of(a.kernel, DATACOPY_IN))
    copy_out = a.line(_line_of(a.kernel, "            DataCopy(yGm_[offset], y, n);\n"))
    tiles = sum(c.tiles + (1 if c.tail else 0) for c in traced.plan.cores)  # tiles per core x cores
    assert tiles == 9 and traced.plan.block_dim == 8
    assert copy_in.api_counts == copy_out.api_counts == (("DataCopy", tiles),)
    # the bytes are the tensors', plus the tail tile's re-copy of a 32-byte output block (16 elements, 3 new)
    overlap = 16 - traced.plan.cores[-1].tail
    assert copy_in.bytes == CAST.shape[0] * 4 + overlap * 4
    assert copy_out.bytes == CAST.shape[0] * 2 + overlap * 2
    assert copy_in.repeats == copy_out.repeats == 0
    cast = next(line for line in a.files[0].lines if dict(line.api_counts).get("Cast"))
    assert cast.api_counts == (("Cast", tiles),) and cast.repeats > 0 and cast.bytes == 0
    # predicted µs: the events' modelled durations per line, which add up to the run's total
    calls = traced.events.calls if traced.events is not None else None
    assert calls is not None
    at = calls[calls["line"] == copy_in.number]
    assert copy_in.predicted_us == pytest.approx(at["dur_s"].sum() * 1e6)
    assert a.total_us == pytest.approx(calls["dur_s"].sum() * 1e6)
    assert sum(line.share for f in a.files for line in f.lines) == pytest.approx(1.0)
    assert {line.time_source for line in a.files[0].lines} == {"predicted"} and a.time_source == "predicted"


def test_the_hot_line_has_the_most_predicted_time(traced: wb.Result) -> None:
    a = annotate_source(traced)
    lines = [line for f in a.files for line in f.lines]
    hot = a.hot
    assert hot is not None
    assert hot[1].predicted_us == max(line.predicted_us for line in lines) > 0
    assert hot[1].text.strip().startswith("DataCopy(x, xGm_")  # MTE2 moves the wider input: the most time
    text = source_text(a)
    marked = [row for row in text.splitlines() if row.startswith("  > ")]
    assert any(f" {hot[1].number} " in row for row in marked)
    assert len(marked) == sum(line.share >= HOT_SHARE for line in lines)
    assert "line  calls      bytes" in text and "400,064" in text and "// DataCopy" in text
    # only annotated lines and their context: far fewer rows than the file has
    assert len(text.splitlines()) < len(a.files[0].lines) / 4 and "⋯" in text


def test_an_untraced_run_says_the_counts_are_unavailable() -> None:
    a = annotate_source(wb.run(CAST))
    assert not a.traced and a.note == NO_TRACE and a.hot is None and a.total_us == 0
    assert all(not line.api_counts and line.predicted_us == 0 for line in a.files[0].lines)
    assert "diagnostics only" in source_text(a) and "trace=True" in source_text(a)
    assert "trace=True" in source_html(a) and "class='wb-heat'" not in source_html(a)
    assert "no line annotated" in source_html(a)
    assert source_section(wb.run(CAST)) == ""  # the report adds no section without a trace


@pytest.fixture(scope="module")
def round_bug(tmp_path_factory: pytest.TempPathFactory) -> wb.Result:
    """tests/planted.py's round-to-odd Cast kernel on int8 -> half (a build tests/test_sweep.py makes too): 310P has
    no CAST_ODD for it, an error on the Cast line, and the output tile is then copied out unwritten, a warning."""
    copy = round_to_odd_kernel(tmp_path_factory.mktemp("round") / "cast_odd.cpp")
    return wb.run(wb.Case("cast", ("int8", "float16"), (4096,)), kernel=copy, trace=True)


def test_diagnostics_land_on_their_line(round_bug: wb.Result) -> None:
    a = annotate_source(round_bug)
    assert a.kernel == str(Path(round_bug.kernel).resolve())  # the edited copy, not the shipped kernel
    cast = a.line(
        _line_of(a.kernel, "            Cast(y, x, toInt ? RoundMode::CAST_TRUNC : RoundMode::CAST_ODD, n);\n")
    )
    copy_out = a.line(_line_of(a.kernel, "            DataCopy(yGm_[offset], y, n);\n"))
    cores = round_bug.plan.block_dim
    assert {d.kind for d in cast.diagnostics} == {"UNSUPPORTED_CAST_MODE"} and len(cast.diagnostics) == cores
    assert {d.kind for d in copy_out.diagnostics} == {"UNINIT_TO_GM"} and copy_out.api_counts == (("DataCopy", cores),)
    placed = sum(len(line.diagnostics) for f in a.files for line in f.lines)
    assert placed + len(a.launch_diagnostics) == len(round_bug.diagnostics) == 2 * cores
    text = source_text(a)
    assert f"! error UNSUPPORTED_CAST_MODE x{cores} on {cores} cores: Cast int8 -> half" in text
    view = source_html(a)
    assert view.count("class='wb-diag wb-sev-error'") == 1  # one badge for the same record on every core
    assert view.count("class='wb-diag wb-sev-warning'") == 1
    assert f"title='error UNSUPPORTED_CAST_MODE x{cores} on {cores} cores: Cast int8 -&gt; half" in view


@pytest.mark.slow  # builds an edited kernel nothing else builds (~15 s cold)
def test_a_planted_warning_lands_on_the_planted_line(tmp_path: Path) -> None:
    """A Cast kernel with one more DataCopy of 1 float (4 bytes < 32): a DATACOPY_ZERO warning on that line."""
    copy = wb.copy_kernel(SMALL, tmp_path)
    text = copy.read_text()
    assert text.count(DATACOPY_IN) == 1
    copy.write_text(text.replace(DATACOPY_IN, DATACOPY_IN + PLANTED))
    result = wb.run(SMALL, kernel=copy, trace=True)
    a = annotate_source(result)
    number = _line_of(a.kernel, PLANTED)
    line = a.line(number)
    assert {d.kind for d in line.diagnostics} == {"DATACOPY_ZERO"} and len(line.diagnostics) == len(result.diagnostics)
    assert line.api_counts == (("DataCopy", result.plan.block_dim),) and line.bytes == 0
    assert not any(other.diagnostics for other in a.files[0].lines if other.number != number)
    assert f"warning DATACOPY_ZERO x{result.plan.block_dim}" in source_text(a)


def test_the_html_view_has_a_gutter_heat_bars_and_hot_rows(traced: wb.Result) -> None:
    a = annotate_source(traced)
    view = source_html(a)
    hot = a.hot
    assert hot is not None
    for col in ("line", "calls", "bytes", "µs (predicted)", "share"):
        assert f">{col}</td>" in view, col
    assert f"<tr data-line='{hot[1].number}' class='wb-hot'>" in view
    timed = [line for line in a.files[0].lines if line.predicted_us > 0]
    assert f"width:{hot[1].share * 100:.1f}%" in view and view.count("class='wb-heat'") == len(timed) == 3
    assert "400,064" in view and "cast_kernel.cpp" in view
    # theme friendly: text in the theme's colours, tints translucent, a badge brings its own text colour
    assert "color:var(--jp-ui-font-color1,inherit)" in view and "rgba(245,166,35,0.22)" in view
    assert "<script" not in view
    assert a._repr_html_() == view and repr(a) == source_text(a)


def test_the_html_report_has_the_section_when_the_run_has_a_trace(traced: wb.Result) -> None:
    page = html_report(traced)
    assert "<div class='wb-src'>" in page and "annotated source: " in page
    assert page.index("<div class='wb-src'>") < page.index("</body>")


def test_the_app_shows_the_panel_after_a_traced_run() -> None:
    pytest.importorskip("ipywidgets")
    from workbench.view.ui.app import Workbench

    app = Workbench(SMALL)
    assert app.source.widget.layout.display == "none"
    app.controls["trace"].value = True
    result = app.run()
    assert result is not None and result.events is not None
    assert app.source.widget.layout.display == "" and app.source.source is not None
    assert app.source.source.traced and "wb-heat" in app.source.view.value
    app.controls["trace"].value = False
    app.run()
    assert (
        app.source.source is not None
        and not app.source.source.traced
        and html.escape(NO_TRACE) in app.source.view.value
    )


def test_cli_trace_source_prints_the_annotated_source() -> None:
    args = ["run", "cast", "--dtype", "float32:float16", "--shape", "4096", "--trace-source"]
    out = subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.index("PASS") < out.stdout.index("annotated source: ")
    assert "// DataCopy" in out.stdout and "µs predicted" in out.stdout


def test_events_in_other_files_are_grouped_per_file(traced: wb.Result, tmp_path: Path) -> None:
    """Events that point into a header the kernel includes get that file's own section, after the kernel's."""
    from dataclasses import replace

    events = traced.events
    assert events is not None
    header = tmp_path / "helpers.h"
    header.write_text("// a header\ninline void Copy() {}\n")
    strings = (*events.strings, str(header))
    records = events.records.copy()
    reads = np.flatnonzero(records["kind"] == events.kinds.index("gm_read"))
    records["file"][reads] = len(strings) - 1
    records["line"][reads] = 2
    a = annotate_source(replace(traced, events=replace(events, records=records, strings=strings)))
    assert [f.name for f in a.files] == ["cast_kernel.cpp", "helpers.h"]
    moved = a.line(2, "helpers.h")
    assert moved.text == "inline void Copy() {}" and moved.api_counts == (("DataCopy", 9),)
    assert "helpers.h" in source_text(a) and "<h5 title=" in source_html(a)
    with pytest.raises(InvalidInput, match=re.escape("number: got 3; allowed: a line of helpers.h: 1 to 2")):
        a.line(3, "helpers.h")
    with pytest.raises(InvalidInput, match=re.escape("file: got 'nope.h'; allowed: one of cast_kernel.cpp, helpers.h")):
        a.line(1, "nope.h")
