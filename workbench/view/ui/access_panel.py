"""The app's access map (docs/workbench.md#access-map): a run with "trace" on shows which GM bytes each core and
tile read and wrote, overlaps, past-the-end bytes and the UB its queues held; a core and a tile picked here (or a
mismatch picked in the precision panel) light up in the access map and on the tiling panel's per-core chart, and a
step slider walks the modelled timeline. The frames and the chart come from running/access.py and
render/access_map.py; this panel only wires them to widgets.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as w

from ...running.access import AccessMap, result_access_map
from ..render.access_map import access_map_chart
from .panels import CHART_WIDTH, chart_widget

if TYPE_CHECKING:
    from ...running.runner import Result

WHOLE_CORE = -1  # the tile dropdown's "every tile of the core"
NO_CORE = -1  # the core dropdown's "no core picked"


class AccessPanel:
    """Core and tile dropdowns, a step slider and the access map chart; hidden until a run with trace on.

    `on_select(core, tile)` is called when the user picks a core or a tile here (tile None: the whole core; core
    None: nothing picked); the app lights the same core and tile up on the tiling panel and calls `select` back."""

    def __init__(self, on_select: Callable[[int | None, int | None], None]) -> None:
        self.on_select = on_select
        self.map: AccessMap | None = None
        self.highlight: tuple[int, int | None] | None = None
        self._busy = 0
        self.core = w.Dropdown(description="core", options=[("none", NO_CORE)], value=NO_CORE)
        self.tile = w.Dropdown(description="tile", options=[("every tile", WHOLE_CORE)], value=WHOLE_CORE)
        self.step = w.IntSlider(description="step", min=0, max=0, continuous_update=False)
        self.step.add_class("wb-access-step")
        self.core.add_class("wb-access-core")
        self.tile.add_class("wb-access-tile")
        self.note = w.HTML()
        self.chart = chart_widget("wb-access-chart")
        self.core.observe(lambda _: self._picked(), "value")
        self.tile.observe(lambda _: self._picked(), "value")
        self.step.observe(lambda _: self._stepped(), "value")
        head = w.HTML("<b>access map</b> <small>(GM bytes per core and tile; run with trace on)</small>")
        self.controls = w.HBox([self.core, self.tile, self.step])
        self.widget = w.VBox([head, self.note, self.controls, self.chart])
        self.widget.add_class("wb-access")
        self.widget.layout.display = "none"

    def update(self, result: Result) -> None:
        """Show `result`'s access map (hidden when it ran without trace; a note when a fatal launch left no log)."""
        if result.events is None:
            self.map = None
            self.note.value = f"<small>No event log: {html.escape(result.events_missing)}</small>"
            self.chart.layout.display = self.controls.layout.display = "none"
            self.widget.layout.display = "" if result.events_missing else "none"
            return
        self.chart.layout.display = self.controls.layout.display = ""
        self.map = result_access_map(result)
        cores = sorted(set(self.map.ranges["core"].tolist()))
        self._busy += 1
        try:
            self.core.options = [("none", NO_CORE), *((str(c), c) for c in cores)]
            self.core.value = NO_CORE
            self.tile.options = [("every tile", WHOLE_CORE)]
            self.step.max = max(self.map.steps - 1, 0)
            self.step.value = self.step.max
        finally:
            self._busy -= 1
        truncated = f" {self.map.truncation}." if self.map.truncation else ""
        if result.events.fatal:  # the log stops at the fault: say where, as the diagnostics do
            ev = result.events
            at = f" on core {ev.fault_core}" if ev.fault_core >= 0 else ""
            truncated += f" The launch ended in a fatal record ({ev.fault}{at}): the log stops at the fault."
        tiles = "the plan's (TilingPlan.locate)" if self.map.tile_source == "plan" else "each core's accesses in order"
        self.note.value = (
            f"<small>{self.map.steps} events, steps ordered by modelled start time (performance model); tiles: "
            f"{html.escape(tiles)}; {len(self.map.overlaps)} overlaps between cores, "
            f"{len(self.map.past_end)} accesses past a tensor's end.{html.escape(truncated)}</small>"
        )
        self.widget.layout.display = ""
        self.highlight = None
        self.show()

    def show(self) -> None:
        if self.map is None:
            return
        chart = access_map_chart(self.map, self.highlight, step=self.step.value, slider=False, width=CHART_WIDTH)
        self.chart.chart = chart

    def select(self, core: int | None, tile: int | None) -> None:
        """Light up `core`'s `tile` (None: the whole core; core None: nothing), setting the dropdowns to match."""
        if self.map is None:
            return
        self._busy += 1
        try:
            self.core.value = core if core is not None and core in dict(self.core.options).values() else NO_CORE
            self._tile_options()
            tiles = dict(self.tile.options).values()
            self.tile.value = tile if tile is not None and tile in tiles else WHOLE_CORE
        finally:
            self._busy -= 1
        self.highlight = None if self.core.value == NO_CORE else (self.core.value, self._tile())
        self.show()

    def _tile(self) -> int | None:
        return None if self.tile.value == WHOLE_CORE else int(self.tile.value)

    def _tile_options(self) -> None:
        assert self.map is not None
        r = self.map.ranges
        tiles = sorted(set(r.loc[(r["core"] == self.core.value) & (r["tile"] >= 0), "tile"].tolist()))
        self.tile.options = [("every tile", WHOLE_CORE), *((str(t), t) for t in tiles)]

    def _picked(self) -> None:
        if self._busy or self.map is None:
            return
        self._busy += 1
        try:  # the tiles offered are the picked core's
            current = self.tile.value
            self._tile_options()
            self.tile.value = current if current in dict(self.tile.options).values() else WHOLE_CORE
        finally:
            self._busy -= 1
        core = None if self.core.value == NO_CORE else int(self.core.value)
        self.on_select(core, self._tile() if core is not None else None)

    def _stepped(self) -> None:
        """The step slider sets the chart's `step` parameter. Through a new spec, not JupyterChart.params: vega-embed
        may get the parameter before the view that has it, and throws "Unrecognized signal name"."""
        if not self._busy:
            self.show()
