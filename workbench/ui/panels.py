"""The workbench's panels: each owns its widgets and an `update` that renders one record into them.

Every number shown comes from workbench.render (frames compute, charts draw, html formats); a panel only
decides which widget shows what.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import altair as alt
import ipywidgets as w
import numpy as np

from ..explore import PathSwitch, neighbourhood, path_switch
from ..render import charts, frames
from ..render.html import STYLE, device_html, diagnostic_html, report_html, tiling_panel_html, timings_html
from .mismatches import MismatchTable

if TYPE_CHECKING:
    import pandas as pd

    from ..case import Case
    from ..launch import Diagnostic
    from ..runner import Result
    from ..tiling import TilingPlan

CHART_WIDTH = 440


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
            where = sw.at + (f" (the path changes {sw.exact})" if sw.exact else "")
            headline = f"path switch: {sw.before} → {sw.after} at {where}"
            parts.append(banner_html("wb-banner-switch", headline, "", f"rule: {sw.rule}"))
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
        chart = charts.cores_chart(frames.cores_frame(self.plan), selected=selected)
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
        diags = "".join(map(diagnostic_html, result.diagnostics))
        # notes on a passing run (info-level, e.g. rows a kernel leaves to the launcher's fill) stay folded
        unfold = not result.passed or any(d.severity not in ("info", "note") for d in result.diagnostics)
        kernel = f"<p>kernel: <code>{html.escape(result.kernel)}</code> (edited copy)</p>" if result.kernel else ""
        verdict = "wb-pass" if result.passed else "wb-fail"
        self.widget.value = (
            f"{STYLE}<div class='wb-card'><h4 class='{verdict}'>{html.escape(result.verdict)}: "
            f"{html.escape(result.case.label())}</h4>{kernel}"
            f"<p>{html.escape(result.backend)}, seed {result.seed}, {html.escape(result.distribution)} inputs</p>"
            + (
                f"<details{' open' if unfold else ''}><summary>{diagnostics_summary(result.diagnostics)}</summary>"
                f"<ul>{diags}</ul></details>"
                if diags
                else ""
            )
            + f"</div>{reports}"
        )


def diagnostics_summary(diagnostics: Sequence[Diagnostic]) -> str:
    """ "3 diagnostics: 1 error, 2 info" """
    counts = Counter(d.severity for d in diagnostics)
    return f"{len(diagnostics)} diagnostics: " + ", ".join(f"{n} {s}" for s, n in counts.items())


TABLE_ROWS = 500  # the mismatch table holds the worst this many of its scope (the CSV export holds them too)


class PrecisionPanel:
    """Per output: the failure map (failing elements per core and tile, from every failing element), the error
    heatmap relative to the standard with the core and tile boundaries, the ULP histogram and the mismatch table.
    Selecting a failure-map cell narrows the table to the failing elements of that core and tile; selecting a row
    calls `on_select(output, row)` so the app can outline its core and tile on the per-core chart."""

    def __init__(self, on_select: Any) -> None:
        self.output = w.Dropdown(description="output").add_class("wb-output")
        self.failures = chart_widget("wb-failure-map")
        self.heatmap = chart_widget("wb-heatmap")
        self.ulp = chart_widget("wb-ulp-chart")
        self.header = w.HTML().add_class("wb-mm-header")
        self.mismatches = MismatchTable(self._row_selected)
        self.frame: pd.DataFrame | None = None
        self.result: Result | None = None
        self.errors: frames.Errors | None = None
        self.cell: tuple[int, int, int] | None = None  # the selected failure-map cell: core, first and last tile
        self._on_select = on_select
        self.output.observe(lambda _: self._show(), "value")
        self.failures.observe(self._cell_clicked, "_vl_selections")
        self.widget = w.VBox(
            [
                self.output,
                w.HBox([self.failures, self.heatmap], layout=w.Layout(flex_flow="row wrap")),
                self.ulp,
                self.header,
                self.mismatches.widget,
            ]
        ).add_class("wb-precision")
        self.widget.layout.display = "none"

    def update(self, result: Result) -> None:
        names = list(result.reports)
        self.widget.layout.display = "" if names else "none"
        self.result = None  # the options change below must not draw the previous result
        self.output.options = names
        failing = [n for n in names if not result.reports[n].passed]
        self.output.value = (failing or names)[0] if names else None  # open on the first failing output
        self.result = result
        self._show()

    def _show(self) -> None:
        result, name = self.result, self.output.value
        if result is None or name is None:
            return
        self.errors = errors = frames.errors_of(result, name)
        report = result.reports[name]
        if report.numel == 0:
            for chart in (self.ulp, self.heatmap, self.failures):
                chart.chart = _placeholder(f"{name} is empty: nothing to compare")
        else:
            ulp = frames.ulp_frame(result, name, errors=errors)
            self.ulp.chart = charts.ulp_histogram(ulp).properties(width=CHART_WIDTH, height=140)
            heat = frames.heatmap_frame(result, name, errors=errors)
            lines = frames.split_lines_frame(result, name)
            self.heatmap.chart = charts.error_heatmap(heat, lines).properties(width=CHART_WIDTH, height=220)
            self._show_failure_map()
        self.select_cell(None)

    def _show_failure_map(self) -> None:
        assert self.result is not None and self.errors is not None
        name = self.output.value
        if not self.errors["failed"].any():
            self.failures.chart = _placeholder(f"no failing element in {name}")
            return
        frame = frames.failure_map_frame(self.result, name, self.errors)
        cores = frame["who"].nunique()
        self.failures.chart = charts.failure_map_chart(frame).properties(
            width=min(CHART_WIDTH, max(120, 36 * frame["tile"].nunique())), height=min(400, max(80, 16 * cores))
        )

    def _cell_clicked(self, change: dict[str, Any]) -> None:
        picked = (change["new"].get(charts.FAILURE_SELECTION) or {}).get("value") or {}
        points = picked.get("vlPoint", {}).get("or", []) if isinstance(picked, dict) else []
        if points:
            p = points[0]
            self.select_cell((int(p["core"]), int(p["tile0"]), int(p["tile1"])))
        else:
            self.select_cell(None)

    def select_cell(self, cell: tuple[int, int, int] | None) -> None:
        """Narrow the mismatch table to the failing elements of one failure-map cell (core, first tile, last tile);
        None: every failing element (or, on a passing output, the elements with the largest errors)."""
        result, name, errors = self.result, self.output.value, self.errors
        if result is None or name is None or errors is None:
            return
        self.cell = cell
        report = result.reports[name]
        if cell is None:
            positions = frames.failing_in(result, name, errors)
            scope = f"every failing element of {name}"
        else:
            core, t0, t1 = cell
            positions = frames.failing_in(result, name, errors, core if core >= 0 else -1, (t0, t1))
            who = "no core" if core < 0 else f"core {core}"
            tiles = "tile ?" if t0 < 0 else (f"tile {t0}" if t0 == t1 else f"tiles {t0}-{t1}")
            scope = f"the failing elements of {who}, {tiles}"
        failed = bool(positions.size) or cell is not None
        if not positions.size and cell is None:  # a passing output: its largest errors
            self.frame = frames.mismatch_frame(result, name)
            scope = f"no failing element: the {len(self.frame)} largest errors of {name}"
        else:
            # worst first: over the standard's allowance, then the larger error (exact allows nothing: all inf)
            order = np.lexsort((-errors["abs_err"][positions], -errors["ratio"][positions]))[:TABLE_ROWS]
            self.frame = frames.mismatch_frame(result, name, positions[order])
            if positions.size > TABLE_ROWS:
                scope += f": the {TABLE_ROWS} worst of {positions.size:,}"
            else:
                scope += f": {positions.size:,}"
        self.header.value = (
            f"<b>{html.escape(scope)}</b> <small>({report.failed:,} of {report.numel:,} failed; click a cell of the"
            " failure map to narrow, double-click to widen; ▸ outlines a row's core and tile)</small>"
        )
        self.mismatches.show(self.frame, failed)

    def _row_selected(self, row: pd.Series) -> None:
        if self.output.value is not None and self.frame is not None:
            self._on_select(self.output.value, self.frame.index.get_loc(row.name))

    def export_csv(self, folder: str | Path, label: str) -> Path:
        """The mismatch table's rows (its filter and sort, every page) as CSV in `folder`."""
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{label}-{self.output.value}-mismatches").strip("_")
        return self.mismatches.to_csv(Path(folder) / f"{name}.csv")


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
        from ..criteria import evaluate
        from ..perfmodel import predict

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
