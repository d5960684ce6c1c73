"""Frames compute what the tiling charts show; the charts are specs, checked through to_dict()."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import workbench as wb
from workbench.view.render import charts, frames
from workbench.view.render.frames import precision as precision_frames

CAST = wb.plan(wb.Case("cast", ("bfloat16", "int8"), (100_003,)))
SCE = wb.plan(wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)))


def test_cores_frame_has_a_row_per_core_and_marks_the_tail_cores() -> None:
    f = frames.cores_frame(CAST)
    assert list(f["core"]) == list(range(CAST.block_dim)) and f["count"].sum() == 100_003
    roles = ["core"] * 5 + ["short core"] * 2 + ["tail core"]  # 12512 on cores 0-4, 12480 after, +3 on 7
    assert list(f["role"]) == roles
    assert f.loc[7, "tail"] == 3 and set(f["unit"]) == {"element"}


def test_ub_frame_stacks_buffers_reserve_and_free_to_the_ub_size() -> None:
    for plan in (CAST, SCE):
        f = frames.ub_frame(plan)
        assert f["bytes"].sum() == plan.ub_size and list(f["order"]) == list(range(len(f)))
        assert list(f["part"][: len(plan.ub_buffers)]) == [b.name for b in plan.ub_buffers]
        assert f.set_index("part").loc["reserve", "bytes"] == plan.ub_reserved
        assert f.set_index("part").loc["free", "bytes"] == plan.ub_capacity - plan.ub_used


def test_cores_chart_spec() -> None:
    spec = charts.cores_chart(frames.cores_frame(SCE)).to_dict()
    enc = spec["encoding"]
    assert spec["mark"]["type"] == "bar" and enc["x"]["field"] == "core" and enc["y"]["field"] == "count"
    assert enc["y"]["title"] == "rows" and enc["color"]["field"] == "role"
    (rows,) = spec["datasets"].values()
    assert len(rows) == SCE.block_dim == 32


def test_ub_chart_spec() -> None:
    f = frames.ub_frame(CAST)
    spec = charts.ub_chart(f).to_dict()
    enc = spec["encoding"]
    assert enc["x"]["field"] == "bytes" and enc["x"]["stack"] == "zero"
    assert enc["x"]["scale"]["domain"] == [0, CAST.ub_size]
    scale = enc["color"]["scale"]
    assert scale["domain"] == list(f["part"]) and scale["range"][-2:] == [charts.RESERVE_COLOR, charts.FREE_COLOR]
    assert len(set(scale["range"][:-2])) == len(CAST.ub_buffers)  # every buffer its own colour


# -- the precision and timings frames: computed in numpy here, drawn by the charts ----------------------------

FAILING = wb.run(wb.Case("softmax_cross_entropy_with_logits", ("float16",), (64, 1000)), standard="exact")


def test_ulp_frame_counts_every_element_once_and_splits_failed() -> None:
    report = FAILING.reports["backprop"]
    f = frames.ulp_frame(FAILING, "backprop")
    assert f["n"].sum() == report.numel and f[f["judged"] == "failed"]["n"].sum() == report.failed > 0
    assert list(f["bucket"][::2]) == ["0", "1", "2"] and set(f["judged"]) == {"passed", "failed"}
    by_bucket = f.groupby("bucket")["n"].sum()
    assert by_bucket["0"] == report.ulp0 and by_bucket["1"] == report.ulp1
    assert (f.groupby("bucket")["label"].apply(lambda s: (s != "").sum()) == 1).all()  # one label per bucket


def test_ulp_buckets_grow_in_powers_of_two_and_keep_nan_apart() -> None:
    ulp = np.array([0, 1, 2, 3, 4, 5, 8, 9, 1000, -1])
    rows = precision_frames._ulp_buckets(ulp, np.zeros(ulp.size, bool))
    assert [r["bucket"] for r in rows] == ["0", "1", "2", "3-4", "5-8", "9-16", "513-1024", "NaN"]
    assert [r["count"] for r in rows] == [1, 1, 1, 2, 2, 1, 1, 1]


def test_heatmap_frame_never_exceeds_the_cell_budget_and_keeps_every_element() -> None:
    big = wb.run(wb.Case("cast", ("float32", "float16"), (3, 1_000_003)), distribution="uniform")
    f = frames.heatmap_frame(big, "y")
    assert len(f) <= frames.MAX_CELLS and f["count"].sum() == 3_000_009
    assert sorted(set(f["row0"])) == [0, 1, 2] and len(f) == 3 * (frames.MAX_CELLS // 3)  # spare room to the long axis
    assert (f["col1"] > f["col0"]).all() and f["col1"].max() == 1_000_003
    one_d = frames.heatmap_frame(FAILING, "loss")  # 64 rows' losses on 32 cores: laid out by the split, 32 x 2
    assert len(one_d) == 64 and one_d["count"].sum() == 64 and sorted(set(one_d["row0"])) == list(range(32))
    assert (one_d["x_title"].iloc[0], f["x_title"].iloc[0]) == ("offset in the core's range (elements)", "last dim")
    unsplit = dataclasses.replace(FAILING, plan=dataclasses.replace(FAILING.plan, cores=()))
    wrapped = frames.heatmap_frame(unsplit, "loss")  # no split to follow: wrapped into 8 x 8
    assert len(wrapped) == 64 and wrapped["x_title"].iloc[0] == "flat index mod 8"
    spec = charts.error_heatmap(wrapped).to_dict()
    assert spec["encoding"]["x"]["title"] == "flat index mod 8" and spec["encoding"]["y"]["title"] == "flat index // 8"
    g = frames.heatmap_frame(FAILING, "backprop")
    assert g["failed"].sum() == FAILING.reports["backprop"].failed
    assert g["max_abs_err"].max() == pytest.approx(FAILING.reports["backprop"].max_abs_err)


def test_mismatch_frame_has_provenance_for_each_worst_element() -> None:
    f = frames.mismatch_frame(FAILING, "backprop")
    worst = FAILING.reports["backprop"].worst
    assert list(f["flat"]) == [e.flat for e in worst]
    for row, e in zip(f.itertuples(), worst, strict=True):
        loc = FAILING.plan.locate(e.flat, "backprop", FAILING.inputs)
        assert (row.core, row.tile, row.offset, row.tail) == (loc.core, loc.tile, loc.offset, loc.tail)
        assert row.index == ",".join(map(str, e.index)) and "features=" in row.inputs


def test_selected_tile_frame_spans_the_tile_inside_its_core() -> None:
    f = frames.selected_tile_frame(CAST, [7], 0)
    r = CAST.cores[7]
    assert list(f["core"]) == [7] and f.loc[0, "y0"] == 0 and 0 < f.loc[0, "y1"] <= r.count
    whole = frames.selected_tile_frame(CAST, [2, 99], None)  # no tile: the whole core; an unknown core is dropped
    assert list(whole["core"]) == [2] and whole.loc[0, "y1"] == CAST.cores[2].count


def test_timings_frame_gives_every_time_its_source_and_says_how() -> None:
    f = frames.timings_frame(FAILING)
    assert set(f["source"]) == {"device-measured", "emulator wall", "host wall", "predicted", "theoretical"}
    assert (f["how"] != "").all()
    by = f.set_index(["step", "source"])
    assert by.loc[("golden", "host wall"), "seconds"] == FAILING.timings["golden_s"]
    assert by.loc[("build", "host wall"), "available"] and by.loc[("launch", "emulator wall"), "available"]
    assert not f[f["step"] == "built-in (TBE)"]["available"].any()  # TBE: needs an NPU
    device = f[f["source"] == "device-measured"]
    assert not device["available"].any() and set(device["step"]) == {"kernel", "built-in (TBE)"}
    predicted = f[f["source"] == "predicted"]
    assert list(predicted[predicted["available"]]["step"]) == ["kernel"]  # the model, from the emulator's trace
    bound = f[f["source"] == "theoretical"]
    traffic = sum(a.nbytes for a in (*FAILING.inputs.values(), *FAILING.outputs.values()))
    assert list(bound["step"]) == ["kernel"]  # a memory bound exists for the kernel only
    assert bound["seconds"].iloc[0] == traffic / FAILING.case.soc.memory_bandwidth
    assert f"{traffic} B of minimum GM traffic" in bound["how"].iloc[0] and "GB/s" in bound["how"].iloc[0]


def test_precision_chart_specs() -> None:
    ulp = charts.ulp_histogram(frames.ulp_frame(FAILING, "backprop")).to_dict()
    bars, labels = ulp["layer"]
    assert bars["mark"]["type"] == "bar" and bars["encoding"]["y"]["scale"]["type"] == "symlog"
    assert labels["mark"]["type"] == "text" and labels["encoding"]["text"]["field"] == "label"
    heat = charts.error_heatmap(frames.heatmap_frame(FAILING, "backprop")).to_dict()
    color = heat["encoding"]["color"]
    assert heat["mark"]["type"] == "rect" and color["field"] == "level"
    assert color["scale"]["domain"] == list(frames.RATIO_LEVELS)  # the standard's limit is a colour boundary
    assert frames.ratio_level(np.array([0.0, 0.99, 1.0, 1.01, 50.0])).tolist() == [
        "< 1 % of allowed", "50-100 %", "50-100 %", "1-10 x over", "> 10 x over"
    ]  # fmt: skip
    (cells,) = heat["datasets"].values()
    assert len(cells) <= frames.MAX_CELLS
    t = charts.timings_chart(frames.timings_frame(FAILING)).to_dict()
    (shown,) = t["datasets"].values()
    assert {r["source"] for r in shown} == {"emulator wall", "host wall", "predicted", "theoretical"}
    bars = t["layer"][0]["encoding"]  # a row per step and source (tests/test_timings_view.py has the rest)
    assert bars["y"]["field"] == "row" and bars["color"]["field"] == "source"


def test_cores_chart_layers_the_selection() -> None:
    sel = frames.selected_tile_frame(CAST, [7], 0)
    spec = charts.cores_chart(frames.cores_frame(CAST), selected=sel).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["bar", "bar"]
    assert spec["layer"][1]["encoding"]["y2"]["field"] == "y1"
    assert "layer" not in charts.cores_chart(frames.cores_frame(CAST), selected=sel.iloc[:0]).to_dict()
