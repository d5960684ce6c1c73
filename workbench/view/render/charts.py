"""Frames -> altair charts (specs, tested through `to_dict()`); nothing is computed here (render/frames/ does that).

altair is imported inside each function, never at `import workbench`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

# Tableau 20 for buffers (a Cast plan has up to 12); the reserve and the free rest in greys that read as "not a buffer"
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#a0cbe8",
    "#ffbe7d",
    "#ff9d9a",
    "#86bcb6",
    "#8cd17d",
    "#f1ce63",
    "#d4a6c8",
    "#fabfd2",
    "#d7b5a6",
    "#79706e",
)
RESERVE_COLOR, FREE_COLOR = "#7f7f7f", "#d9d9d9"


SELECT_COLOR = "#e15759"  # the selected mismatch's core and tile
ROLE_COLORS = {"core": "#4e79a7", "short core": "#a0cbe8", "tail core": "#f28e2b"}
_TYPES = {"O": "ordinal", "Q": "quantitative", "N": "nominal"}


def _enc(channel: Any, shorthand: str, **kw: Any) -> Any:
    """`channel("core:O", ...)` without altair's shorthand parser, which costs ~6 ms per chart: too much for the
    workbench's 100 ms refresh."""
    field, kind = shorthand.rsplit(":", 1)
    return channel(field=field, type=_TYPES[kind], **kw)


def _tips(*shorthands: str) -> list[Any]:
    import altair as alt

    return [_enc(alt.Tooltip, s) for s in shorthands]


def cores_chart(
    frame: pd.DataFrame, title: str = "work per core", selected: pd.DataFrame | None = None, pick: str | None = None
) -> alt.Chart | alt.LayerChart:
    """A bar per core: its count of work units, coloured by role (frames.cores_frame), tiles in the tooltip. `selected`
    (frames.selected_tile_frame) outlines the selected cores and fills the selected tile's extent. `pick` names a
    selection of the core a click lands on (the app links it to the access map)."""
    import altair as alt

    unit = str(frame["unit"].iloc[0]) if len(frame) else "element"
    roles = [r for r in ROLE_COLORS if r in set(frame["role"])]  # the legend names only what is drawn
    bars = (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=_enc(alt.X, "core:O", title="core"),
            y=_enc(alt.Y, "count:Q", title=f"{unit}s"),
            color=_enc(
                alt.Color,
                "role:N",
                scale=alt.Scale(domain=roles, range=[ROLE_COLORS[r] for r in roles]),
                title=None,
            ),
            tooltip=_tips("core:O", "start:Q", "count:Q", "tiles:Q", "last_tile:Q", "tail:Q"),
        )
    )
    if pick is not None:
        bars = bars.add_params(alt.selection_point(name=pick, fields=["core"], on="click", clear="dblclick"))
    if selected is None or not len(selected):
        return bars
    tile = (
        alt.Chart(selected)
        .mark_bar(color=SELECT_COLOR, stroke="black", strokeWidth=1.5)
        .encode(
            x=_enc(alt.X, "core:O"),
            y=_enc(alt.Y, "y0:Q"),
            y2=alt.Y2(field="y1"),
            tooltip=_tips("core:O", "tile:Q", "y0:Q", "y1:Q"),
        )
    )
    return alt.LayerChart(layer=[bars, tile])


