"""`workbench run ... --html FILE`: one self-contained page, written atomically, refused up front if unwritable."""

from __future__ import annotations

from pathlib import Path

import pytest

import workbench as wb
from workbench.view.cli import main
from workbench.view.render.html import BADGE

CAST = ["run", "cast", "--dtype", "bfloat16:int8", "--shape", "100003", "--quiet"]


def test_html_report_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "report.html"
    assert main([*CAST, "--html", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    # the two tiling charts, the ULP histogram and heatmap, the timings, the predicted pipes per core, the roofline
    # and the pipes against their ceilings
    assert page.count("<svg") == 8 and "work per core" in page and "Unified Buffer" in page
    assert "<h4>analysis</h4>" in page and "roofline on Ascend310P3" in page and "kernel (predicted)" in page
    assert "predicted pipes per core" in page and "performance criteria" in page
    assert "y: ULP error" in page and "y: error / what the standard allows" in page and "<h4>timings</h4>" in page
    assert "BF16_TO_OTHER" in page and "PASS y [int8 100003]" in page and "ubFormer" in page
    assert "<script" not in page and "<link" not in page and " src=" not in page  # nothing to fetch
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary file left behind
    assert "PASS" in capsys.readouterr().out  # the terminal report is printed as before


GREEN = BADGE["pass"]  # a verdict on device-measured times only


def test_html_report_gives_every_time_its_source_and_no_verdict_on_predicted_times(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    assert main([*CAST, "--html", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    for source in ("emulator wall", "host wall", "predicted", "theoretical", "device-measured"):
        assert f"<tr data-source='{source}'>" in page, source  # a row of the timings table per source
    assert "timings: build " in page and "(emulator wall)" in page  # the result card's timings line
    assert "says nothing about device speed" in page  # the legend says what an emulator wall time is
    assert "predicted: would " in page and "(not measured: kernel predicted, TBE proxy)" in page
    assert "data-status='pass'" not in page and GREEN not in page


def test_html_report_of_a_precision_fail_judges_no_criterion(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    edg = ["run", "embedding_dense_grad", "--dtype", "float32", "--shape", "4096,64", "--attr", "num_weights=50"]
    assert main([*edg, "--distribution", "same", "--standard", "exact", "--quiet", "--html", str(target)]) == 1
    page = target.read_text(encoding="utf-8")
    assert "PRECISION FAIL" in page and "data-status='not judged'" in page and "the run failed precision" in page
    assert "data-status='pass'" not in page and "would pass" not in page and GREEN not in page


def test_an_unwritable_html_path_is_refused_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CAST, "--html", str(tmp_path / "missing" / "r.html")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("workbench: --html: got ") and "existing folder" in err


def test_save_chart_refuses_an_unknown_suffix_or_a_missing_folder(tmp_path: Path) -> None:
    from workbench.core.errors import InvalidInput
    from workbench.view.render import charts, frames
    from workbench.view.render.report import save_chart

    chart = charts.ub_chart(frames.ub_frame(wb.plan(wb.Case("cast", ("float32", "float16"), (1000,)))))
    with pytest.raises(InvalidInput, match=r"path: .* ending in \.svg or \.png"):
        save_chart(chart, tmp_path / "ub.jpg")
    with pytest.raises(InvalidInput, match="existing folder"):
        save_chart(chart, tmp_path / "nope" / "ub.svg")
    assert save_chart(chart, tmp_path / "ub.svg").read_text().startswith("<svg")
    assert list(tmp_path.iterdir()) == [tmp_path / "ub.svg"]  # no temporary file left behind
