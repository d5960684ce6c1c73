"""The workbench's panels: each owns its widgets and an `update` that renders one record into them.

Every number shown comes from workbench.render (frames compute, charts draw, html formats); a panel only
decides which widget shows what.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import altair as alt
import ipywidgets as w

from ..render import charts, frames
from ..render.html import STYLE, device_html, diagnostic_html, report_html, tiling_panel_html, timings_html
from ..render.text import fmt

if TYPE_CHECKING:
    import pandas as pd

    from ..runner import Result
    from ..tiling import TilingPlan

CHART_WIDTH = 440


def chart_widget(css: str) -> alt.JupyterChart:
    """An altair chart as a widget that renders offline (vega ships inside vl-convert, no CDN) and is updated
    by assigning `.chart`, which sends only the new spec."""
    alt.JupyterChart.enable_offline()
    widget = alt.JupyterChart(alt.Chart().mark_point())
    widget.add_class(css)
    return widget


def _placeholder(text: str) -> alt.Chart:
    return alt.Chart(title=text).mark_text().properties(width=CHART_WIDTH, height=40)


class TilingPanel:
    """Path and why, every TilingData field (changes since the last plan highlighted), the per-core work chart
    and the UB budget; the selected mismatch's core and tile outlined on the per-core chart."""

    def __init__(self) -> None:
        self.table = w.HTML(layout=w.Layout(flex="1 1 480px", min_width="360px")).add_class("wb-tiling")
        self.cores = chart_widget("wb-cores-chart")
        self.ub = chart_widget("wb-ub-chart")
        self.plan: TilingPlan | None = None
        charts_box = w.VBox([self.cores, self.ub], layout=w.Layout(flex="0 0 auto"))
        self.widget = w.HBox([self.table, charts_box], layout=w.Layout(align_items="flex-start", flex_flow="row wrap"))

    def update(self, plan: TilingPlan, what_if: bool = False, selected: pd.DataFrame | None = None) -> None:
        previous, self.plan = self.plan, plan
        self.table.value = tiling_panel_html(plan, previous, what_if)
        self.show_cores(selected)
        self.ub.chart = charts.ub_chart(frames.ub_frame(plan)).properties(width=CHART_WIDTH)

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
        self.table.value = (
            f"{STYLE}<div class='wb-card'><h4 class='wb-fail'>no plan</h4><p>{html.escape(message)}</p></div>"
        )
        self.cores.chart = _placeholder("no plan")
        self.ub.chart = _placeholder("no plan")


class SummaryPanel:
    """The verdict per output with its standard, thresholds, counts and max errors; every emulator diagnostic with
    the kernel source around its line."""

    def __init__(self) -> None:
        self.widget = w.HTML().add_class("wb-summary")

    def update(self, result: Result) -> None:
        reports = "".join(report_html(r, worst_open=False).removeprefix(STYLE) for r in result.reports.values())
        diags = "".join(map(diagnostic_html, result.diagnostics))
        kernel = f"<p>kernel: <code>{html.escape(result.kernel)}</code> (edited copy)</p>" if result.kernel else ""
        verdict = "wb-pass" if result.passed else "wb-fail"
        self.widget.value = (
            f"{STYLE}<div class='wb-card'><h4 class='{verdict}'>{html.escape(result.verdict)}: "
            f"{html.escape(result.case.label())}</h4>{kernel}"
            f"<p>{html.escape(result.backend)}, seed {result.seed}, {html.escape(result.distribution)} inputs</p>"
            + (
                f"<details open><summary>{len(result.diagnostics)} diagnostics</summary><ul>{diags}</ul></details>"
                if diags
                else ""
            )
            + f"</div>{reports}"
        )


MISMATCH_COLUMNS = ("index", "inputs", "expected", "actual", "abs_err", "ulp", "core", "tile", "offset", "tail")


def mismatch_rows(frame: pd.DataFrame) -> list[tuple[str, int]]:
    """(label, row number) per mismatch, in fixed-width columns so a Select lines them up as a table."""
    rows = []
    for i, r in enumerate(frame.itertuples(index=False)):
        core = r.cores if r.core < 0 and r.cores else ("-" if r.core < 0 else r.core)
        cells = (
            f"[{r.index}]",
            str(r.inputs),
            fmt(r.expected),
            fmt(r.actual),
            fmt(r.abs_err, 3),
            "-" if r.ulp < 0 else str(r.ulp),
            str(core),
            "-" if r.tile < 0 else str(r.tile),
            "-" if r.offset < 0 else str(r.offset),
            "tail" if r.tail else "",
        )
        rows.append(("  ".join(_cell(c, n) for c, n in zip(cells, _WIDTHS, strict=True)), i))
    return rows


def _cell(text: str, width: int) -> str:
    """`text` in exactly `width` characters: padded, or cut with an ellipsis, so every column starts in place."""
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


# the Select's font (app.py's APP_STYLE): a bare `monospace` would get the browser's smaller monospace size
MONO = "font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12px;white-space:pre;margin:4px 0 0 4px"
_WIDTHS = (18, 28, 12, 12, 9, 6, 6, 5, 7, 4)
MISMATCH_HEADER = "  ".join(_cell(c, n) for c, n in zip(MISMATCH_COLUMNS, _WIDTHS, strict=True))


class PrecisionPanel:
    """Per output: the ULP histogram, the aggregated error heatmap and the worst mismatches; selecting a mismatch
    calls `on_select(output, row)` so the app can outline its core and tile on the per-core chart."""

    def __init__(self, on_select: Any) -> None:
        self.output = w.Dropdown(description="output").add_class("wb-output")
        self.ulp = chart_widget("wb-ulp-chart")
        self.heatmap = chart_widget("wb-heatmap")
        self.header = w.HTML()
        self.table = w.Select(rows=8, layout=w.Layout(width="100%")).add_class("wb-mismatches")
        self.frame: pd.DataFrame | None = None
        self.result: Result | None = None
        self._on_select = on_select
        self.output.observe(lambda _: self._show(), "value")
        self.table.observe(self._selected, "value")
        self.widget = w.VBox(
            [
                self.output,
                w.HBox([self.ulp, self.heatmap], layout=w.Layout(flex_flow="row wrap")),
                self.header,
                self.table,
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
        errors = frames.errors_of(result, name)
        ulp = frames.ulp_frame(result, name, errors=errors)
        self.ulp.chart = charts.ulp_histogram(ulp).properties(width=CHART_WIDTH, height=160)
        self.heatmap.chart = charts.error_heatmap(frames.heatmap_frame(result, name, errors=errors)).properties(
            width=CHART_WIDTH, height=220
        )
        self.frame = frames.mismatch_frame(result, name)
        report = result.reports[name]
        self.header.value = (
            f"<b>worst {len(self.frame)} of {report.numel}</b> ({report.failed} failed; failing first, then the "
            f"largest errors) — select one to outline its core and tile on the per-core chart"
            f'<div style="{MONO}">{html.escape(MISMATCH_HEADER)}</div>'
        )
        self.table.options = mismatch_rows(self.frame)
        self.table.value = None

    def _selected(self, change: dict[str, Any]) -> None:
        if change["new"] is not None and self.output.value is not None:
            self._on_select(self.output.value, change["new"])


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