def ulp_histogram(frame: pd.DataFrame, title: str = "ULP error") -> alt.LayerChart:
    """Element counts per ULP-distance bucket (frames.ulp_frame), failed elements stacked in red, each bucket's
    count written above it (the y axis is symlog: 7 failures next to 64,000 exact elements still show)."""
    import altair as alt

    x = _enc(alt.X, "bucket:N", sort=alt.SortField("order"), title="ULP distance", axis=alt.Axis(labelAngle=0))
    bars = (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=x,
            y=_enc(alt.Y, "n:Q", title="elements", scale=alt.Scale(type="symlog"), axis=alt.Axis(tickCount=4)),
            color=_enc(
                alt.Color, "judged:N", scale=alt.Scale(domain=["passed", "failed"], range=["#4e79a7", SELECT_COLOR])
            ),
            order=alt.Order(field="judged", sort="descending"),
            tooltip=_tips("bucket:N", "judged:N", "n:Q", "total:Q"),
        )
    )
    labels = (
        alt.Chart(frame)
        .mark_text(dy=-6, fontSize=10)
        .encode(x=x, y=_enc(alt.Y, "total:Q"), text=alt.Text(field="label"))
    )
    return alt.LayerChart(layer=[bars, labels])


# error over what the standard allows (frames.RATIO_LEVELS): blues within it (a passing run reads calm), orange and
# red beyond
RATIO_COLORS = ("#eef2f7", "#c6dbef", "#6baed6", "#2171b5", "#f28e2b", "#d62728")


def error_heatmap(
    frame: pd.DataFrame, lines: pd.DataFrame | None = None, title: str = "error / what the standard allows"
) -> alt.Chart | alt.LayerChart:
    """The output's error grid (frames.heatmap_frame): a cell per block of elements, coloured by its largest error
    over what the standard allows (frames.RATIO_LEVELS: blues within, orange and red beyond). Laid out by the split
    (y_title "core"), a row per core. `lines` (frames.split_lines_frame) draws the core and tile boundaries."""
    import altair as alt

    from .frames import RATIO_LEVELS

    def axis(column: str, default: str) -> str:
        return str(frame[column].iloc[0]) if len(frame) else default

    by_core = axis("y_title", "") == "core"
    x = _enc(alt.X, "col0:Q", title=axis("x_title", "column"), bin="binned")
    y = (
        _enc(alt.Y, "row0:O", title="core", axis=alt.Axis(labelAngle=0))
        if by_core
        else _enc(alt.Y, "row0:Q", title=axis("y_title", "row"), bin="binned", sort="descending")
    )
    cells = (
        alt.Chart(frame, title=title)
        .mark_rect()
        .encode(
            x=x,
            x2=alt.X2(field="col1"),
            y=y,
            **({} if by_core else {"y2": alt.Y2(field="row1")}),
            color=_enc(
                alt.Color,
                "level:N",
                scale=alt.Scale(domain=list(RATIO_LEVELS), range=list(RATIO_COLORS)),
                title="error / allowed",
            ),
            tooltip=_tips(
                "row0:Q",
                "row1:Q",
                "col0:Q",
                "col1:Q",
                "max_ratio:Q",
                "max_abs_err:Q",
                "max_ulp:Q",
                "failed:Q",
                "count:Q",
            ),
        )
    )
    if lines is None or not len(lines):
        return cells
    if by_core:  # a tick across each core's row where a tile begins
        bounds = (
            alt.Chart(lines)
            .mark_tick(orient="vertical", thickness=1.5, color="#222")
            .encode(x=_enc(alt.X, "x:Q"), y=_enc(alt.Y, "y:O"), tooltip=_tips("kind:N", "core:Q", "x:Q"))
        )
    else:
        bounds = (
            alt.Chart(lines)
            .mark_rule(color="#222")
            .encode(
                x=_enc(alt.X, "x:Q"),
                x2=alt.X2(field="x2"),
                y=_enc(alt.Y, "y:Q"),
                y2=alt.Y2(field="y2"),
                strokeDash=_enc(
                    alt.StrokeDash,
                    "kind:N",
                    scale=alt.Scale(domain=["core", "tile"], range=[[1, 0], [3, 2]]),
                    legend=alt.Legend(title="boundary"),
                ),
                tooltip=_tips("kind:N", "core:Q", "y:Q"),
            )
        )
    return alt.LayerChart(layer=[cells, bounds])


FAILURE_SELECTION = "cell"


