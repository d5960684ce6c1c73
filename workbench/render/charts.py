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


def cores_chart(frame: pd.DataFrame, title: str = "work per core") -> alt.Chart:
    """A bar per core: its count of work units, tail cores in a second colour, tiles in the tooltip."""
    import altair as alt

    unit = str(frame["unit"].iloc[0]) if len(frame) else "element"
    return (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=alt.X("core:O", title="core"),
            y=alt.Y("count:Q", title=f"{unit}s"),
            color=alt.Color("role:N", scale=alt.Scale(domain=["core", "tail core"]), title=None),
            tooltip=["core:O", "start:Q", "count:Q", "tiles:Q", "last_tile:Q", "tail:Q"],
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
