"""The panels answer the user's question at a glance (headless: widget values and chart specs).

Tiling: a path switch is a banner with its rule, a pinned baseline, the neighbourhood of the decision, what-if as
typed, core roles that say the truth. Precision: the failure map from every failing element, the heatmap relative
to the standard with the split drawn, the mismatch table (filter, sort, CSV), the run's-plan banner, folded notes.
"""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")

from planted import round_to_odd_kernel

import workbench as wb
from workbench.planning.explore import neighbourhood, path_switch
from workbench.view.render import charts, frames
from workbench.view.ui import Workbench
from workbench.view.ui.mismatches import apply_filter

SCE = "softmax_cross_entropy_with_logits"


def spec(widget: object) -> dict:
    return widget.chart.to_dict()  # type: ignore[attr-defined]


def data(chart_spec: dict, layer: int = 0) -> list[dict]:
    source = chart_spec.get("data") or chart_spec["layer"][layer]["data"]
    return chart_spec["datasets"][source["name"]]


# -- tiling exploration -------------------------------------------------------------------------------------------
def test_a_path_switch_is_a_banner_naming_the_value_and_the_rule() -> None:
    app = Workbench(wb.Case(SCE, ("float32",), (64, 4704)))
    assert app.tiling.banner.value == ""
    app.controls["shape"].value = "64,4705"
    banner = app.tiling.banner.value
    assert "path switch: FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at C = 4705" in banner
    assert "A_ub = floor(188416/188500) = 0 fails A_ub &gt;= 1" in banner  # the rule that decided
    app.controls["shape"].value = "64,4706"  # the same path: no switch to announce
    assert "path switch" not in app.tiling.banner.value


def test_a_jump_past_the_switch_says_where_the_path_really_changes() -> None:
    small, big = wb.Case(SCE, ("float32",), (64, 1000)), wb.Case(SCE, ("float32",), (64, 9000))
    switch = path_switch((small, wb.plan(small), {}), (big, wb.plan(big), {}))
    assert switch is not None and switch.at == "C = 9000" and switch.exact == "between C = 4704 and 4705"
    assert path_switch((small, wb.plan(small), {}), (small, wb.plan(small), {})) is None


def test_a_pinned_baseline_is_diffed_against_until_unpinned() -> None:
    app = Workbench(wb.Case(SCE, ("float32",), (64, 4704)))
    app.tiling.pin.value = True
    for text in ("64,4", "64,47", "64,470", "64,4705"):  # typing key by key: every plan diffs against 4704
        app.controls["shape"].value = text
    table = app.tiling.table.value
    assert "<tr data-field='r' class='wb-changed'>" in table and "<span class='wb-was'>4704</span>" in table
    assert "baseline pinned: softmax_cross_entropy_with_logits[float32 64x4704" in app.tiling.banner.value
    assert "FULL_LOAD/GENERIC(AR) → SPLIT_R(AR)" in app.tiling.banner.value  # the switch, against the baseline
    app.tiling.pin.value = False
    app.controls["shape"].value = "64,4706"
    assert "<span class='wb-was'>4705</span>" in app.tiling.table.value  # back to the plan shown before
    assert "baseline pinned" not in app.tiling.banner.value


