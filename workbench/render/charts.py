"""Frames -> altair charts (specs, tested through `to_dict()`); nothing is computed here (frames.py does that).

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
    frame: pd.DataFrame, title: str = "work per core", selected: pd.DataFrame | None = None
) -> alt.Chart | alt.LayerChart:
    """A bar per core: its count of work units, coloured by role (frames.cores_frame), tiles in the tooltip. `selected`
    (frames.selected_tile_frame) outlines the selected cores and fills the selected tile's extent."""
    import altair as alt

    unit = str(frame["unit"].iloc[0]) if len(frame) else "element"
    bars = (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=_enc(alt.X, "core:O", title="core"),
            y=_enc(alt.Y, "count:Q", title=f"{unit}s"),
            color=_enc(alt.Color, "role:N", scale=alt.Scale(domain=["core", "short core", "tail core"]), title=None),
            tooltip=_tips("core:O", "start:Q", "count:Q", "tiles:Q", "last_tile:Q", "tail:Q"),
        )
    )
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


def error_heatmap(frame: pd.DataFrame, title: str = "max abs error (aggregated)") -> alt.Chart:
    """The output's error grid (frames.heatmap_frame): a cell per block of rows x columns, coloured by its max abs
    error, failed elements in the tooltip."""
    import altair as alt

    def axis(column: str, default: str) -> str:
        return str(frame[column].iloc[0]) if len(frame) else default

    return (
        alt.Chart(frame, title=title)
        .mark_rect()
        .encode(
            x=_enc(alt.X, "col0:Q", title=axis("x_title", "column"), bin="binned"),
            x2=alt.X2(field="col1"),
            y=_enc(alt.Y, "row0:Q", title=axis("y_title", "row"), bin="binned", sort="descending"),
            y2=alt.Y2(field="row1"),
            color=alt.condition(  # exact cells in a neutral grey: a scale over all-zero data has no range
                "datum.max_abs_err > 0",
                _enc(alt.Color, "max_abs_err:Q", scale=alt.Scale(type="symlog", scheme="inferno", reverse=True)),
                alt.value(FREE_COLOR),
            ),
            tooltip=_tips("row0:Q", "row1:Q", "col0:Q", "col1:Q", "max_abs_err:Q", "max_ulp:Q", "failed:Q", "count:Q"),
        )
    )


# one colour per time source (timesource.SOURCES order); none is green or red, which read as a verdict
SOURCE_COLORS = ("#1f6feb", "#f28e2b", "#9d9d9d", "#b07aa1", "#bcbd22", "#17becf")


def timings_chart(frame: pd.DataFrame, title: str = "times by source") -> alt.Chart:
    """Seconds per step (frames.timings_frame), one bar per source that is available, coloured by its source
    (timesource.py) and labelled with how it was obtained in the tooltip."""
    import altair as alt

    from ..timesource import SOURCES

    return (
        alt.Chart(frame[frame["available"]], title=title)
        .mark_bar()
        .encode(
            y=_enc(alt.Y, "step:N", sort=None, title=None),
            x=_enc(alt.X, "seconds:Q", title="seconds"),
            color=_enc(alt.Color, "source:N", scale=alt.Scale(domain=list(SOURCES), range=list(SOURCE_COLORS))),
            yOffset=_enc(alt.YOffset, "source:N"),
            tooltip=_tips("step:N", "source:N", "seconds:Q", "how:N"),
        )
    )


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
    """A Gantt chart of frames.pipe_timeline_frame: a row per core and a lane per pipe. Overlapped (double-buffered)
    pipes start together, the others follow one another; the dashed rule is the predicted kernel time."""
    import altair as alt

    pipes = list(PIPE_COLORS)
    bars = (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            y=_enc(alt.Y, "core:O", title="core"),
            yOffset=_enc(alt.YOffset, "pipe:N", sort=pipes),
            x=_enc(alt.X, "start_us:Q", title="time (µs)"),
            x2=alt.X2(field="end_us"),
            color=_enc(
                alt.Color, "pipe:N", scale=alt.Scale(domain=pipes, range=list(PIPE_COLORS.values())), title=None
            ),
            tooltip=_tips("core:O", "pipe:N", "start_us:Q", "end_us:Q", "overlapped:N"),
        )
    )
    kernel = (
        alt.Chart(frame.head(1))
        .mark_rule(color="black", strokeDash=[4, 3])
        .encode(x=_enc(alt.X, "kernel_us:Q"), tooltip=_tips("kernel_us:Q", "bottleneck:N"))
    )
    return alt.LayerChart(layer=[bars, kernel])
