"""The access map as altair specs (tested through `to_dict()`): per tensor, the GM bytes each core read and wrote,
overlaps and past-the-end bytes in a warning colour, and the UB its queues held over the modelled timeline
(docs/workbench.md#access-map). The frames come from workbench.running.access; nothing is computed here.

Two selections link the views: clicking a range selects its core and tile (`pick`: every range of that tile lights
up) and its core (`pick_core`: that core's UB lines light up); a double click clears them. A `step` parameter
shows what happened up to that step of the modelled timeline, with a slider under the chart (in the app, a widget
slider redraws the chart at its step instead).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from ...running.access import AccessMap, marks
from .charts import _enc, _tips

if TYPE_CHECKING:
    import altair as alt

DIRECTION_COLORS = {"read": "#4e79a7", "write": "#59a14f", "atomic": "#b07aa1"}
WARN_COLOR = "#e15759"  # overlaps between cores and bytes past a tensor's end
SHARED_COLOR = "#7f7f7f"  # bytes two cores both added to atomically (outlined: not a race)
PICK, PICK_CORE, STEP = "pick", "pick_core", "step"
POINTS_UP_TO = 200  # UB changes drawn as points too when there are at most this many (else a line only)
ROW_PX = 14  # one core's row per tensor, read and write side by side in it


def access_map_chart(
    amap: AccessMap,
    highlight: tuple[int, int | None] | None = None,
    step: int | None = None,
    slider: bool = True,
    width: int = 560,
) -> alt.VConcatChart:
    """One chart per tensor (x: byte offset in the tensor, y: core; read, write and atomic ranges side by side in
    each core's row; races and past-the-end bytes in WARN_COLOR, bytes several cores added to atomically outlined in
    grey; a rule at the tensor's end), then the UB occupancy per queue over modelled time. `highlight` (core, tile
    or None for the whole core) starts selected; `step` (default: the last) is the step shown; `slider` makes it a
    `step` parameter bound to a slider under the chart, else it is written into the filters (the app's widget
    slider sends a new spec: a JupyterChart that replaces a spec may set the old view's parameters, which vega-embed
    refuses as an unknown signal)."""
    import altair as alt

    frame = marks(amap)
    last = max(amap.steps - 1, 0)
    at = last if step is None else max(0, min(int(step), last))
    bind = alt.binding_range(min=0, max=last, step=1, name="step of the modelled timeline ")
    shown = f"datum.{STEP} <= {STEP if slider else at}"
    core_value = None if highlight is None else [{"core": int(highlight[0])}]
    tile_value = None
    if highlight is not None and highlight[1] is not None:
        tile_value = [{"core": int(highlight[0]), "tile": int(highlight[1])}]
    pick = alt.selection_point(name=PICK, fields=["core", "tile"], on="click", clear="dblclick", value=tile_value)
    if highlight is not None and highlight[1] is None:  # a whole core: `pick` by core alone
        pick = alt.selection_point(name=PICK, fields=["core"], on="click", clear="dblclick", value=core_value)
    pick_core = alt.selection_point(name=PICK_CORE, fields=["core"], on="click", clear="dblclick", value=core_value)
    cores = sorted(set(frame["core"].tolist()) | set(amap.ub["core"].tolist()))
    views: list[Any] = []
    for t in amap.tensors.itertuples():
        rows = frame[frame["tensor"] == t.tensor]
        if not rows.empty:  # each tensor's view can pick: the selections are the spec's, shared by every view
            views.append(_tensor_chart(rows, t, cores, width, pick, pick_core, shown))
    if not views:
        views.append(alt.Chart(title="no GM accesses in the event log").mark_text().properties(width=width))
    views.append(_ub_chart(amap, width, pick_core, shown))
    with warnings.catch_warnings():  # one selection in several views is what we mean: altair merges them, and says so
        warnings.filterwarnings("ignore", "Automatically deduplicated selection parameter", UserWarning)
        chart = alt.vconcat(*views, spacing=12)
    if slider:
        chart = chart.add_params(alt.param(name=STEP, value=at, bind=bind))
    if amap.truncation:  # a partial log must never look like the whole run
        chart = chart.properties(title=alt.Title(amap.truncation, color=WARN_COLOR, anchor="start"))
    return chart.resolve_scale(color="independent", stroke="independent")  # each tensor its own directions


def _tensor_chart(rows: Any, t: Any, cores: list[int], width: int, pick: Any, pick_core: Any, shown: str) -> Any:
    import altair as alt

    directions = [d for d in DIRECTION_COLORS if d in set(rows["direction"])]
    colors = [DIRECTION_COLORS[d] for d in directions]
    coarse = "" if not t.binned else f"; bins of {t.bin_bytes:,} B" + ("" if t.tiled else ", tiles merged")
    title = alt.Title(
        f"{t.tensor} ({t.role}, {t.bytes:,} B)",
        subtitle=f"GM bytes each core read and wrote; click a range: its core and tile{coarse}",
        anchor="start",
    )
    y = _enc(alt.Y, "core:O", title="core", scale=alt.Scale(domain=cores))
    x = _enc(alt.X, "lo:Q", title="byte offset in the tensor", scale=alt.Scale(domainMin=0))
    tips = _tips("core:O", "tile:Q", "direction:N", "lo:Q", "hi:Q", "bytes:Q", "accesses:Q", "step:Q")
    time_tip = _enc(alt.Tooltip, "start_us:Q", title="modelled start (µs, performance model)", format=".3f")
    base = alt.Chart(rows).transform_filter(shown)
    ranges = (
        base.transform_filter(alt.FieldOneOfPredicate(field="layer", oneOf=directions))
        .mark_bar(strokeWidth=1.5)  # the stroke keeps a 32-byte tail tile visible next to 400 kB
        .encode(
            x=x,
            x2=alt.X2(field="hi"),
            y=y,
            yOffset=_enc(alt.YOffset, "direction:N", scale=alt.Scale(domain=directions)),
            color=_enc(
                alt.Color,
                "direction:N",
                scale=alt.Scale(domain=directions, range=colors),
                title="access",
            ),
            stroke=_enc(  # as the colour, legend included: vega-lite then draws one legend of both
                alt.Stroke, "direction:N", scale=alt.Scale(domain=directions, range=colors), title="access"
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.25)),
            tooltip=[*tips, time_tip],
        )
    )
    ranges = ranges.add_params(pick, pick_core)
    warn = (
        base.transform_filter(alt.FieldOneOfPredicate(field="layer", oneOf=["overlap", "past end"]))
        .mark_bar(color=WARN_COLOR, stroke=WARN_COLOR, strokeWidth=2)  # the stroke keeps a few bytes visible
        .encode(x=x, x2=alt.X2(field="hi"), y=y, tooltip=_tips("core:O", "layer:N", "lo:Q", "hi:Q", "note:N"))
    )
    shared = (  # both cores added atomically: no race, outlined rather than filled
        base.transform_filter(alt.FieldEqualPredicate(field="layer", equal="shared atomic"))
        .mark_bar(filled=False, stroke=SHARED_COLOR, strokeDash=[3, 2], strokeWidth=1.5)
        .encode(x=x, x2=alt.X2(field="hi"), y=y, tooltip=_tips("core:O", "layer:N", "lo:Q", "hi:Q", "note:N"))
    )
    end = (
        alt.Chart(alt.Data(values=[{"end": int(t.bytes), "what": "end of the tensor"}]))
        .mark_rule(color=WARN_COLOR, strokeDash=[4, 3])
        .encode(x=alt.X(field="end", type="quantitative"), tooltip=_tips("what:N", "end:Q"))
    )
    return alt.layer(ranges, shared, warn, end, title=title).properties(width=width, height=ROW_PX * max(len(cores), 1))


def _ub_chart(amap: AccessMap, width: int, pick_core: Any, shown: str) -> alt.Chart:
    import altair as alt

    title = alt.Title(
        "UB held by each queue",
        subtitle="bytes after each AllocTensor / FreeTensor, per core; time modelled by the performance model",
        anchor="start",
    )
    if amap.ub.empty:
        return alt.Chart(title="no queue in the event log").mark_text().properties(width=width)
    return (
        alt.Chart(amap.ub, title=title)
        .transform_filter(shown)
        .mark_line(interpolate="step-after", point=len(amap.ub) <= POINTS_UP_TO)
        .encode(
            x=_enc(alt.X, "start_us:Q", title="modelled time (µs, performance model)"),
            y=_enc(alt.Y, "in_use:Q", title="UB bytes"),
            color=_enc(alt.Color, "queue:N", title="queue"),
            detail=_enc(alt.Detail, "core:N"),
            order=_enc(alt.Order, "step:Q"),
            opacity=alt.condition(pick_core, alt.value(1.0), alt.value(0.12)),
            tooltip=[
                *_tips("core:O", "queue:N", "in_use:Q", "step:Q"),
                _enc(alt.Tooltip, "start_us:Q", title="modelled (µs)", format=".3f"),
            ],
        )
        .properties(width=width, height=140)
    )


def access_map(
    result: Any, highlight: tuple[int, int | None] | None = None, bins: int | None = None
) -> alt.VConcatChart:
    """The access map of `result` (a run with trace=True) for a notebook: the chart with its step slider, in the
    page's colours (`wb.access_map(result)`). `highlight`: (core, tile or None) selected from the start."""
    from ...running.access import BINS, result_access_map
    from .charts import themed

    amap = result_access_map(result, BINS if bins is None else bins)
    return themed(access_map_chart(amap, highlight=highlight))
