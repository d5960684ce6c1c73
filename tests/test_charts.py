"""Frames compute what the tiling charts show; the charts are specs, checked through to_dict()."""

from __future__ import annotations

import workbench as wb
from workbench.render import charts, frames

CAST = wb.plan(wb.Case("cast", ("bfloat16", "int8"), (100_003,)))
SCE = wb.plan(wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)))


def test_cores_frame_has_a_row_per_core_and_marks_the_tail_cores() -> None:
    f = frames.cores_frame(CAST)
    assert list(f["core"]) == list(range(CAST.block_dim)) and f["count"].sum() == 100_003
    assert list(f["role"]) == ["core"] * 5 + ["tail core"] * 3  # 12512 elements on cores 0-4, 12480 (+3) after
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
