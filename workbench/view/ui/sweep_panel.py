"""A sweep's views as widgets: `SweepPanel` (a view menu, two axis menus, the chart, the counts by status) draws a
sweep DataFrame or rows as they arrive (`update` is a `wb.sweep(..., on_rows=panel.update)` callback), and a click
on a cell or point calls `on_open(row)`. `SweepForm` is the app's sweep section: a grid over the controls' op, run
in a thread, drawn live, a click opening the case in the app's panels. In a notebook: `show(df)`.

Pure wiring: render/sweep_frames.py computes, render/sweep_charts.py draws.
"""

from __future__ import annotations

import html
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...core.errors import InvalidInput, WorkbenchError
from ...sweeps.points import Point
from ..render import sweep_charts as sc
from ..render import sweep_frames as sf
from .panels import CHART_WIDTH, _placeholder, chart_widget

if TYPE_CHECKING:
    import pandas as pd

    from ...sweeps.points import Grid
    from .app import Workbench

Row = dict[str, Any]
REDRAW_S = 0.5  # at most one redraw this often while rows stream in: a chart spec is ~100 ms to build and send
STATUS_STYLE = {"pass": "#59a14f", "fail": "#f28e2b", "fault": "#d62728", "error": "#8a8580"}


class SweepPanel:
    """The views of one sweep (render/sweep_charts.VIEWS) over two axes chosen from its columns.

    `df`: a finished sweep's DataFrame (or rows) to show at once. `update(rows)` adds rows (a row whose key is
    already there replaces it) and redraws at most every `interval` seconds, the last rows drawn `interval` after
    they came at the latest. Until an axis is chosen in its menu, the axes follow the rows (sweep_frames.
    default_axes). Clicking a cell or point calls `on_open(row)` with that case's row (a dict); without `on_open`
    the case opens in a workbench below the chart. `frame` is the DataFrame drawn, `selected` the row last opened.
    """

    def __init__(
        self,
        df: pd.DataFrame | Iterable[Mapping[str, Any]] | None = None,
        on_open: Callable[[Row], Any] | None = None,
        view: str = sc.PASS_FAIL,
        x: str | None = None,
        y: str | None = None,
        interval: float = REDRAW_S,
    ) -> None:
        import pandas as pd

        if view not in sc.VIEWS:
            raise InvalidInput("view", view, ", ".join(sc.VIEWS))
        self.on_open = on_open or self._open_below
        self.interval = interval
        self.frame: pd.DataFrame = pd.DataFrame()
        self.selected: Row | None = None
        self.draws = 0  # how many times the chart was drawn (the throttle's tests read it)
        self.workbench: Workbench | None = None  # the workbench a click opens into, without on_open
        self._rows: dict[str, Row] = {}
        self._chosen = {"x": x, "y": y}  # None: follow the rows
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._drawn_at = -float("inf")
        self._busy = 0
        self._note = ""

        self.view = w.Dropdown(options=list(sc.VIEWS), value=view, description="view").add_class("wb-sweep-view")
        self.x = w.Dropdown(description="across").add_class("wb-sweep-x")
        self.y = w.Dropdown(description="down / lines").add_class("wb-sweep-y")
        self.metric = w.Dropdown(options=list(sf.METRICS), description="error").add_class("wb-sweep-metric")
        for menu in (self.view, self.x, self.y, self.metric):
            menu.style.description_width = "80px"
            menu.layout.width = "260px"
        self.status = w.HTML().add_class("wb-sweep-status")
        self.chart = chart_widget("wb-sweep-chart")
        self.opened = w.HTML().add_class("wb-sweep-opened")
        self.view.observe(lambda _: self._menu_changed(), "value")
        self.metric.observe(lambda _: self._menu_changed(), "value")
        self.x.observe(lambda ch: self._axis_chosen("x", ch), "value")
        self.y.observe(lambda ch: self._axis_chosen("y", ch), "value")
        self.chart.observe(self._clicked, "_vl_selections")
        menus = w.HBox([self.view, self.x, self.y, self.metric], layout=w.Layout(flex_flow="row wrap"))
        self.widget = w.VBox([menus, self.status, self.chart, self.opened]).add_class("wb-sweep-panel")
        if df is not None:
            self.update(df)  # drawn at once: nothing was drawn before
        else:
            self.draw()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    # -- rows in ---------------------------------------------------------------------------------------------
    def update(self, rows: pd.DataFrame | Iterable[Mapping[str, Any]]) -> None:
        """Add `rows` (a batch of a sweep's rows, or a DataFrame of them) and redraw, at most every `interval` s:
        rows that come sooner are drawn by a timer when the interval is up."""
        records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
        with self._lock:
            for r in records:
                self._rows[str(r.get("key", len(self._rows)))] = dict(r)
            wait = self.interval - (time.monotonic() - self._drawn_at)
            if wait <= 0:
                self._draw_now()
            elif self._timer is None:
                self._timer = threading.Timer(wait, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Draw the rows received so far now (the end of a sweep; the timer of `update`)."""
        with self._lock:
            self._draw_now()

    def clear(self, note: str = "") -> None:
        """Forget every row (a new sweep is about to start) and say `note` in the status line."""
        with self._lock:
            self._rows.clear()
            self._note = note
            self._draw_now()

    def set_note(self, note: str) -> None:
        """A line after the counts ("running 24 cases …", "done in 12 s"), HTML-escaped."""
        self._note = note
        self._show_status()

    def _draw_now(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.draw()
        self._drawn_at = time.monotonic()

    # -- drawing ---------------------------------------------------------------------------------------------
    def draw(self) -> None:
        """Redraw the chart and the counts from every row received."""
        import pandas as pd

        with self._lock:
            self.frame = frame = pd.DataFrame(list(self._rows.values()))
        self._set_axes(frame)
        self._show_status()
        self.metric.layout.display = "" if self.view.value == sc.ERROR_SIZE else "none"
        self.draws += 1
        if frame.empty:
            self.chart.chart = _placeholder("no cases yet: the views fill in as the sweep's rows arrive")
            return
        chart = sc.view_chart(frame, self.view.value, self.x.value, self.y.value, self.metric.value)
        if self.view.value in (sc.ERROR_SIZE, sc.TIME_BOUND):
            chart = chart.properties(width=CHART_WIDTH, height=240)
        self.chart.chart = chart

    def _set_axes(self, frame: pd.DataFrame) -> None:
        """The axis menus offer the frame's axis columns; a chosen axis stays, else the rows' default."""
        options = sf.axis_options(frame) if len(frame) else ["shape", "dtypes"]
        defaults = sf.default_axes(frame) if len(frame) else ("shape", "dtypes")
        self._busy += 1
        try:
            for (name, menu), default in zip((("x", self.x), ("y", self.y)), defaults, strict=True):
                chosen = self._chosen[name]
                value = chosen if chosen in options else default if default in options else options[0]
                if list(menu.options) != options:
                    menu.options = options
                menu.value = value
        finally:
            self._busy -= 1

    def _show_status(self) -> None:
        counts = sf.status_counts(self.frame)
        parts = [f"<span style='color:{STATUS_STYLE[s]}'><b>{n}</b> {s}</span>" for s, n in counts.items() if n] or [
            "no cases yet"
        ]
        note = f" · {html.escape(self._note)}" if self._note else ""
        self.status.value = f"<b>{len(self.frame)} cases</b>: " + ", ".join(parts) + note

    def _menu_changed(self) -> None:
        if not self._busy:
            self.flush()

    def _axis_chosen(self, name: str, change: Mapping[str, Any]) -> None:
        if not self._busy:
            self._chosen[name] = change["new"]
            self.flush()

    # -- clicks out --------------------------------------------------------------------------------------------
    def _clicked(self, change: Mapping[str, Any]) -> None:
        picked = (change["new"].get(sc.SWEEP_SELECTION) or {}).get("value") or {}
        points = picked.get("vlPoint", {}).get("or", []) if isinstance(picked, dict) else []
        if points and "key" in points[0]:
            self.open(str(points[0]["key"]))

    def open(self, key: str) -> Row | None:
        """Call `on_open` with the row of `key` (what a click on its cell or point does); the row, or None when no
        row has that key. An error in `on_open` is shown under the chart, never raised into the widget."""
        row = sf.row_of(self.frame, key)
        if row is None:
            return None
        self.selected = row
        self.opened.value = f"opened <code>{html.escape(str(row.get('label', key)))}</code>"
        try:
            self.on_open(row)
        except Exception as exc:  # a callback's bug must show where the user clicked, not vanish in the kernel log
            message = "".join(traceback.format_exception_only(exc)).strip()
            self.opened.value = f"<span style='color:#cf222e'>could not open: {html.escape(message)}</span>"
        return row

    def _open_below(self, row: Row) -> None:
        """Without on_open (a notebook): the case opens in a workbench under the chart, set to it and run."""
        from .app import Workbench

        if self.workbench is None:
            self.workbench = Workbench(Point.from_row(row).case)
            self.widget.children = (*self.widget.children, self.workbench.widget)
        self.workbench.open_row(row)


def show(df: pd.DataFrame | Iterable[Mapping[str, Any]], **options: Any) -> SweepPanel:
    """Display the views of a finished sweep in a notebook (a SweepPanel of `df`; `options` as SweepPanel's)."""
    from IPython.display import display

    panel = SweepPanel(df, **options)
    display(panel.widget)
    return panel


# -- the app's sweep section -----------------------------------------------------------------------------------
SHAPES_HELP = "shapes separated by ';' (each 4096,512 or 64x4705)"


def parse_shapes(text: str) -> list[str]:
    """'1024; 64x4705; 8,1000' -> ["1024", "64,4705", "8,1000"] (Case parses and checks each)."""
    shapes = [s.strip().replace("x", ",") for s in re.split(r"[;\n]", text) if s.strip()]
    if not shapes:
        raise InvalidInput("shapes", text, SHAPES_HELP)
    return shapes


class SweepForm:
    """The app's "sweep" section: dtypes (several) and shapes to sweep for the controls' op, every other setting
    (format, attrs, platform, seed, inputs, backend, standard, kernel) as the controls have it; Run sweep runs it in
    a thread on the local executor (results in the workbench cache, so a rerun reuses them), the panel drawing
    the rows as they arrive; a click on a cell or point opens that case in the app (`Workbench.open_row`)."""

    def __init__(self, app: Workbench) -> None:
        self.app = app
        self.dtypes = w.SelectMultiple(description="dtypes", rows=5).add_class("wb-sweep-dtypes")
        self.shapes = w.Text(description="shapes", placeholder=SHAPES_HELP).add_class("wb-sweep-shapes")
        self.shapes.layout.width = "420px"
        for box in (self.dtypes, self.shapes):
            box.style.description_width = "60px"
        self.run_button = w.Button(description="▶ Run sweep", button_style="primary").add_class("wb-sweep-run")
        self.progress = w.HTML().add_class("wb-sweep-progress")
        self.panel = SweepPanel(on_open=app.open_row)
        self.df: pd.DataFrame | None = None
        self._thread: threading.Thread | None = None
        self.run_button.on_click(lambda _: self.start())
        app.controls["op"].observe(lambda _: self.follow(), "value")
        form = w.HBox(
            [self.dtypes, w.VBox([self.shapes, w.HBox([self.run_button, self.progress])])],
            layout=w.Layout(flex_flow="row wrap"),
        )
        hint = w.HTML(
            "<small>sweeps the op of the controls over these dtypes and shapes, the other controls as set; "
            "click a cell or point to open its case above</small>"
        )
        body = w.VBox([hint, form, self.panel.widget])
        self.widget = w.Accordion(children=[body], titles=("sweep",), selected_index=None).add_class("wb-sweep")
        self.follow()

    def follow(self) -> None:
        """The dtypes offered are the controls' op's; the controls' dtypes and shape are the starting choice (read
        after the app's own op observer has set them: it was registered first)."""
        from ...planning.registry import OPS

        options = [":".join(d) for d in OPS[self.app.controls["op"].value].dtype_matrix]
        current = ":".join(b.value for b in self.app._dtype_boxes)
        self.dtypes.value = ()  # first: the page would select the old indices among the new options, past the end
        self.dtypes.options = options
        self.dtypes.value = (current,) if current in options else tuple(options[:1])
        self.shapes.value = self.app.controls["shape"].value

    def grid(self) -> Grid:
        """The grid the form describes, the rest from the controls (raises the WorkbenchError naming the field)."""
        from ...sweeps.points import grid
        from .app import DEFAULT

        c = self.app.controls
        case = self.app.current_case()
        fmt = c["format"].value
        return grid(
            case.op,
            dtypes=list(self.dtypes.value) or [":".join(case.dtypes)],
            shapes=parse_shapes(self.shapes.value),
            formats=["" if fmt == DEFAULT else fmt],
            attrs=[dict(case.attrs)],
            platforms=[case.platform],
            distributions=[c["distribution"].value],
            seeds=[int(c["seed"].value)],
        )

    def start(self) -> None:
        """What Run sweep does: run in a thread, so the page stays responsive and the panel fills in."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._thread = threading.Thread(target=self._run_shown, name="workbench-sweep", daemon=True)
        self._thread.start()

    def _run_shown(self) -> None:
        try:
            self.run()
        except WorkbenchError as err:
            self.progress.value = _error(str(err))
        except Exception as exc:  # a bug must surface in the app, not vanish in the kernel log
            self.progress.value = _error("".join(traceback.format_exception_only(exc)).strip())

    def run(self, executor: Any = "local", results: Any = None) -> pd.DataFrame:
        """Run the form's sweep (executor local, results in the workbench cache) with the panel updated as rows
        arrive; its DataFrame (also `df`)."""
        from ...sweeps import sweep
        from .app import DEFAULT

        c = self.app.controls
        points = self.grid()
        dropped = f", {len(points.dropped)} dropped ({points.dropped[0].reason})" if points.dropped else ""
        if not len(points):
            raise InvalidInput("sweep", self.shapes.value, f"at least one valid case{dropped}")
        self.run_button.disabled = True
        self.progress.value = f"running {len(points)} cases{html.escape(dropped)} …"
        self.panel.clear(f"running {len(points)} cases …")
        try:
            df = sweep(
                points,
                backend=c["backend"].value,
                standard=None if c["standard"].value == DEFAULT else c["standard"].value,
                kernel=c["kernel"].value.strip() or None,
                executor=executor,
                results=results,
                show_progress=False,
                on_rows=self.panel.update,
            )
        finally:
            self.run_button.disabled = False
        self.df = df
        took = f"done in {df.attrs.get('seconds', 0.0):.1f} s, {df.attrs.get('reused', 0)} reused"
        self.panel.set_note(took)
        self.panel.update(df)  # the rows reused from the results file too: on_rows brings only the new ones
        self.panel.flush()
        self.progress.value = html.escape(took + dropped)
        return df


def _error(message: str) -> str:
    return f"<span style='color:var(--jp-error-color1,#cf222e)'>{html.escape(message)}</span>"
