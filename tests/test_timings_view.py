"""The timings panel's charts read at a glance: every time on a log axis in human units with its source written
beside its bar, and the predicted pipes of 40-48 cores in a chart of bounded height that says it is predicted.
Checked through the specs (to_dict) and through vl-convert's SVG, which is what a page or an export draws."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
import vl_convert

import workbench as wb
from workbench.core.timesource import MEANING, PREDICTED, SOURCES
from workbench.judge.perfmodel import predict
from workbench.view.render import charts, frames

pytest.importorskip("ipywidgets")

from workbench.view.ui.panels import TimingsPanel  # after the skip: the panels need ipywidgets

# a case that runs on every core of the platform: 4096 rows of 1000 logits
SCE_ROWS = ("softmax_cross_entropy_with_logits", ("float32",), (4096, 1000))


@pytest.fixture(scope="module")
def sce_910b1() -> wb.Result:
    """The case on the 48-core Ascend910B1."""
    return wb.run(wb.Case(*SCE_ROWS, platform="Ascend910B1"))


def _data(spec: dict, layer: dict) -> list[dict]:
    return spec["datasets"][(layer.get("data") or spec["data"])["name"]]


def _svg_height(spec: dict) -> int:
    """The height in px of the whole chart as vl-convert draws it (title, note, legend and axes included)."""
    svg = vl_convert.vegalite_to_svg(spec)
    match = re.search(r'<svg[^>]* height="(\d+)"', svg)
    assert match, svg[:300]
    return int(match.group(1))


def _timings(rows: list[tuple[str, str, float | None]]) -> pd.DataFrame:
    """A frame shaped like frames.timings_frame: (step, source, seconds or None when not available)."""
    return pd.DataFrame(
        [
            {
                "step": step,
                "source": source,
                "seconds": math.nan if s is None else s,
                "how": MEANING[source],  # type: ignore[index]
                "available": s is not None,
            }
            for step, source, s in rows
        ]
    )


BUILD_AND_KERNEL = _timings(
    [
        ("build", "host wall", 18.24),
        ("kernel", "device-measured", None),  # needs an NPU: never drawn, never in the legend
        ("kernel", "emulator wall", 0.003),
        ("kernel", "predicted", 4.98e-6),
        ("golden", "host wall", 0.0),  # a 0 s time: an empty bar, still labelled
    ]
)


def test_timing_bars_put_seven_decades_on_one_log_axis() -> None:
    bars = frames.timing_bars(BUILD_AND_KERNEL)
    rows = ["build · host wall", "kernel · emulator wall", "kernel · predicted", "golden · host wall"]
    assert list(bars["row"]) == rows
    assert list(bars["time"]) == ["18.24 s", "3.0 ms", "4.98 µs", "0 µs"]
    axis_from, axis_to = bars["axis_from"].iloc[0], bars["axis_to"].iloc[0]
    assert axis_from == 1e-6  # a power of ten at least a factor 2 under the shortest time (4.98 µs)
    # the longest bar ends before the last TIME_LABEL_ROOM of the axis, where its time is written
    share = math.log10(18.24 / axis_from) / math.log10(axis_to / axis_from)
    assert share == pytest.approx(1 - frames.TIME_LABEL_ROOM)
    assert list(bars["plotted"]) == [18.24, 0.003, 4.98e-6, axis_from]  # 0 s sits on the axis's start
    assert frames.powers_of_ten(axis_from, axis_to) == [10.0**k for k in range(-6, 4)]  # 1 µs to 1000 s


def test_timings_chart_is_log_scaled_labelled_in_units_and_names_each_source() -> None:
    spec = charts.timings_chart(BUILD_AND_KERNEL).properties(width=320).to_dict()
    bars, times = spec["layer"]
    x = bars["encoding"]["x"]
    assert x["scale"]["type"] == "log" and x["field"] == "plotted" and bars["encoding"]["x2"]["field"] == "axis_from"
    assert bars["encoding"]["y"]["field"] == times["encoding"]["y"]["field"] == "row"  # "kernel · predicted"
    # the legend lists only the sources that have a time, in timesource.SOURCES order
    legend = bars["encoding"]["color"]["scale"]["domain"]
    assert legend == ["emulator wall", "host wall", "predicted"] == [s for s in SOURCES if s in legend]
    assert times["mark"]["type"] == "text" and times["encoding"]["text"]["field"] == "time"
    shown = _data(spec, times)
    assert {r["row"]: r["time"] for r in shown}["kernel · predicted"] == "4.98 µs"
    assert all(r["source"] in r["row"] for r in shown)  # the source is text on the chart, not only in a tooltip
    # what a page draws: ticks in human units, every time after its bar, every row named with its source
    svg = vl_convert.vegalite_to_svg(spec)
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert {"1 µs", "10 µs", "1 ms", "1 s", "10 s"} <= set(labels), labels
    assert {"18.24 s", "3.0 ms", "4.98 µs", "kernel · predicted", "build · host wall"} <= set(labels), labels
    assert "device-measured" not in svg  # not available, so neither a bar nor a legend entry


def test_timings_chart_of_a_run(sce_910b1: wb.Result) -> None:
    timings = frames.timings_frame(sce_910b1)
    spec = charts.timings_chart(timings).to_dict()
    bars, _ = spec["layer"]
    available = timings[timings["available"]]
    assert bars["encoding"]["color"]["scale"]["domain"] == [s for s in SOURCES if s in set(available["source"])]
    assert {r["row"] for r in _data(spec, bars)} >= {"kernel · predicted", "kernel · theoretical", "build · host wall"}


def test_pipe_timeline_of_48_cores_stays_under_400_px_and_says_it_is_predicted(sce_910b1: wb.Result) -> None:
    prediction = predict(sce_910b1.trace, sce_910b1.case.soc)
    assert len(prediction.cores) == 48
    timeline = frames.pipe_timeline_frame(prediction)
    spec = charts.pipe_timeline_chart(timeline).properties(width=440).to_dict()
    assert spec["height"] == 48 * charts.pipe_row_px(48) == 288  # set explicitly: a compact row per core
    height = _svg_height(spec)
    assert height <= 400, f"{height} px for 48 cores"  # the whole chart: title, note, rows, axis
    bars, rule = spec["layer"]
    assert bars["encoding"]["y"]["field"] == "core" and bars["encoding"]["yOffset"]["field"] == "lane"
    lanes = {(r["core"], r["pipe"]): r["lane"] for r in _data(spec, bars)}
    assert lanes[(0, "MTE2")] == lanes[(0, "MTE3")] == 0 and lanes[(0, "V")] == 1  # MTE3 follows MTE2 in its lane
    assert spec["title"]["text"] == "predicted pipes per core"
    note = " ".join(spec["title"]["subtitle"])
    assert f"source: {PREDICTED}" in note and "not measured" in note and "bound by" in note
    (kernel,) = _data(spec, rule)
    assert kernel["source"] == PREDICTED and kernel["kernel_us"] == pytest.approx(prediction.kernel_s * 1e6)
    assert "color" not in rule["mark"]  # drawn in the theme's text colour in the app, black in exports


def test_pipe_lanes_split_a_core_only_where_its_pipes_overlap() -> None:
    spans = [  # core 0 overlapped (V beside MTE2, MTE3 after MTE2), core 1 one pipe after another
        (0, "MTE2", 0.0, 4.0), (0, "V", 0.0, 2.0), (0, "MTE3", 4.0, 6.0), (0, "S", 6.0, 6.5),
        (1, "MTE2", 0.0, 4.0), (1, "V", 4.0, 6.0), (1, "MTE3", 6.0, 8.0),
    ]  # fmt: skip
    timeline = pd.DataFrame(spans, columns=["core", "pipe", "start_us", "end_us"])
    lanes = frames.pipe_lanes(timeline)
    assert list(lanes["lane"]) == [0, 1, 0, 0, 0, 0, 0]
    assert list(lanes.columns) == [*timeline.columns, "lane"] and "lane" not in timeline  # a copy


def test_pipe_rows_shrink_with_the_core_count_within_bounds() -> None:
    assert [charts.pipe_row_px(n) for n in (1, 2, 14, 32, 40, 48, 64)] == [20, 20, 20, 9, 7, 6, 6]
    assert all(charts.pipe_row_px(n) * n <= charts.PIPE_ROWS_PX for n in range(1, 49))


def test_the_timings_panel_shows_both_charts(sce_910b1: wb.Result) -> None:
    panel = TimingsPanel()
    panel.update(sce_910b1)
    assert panel.chart.chart is not None and panel.pipes.chart is not None
    timings = panel.chart.chart.to_dict()
    assert timings["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    pipes = panel.pipes.chart.to_dict()
    assert panel.pipes.layout.display == "" and pipes["height"] == 288
    assert _svg_height(pipes) <= 400
