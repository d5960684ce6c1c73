"""Runs -> frames for the timings panel: every time with its source, the bars of the times chart, the predicted
pipes per core."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ....core.timesource import DEVICE, MEANING, PREDICTED, SOURCES
from ....judge.criteria import Time

if TYPE_CHECKING:
    import pandas as pd

    from ....judge.perfmodel import Prediction
    from ....running.runner import Result


# timings keys -> the step they time, in the order the table lists them
TIMING_STEPS = {
    "build_s": "build",
    "launch_s": "launch",
    "run_s": "run",
    "kernel_s": "kernel",
    "builtin_kernel_s": "built-in (TBE)",
    "golden_s": "golden",
}
NEEDS_DEVICE = "needs an NPU: the npu backend on a device, or an msprof op_summary attached with profiling.attach"


def timings_frame(result: Result) -> pd.DataFrame:
    """Long form: a row per (step, source) with seconds (NaN when not available) and how it was obtained.

    Every timing of the run is a row with its source (timesource.py). The kernel also gets the time a criterion
    judges (device-measured, else predicted), a device-measured row that says what it needs when there is none, the
    model's prediction and the memory bound ("theoretical"); the built-in (TBE) op its device time or what it
    needs."""
    import pandas as pd

    from ....judge.criteria import builtin_time, kernel_time, theoretical_time

    replay = result.trace.get("replay")
    recorded = (
        f"; recorded on the {replay['source']} at {replay['created']}, replayed from {replay['path']}" if replay else ""
    )
    kernel = kernel_time(result)
    rows: dict[tuple[str, str], tuple[float | None, str]] = {}
    for key, seconds in result.timings.items():
        source = result.timing_sources[key]
        judged = key == "kernel_s" and source == kernel.source  # the kernel time a criterion judges says how
        how = kernel.how if judged else MEANING[source] + ("" if key == "golden_s" else recorded)
        rows[(TIMING_STEPS.get(key, key), source)] = (seconds, how)
    builtin = builtin_time(result)
    extra = [
        ("kernel", kernel),
        ("kernel", Time(None, DEVICE, NEEDS_DEVICE)),
        ("kernel", Time(None, PREDICTED, "no emulator trace to predict from")),
        ("kernel", theoretical_time(result)),
        ("built-in (TBE)", builtin if builtin.source else Time(None, DEVICE, builtin.how)),
    ]
    for step, t in extra:
        if t.source is not None:
            rows.setdefault((step, t.source), (t.seconds, t.how))
    steps = [*TIMING_STEPS.values(), *(step for step, _ in rows if step not in TIMING_STEPS.values())]
    ordered = sorted(rows.items(), key=lambda item: (steps.index(item[0][0]), SOURCES.index(item[0][1])))
    return pd.DataFrame(
        [
            {
                "step": step,
                "source": source,
                "seconds": float("nan") if seconds is None else float(seconds),
                "how": how,
                "available": seconds is not None,
            }
            for (step, source), (seconds, how) in ordered
        ],
        columns=["step", "source", "seconds", "how", "available"],
    )


def pipe_timeline_frame(prediction: Prediction) -> pd.DataFrame:
    """A row per busy pipe of each core (perfmodel.pipe_spans): start and end in seconds and µs, whether the core's
    pipes overlap, and the predicted kernel time (slowest core + launch) with its bottleneck on every row."""
    import pandas as pd

    from ....judge.perfmodel import pipe_spans

    columns = ["core", "pipe", "start_s", "end_s", "overlapped"]
    frame = pd.DataFrame(pipe_spans(prediction), columns=columns)
    frame["start_us"], frame["end_us"] = frame["start_s"] * 1e6, frame["end_s"] * 1e6
    frame["kernel_us"], frame["bottleneck"] = prediction.kernel_s * 1e6, prediction.bottleneck
    return frame


# the share of the timings chart's log axis kept free right of the longest bar, for the time written after it
TIME_LABEL_ROOM = 0.2


def timing_bars(timings: pd.DataFrame) -> pd.DataFrame:
    """The available times of timings_frame as bars on a log axis, a row each in the table's order.

    An 18 s build and a 3 µs kernel differ by seven decades: on a linear axis the kernel is no bar at all. `row`
    names the step and its source ("kernel · predicted"), so where a time comes from is read beside its bar, not
    only in a tooltip; `time` is the time in its unit ("3.0 ms", "18.24 s"). A log axis has no zero, so the bars
    start at `axis_from`, a power of ten at least a factor 2 below the shortest time, and `axis_to` leaves
    TIME_LABEL_ROOM of the axis after the longest bar for its time. `plotted` is the time clipped to the axis
    (a 0 s time is an empty bar, still labelled)."""
    from ..text import duration

    bars = timings[timings["available"]].reset_index(drop=True)
    positive = bars["seconds"][bars["seconds"] > 0]
    shortest, longest = (float(positive.min()), float(positive.max())) if len(positive) else (1e-6, 1e-6)
    axis_from = 10.0 ** math.floor(math.log10(shortest) - math.log10(2))
    decades = math.log10(longest / axis_from) / (1 - TIME_LABEL_ROOM)
    bars["row"] = bars["step"] + " · " + bars["source"]
    bars["time"] = [duration(float(s)) for s in bars["seconds"]]
    bars["plotted"] = bars["seconds"].clip(lower=axis_from)
    bars["axis_from"], bars["axis_to"] = axis_from, axis_from * 10**decades
    return bars


def powers_of_ten(low: float, high: float) -> list[float]:
    """Every power of ten in [low, high] (0 < low <= high): the ticks of a log axis, one per decade."""
    first, last = math.ceil(math.log10(low) - 1e-9), math.floor(math.log10(high) + 1e-9)
    return [10.0**k for k in range(first, last + 1)]


def pipe_kernel_frame(timeline: pd.DataFrame) -> pd.DataFrame:
    """The predicted kernel time of pipe_timeline_frame as one row (none for an empty timeline), for the chart's
    dashed rule and its note: the time in µs and in its unit, the bottleneck, the source (always "predicted": the
    model's estimate from the emulator's trace, never a measurement) and `note`, the sentence that says so."""
    import pandas as pd

    from ..text import duration

    columns = ["kernel_us", "time", "bottleneck", "source", "note"]
    if timeline.empty:
        return pd.DataFrame(columns=columns)
    kernel_us, bottleneck = float(timeline["kernel_us"].iloc[0]), str(timeline["bottleneck"].iloc[0])
    note = f"source: {PREDICTED}, the performance model's estimate from the emulator's trace (not measured)"
    row = {"kernel_us": kernel_us, "time": duration(kernel_us * 1e-6), "bottleneck": bottleneck, "source": PREDICTED}
    return pd.DataFrame([{**row, "note": note}], columns=columns)


def pipe_lanes(timeline: pd.DataFrame) -> pd.DataFrame:
    """pipe_timeline_frame with a `lane` per span: within each core, pipes whose spans do not overlap share a lane
    (MTE2 then MTE3 then S under a shared MTE rate), so a core's row is split only as far as its pipes run at once.
    48 cores fit in a few hundred px only with rows a few px high: two lanes of 3 px read, four of 1.5 px do not.
    Spans are placed in start order (the frame's pipe order on ties), each in the first lane free by then."""
    lanes = timeline.assign(lane=0)
    for _, spans in timeline.groupby("core", sort=False):
        free_from: list[float] = []  # per lane of this core, where its last span ends
        for span in spans.sort_values("start_us", kind="stable").itertuples():
            lane = next((k for k, free in enumerate(free_from) if free <= span.start_us + 1e-9), len(free_from))
            if lane == len(free_from):
                free_from.append(span.end_us)
            else:
                free_from[lane] = span.end_us
            lanes.at[span.Index, "lane"] = lane
    return lanes
