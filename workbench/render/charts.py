"""Frames -> altair charts (specs, tested through `to_dict()`); nothing is computed here (frames.py does that).

altair is imported inside each function, never at `import workbench`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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


def cores_chart(
    frame: pd.DataFrame, title: str = "work per core", selected: pd.DataFrame | None = None
) -> alt.Chart | alt.LayerChart:
    """A bar per core: its count of work units, tail cores in a second colour, tiles in the tooltip. `selected`
    (frames.selected_tile_frame) outlines the selected cores and fills the selected tile's extent."""
    import altair as alt

    unit = str(frame["unit"].iloc[0]) if len(frame) else "element"
    bars = (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=alt.X("core:O", title="core"),
            y=alt.Y("count:Q", title=f"{unit}s"),
            color=alt.Color("role:N", scale=alt.Scale(domain=["core", "tail core"]), title=None),
            tooltip=["core:O", "start:Q", "count:Q", "tiles:Q", "last_tile:Q", "tail:Q"],
        )
    )
    if selected is None or not len(selected):
        return bars
    tile = (
        alt.Chart(selected)
        .mark_bar(color=SELECT_COLOR, stroke="black", strokeWidth=1.5)
        .encode(x="core:O", y="y0:Q", y2="y1:Q", tooltip=["core:O", "tile:Q", "y0:Q", "y1:Q"])
    )
    return alt.LayerChart(layer=[bars, tile])


def ulp_histogram(frame: pd.DataFrame, title: str = "ULP error") -> alt.Chart:
    """Element counts per ULP-distance bucket (frames.ulp_frame), failed elements stacked in red."""
    import altair as alt

    long = frame.melt(id_vars=["bucket", "order"], value_vars=["passed", "failed"], var_name="judged", value_name="n")
    return (
        alt.Chart(long, title=title)
        .mark_bar()
        .encode(
            x=alt.X("bucket:N", sort=alt.SortField("order"), title="ULP distance"),
            y=alt.Y("n:Q", title="elements", scale=alt.Scale(type="symlog")),
            color=alt.Color("judged:N", scale=alt.Scale(domain=["passed", "failed"], range=["#4e79a7", SELECT_COLOR])),
            tooltip=["bucket:N", "judged:N", "n:Q"],
        )
    )


def error_heatmap(frame: pd.DataFrame, title: str = "max abs error (aggregated)") -> alt.Chart:
    """The output's error grid (frames.heatmap_frame): a cell per block of rows x columns, coloured by its max abs
    error, failed elements in the tooltip."""
    import altair as alt

    return (
        alt.Chart(frame, title=title)
        .mark_rect()
        .encode(
            x=alt.X("col0:Q", title="column (last dim)", bin="binned"),
            x2="col1:Q",
            y=alt.Y("row0:Q", title="row (leading dims)", bin="binned", sort="descending"),
            y2="row1:Q",
            color=alt.Color("max_abs_err:Q", scale=alt.Scale(type="symlog", scheme="inferno", reverse=True)),
            tooltip=["row0:Q", "row1:Q", "col0:Q", "col1:Q", "max_abs_err:Q", "max_ulp:Q", "failed:Q", "count:Q"],
        )
    )


def timings_chart(frame: pd.DataFrame, title: str = "wall times") -> alt.Chart:
    """Seconds per step (frames.timings_frame), one bar per kind that is available, labelled with how it was
    obtained in the tooltip."""
    import altair as alt

    return (
        alt.Chart(frame[frame["available"]], title=title)
        .mark_bar()
        .encode(
            y=alt.Y("step:N", sort=None, title=None),
            x=alt.X("seconds:Q", title="seconds"),
            color=alt.Color("kind:N", scale=alt.Scale(domain=["measured", "built-in", "predicted", "theoretical"])),
            yOffset="kind:N",
            tooltip=["step:N", "kind:N", "seconds:Q", "how:N"],
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
            x=alt.X("bytes:Q", stack="zero", title="bytes", scale=alt.Scale(domain=[0, int(frame["ub_size"].iloc[0])])),
            color=alt.Color("part:N", scale=alt.Scale(domain=parts, range=colors), sort=parts, title=None),
            order=alt.Order("order:Q"),
            tooltip=["part:N", "bytes:Q", "kind:N", "note:N"],
        )
    )
