"""What a notebook cell shows for each record: a one-line repr and a compact, themed HTML card."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.view.render.html import STYLE

CASE = wb.Case("embedding_dense_grad", ("float32",), (256, 64), attrs={"num_weights": 100})


@pytest.fixture(scope="module")
def result() -> wb.Result:
    return wb.run(CASE)


def test_reprs_are_one_short_line(result: wb.Result) -> None:
    plan, plat, report = result.plan, wb.PLATFORMS["Ascend910B3"], result.reports["out"]
    shown = {repr(plan): "TilingPlan(embedding_dense_grad @Ascend310P3: key 0 SEGMENT_ATOMIC, block_dim 8, UB "}
    shown[repr(plat)] = "Platform(Ascend910B3: dav-c220, GetCoreNum 40, UB 196608 B, inf_nan, bf16 yes)"
    shown[repr(report)] = "Report(out [float32 100x64]: PASS double_thousandth, failed 0/6400"
    shown[repr(result)] = "Result(PASS: embedding_dense_grad[float32:int32 256x64 ND"
    for text, start in shown.items():
        assert text.startswith(start) and "\n" not in text and len(text) < 240, text


def test_every_record_has_a_card_with_one_stylesheet(result: wb.Result) -> None:
    cards = {
        "case": CASE._repr_html_(),
        "plan": result.plan._repr_html_(),
        "platform": wb.PLATFORMS["Ascend310P3"]._repr_html_(),
        "report": result.reports["out"]._repr_html_(),
        "result": result._repr_html_(),
    }
    for name, page in cards.items():
        assert page.startswith(STYLE) and page.count("<style>") == 1 and "class='wb-card'" in page, name
    assert "num_weights=100" in cards["case"] and "SEGMENT_ATOMIC" in cards["plan"] and "rowBatchNum" in cards["plan"]
    assert "saturation" in cards["platform"] and "class='wb-pass'" in cards["result"]
    assert len(cards["plan"]) < 20_000  # a 48-core plan stays a card, not a page


def test_cards_follow_the_jupyterlab_theme_and_escape_text() -> None:
    assert "var(--jp-ui-font-color1" in STYLE and "var(--jp-border-color2" in STYLE and "var(--jp-error-color1" in STYLE
    a = np.ones(4, np.float32)
    page = wb.compare(a, a + 1, "float32", name="<script>")._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page and "class='wb-fail'" in page


def test_source_excerpt_marks_the_line_and_tolerates_what_it_cannot_read(tmp_path: Path) -> None:
    from workbench.view.render.text import source_excerpt

    src = tmp_path / "k.cpp"
    src.write_text("a\nb\nc\nd\ne\n")
    assert source_excerpt(str(src), 1, context=1).splitlines() == [">     1 | a", "      2 | b"]
    assert source_excerpt(str(src), 5, context=1).splitlines()[-1] == ">     5 | e"
    assert source_excerpt(str(tmp_path / "missing.cpp"), 3) == "" and source_excerpt("", 3) == ""
    assert source_excerpt(str(src), 0) == ""


def test_the_text_report_and_the_card_give_every_time_its_source(result: wb.Result) -> None:
    from workbench.view.render.text import timings_text

    text = result.text()
    flat = " ".join(line.strip() for line in text.splitlines())  # undo the wrapping at 120 columns
    assert "timings: build " in flat and "(host wall); launch " in flat and "kernel " in flat
    assert timings_text(result.timings, result.timing_sources) in flat and "(emulator wall); golden " in flat
    # the kernel time a criterion judges is the model's, and the criterion says it is a prediction
    assert "kernel time: " in flat and "µs predicted (predicted by the performance model" in flat
    assert "criterion T ≤ 1.1 × T_theory: predicted: would " in flat
    assert "(not measured: kernel predicted, T_theory theoretical)" in flat
    card = result._repr_html_()
    assert "(emulator wall)" in card and "(host wall)" in card


def test_timings_text_names_each_source_once_per_run_of_times() -> None:
    from workbench.view.render.text import timings_text

    timings = {"build_s": 1.5, "launch_s": 0.0123, "kernel_s": 4.98e-6, "golden_s": 0.0007}
    sources = {"build_s": "host wall", "launch_s": "emulator wall", "kernel_s": "predicted", "golden_s": "host wall"}
    assert timings_text(timings, sources) == (
        "build 1.50 s (host wall); launch 12.3 ms (emulator wall); kernel 4.98 µs (predicted); "
        "golden 700 µs (host wall)"
    )
    sources["launch_s"] = "host wall"
    assert timings_text(timings, sources).startswith("build 1.50 s, launch 12.3 ms (host wall); kernel")