def failure_map_chart(frame: pd.DataFrame, title: str = "failing elements per core and tile") -> alt.Chart:
    """frames.failure_map_frame as a grid: a row per core, a column per tile (or group of tiles), coloured by how
    many failing elements it computed; cells with none in a neutral grey, so every core of the plan is there.
    Clicking a cell selects it (the point selection FAILURE_SELECTION on core, tile0, tile1)."""
    import altair as alt

    pick = alt.selection_point(name=FAILURE_SELECTION, fields=["core", "tile0", "tile1"], on="click", clear="dblclick")
    return (
        alt.Chart(frame, title=title)
        .mark_rect(stroke="#8888", strokeWidth=0.5)
        .encode(
            x=_enc(alt.X, "tile:O", sort=alt.SortField("tile0"), title="tile", axis=alt.Axis(labelAngle=0)),
            y=_enc(alt.Y, "who:O", sort=alt.SortField("core"), title=None),
            color=alt.condition(
                "datum.failed > 0",
                _enc(alt.Color, "failed:Q", scale=alt.Scale(scheme="orangered", type="symlog"), title="failing"),
                alt.value(FREE_COLOR),
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
            tooltip=_tips("who:N", "tile:N", "failed:Q", "share:Q"),
        )
        .add_params(pick)
    )


def neighbourhood_chart(frame: pd.DataFrame, switches: pd.DataFrame, title: str = "") -> alt.LayerChart:
    """frames.neighbourhood_frames: the op's explored quantity over its explored dimension (log x), a point per
    planned value coloured by path; a rule at every path switch (its rule in the tooltip) and a dashed one at the
    current value, so the next switch is in sight."""
    import altair as alt

    name = str(frame["name"].iloc[0]) if len(frame) else "value"
    label = str(frame["label"].iloc[0]) if len(frame) else ""
    x = _enc(alt.X, "value:Q", title=name, scale=alt.Scale(type="log"))
    line = (
        alt.Chart(frame, title=title or f"{label} over {name}")
        .mark_line(interpolate="step-after", point=True, strokeWidth=1.5)
        .encode(
            x=x,
            y=_enc(alt.Y, "quantity:Q", title=label),
            color=_enc(alt.Color, "path:N", scale=alt.Scale(scheme="tableau10"), title="path"),
            detail=_enc(alt.Detail, "run:O"),
            tooltip=_tips("value:Q", "path:N", "quantity:Q", "block_dim:Q"),
        )
    )
    here = (
        alt.Chart(frame[frame["current"]])
        .mark_rule(strokeDash=[4, 3])  # the rule colour: black in exports, the page's text colour in the app
        .encode(x=x, tooltip=_tips("value:Q", "path:N", "quantity:Q"))
    )
    layers: list[Any] = [line, here]
    if len(switches):
        marks = alt.Chart(switches).encode(
            x=_enc(alt.X, "at:Q"), tooltip=_tips("at:Q", "before:N", "after:N", "rule:N")
        )
        layers += [
            marks.mark_rule(color=SELECT_COLOR, strokeWidth=1.5),
            marks.transform_filter("datum.label != ''")
            .mark_text(align="left", dx=3, dy=-4, baseline="bottom", fontSize=10, color=SELECT_COLOR)
            .encode(text=alt.Text(field="label"), y=alt.value(0)),
        ]
    return alt.LayerChart(layer=layers)


# one colour per time source (timesource.SOURCES order); none is green or red, which read as a verdict
SOURCE_COLORS = ("#1f6feb", "#f28e2b", "#9d9d9d", "#b07aa1", "#bcbd22", "#17becf")


def timings_chart(frame: pd.DataFrame, title: str = "times by source") -> alt.LayerChart:
    """Every available time of frames.timings_frame as a bar on a log axis (frames.timing_bars: an 18 s build and a
    3 µs kernel are both readable), one row per step and source labelled "kernel · predicted", the time written
    after its bar, coloured by its source (timesource.py) with a legend of the sources present only; how each time
    was obtained is in the tooltip."""
    import altair as alt

    from ...core.timesource import SOURCES
    from . import frames

    bars = frames.timing_bars(frame)
    present = [s for s in SOURCES if s in set(bars["source"])]
    colors = dict(zip(SOURCES, SOURCE_COLORS, strict=True))
    axis_from, axis_to = (float(bars[c].iloc[0]) for c in ("axis_from", "axis_to")) if len(bars) else (1e-6, 1.0)
    x = _enc(
        alt.X,
        "plotted:Q",
        title="time (log scale)",
        scale=alt.Scale(type="log", domain=[axis_from, axis_to], nice=False),
        axis=alt.Axis(values=frames.powers_of_ten(axis_from, axis_to), labelExpr=SECONDS_LABEL, grid=True),
    )
    y = _enc(alt.Y, "row:N", sort=list(bars["row"]), title=None, axis=alt.Axis(labelLimit=220))
    base = alt.Chart(bars)
    drawn = base.mark_bar().encode(
        x=x,
        x2=alt.X2(field="axis_from"),
        y=y,
        color=_enc(
            alt.Color,
            "source:N",
            scale=alt.Scale(domain=present, range=[colors[s] for s in present]),
            title=None,
            legend=alt.Legend(orient="bottom", direction="horizontal"),
        ),
        tooltip=_tips("step:N", "source:N", "time:N", "how:N"),
    )
    times = base.mark_text(align="left", dx=3, fontSize=10).encode(x=x, y=y, text=alt.Text(field="time"))
    return alt.LayerChart(layer=[drawn, times], title=title).properties(height=alt.Step(18))


def ub_chart(frame: pd.DataFrame, title: str = "Unified Buffer") -> alt.Chart:
    """One stacked bar: every UB buffer, the reserve and the free rest, summing to the platform's UB size."""
    import altair as alt

    parts = list(frame["part"])
    buffers = [p for p, k in zip(frame["part"], frame["kind"], strict=True) if k == "buffer"]
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(buffers))] + [
        RESERVE_COLOR if k == "reserve" else FREE_COLOR for k in frame["kind"] if k != "buffer"
    ]

    return (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=_enc(
                alt.X,
                "bytes:Q",
                stack="zero",
                title="bytes",
                scale=alt.Scale(domain=[0, int(frame["ub_size"].iloc[0])]),
            ),
            color=_enc(alt.Color, "part:N", scale=alt.Scale(domain=parts, range=colors), sort=parts, title=None),
            order=_enc(alt.Order, "order:Q"),
            tooltip=_tips("part:N", "bytes:Q", "kind:N", "note:N"),
        )
    )


