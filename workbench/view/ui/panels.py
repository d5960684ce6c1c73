"""The workbench's panels: each owns its widgets and an `update` that renders one record into them.

Every number shown comes from workbench.view.render (frames compute, charts draw, html formats); a panel only
decides which widget shows what.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import altair as alt
import ipywidgets as w

from ...planning.explore import PathSwitch, neighbourhood, path_switch
from ..render import charts, frames
from ..render.html import STYLE, device_html, diagnostics_html, report_html, tiling_panel_html, timings_html

if TYPE_CHECKING:
    import pandas as pd

    from ...core.tiling import TilingPlan
    from ...planning.case import Case
    from ...running.runner import Result

CHART_WIDTH = 440
CORE_PICK = "core_pick"  # the per-core chart's selection: the core clicked (the app lights it up in the access map)


def chart_widget(css: str) -> alt.JupyterChart:
    """An altair chart as a widget that renders offline (vega ships inside vl-convert, no CDN) and is updated
    by assigning `.chart`, which sends only the new spec.

    Every chart it shows follows the page's light or dark theme: vega-embed draws it as SVG (currentColor needs
    SVG; a canvas cannot resolve it) with charts.page_theme() as its config, under the spec's own. The theme lives
    here, in the one place every panel's chart passes through, and not in the charts assigned to `.chart`: those
    keep Vega's colours on white, which is what "save charts" exports from them."""
    alt.JupyterChart.enable_offline()
    page = {"renderer": "svg", "config": charts.page_theme()}
    widget = alt.JupyterChart(alt.Chart().mark_point(), embed_options=page)
    widget.add_class(css)
    return widget


def _placeholder(text: str) -> alt.Chart:
    return alt.Chart(title=text).mark_text().properties(width=CHART_WIDTH, height=40)


class TilingPanel:
    """Path and why, every TilingData field (the changes against the baseline highlighted), a banner when the path
    switched, the neighbourhood of the decision along the op's explored dimension, the per-core work chart and the
    UB budget; the selected mismatch's core and tile outlined on the per-core chart.

    The baseline is the plan shown before, or the one pinned with the pin button until it is unpinned. When the
    panel shows a run's plan instead of the controls' (a mismatch was selected after the controls moved on), a
    banner says so and nothing is highlighted as a change."""

    def __init__(self) -> None:
        self.banner = w.HTML().add_class("wb-banner")
        self.pin = w.ToggleButton(description="pin as baseline", icon="thumb-tack", tooltip=PIN_TIP)
        self.pin.add_class("wb-pin")
        self.back = w.Button(description="back to the controls", tooltip="show the plan of the controls again")
        self.back.add_class("wb-back")
        self.back.layout.display = "none"
        self.table = w.HTML(layout=w.Layout(flex="1 1 420px", min_width="320px")).add_class("wb-tiling")
        self.cores = chart_widget("wb-cores-chart")
        self.ub = chart_widget("wb-ub-chart")
        self.neighbourhood = chart_widget("wb-neighbourhood-chart")
        self.plan: TilingPlan | None = None
        self.shown: tuple[Case, TilingPlan, dict[str, int]] | None = None  # the controls' plan last shown
        self.pinned: tuple[Case, TilingPlan, dict[str, int]] | None = None
        self.switch: PathSwitch | None = None
        self.pin.observe(lambda _: self._pin_changed(), "value")
        charts_box = w.VBox([self.neighbourhood, self.cores, self.ub], layout=w.Layout(flex="0 1 auto"))
        body = w.HBox([self.table, charts_box], layout=w.Layout(align_items="flex-start", flex_flow="row wrap"))
        self.widget = w.VBox([w.HBox([self.pin, self.back]), self.banner, body]).add_class("wb-tiling-panel")

    @property
    def baseline(self) -> tuple[Case, TilingPlan, dict[str, int]] | None:
        return self.pinned or self.shown

    def update(self, case: Case, plan: TilingPlan, what_if: dict[str, int] | None = None) -> None:
        """Show the controls' plan, diffed against the baseline, with the neighbourhood of `case`."""
        what_if = what_if or {}
        base = self.baseline
        self.switch = path_switch(base, (case, plan, what_if)) if base is not None else None
        self.plan, self.shown = plan, (case, plan, what_if)
        self.back.layout.display = "none"
        self.table.value = tiling_panel_html(plan, base[1] if base else None, bool(what_if))
        self.banner.value = self._banner_html()
        self.show_cores()
        self.ub.chart = charts.ub_chart(frames.ub_frame(plan)).properties(width=CHART_WIDTH)
        self._show_neighbourhood(case, what_if)

    def show_run_plan(self, result: Result, selected: pd.DataFrame | None = None) -> None:
        """Show the plan a run used (the controls moved on since): said in the banner, no field marked changed."""
        self.plan = result.plan
        self.table.value = tiling_panel_html(result.plan)
        self.banner.value = banner_html(
            "wb-banner-run",
            f"showing the plan of the last run ({result.case.label()}), not the controls'",
            "its fields are not compared with anything; the controls describe another case",
        )
        self.back.layout.display = ""
        self.show_cores(selected)
        self.ub.chart = charts.ub_chart(frames.ub_frame(result.plan)).properties(width=CHART_WIDTH)

    def _pin_changed(self) -> None:
        self.pinned = self.shown if self.pin.value else None
        self.pin.description = "unpin baseline" if self.pin.value else "pin as baseline"
        if self.shown is not None:
            self.banner.value = self._banner_html()

    def _banner_html(self) -> str:
        parts = []
        if (sw := self.switch) is not None:
            parts.append(banner_html("wb-banner-switch", f"path switch: {sw.headline}", "", f"rule: {sw.rule}"))
        if self.pinned is not None:
            case = self.pinned[0]
            parts.append(
                banner_html("wb-banner-pinned", f"baseline pinned: {case.label()}", "changes are shown against it")
            )
        return STYLE + BANNER_STYLE + "".join(parts) if parts else ""

    def _show_neighbourhood(self, case: Case, what_if: dict[str, int]) -> None:
        around = neighbourhood(case, what_if)
        if around is None:
            self.neighbourhood.layout.display = "none"
            return
        self.neighbourhood.layout.display = ""
        points, switches = frames.neighbourhood_frames(around)
        self.neighbourhood.chart = charts.neighbourhood_chart(points, switches).properties(
            width=CHART_WIDTH - 100, height=150
        )

    def show_cores(self, selected: pd.DataFrame | None = None) -> None:
        if self.plan is None:
            return
        if not self.plan.cores:
            self.cores.chart = _placeholder("no launch: no cores")
            return
        chart = charts.cores_chart(frames.cores_frame(self.plan), selected=selected, pick=CORE_PICK)
        self.cores.chart = chart.properties(width=CHART_WIDTH, height=150)

    def show_error(self, message: str) -> None:
        self.plan = None
        self.banner.value = ""
        self.table.value = (
            f"{STYLE}<div class='wb-card'><h4 class='wb-fail'>no plan</h4><p>{html.escape(message)}</p></div>"
        )
        self.cores.chart = _placeholder("no plan")
        self.ub.chart = _placeholder("no plan")
        self.neighbourhood.layout.display = "none"


