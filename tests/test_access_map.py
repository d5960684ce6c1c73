"""The access map (running/access.py, render/access_map.py, ui/access_panel.py; docs/workbench.md#access-map): GM
ranges per core and tile from the event log, overlaps, past-the-end bytes, UB per queue, the chart's spec and the
app's wiring to the tiling panel, on the shipped Cast kernel, the two-core race kernel of the event-log tests and
hand-made records."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from test_events import _records, _write

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.running import emu
from workbench.running.access import ROWS_PER_BIN, access_map, marks, result_access_map
from workbench.view.render.access_map import DIRECTION_COLORS, PICK, PICK_CORE, STEP, WARN_COLOR, access_map_chart

CAST = wb.Case("cast", ("float32", "float16"), (100_003,))  # 8 cores; the last one has a tile and a tail window
RACE = Path(__file__).parent / "emu" / "events_kernel.cpp"  # two cores write the same bytes (tests/emu)


@pytest.fixture(scope="module")
def cast_run() -> wb.Result:
    return wb.run(CAST, trace=True)


def test_each_core_wrote_its_slice_of_the_plan_tile_by_tile(cast_run: wb.Result) -> None:
    amap = result_access_map(cast_run)
    assert amap.tile_source == "plan" and amap.tensors["tiled"].all() and not amap.tensors["binned"].any()
    r = amap.ranges
    for direction, tensor, itemsize in (("write", "arg1:output", 2), ("read", "arg0:input", 4)):
        mine = r[(r["direction"] == direction) & (r["tensor"] == tensor)]
        for c in cast_run.plan.cores:  # the union of a core's ranges is its slice of the plan, in bytes
            got = mine[mine["core"] == c.core]
            assert (got["lo"].min(), got["hi"].max()) == (c.start * itemsize, c.stop * itemsize), (tensor, c)
            assert set(got["plan_core"]) == {c.core}
            tiles = c.tiles + (1 if c.tail else 0)
            assert sorted(got["tile"]) == list(range(tiles)), (tensor, c)  # TilingPlan.locate's tiles
    tail = r[(r["core"] == 7) & (r["tile"] == 1) & (r["direction"] == "write")]
    assert tail[["lo", "hi"]].values.tolist() == [[(100_003 - 16) * 2, 100_003 * 2]]  # the back-stepped window
    assert amap.overlaps.empty and amap.past_end.empty
    # steps: a core reads a tile before it writes it; UB per queue goes up and comes back to 0
    for c in range(8):
        core = r[r["core"] == c]
        first = core.groupby("direction")["step"].min()
        assert first["read"] < first["write"], c
    ub = amap.ub[amap.ub["core"] == 7]  # two tiles: the second AllocTensor runs before the first FreeTensor
    assert set(ub["queue"]) == {"VECIN #0", "VECOUT #1"} and ub["step"].is_monotonic_increasing
    assert ub.groupby("queue")["in_use"].last().tolist() == [0, 0]
    budget = {b.name: b.total for b in cast_run.plan.ub_buffers}
    held = ub.groupby("queue")["in_use"].max().to_dict()  # both slots of each double buffer, at once
    assert held == {"VECIN #0": budget["inQue"], "VECOUT #1": budget["outQue"]}


def test_the_chart_spec_links_core_tile_and_step(cast_run: wb.Result) -> None:
    amap = result_access_map(cast_run)
    spec = access_map_chart(amap, highlight=(7, 1)).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params[PICK]["select"]["fields"] == ["core", "tile"] and params[PICK]["value"] == [{"core": 7, "tile": 1}]
    assert params[PICK_CORE]["select"]["fields"] == ["core"] and params[PICK_CORE]["value"] == [{"core": 7}]
    assert params[STEP]["value"] == amap.steps - 1 and params[STEP]["bind"]["max"] == amap.steps - 1
    assert len(params[PICK]["views"]) >= 2  # both tensors' views pick
    reads, writes, ub = spec["vconcat"]  # the tensors in the kernel's argument order, then UB
    assert reads["title"]["text"] == "arg0:input (input, 400,012 B)"
    assert writes["title"]["text"] == "arg1:output (output, 200,006 B)"
    ranges, shared, warn, end = reads["layer"]
    enc = ranges["encoding"]
    fields = (enc["x"]["field"], enc["x2"]["field"], enc["y"]["field"], enc["yOffset"]["field"])
    assert fields == ("lo", "hi", "core", "direction")
    assert enc["opacity"]["condition"]["param"] == PICK and enc["color"]["scale"]["range"] == [DIRECTION_COLORS["read"]]
    assert {"filter": f"datum.{STEP} <= {STEP}"} in ranges["transform"]
    assert warn["mark"]["color"] == WARN_COLOR and end["mark"]["type"] == "rule" and not shared["mark"]["filled"]
    assert end["data"]["values"] == [{"end": 400_012, "what": "end of the tensor"}]
    assert ub["encoding"]["opacity"]["condition"]["param"] == PICK_CORE
    assert "performance model" in ub["encoding"]["x"]["title"] and ub["encoding"]["color"]["field"] == "queue"
    # without the slider (the app drives the step with a widget) and on a whole core
    spec = access_map_chart(amap, highlight=(3, None), step=5, slider=False).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert STEP not in params and {"filter": f"datum.{STEP} <= 5"} in spec["vconcat"][0]["layer"][0]["transform"]
    assert params[PICK]["select"]["fields"] == ["core"] and params[PICK]["value"] == [{"core": 3}]
    # the notebook entry point: themed for the page; a run without trace is refused with what to do
    assert wb.access_map(cast_run).to_dict()["config"]["background"] == "transparent"
    with pytest.raises(InvalidInput, match="trace=True"):
        wb.access_map(wb.run(CAST))


def test_each_tensor_outlines_its_ranges_in_its_own_direction_colour(cast_run: wb.Result) -> None:
    """Drawn (vl-convert, as "save charts"): a write is filled and outlined in the write colour, a read in the read
    colour. With the stroke scale shared across the tensors' views, the output's writes were outlined in the input's
    read blue, which is all one sees of a 16M-element run's thin ranges."""
    import re

    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(access_map_chart(result_access_map(cast_run), slider=False).to_dict())
    drawn = set()
    for path in re.finditer(r"<path([^>]*)>", svg):
        attrs = path.group(1)
        direction = re.search(r'aria-label="[^"]*direction: (\w+)', attrs)
        if direction:
            fill, stroke = (re.search(rf'{a}="([^"]+)"', attrs) for a in ("fill", "stroke"))
            drawn.add((direction.group(1), fill and fill.group(1), stroke and stroke.group(1)))
    assert drawn == {(d, DIRECTION_COLORS[d], DIRECTION_COLORS[d]) for d in ("read", "write")}
    titles = re.findall(r"role-legend-title[^>]*>.*?<text[^>]*>([^<]*)<", svg, re.DOTALL)
    assert titles == ["access", "access", "queue"]  # one legend of fill and outline per tensor, then UB's queues