PIPE_COLORS = {"MTE2": "#4e79a7", "V": "#59a14f", "MTE3": "#f28e2b", "S": "#b07aa1"}


def pipe_timeline_chart(frame: pd.DataFrame, title: str = "predicted pipes per core") -> alt.LayerChart:
    """A Gantt chart of frames.pipe_timeline_frame: one compact row per core, as high as pipe_row_px allows so that
    48 cores stay under 400 px, split into thin lanes only where its pipes run at once (frames.pipe_lanes), each
    pipe in its colour. Overlapped (double-buffered) pipes start together, the others follow one another; the
    dashed rule is the predicted kernel time. The title's note says the times are predicted
    (frames.pipe_kernel_frame), as the rule's tooltip does."""
    import altair as alt

    from . import frames

    pipes = list(PIPE_COLORS)
    kernel = frames.pipe_kernel_frame(frame)
    cores = int(frame["core"].nunique())
    note = ["no cores to predict"]
    if len(kernel):
        first = kernel.iloc[0]
        note = [str(first["note"]), f"kernel {first['time']} (the dashed line), bound by {first['bottleneck']}"]
    bars = (
        alt.Chart(frames.pipe_lanes(frame))
        .mark_bar()
        .encode(
            y=_enc(
                alt.Y,
                "core:O",
                title="core",
                scale=alt.Scale(paddingInner=0.15, paddingOuter=0.1),
                axis=alt.Axis(labelOverlap=True, labelFontSize=9, ticks=False),
            ),
            yOffset=_enc(alt.YOffset, "lane:O", scale=alt.Scale(paddingInner=0)),
            x=_enc(alt.X, "start_us:Q", title="predicted time (µs)"),
            x2=alt.X2(field="end_us"),
            color=_enc(
                alt.Color, "pipe:N", scale=alt.Scale(domain=pipes, range=list(PIPE_COLORS.values())), title=None
            ),
            tooltip=_tips("core:O", "pipe:N", "start_us:Q", "end_us:Q", "overlapped:N"),
        )
    )
    rule = (
        alt.Chart(kernel)
        .mark_rule(strokeDash=[4, 3])  # no colour of its own: black in exports, the page's text colour in the app
        .encode(x=_enc(alt.X, "kernel_us:Q"), tooltip=_tips("time:N", "bottleneck:N", "source:N"))
    )
    return alt.LayerChart(layer=[bars, rule], title=alt.Title(title, subtitle=note)).properties(
        height=pipe_row_px(cores) * max(cores, 1)
    )


