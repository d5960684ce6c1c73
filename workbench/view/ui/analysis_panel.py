"""The analysis panel: a run's findings (judge/analysis.py) with their links into docs/analysis.md, and its roofline
(judge/roofline.py) as a chart and per-pipe bars. It only wires those pure functions to widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as w

from ..render.analysis import analysis_html
from ..render.roofline import pipes_chart, roofline_chart
from .panels import CHART_WIDTH, chart_widget

if TYPE_CHECKING:
    from ...judge.analysis import Analysis
    from ...running.runner import Result


class AnalysisPanel:
    """Hidden until a run; `update(result)` shows its findings, the roofline and the pipes against their ceilings."""

    def __init__(self) -> None:
        self.findings = w.HTML().add_class("wb-findings")
        self.roofline = chart_widget("wb-roofline-chart")
        self.pipes = chart_widget("wb-roofline-pipes")
        charts_box = w.HBox([self.roofline, self.pipes], layout=w.Layout(flex_flow="row wrap"))
        self.widget = w.VBox([self.findings, charts_box]).add_class("wb-analysis")
        self.widget.layout.display = "none"
        self.analysis: Analysis | None = None

    def update(self, result: Result) -> None:
        from ...running.work import analyse

        self.analysis = a = analyse(result)
        self.widget.layout.display = ""
        self.findings.value = analysis_html(a)
        self.roofline.chart = roofline_chart(a.roofline).properties(width=CHART_WIDTH - 80, height=260)
        self.pipes.chart = pipes_chart(a.roofline).properties(width=CHART_WIDTH - 160)
