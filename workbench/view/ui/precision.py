"""The precision panel: where the failures of a run live (the failure map, the heatmap relative to the standard,
the ULP histogram) and the mismatch table they narrow."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import numpy as np

from ..render import charts, frames
from .mismatches import MismatchTable
from .panels import CHART_WIDTH, _placeholder, chart_widget

if TYPE_CHECKING:
    import pandas as pd

    from ...running.runner import Result


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
        report = result.reports[name]
        if cell is None:
            positions = frames.failing_in(result, name, errors)
            scope = f"every failing element of {name}"
        else:
            core, t0, t1 = cell
            positions = frames.failing_in(result, name, errors, core, (t0, t1))
            who = "no core" if core < 0 else f"core {core}"
            tiles = "tile ?" if t0 < 0 else (f"tile {t0}" if t0 == t1 else f"tiles {t0}-{t1}")
            scope = f"the failing elements of {who}, {tiles}"
        failed = bool(positions.size) or cell is not None  # else a passing output: its largest errors
        if failed:
            # worst first: over the standard's allowance, then the larger error (exact allows nothing: all inf)
            order = np.lexsort((-errors["abs_err"][positions], -errors["ratio"][positions]))[:TABLE_ROWS]
            self.frame = frames.mismatch_frame(result, name, positions[order])
            shown = (
                f"the {TABLE_ROWS} worst of {positions.size:,}"
                if positions.size > TABLE_ROWS
                else f"{positions.size:,}"
            )
            scope += f": {shown}"
        else:
            self.frame = frames.mismatch_frame(result, name)
            scope = f"no failing element: the {len(self.frame)} largest errors of {name}"
        self.header.value = (
            f"<b>{html.escape(scope)}</b> <small>({report.failed:,} of {report.numel:,} failed; click a cell of the"
            " failure map to narrow, double-click to widen; ▸ outlines a row's core and tile)</small>"
        )
        self.mismatches.show(self.frame, failed)

    def _row_selected(self, row: pd.Series) -> None:
        if self.output.value is not None and self.frame is not None:
            self._on_select(self.output.value, self.frame.index.get_loc(row.name))

    def export_csv(self, path: str | Path) -> Path:
        """The mismatch table's rows (its filter and sort, every page) as CSV at `path`."""
        return self.mismatches.to_csv(path)
