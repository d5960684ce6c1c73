"""A sweep's views as altair charts, from render/sweep_frames.py's frames (nothing is computed here): the pass/fail
and max-ULP heatmaps over two chosen axes, error over size, the tiling path over two axes (where SPLIT_R begins),
and the kernel time against the memory bound over size.

Every cell and point carries its case's `label` and `key` in the tooltip and is selectable: a click selects it in
the point selection SWEEP_SELECTION on `key` (ui/sweep_panel.py opens that case), a double click clears it.
altair is imported inside each function, never at `import workbench`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .charts import FREE_COLOR, SECONDS_LABEL, SELECT_COLOR, _enc, _tips

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

SWEEP_SELECTION = "case"
# the views a sweep panel offers, by the name its menu shows
PASS_FAIL, MAX_ULP, ERROR_SIZE, PATHS, TIME_BOUND = (
    "pass/fail",
    "max ULP",
    "error vs size",
    "path regions",
    "time vs bound",
)
VIEWS = (PASS_FAIL, MAX_ULP, ERROR_SIZE, PATHS, TIME_BOUND)
# a verdict's colour: here green and red do mean pass and fail; a refused case in the grey of "nothing ran"
STATUS_COLORS = {"pass": "#59a14f", "error": "#bab0ac", "fail": "#f28e2b", "fault": "#d62728"}
ULP_RANGE = ("#f7fbff", "#4292c6")  # light to mid blue: the ULP written in the cell stays readable on either end
CLICK = "click a cell to open its case (the worst one), double-click to clear"


def _pick() -> Any:
    import altair as alt

    return alt.selection_point(name=SWEEP_SELECTION, fields=["key"], on="click", clear="dblclick")


def _ordinal(channel: Any, field: str, title: str, longest: int, wide: int) -> Any:
    """An axis of text values in the frame's order (its `<field>_rank`: numbers numerically, shapes by size); x
    labels wider than a cell (about 6 px a character) are slanted, and where even those would overlap some are left
    out rather than drawn over each other."""
    import altair as alt

    axis = alt.Axis(labelLimit=220)
    if field == "x":
        slant = longest * 6 > wide
        axis = alt.Axis(labelAngle=-40 if slant else 0, labelOverlap=wide < 14)
    return _enc(
        channel,
        f"{field}:O",
        sort=alt.EncodingSortField(field=f"{field}_rank", op="min"),
        title=title,
        axis=axis,
    )


CELL_PX = (44, 24)  # a heatmap cell's width and height at most: "12/12" or a tiling key fits in it
GRID_PX = (640, 480)  # a heatmap's cells at most, in all: many values get narrower cells, down to MIN_CELL_PX
MIN_CELL_PX = 8
TEXT_MIN_PX = 30  # narrower cells do not write their text (the tooltip has it)


def _cell_px(cells: pd.DataFrame) -> tuple[int, int]:
    """A cell's width and height: CELL_PX, or less when the values would not fit GRID_PX."""
    across, down = max(1, cells["x"].nunique()), max(1, cells["y"].nunique())
    wide = max(MIN_CELL_PX, min(CELL_PX[0], GRID_PX[0] // across))
    return wide, max(MIN_CELL_PX, min(CELL_PX[1], GRID_PX[1] // down))


def _grid(cells: pd.DataFrame, x: str, y: str) -> Any:
    import altair as alt

    wide = _cell_px(cells)[0]
    longest = max(map(len, cells["x"]), default=0)
    return alt.Chart(cells).encode(x=_ordinal(alt.X, "x", x, longest, wide), y=_ordinal(alt.Y, "y", y, longest, wide))


def _heatmap(cells: pd.DataFrame, rects: Any, text: Any, heading: Any) -> alt.LayerChart:
    """The cells and, where a cell is wide enough to hold it, their text, sized by _cell_px."""
    import altair as alt

    wide, tall = _cell_px(cells)
    layers = [rects, text] if wide >= TEXT_MIN_PX and tall >= 12 else [rects]
    return alt.LayerChart(layer=layers, title=heading).properties(width=alt.Step(wide), height=alt.Step(tall))


def _subtitle(*lines: str) -> list[str]:
    return [line for line in lines if line]


def status_heatmap(cells: pd.DataFrame, x: str, y: str, counts: str = "", title: str = "") -> alt.LayerChart:
    """sweep_frames.cell_frame as a grid over `x` (across) and `y` (down): each cell coloured by its worst status
    (STATUS_COLORS), "passing/all" written in it; the counts by status and the worst case in the tooltip."""
    import altair as alt

    pick = _pick()
    statuses = [s for s in STATUS_COLORS if s in set(cells["worst"])] or list(STATUS_COLORS)
    base = _grid(cells, x, y)
    rects = (
        base.mark_rect(stroke="#8888", strokeWidth=0.5, cursor="pointer")
        .encode(
            color=_enc(
                alt.Color,
                "worst:N",
                scale=alt.Scale(domain=statuses, range=[STATUS_COLORS[s] for s in statuses]),
                title="worst",
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
            tooltip=_tips("label:N", "key:N", "counts:N", "worst:N", "max_ulp:Q", "n:Q"),
        )
        .add_params(pick)
    )
    text = base.mark_text(fontSize=10, cursor="pointer").encode(
        text=alt.Text(field="text"), tooltip=_tips("label:N", "key:N", "counts:N")
    )
    heading = alt.Title(title or f"pass/fail by {x} × {y}", subtitle=_subtitle(counts, CLICK))
    return _heatmap(cells, rects, text, heading)


def ulp_heatmap(cells: pd.DataFrame, x: str, y: str, title: str = "") -> alt.LayerChart:
    """sweep_frames.cell_frame as a grid coloured by each cell's largest ULP error (symlog: 0 to millions), the
    number written in it; a cell whose cases compared nothing (every one refused) in grey with "—", a cell with a
    failing or faulting case outlined in red."""
    import altair as alt

    pick = _pick()
    base = _grid(cells, x, y)
    bad = "datum.worst == 'fail' || datum.worst == 'fault'"
    rects = (
        base.mark_rect(cursor="pointer", invalid="show")  # a cell without a ULP is drawn (grey), not dropped
        .encode(
            color=alt.condition(  # the grey first: Vega-Lite would draw a missing value as the colour of 0
                "!isValid(datum.max_ulp) || !isFinite(datum.max_ulp)",
                alt.value(FREE_COLOR),
                _enc(alt.Color, "max_ulp:Q", scale=alt.Scale(type="symlog", range=list(ULP_RANGE)), title="max ULP"),
            ),
            stroke=alt.condition(bad, alt.value(SELECT_COLOR), alt.value("#8888")),
            strokeWidth=alt.condition(bad, alt.value(2.0), alt.value(0.5)),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
            tooltip=_tips("label:N", "key:N", "max_ulp:Q", "max_abs:Q", "max_rel:Q", "counts:N"),
        )
        .add_params(pick)
    )
    text = base.mark_text(fontSize=10, cursor="pointer").encode(
        text=alt.Text(field="ulp_text"), tooltip=_tips("label:N", "key:N", "max_ulp:Q")
    )
    heading = alt.Title(
        title or f"max ULP error by {x} × {y}", subtitle=["red outline: a failing or faulting case in the cell", CLICK]
    )
    return _heatmap(cells, rects, text, heading)


METRIC_TITLES = {"max_ulp": "max ULP error", "max_abs": "max absolute error", "max_rel": "max relative error"}


def error_chart(frame: pd.DataFrame, size: str = "numel", series: str = "dtypes", title: str = "") -> alt.LayerChart:
    """sweep_frames.error_frame: each case's error over its size on log axes (ULPs on symlog, so 0 shows), a line
    per `series` value, the point's shape its status. An exact absolute or relative error is drawn a decade below
    the smallest other (the frame's `plotted`), its true value in the tooltip."""
    import altair as alt

    metric = str(frame["metric"].iloc[0]) if len(frame) else "max_ulp"
    scale: Any = str(frame["scale"].iloc[0]) if len(frame) else "symlog"  # "symlog" or "log": the frame's word
    pick = _pick()
    x = _enc(alt.X, "size:Q", title=f"{size} (log scale)", scale=alt.Scale(type="log"))
    y = _enc(alt.Y, "plotted:Q", title=METRIC_TITLES[metric], scale=alt.Scale(type=scale))
    color = _enc(alt.Color, "series:N", scale=alt.Scale(scheme="tableau10"), title=series)
    base = alt.Chart(frame).encode(x=x, y=y, color=color)
    line = base.mark_line(strokeWidth=1, opacity=0.6).encode(detail=_enc(alt.Detail, "series:N"))
    points = (
        base.mark_point(filled=True, size=60, cursor="pointer")
        .encode(
            shape=_enc(
                alt.Shape,
                "status:N",
                scale=alt.Scale(domain=list(STATUS_COLORS), range=["circle", "square", "cross", "triangle"]),
                title="status",
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.3)),
            tooltip=_tips("label:N", "key:N", "value:Q", "exact:N", "status:N", "size:Q"),
        )
        .add_params(pick)
    )
    heading = alt.Title(title or f"{METRIC_TITLES[metric]} over {size}", subtitle=["click a point to open its case"])
    return alt.LayerChart(layer=[line, points], title=heading)


def path_chart(cells: pd.DataFrame, switches: pd.DataFrame, x: str, y: str, title: str = "") -> alt.LayerChart:
    """sweep_frames.path_frame as regions: each cell coloured by the tiling path its case took, the tiling key
    written in it, a black outline where the path changed from the cell before it along x; the subtitle lists the
    changes (sweep_frames.path_switches: "float32: FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at dim1 = 4705")."""
    import altair as alt

    from .sweep_frames import NO_PATH

    pick = _pick()
    paths = [p for p in dict.fromkeys(cells["path"]) if p != NO_PATH]
    domain = paths + ([NO_PATH] if NO_PATH in set(cells["path"]) else [])
    palette = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#e15759"]
    colors = [palette[i % len(palette)] for i in range(len(paths))] + ([FREE_COLOR] if NO_PATH in domain else [])
    base = _grid(cells, x, y)
    rects = (
        base.mark_rect(cursor="pointer")
        .encode(
            color=_enc(alt.Color, "path:N", scale=alt.Scale(domain=domain, range=colors), title="path"),
            stroke=alt.condition("datum.switch", alt.value("black"), alt.value("#8888")),
            strokeWidth=alt.condition("datum.switch", alt.value(2.5), alt.value(0.5)),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
            tooltip=_tips("label:N", "key:N", "path:N", "tiling_key:N", "paths:N", "n:Q"),
        )
        .add_params(pick)
    )
    text = base.mark_text(fontSize=10, cursor="pointer").encode(
        text=alt.Text(field="tiling_key"), tooltip=_tips("label:N", "key:N", "path:N")
    )
    changes = list(switches["text"])
    lines = changes[:6] + ([f"… and {len(changes) - 6} more changes"] if len(changes) > 6 else [])
    heading = alt.Title(
        title or f"tiling path by {x} × {y} (the tiling key in each cell)",
        subtitle=lines or [f"no path changes along {x}"],
    )
    return _heatmap(cells, rects, text, heading)


def time_chart(
    frame: pd.DataFrame, sources: dict[str, str], size: str = "numel", series: str = "dtypes", title: str = ""
) -> alt.LayerChart:
    """sweep_frames.time_frame: the kernel time (solid) and the memory bound (dashed) over size on log axes, a
    colour per `series` value. The title says how each was obtained (sweep_frames.time_sources: the kernel time
    "predicted" by the performance model from the emulator's trace, the bound "theoretical"); so do the tooltips."""
    import altair as alt

    pick = _pick()
    how = {m: sources.get(m, "none") for m in ("kernel time", "memory bound")}
    x = _enc(alt.X, "size:Q", title=f"{size} (log scale)", scale=alt.Scale(type="log"))
    y = _enc(
        alt.Y,
        "seconds:Q",
        title="time (log scale)",
        scale=alt.Scale(type="log"),
        axis=alt.Axis(labelExpr=SECONDS_LABEL, grid=True),
    )
    color = _enc(alt.Color, "series:N", scale=alt.Scale(scheme="tableau10"), title=series)
    dash = _enc(
        alt.StrokeDash,
        "measure:N",
        scale=alt.Scale(domain=["kernel time", "memory bound"], range=[[1, 0], [5, 3]]),
        title=None,
    )
    base = alt.Chart(frame).encode(x=x, y=y, color=color)
    lines = base.mark_line(strokeWidth=1.5).encode(
        strokeDash=dash, detail=_enc(alt.Detail, "line:N"), tooltip=_tips("series:N", "line:N")
    )
    points = (
        base.mark_point(filled=True, size=40, cursor="pointer")
        .encode(
            shape=_enc(
                alt.Shape,
                "measure:N",
                scale=alt.Scale(domain=["kernel time", "memory bound"], range=["circle", "triangle-down"]),
                title=None,
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.3)),
            tooltip=_tips("label:N", "key:N", "line:N", "seconds:Q", "bound_share:Q", "status:N"),
        )
        .add_params(pick)
    )
    heading = alt.Title(
        title or f"kernel time ({how['kernel time']}) vs memory bound ({how['memory bound']}) over {size}",
        subtitle=["bound_share in the tooltip: the bound over the kernel time (1 = at the memory bound)"],
    )
    return alt.LayerChart(layer=[lines, points], title=heading)


def view_chart(df: pd.DataFrame, view: str, x: str, y: str, metric: str = "max_ulp") -> alt.LayerChart:
    """The sweep DataFrame's `view` (VIEWS) laid out by columns `x` and `y` (sweep_frames.axis_options). The views
    over size take `x` as the size when it is numeric (numel, a dimension, a numeric attribute), else numel, and
    draw a line per `y` value."""
    from ...core.errors import InvalidInput
    from . import sweep_frames as sf

    if view not in VIEWS:
        raise InvalidInput("view", view, ", ".join(VIEWS))
    if view in (PASS_FAIL, MAX_ULP):
        cells = sf.cell_frame(df, x, y)
        if view == MAX_ULP:
            return ulp_heatmap(cells, x, y)
        return status_heatmap(cells, x, y, sf.counts_text(df))
    if view == PATHS:
        cells = sf.path_frame(df, x, y)
        return path_chart(cells, sf.path_switches(cells, x), x, y)
    size = sf.size_axis(df, x)
    if view == ERROR_SIZE:
        return error_chart(sf.error_frame(df, metric, y, size), size, y)
    frame = sf.time_frame(df, y, size)
    return time_chart(frame, sf.time_sources(frame), size, y)