def test_a_race_between_two_cores_shows_as_an_overlap() -> None:
    kernel = emu.load(RACE, entry="events_kernel", platform="Ascend310P3")
    x = np.arange(512, dtype=np.float32)
    ran = kernel[2](emu.In(x), np.zeros(64, np.float32), np.zeros(16, np.float32), trace=True)
    assert ran.events is not None
    amap = access_map(ran.events)  # no plan: tiles are each core's accesses in order
    assert amap.tile_source == "order"
    assert amap.overlaps[["tensor", "lo", "hi", "core_a", "core_b", "atomic"]].values.tolist() == [
        ["arg1:inout", 0, 128, 0, 1, False],
        ["arg2:inout", 0, 64, 0, 1, True],
    ]
    m = marks(amap)
    race = m[(m["layer"] == "overlap") & (m["tensor"] == "arg1:inout")]
    assert sorted(race["core"]) == [0, 1] and race["note"].str.endswith("a race").all()
    writes = amap.ranges[(amap.ranges["tensor"] == "arg1:inout")]
    assert (race["step"] >= writes.groupby("core")["step"].min().max()).all()  # once both cores had written
    strided = amap.ranges[(amap.ranges["tensor"] == "arg0:input") & (amap.ranges["core"] == 1)]
    assert [1024, 1088] in strided[["lo", "hi"]].values.tolist()  # a strided copy's rows, not its span
    spec = access_map_chart(amap).to_dict()
    race_view = next(v for v in spec["vconcat"] if v.get("title", {}).get("text", "").startswith("arg1:inout"))
    drawn = spec["datasets"][race_view["layer"][2]["data"]["name"]]
    assert {(d["layer"], d["core"]) for d in drawn if d["layer"] != "write"} == {("overlap", 0), ("overlap", 1)}
    atomic = m[m["tensor"] == "arg2:inout"]  # both cores added: outlined as shared, not flagged as a race
    assert set(atomic.loc[atomic["layer"] != "atomic", "layer"]) == {"shared atomic"}
    assert atomic.loc[atomic["layer"] == "shared atomic", "note"].str.endswith("(atomic adds)").all()


def test_bytes_past_the_end_are_shown() -> None:
    amap = access_map(_records(_write(0, 0, 4000), _write(1, 4000, 128)))  # the tensor has 4096 bytes
    assert amap.past_end[["core", "lo", "hi", "outside"]].values.tolist() == [[1, 4096, 4128, False]]
    m = marks(amap)
    assert m.loc[m["layer"] == "past end", ["core", "lo", "hi"]].values.tolist() == [[1, 4096, 4128]]
    assert m.loc[m["layer"] == "past end", "note"].tolist() == ["past the tensor's end"]