# Vega's label for a tick of a log axis in seconds, in duration()'s units: 1e-05 -> "10 µs", 0.001 -> "1 ms"
SECONDS_LABEL = (
    "datum.value >= 0.9995 ? format(datum.value, '~g') + ' s'"
    " : datum.value >= 0.0009995 ? format(datum.value * 1e3, '~g') + ' ms'"
    " : format(datum.value * 1e6, '~g') + ' µs'"
)


# the pipe timeline's rows: at most this many px in all for up to 48 cores (6 px each), so that with its title, note
# and axis the whole chart stays under 400 px; fewer cores get taller rows, up to 20 px
PIPE_ROWS_PX = 288


def pipe_row_px(cores: int) -> int:
    """The height of one core's row in the pipe timeline: PIPE_ROWS_PX shared by the cores, between 6 and 20 px."""
    return max(6, min(20, PIPE_ROWS_PX // max(cores, 1)))


# Charts shown in a page (the app's chart widgets) take the page's colours, light or dark, without Python knowing
# the theme: no background of their own, and every text and line in "currentColor", which an SVG drawing resolves
# from the CSS `color` of the element around it (JupyterLab and Voilà themes set it). Grid lines and the view's
# frame are a translucent grey, which reads on either background. Only for the page: a file rendered outside one
# (save_chart, the HTML report) has no CSS colour, so currentColor would be black on transparent; exports keep
# Vega's own colours on white.
CURRENT_COLOR = "currentColor"
FAINT_GREY = "rgba(128, 128, 128, 0.35)"


def page_theme() -> dict[str, Any]:
    """The Vega-Lite config of a chart shown in a page (a new dict each call: altair and vega-embed may keep it)."""
    text = {"labelColor": CURRENT_COLOR, "titleColor": CURRENT_COLOR}
    return {
        "background": "transparent",
        "title": {"color": CURRENT_COLOR, "subtitleColor": CURRENT_COLOR},
        "axis": {**text, "domainColor": CURRENT_COLOR, "tickColor": CURRENT_COLOR, "gridColor": FAINT_GREY},
        "legend": dict(text),
        "header": dict(text),
        "view": {"stroke": FAINT_GREY},
        "text": {"color": CURRENT_COLOR},  # text marks without a colour of their own: bar labels, placeholders
        "rule": {"color": CURRENT_COLOR},
    }


def themed(chart: Any) -> Any:
    """`chart` (any top-level altair chart) configured with page_theme(), for showing it in a page by itself (a
    notebook cell). The app's chart widgets need none: panels.chart_widget gives vega-embed the same config."""
    return chart.configure(**page_theme())