def test_the_neighbourhood_shows_where_the_next_switch_is() -> None:
    case = wb.Case(SCE, ("float32",), (64, 4000))
    around = neighbourhood(case)
    assert around is not None and around.name == "C" and around.current == 4000
    assert [(s.at, s.after) for s in around.switches][-1] == (4705, "SPLIT_R(AR)")  # found exactly by bisection
    app = Workbench(case)
    chart = spec(app.tiling.neighbourhood)
    points = data(chart)
    assert {p["path"] for p in points} >= {"FULL_LOAD/GENERIC(AR)", "SPLIT_R(AR)"}
    assert [p["value"] for p in points if p["current"]] == [4000]
    assert chart["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    switches = data(chart, 2)
    assert "→ SPLIT_R(AR) at C = 4705" in {s["label"] for s in switches}  # the nearest switch, labelled
    for op, quantity in (("cast", "formerTileNum"), ("embedding_dense_grad", "colLoopNum")):
        app.controls["op"].value = op
        rows = data(spec(app.tiling.neighbourhood))
        assert rows and all(r["quantity"] >= 0 for r in rows), op
        assert wb.OPS[op].explore is not None and wb.OPS[op].explore.quantity == quantity


def test_what_if_applies_as_typed_and_zero_is_refused_not_clamped() -> None:
    app = Workbench(wb.Case(SCE, ("float32",), (64, 10000)))
    cores = app.controls["core_count"]
    assert cores.continuous_update and app.controls["ub_size"].continuous_update
    cores.value = 0
    assert app.plan is None and "core_count: got 0; allowed: an integer in [1, 65535]" in app.status.value
    assert cores.value == 0  # never silently 1
    cores.value = 4
    assert app.plan is not None and app.plan.block_dim == 4 and app.status.value == ""


def test_core_roles_say_the_truth() -> None:
    plan = wb.plan(wb.Case("cast", ("float32", "float16"), (1_000_000,)))
    roles = list(frames.cores_frame(plan)["role"])
    assert plan.fields["tailElems"] == 0 and "tail core" not in roles  # no core runs a tail
    assert roles == ["core"] * 4 + ["short core"] * 4  # formerElems 125008 on 0-3, latterElems 124992 after
    legend = charts.cores_chart(frames.cores_frame(plan)).to_dict()["encoding"]["color"]["scale"]["domain"]
    assert legend == ["core", "short core"]  # only the roles drawn


def test_shape_zero_draws_no_nan(tmp_path: Path) -> None:
    app = Workbench(wb.Case("cast", ("float32", "float16"), (1000,)))
    app.controls["shape"].value = "0"
    assert app.plan is not None and not app.plan.cores
    result = app.run()
    assert result is not None
    shown = [app.tiling.cores, app.tiling.ub, app.tiling.neighbourhood, app.precision.ulp, app.precision.heatmap]
    for widget in shown:
        assert "NaN" not in json.dumps(spec(widget)), widget
    assert "empty" in json.dumps(spec(app.precision.heatmap))


# -- precision debugging ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def round_bug(tmp_path_factory: pytest.TempPathFactory) -> Workbench:
    """Cast float32 -> float16 rounding to odd instead of to nearest (a round-mode bug): every core fails, in every
    tile."""
    case = wb.Case("cast", ("float32", "float16"), (200_000,))
    copy = round_to_odd_kernel(tmp_path_factory.mktemp("round"))
    app = Workbench(case)
    app.controls["kernel"].value = str(copy)
    app.controls["standard"].value = "exact"  # round to odd is 1 ULP off round to nearest: inside the default
    result = app.run()
    assert result is not None and result.verdict == "PRECISION FAIL"
    return app


def test_the_failure_map_counts_every_failing_element_per_core_and_tile(round_bug: Workbench) -> None:
    app, result = round_bug, round_bug.result
    assert result is not None
    report = result.reports["y"]
    assert report.failed > len(report.worst)  # many more than the report lists
    cells = data(spec(app.precision.failures))
    assert sum(c["failed"] for c in cells) == report.failed  # from every failing element
    busy = {c["core"] for c in cells if c["failed"]}
    assert busy == set(range(result.plan.block_dim))  # every core fails: not a local bug
    assert {c["tile"] for c in cells} == {str(t) for t in range(result.plan.cores[0].tiles)}
    params = spec(app.precision.failures)["params"]
    assert params[0]["name"] == charts.FAILURE_SELECTION and params[0]["select"]["fields"] == ["core", "tile0", "tile1"]


def test_selecting_a_failure_map_cell_filters_the_mismatch_table(round_bug: Workbench) -> None:
    app, result = round_bug, round_bug.result
    assert result is not None
    cell = next(c for c in data(spec(app.precision.failures)) if c["core"] == 5 and c["tile"] == "1")
    # what the browser sends when the cell is clicked (altair's JupyterChart selection sync)
    store = {"vlPoint": {"or": [{"core": 5, "tile0": 1, "tile1": 1}]}}
    app.precision.failures._vl_selections = {charts.FAILURE_SELECTION: {"value": store, "store": []}}
    frame = app.precision.frame
    assert frame is not None and len(frame) == min(cell["failed"], 500)
    assert set(frame["core"]) == {5} and set(frame["tile"]) == {1}
    assert "core 5, tile 1" in app.precision.header.value
    app.precision.failures._vl_selections = {charts.FAILURE_SELECTION: {"value": None, "store": []}}
    assert len(app.precision.frame) == 500 and f"the 500 worst of {result.reports['y'].failed:,}" in (
        app.precision.header.value
    )


def test_the_heatmap_is_relative_to_the_standard_and_draws_the_split(round_bug: Workbench) -> None:
    result = round_bug.result
    assert result is not None
    cells = data(spec(round_bug.precision.heatmap))
    assert max(c["max_ratio"] for c in cells) > 1  # failing cells are beyond the limit
    assert {c["row0"] for c in cells} == set(range(result.plan.block_dim))  # 1-D: a row per core
    lines = data(spec(round_bug.precision.heatmap), 1)
    size = result.plan.fields["ubFormer"]
    cores = range(result.plan.block_dim)  # 25000 elements a core: tiles of 20992 and 4008
    assert {(ln["core"], ln["x"], ln["kind"]) for ln in lines} == {(c, size, "tile") for c in cores}
    passing = wb.run(wb.Case("cast", ("float32", "float16"), (200_000,)))
    calm = frames.heatmap_frame(passing, "y")
    assert calm["max_ratio"].max() < 1  # a passing run stays in the "within the standard" colours


def test_the_mismatch_table_sorts_filters_and_exports_every_row(round_bug: Workbench, tmp_path: Path) -> None:
    app = round_bug
    app.precision.select_cell((3, 0, 0))
    table = app.precision.mismatches
    assert table.frame is not None and set(table.frame["core"]) == {3}
    middle = int(table.frame["offset"].median())
    table.query.value = f"core=3 offset<{middle}"
    assert table.view is not None and 0 < len(table.view) < len(table.frame)
    assert (table.view["offset"] < middle).all()
    assert "(filtered)" in table.where.value
    table.sort.value = "index"
    table.descending.value = False
    flats = list(table.view["flat"])
    assert flats == sorted(flats)
    first = table.rows.children[0].children[1].value
    location = html.escape(table.view.iloc[0]["location"], quote=True)
    assert f">{location}</td>" in first and f"title='{location}'" in first  # the whole location, and its tooltip
    path = app.export_mismatches(tmp_path)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(table.view) and rows[0]["location"] == table.view.iloc[0]["location"]
    assert "href='data:text/csv" in table.link.value
    table.query.value = ""


def test_apply_filter_terms() -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {"core": [0, 1, 2], "ulp": [1, 5, 9], "tail": [False, True, False], "inputs": ["x=1", "x=2", "y"]}
    )
    assert list(apply_filter(frame, "ulp>4")["core"]) == [1, 2]
    assert list(apply_filter(frame, "ulp>4 tail")["core"]) == [1]
    assert list(apply_filter(frame, "X=2")["core"]) == [1]  # not a column: plain text, any case
    assert list(apply_filter(frame, "nothing-matches")["core"]) == []