def test_many_accesses_are_binned_to_a_small_frame() -> None:
    writes = [_write(i % 3, 32 * i, 32) for i in range(120)]  # 3840 bytes in 120 copies by three cores in turn
    amap = access_map(_records(*writes), bins=4)
    r = amap.ranges
    assert len(r) <= ROWS_PER_BIN * 4 and (r["tile"] == -1).all()
    assert amap.tensors[["binned", "tiled"]].values.tolist() == [[True, False]]
    subtitle = access_map_chart(amap).to_dict()["vconcat"][0]["title"]["subtitle"]
    assert subtitle.endswith("bins of 1,024 B, tiles merged")
    assert set(r["core"]) == {0, 1, 2} and r["accesses"].sum() == 120 and r["bytes"].sum() == 3840
    width = int(amap.tensors["bin_bytes"].iloc[0])
    assert width == 1024 and (r["lo"] % width == 0).all() and (r["hi"] % width == 0).all()
    exact = access_map(_records(*writes))  # 512 bins: small enough to stay exact, tile by tile
    assert len(exact.ranges) == 120 and exact.tensors[["binned", "tiled"]].values.tolist() == [[False, True]]
    with pytest.raises(InvalidInput, match="bins"):
        access_map(_records(*writes), bins=0)


def test_the_app_links_the_access_map_to_the_tiling_panel(cast_run: wb.Result) -> None:
    pytest.importorskip("ipywidgets")
    from workbench.view.ui import Workbench

    app = Workbench(CAST)
    assert app.access.widget.layout.display == "none"
    app.controls["trace"].value = True
    result = app.run()
    assert result is not None and result.events is not None
    panel = app.access
    assert panel.widget.layout.display == "" and panel.map is not None
    assert [v for _, v in panel.core.options] == [-1, *range(8)]
    panel.core.value = 7  # a core picked in the access map lights up on the tiling panel's per-core chart too
    assert [v for _, v in panel.tile.options] == [-1, 0, 1]
    assert _params(panel)[PICK]["value"] == [{"core": 7}]
    assert _selected(app) == [{"core": 7, "y0": 0, "y1": 12_499, "tile": -1}]
    panel.tile.value = 1
    assert _params(panel)[PICK]["value"] == [{"core": 7, "tile": 1}]
    assert _selected(app)[0]["tile"] == 1 and _selected(app)[0]["y0"] == 12_499 - 3
    app.select_tile(2, 0)  # and the other way: a tile picked elsewhere sets the dropdowns
    assert (panel.core.value, panel.tile.value) == (2, 0) and _params(panel)[PICK]["value"] == [{"core": 2, "tile": 0}]
    click = {"value": {"vlPoint": {"or": [{"core": 5}]}}, "store": []}  # what vega-embed reports for a click
    app.tiling.cores._vl_selections = {"core_pick": click}
    assert (panel.core.value, panel.tile.value) == (5, -1) and _params(panel)[PICK]["value"] == [{"core": 5}]
    assert [r["core"] for r in _selected(app)] == [5]
    app.tiling.cores._vl_selections = {"core_pick": {"value": None, "store": []}}  # cleared by the redraw: kept
    assert panel.core.value == 5
    app.select_tile(2, 0)
    panel.step.value = 10  # the step slider sets the chart's step, keeping the pick
    spec = panel.chart.chart.to_dict()  # type: ignore[union-attr]
    assert {"filter": f"datum.{STEP} <= 10"} in spec["vconcat"][0]["layer"][0]["transform"]
    assert _params(panel)[PICK]["value"] == [{"core": 2, "tile": 0}]
    app.controls["trace"].value = False
    app.run()
    assert app.access.widget.layout.display == "none"


def _params(panel: object) -> dict:
    return {p["name"]: p for p in panel.chart.chart.to_dict()["params"]}  # type: ignore[attr-defined]


def _selected(app: object) -> list[dict]:
    spec = app.tiling.cores.chart.to_dict()  # type: ignore[attr-defined]
    if "layer" not in spec:
        return []
    return spec["datasets"][spec["layer"][1]["data"]["name"]]


@pytest.mark.slow
def test_the_access_map_of_16m_elements_stays_small_and_quick() -> None:
    r = wb.run(wb.Case("cast", ("float32", "float16"), (1 << 24,)), trace=True)
    started = time.perf_counter()
    amap = result_access_map(r)
    spec = access_map_chart(amap).to_dict()
    took = time.perf_counter() - started
    assert amap.rows() < 10_000 and len(amap.ranges) <= 2 * ROWS_PER_BIN * 512 and took < 5, (amap.rows(), took)
    assert sum(len(v) for v in spec["datasets"].values()) < 10_000
    ends = amap.ranges.groupby("tensor")["hi"].max().to_dict()
    assert ends == {"arg0:input": 4 << 24, "arg1:output": 2 << 24}
