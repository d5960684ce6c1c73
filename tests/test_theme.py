"""Charts follow the page's theme in the app and stay readable when exported.

In a page the chart widgets draw SVG with no background and their text and lines in currentColor (the theme's
text colour); exports (save_chart, the HTML report) are drawn outside any page and keep Vega's colours on white.
tests/test_browser_theme.py checks the dark page itself."""

from __future__ import annotations

import re
from pathlib import Path

import altair as alt
import pytest

import workbench as wb
from workbench.view.render import charts, frames
from workbench.view.render.report import save_chart

pytest.importorskip("ipywidgets")

from workbench.view.ui.panels import chart_widget  # after the skip: the panels need ipywidgets

PLAN = wb.plan(wb.Case("cast", ("bfloat16", "int8"), (100_003,)))


def _every_chart() -> list[alt.Chart | alt.LayerChart]:
    """A chart of each kind the app shows that needs no run."""
    return [charts.cores_chart(frames.cores_frame(PLAN)), charts.ub_chart(frames.ub_frame(PLAN))]


def test_a_themed_chart_has_no_background_and_draws_in_the_text_colour() -> None:
    for chart in _every_chart():
        config = charts.themed(chart).to_dict()["config"]
        assert config["background"] == "transparent"
        for part in ("axis", "legend", "header"):
            assert config[part]["labelColor"] == config[part]["titleColor"] == "currentColor", part
        assert config["axis"]["domainColor"] == config["axis"]["tickColor"] == "currentColor"
        assert config["title"]["color"] == config["title"]["subtitleColor"] == "currentColor"
        assert config["text"]["color"] == config["rule"]["color"] == "currentColor"  # bar labels, the kernel rule
        assert config["axis"]["gridColor"].startswith("rgba(128, 128, 128,")  # translucent: reads on either theme
        assert config["view"]["continuousWidth"] == 300  # altair's own config is kept


def test_the_chart_widget_draws_svg_in_the_page_theme() -> None:
    widget = chart_widget("wb-test-chart")
    assert widget.embed_options == {"renderer": "svg", "config": charts.page_theme()}  # a canvas knows no CSS colour
    assert widget.embed_options["config"] is not chart_widget("wb-other").embed_options["config"]  # not shared
    widget.chart = charts.cores_chart(frames.cores_frame(PLAN))
    assert "config" not in widget.spec or "background" not in widget.spec["config"]  # the theme is not in the spec


def test_exports_of_the_widgets_charts_keep_explicit_colours(tmp_path: Path) -> None:
    widget = chart_widget("wb-test-chart")
    for i, chart in enumerate(_every_chart()):
        widget.chart = chart
        svg = save_chart(widget.chart, tmp_path / f"chart{i}.svg").read_text()
        assert "currentColor" not in svg and "transparent" not in svg
        assert re.search(r'<svg[^>]*><rect width="\d+" height="\d+" fill="white"/>', svg), svg[:400]  # on white