def test_a_row_selected_after_the_controls_moved_on_shows_the_run_plan_in_a_banner(round_bug: Workbench) -> None:
    app = round_bug
    app.controls["shape"].value = "300000"
    assert app.tiling.back.layout.display == "none"
    frame = app.precision.frame
    assert frame is not None
    app.precision.mismatches.select(frame.index[0])
    assert "showing the plan of the last run (cast[float32:float16 200000" in app.tiling.banner.value
    assert "class='wb-changed'" not in app.tiling.table.value  # the run's plan is not a diff of the controls
    assert app.tiling.back.layout.display == ""
    app.tiling.back.click()
    assert "showing the plan of the last run" not in app.tiling.banner.value
    assert app.tiling.plan is not None and app.tiling.plan.fields["totalElements"] == 300_000


def test_info_notes_are_folded_on_a_passing_run() -> None:
    case = wb.Case("embedding_dense_grad", ("float32", "int32"), (16, 64), attrs={"num_weights": 10, "padding_idx": 3})
    app = Workbench(case)
    result = app.run()
    assert result is not None and result.passed and result.diagnostics
    assert all(d.severity == "info" for d in result.diagnostics)
    summary = app.summary.widget.value
    assert "<details><summary>1 diagnostics: 1 info</summary>" in summary.replace(" open", "") and (
        "<details open>" not in summary
    )
