"""`workbench run ... --html FILE`: one self-contained page, written atomically, refused up front if unwritable."""

from __future__ import annotations

from pathlib import Path

import pytest

import workbench as wb
from workbench.cli import main

CAST = ["run", "cast", "--dtype", "bfloat16:int8", "--shape", "100003", "--quiet"]


def test_html_report_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "report.html"
    assert main([*CAST, "--html", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    # the two tiling charts, the ULP histogram and heatmap, the timings and the predicted pipes per core
    assert page.count("<svg") == 6 and "work per core" in page and "Unified Buffer" in page
    assert "predicted pipes per core" in page and "performance criteria" in page
    assert "y: ULP error" in page and "y: max abs error (aggregated)" in page and "<h4>timings</h4>" in page
    assert "BF16_TO_OTHER" in page and "PASS y [int8 100003]" in page and "ubFormer" in page
    assert "<script" not in page and "<link" not in page and " src=" not in page  # nothing to fetch
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary file left behind
    assert "PASS" in capsys.readouterr().out  # the terminal report is printed as before


def test_an_unwritable_html_path_is_refused_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CAST, "--html", str(tmp_path / "missing" / "r.html")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("workbench: --html: got ") and "existing folder" in err


def test_save_chart_refuses_an_unknown_suffix_or_a_missing_folder(tmp_path: Path) -> None:
    from workbench.errors import InvalidInput
    from workbench.render import charts, frames
    from workbench.render.report import save_chart

    chart = charts.ub_chart(frames.ub_frame(wb.plan(wb.Case("cast", ("float32", "float16"), (1000,)))))
    with pytest.raises(InvalidInput, match=r"path: .* ending in \.svg or \.png"):
        save_chart(chart, tmp_path / "ub.jpg")
    with pytest.raises(InvalidInput, match="existing folder"):
        save_chart(chart, tmp_path / "nope" / "ub.svg")
    assert save_chart(chart, tmp_path / "ub.svg").read_text().startswith("<svg")
    assert list(tmp_path.iterdir()) == [tmp_path / "ub.svg"]  # no temporary file left behind