PIN_TIP = "diff every plan against this one until unpinned (else against the plan shown before)"
BANNER_STYLE = """<style>
.wb-banner-box{border-left:4px solid var(--jp-brand-color1,#1f6feb);background:var(--jp-layout-color2,#8881);
  padding:4px 10px;margin:4px 0;font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;
  color:var(--jp-ui-font-color1,inherit)}
.wb-banner-box.wb-banner-switch{border-left-color:var(--jp-warn-color1,#e15759)}
.wb-banner-box.wb-banner-run{border-left-color:var(--jp-warn-color0,#f28e2b)}
.wb-banner-box .wb-rule{color:var(--jp-ui-font-color2,#666);font-size:12px}
</style>"""


def banner_html(kind: str, headline: str, detail: str, rule: str = "") -> str:
    more = f" <span class='wb-muted'>({html.escape(detail)})</span>" if detail else ""
    why = f"<div class='wb-rule'>{html.escape(rule)}</div>" if rule else ""
    return f"<div class='wb-banner-box {kind}'><b>{html.escape(headline)}</b>{more}{why}</div>"


class SummaryPanel:
    """The verdict per output with its standard, thresholds, counts and max errors; every emulator diagnostic with
    the kernel source around its line."""

    def __init__(self) -> None:
        self.widget = w.HTML().add_class("wb-summary")

    def update(self, result: Result) -> None:
        reports = "".join(report_html(r, worst_open=False).removeprefix(STYLE) for r in result.reports.values())
        kernel = f"<p>kernel: <code>{html.escape(result.kernel)}</code> (edited copy)</p>" if result.kernel else ""
        verdict = "wb-pass" if result.passed else "wb-fail"
        self.widget.value = (
            f"{STYLE}<div class='wb-card'><h4 class='{verdict}'>{html.escape(result.verdict)}: "
            f"{html.escape(result.case.label())}</h4>{kernel}"
            f"<p>{html.escape(result.backend)}, seed {result.seed}, {html.escape(result.distribution)} inputs</p>"
            + f"{diagnostics_html(result)}</div>{reports}"
        )


class TimingsPanel:
    """Every time of the run with its source (device-measured, emulator wall, host wall, predicted, theoretical) and
    how it was obtained, the op's performance criteria as badges (a coloured verdict on device-measured times only),
    and the predicted pipes of every core."""

    def __init__(self) -> None:
        self.table = w.HTML()
        self.chart = chart_widget("wb-timings-chart")
        self.pipes = chart_widget("wb-pipes-chart")
        self.msprof_path = w.Text(placeholder="msprof op_summary CSV or PROF_* folder", layout=w.Layout(width="320px"))
        self.msprof_button = w.Button(description="import msprof", tooltip="attach device task durations to this run")
        self.msprof_path.add_class("wb-msprof-path")
        self.msprof_button.add_class("wb-msprof-import")
        importer = w.HBox([self.msprof_path, self.msprof_button])
        charts_box = w.HBox([self.chart, self.pipes], layout=w.Layout(flex_flow="row wrap"))
        self.widget = w.VBox([w.HBox([self.table, importer], layout=w.Layout(flex_flow="row wrap")), charts_box])
        self.widget.add_class("wb-timings")
        self.widget.layout.display = "none"

    def update(self, result: Result) -> None:
        from ...judge.criteria import evaluate
        from ...judge.perfmodel import predict

        frame = frames.timings_frame(result)
        self.widget.layout.display = ""
        self.table.value = timings_html(frame, evaluate(result), device_html(result))
        self.chart.chart = charts.timings_chart(frame).properties(width=320)
        if result.trace.get("cores"):
            timeline = frames.pipe_timeline_frame(predict(result.trace, result.case.soc))
            self.pipes.chart = charts.pipe_timeline_chart(timeline).properties(width=CHART_WIDTH)
            self.pipes.layout.display = ""
        else:
            self.pipes.layout.display = "none"
