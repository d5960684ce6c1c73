"""Sweep views: a sweep's DataFrame -> frames (render/sweep_frames.py) -> charts (render/sweep_charts.py, checked
through to_dict()) -> the SweepPanel widget and the app's sweep section (ui/sweep_panel.py), headless: a click is
the `_vl_selections` change the browser would send."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.sweeps import Point, grid, sweep
from workbench.view.render import charts
from workbench.view.render import sweep_charts as sc
from workbench.view.render import sweep_frames as sf
from workbench.view.ui import Workbench
from workbench.view.ui.sweep_panel import SweepPanel

SCE = "softmax_cross_entropy_with_logits"
C_VALUES = (500, 1000, 4704, 4705, 9000)  # 500 sorts after 4705 as text: the axis must order numbers as numbers


def _row(dtypes: str, c: int, status: str = "pass", seed: int = 0, ulp: float = 2.0) -> dict[str, Any]:
    """A row as wb.sweep makes it for SCE 8 x c: SPLIT_R from 4705 for float32, from 9000 for float16."""
    point = {"op": SCE, "dtypes": dtypes, "shape": f"8x{c}", "numel": 8 * c, "format": "ND", "attrs": "{}"}
    identity = {
        **point,
        "key": f"{dtypes}-{c}-{seed}",
        "label": f"{SCE}[{dtypes} 8x{c} ND @Ascend910B3] seed={seed} default",
        "platform": "Ascend910B3",
        "seed": seed,
        "distribution": "default",
        "backend": "emu",
        "standard": "",
        "kernel": "shipped",
        "status": status,
    }
    if status == "error":  # refused before it ran: no plan, no errors, no times
        return {**identity, "verdict": "ERROR: MemoryBudgetExceeded", "error": "max_memory: got ..."}
    split = c >= (4705 if dtypes == "float32" else 9000)
    return {
        **identity,
        "verdict": {"pass": "PASS", "fail": "PRECISION FAIL", "fault": "KERNEL FAULT"}[status],
        "error": "",
        "tiling_key": int(split),
        "path": "SPLIT_R(AR)" if split else "FULL_LOAD/GENERIC(AR)",
        "plan.r": c,
        "max_ulp": ulp,
        "max_abs": 0.0 if ulp == 0 else ulp * 1e-7,
        "max_rel": ulp * 1e-8,
        "kernel_time_s": 1e-6 * (1 + c / 1000),
        "kernel_time_source": "predicted",
        "memory_bound_s": 1e-8 * c,
        "memory_bound_source": "theoretical",
    }


def _rows() -> list[dict[str, Any]]:
    rows = [_row(d, c) for d in ("float32", "float16") for c in C_VALUES]
    rows[1] = _row("float32", 1000, ulp=0)
    rows[4] = _row("float32", 9000, "error")
    rows[9] = _row("float16", 9000, "fail", ulp=40)
    rows[8] = _row("float16", 4705, "fault", ulp=3)
    rows.append(_row("float32", 1000, "fail", seed=1, ulp=12))  # a second seed in the (1000, float32) cell
    return rows


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return pd.DataFrame(_rows())


def data(spec: dict[str, Any], layer: int = 0) -> list[dict[str, Any]]:
    source = spec.get("data") or spec["layer"][layer]["data"]
    return spec["datasets"][source["name"]]


def picks(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The chart's selections without the views altair hoists them from (named per chart: they differ per call)."""
    return [{k: v for k, v in p.items() if k != "views"} for p in spec.get("params", [])]


def tooltip_fields(spec: dict[str, Any], layer: int = 0) -> list[str]:
    return [t["field"] for t in spec["layer"][layer]["encoding"]["tooltip"]]


# -- frames -------------------------------------------------------------------------------------------------------
def test_the_axes_are_the_identity_columns_dimensions_attrs_and_plan_fields(df: pd.DataFrame) -> None:
    options = sf.axis_options(df)
    assert options[:4] == ["shape", "numel", "dtypes", "seed"]  # those that vary first
    assert {"dim0", "dim1", "plan.r", "platform", "attrs"} <= set(options)
    assert sf.default_axes(df) == ("dim1", "dtypes")  # SCE's C, not the shape: it alone varies
    cast = pd.DataFrame([{"key": "k", "shape": "100", "dtypes": "a:b", "attrs": '{"n": 3}', "status": "pass"}])
    assert "attrs.n" in sf.axis_options(cast) and sf.with_axes(cast)["attrs.n"].tolist() == [3]


def test_a_cell_counts_its_cases_by_status_and_opens_its_worst(df: pd.DataFrame) -> None:
    cells = sf.cell_frame(df, "dim1", "dtypes")
    assert len(cells) == 10 and set(cells["y"]) == {"float32", "float16"}
    order = cells[cells["y"] == "float32"].sort_values("x_rank")["x"].tolist()
    assert order == ["500", "1000", "4704", "4705", "9000"]  # numbers in numeric order, not as text
    two = cells[(cells["x"] == "1000") & (cells["y"] == "float32")].iloc[0]
    assert (two["n"], two["pass"], two["fail"], two["worst"], two["text"]) == (2, 1, 1, "fail", "1/2")
    assert two["key"] == "float32-1000-1" and two["max_ulp"] == 12 and two["counts"] == "1 pass, 1 fail"
    refused = cells[(cells["x"] == "9000") & (cells["y"] == "float32")].iloc[0]
    assert refused["worst"] == "error" and math.isnan(refused["max_ulp"]) and refused["ulp_text"] == sf.NO_VALUE
    fault = cells[(cells["x"] == "4705") & (cells["y"] == "float16")].iloc[0]
    assert fault["worst"] == "fault"
    assert sf.status_counts(df) == {"pass": 7, "fail": 2, "fault": 1, "error": 1}


def test_a_plan_field_axis_reads_as_integers_with_refused_rows_last(df: pd.DataFrame) -> None:
    cells = sf.cell_frame(df, "plan.r", "dtypes")  # NaN for the refused row: the column is float
    float32 = cells[cells["y"] == "float32"].sort_values("x_rank")["x"].tolist()
    assert float32 == ["500", "1000", "4704", "4705", sf.NO_VALUE]


def test_error_over_size_leaves_out_what_compared_nothing_and_draws_exact_results(df: pd.DataFrame) -> None:
    ulp = sf.error_frame(df, "max_ulp", "dtypes")
    assert len(ulp) == len(df) - 1 and "float32-9000-0" not in set(ulp["key"])  # the refused case
    assert set(ulp["scale"]) == {"symlog"} and (ulp["plotted"] == ulp["value"]).all()  # 0 ULP drawn at 0
    abs_err = sf.error_frame(df, "max_abs", "dtypes")
    exact = abs_err[abs_err["exact"]]
    smallest = abs_err["value"][abs_err["value"] > 0].min()
    assert len(exact) == 1 and exact["plotted"].iloc[0] == pytest.approx(smallest / 10)  # a decade below
    assert set(abs_err["scale"]) == {"log"}
    with pytest.raises(InvalidInput, match="metric: got 'ulp'"):
        sf.error_frame(df, "ulp")


def test_path_regions_say_where_split_r_begins(df: pd.DataFrame) -> None:
    cells = sf.path_frame(df, "dim1", "dtypes")
    f32 = cells[cells["y"] == "float32"].set_index("x")
    assert f32.loc["4705", "path"] == "SPLIT_R(AR)" and f32.loc["4705", "switch"]
    assert f32.loc["9000", "path"] == sf.NO_PATH and not f32.loc["9000", "switch"]  # refused: never planned
    texts = list(sf.path_switches(cells, "dim1")["text"])
    assert "float32: FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at dim1 = 4705" in texts
    assert "float16: FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at dim1 = 9000" in texts


def test_time_against_the_bound_names_its_sources(df: pd.DataFrame) -> None:
    times = sf.time_frame(df, "dtypes")
    ran = len(df) - 1
    assert len(times) == 2 * ran and set(times["measure"]) == {"kernel time", "memory bound"}
    assert sf.time_sources(times) == {"kernel time": "predicted", "memory bound": "theoretical"}
    row = times[(times["key"] == "float16-4704-0") & (times["measure"] == "kernel time")].iloc[0]
    assert row["line"] == "kernel time · predicted" and row["bound_share"] == pytest.approx(4.704e-5 / 5.704e-6)


def test_a_row_gives_back_its_point() -> None:
    case = wb.Case("embedding_dense_grad", ("float32",), (64, 16), attrs={"num_weights": 100, "padding_idx": 3})
    point = Point(case, 7, "uniform")
    row: dict[str, Any] = {"op": case.op, "dtypes": "float32", "shape": "64x16", "format": case.format}
    row["platform"] = case.platform
    row |= {"attrs": json.dumps(dict(case.attrs)), "seed": 7, "distribution": "uniform"}
    assert Point.from_row(row) == point
    with pytest.raises(InvalidInput, match="attrs"):
        Point.from_row({**row, "attrs": "[1]"})


# -- charts -------------------------------------------------------------------------------------------------------
def test_the_pass_fail_heatmap_colours_the_worst_status_and_selects_a_key(df: pd.DataFrame) -> None:
    spec = sc.view_chart(df, sc.PASS_FAIL, "dim1", "dtypes").to_dict()
    enc = spec["layer"][0]["encoding"]
    assert spec["layer"][0]["mark"]["type"] == "rect" and enc["color"]["field"] == "worst"
    assert enc["color"]["scale"]["domain"] == ["pass", "error", "fail", "fault"]
    assert enc["x"]["title"] == "dim1" and enc["x"]["sort"] == {"field": "x_rank", "op": "min"}
    assert spec["layer"][1]["encoding"]["text"]["field"] == "text"
    assert {"label", "key", "counts"} <= set(tooltip_fields(spec))
    (pick,) = picks(spec)
    assert pick["name"] == sc.SWEEP_SELECTION and pick["select"] == {
        "type": "point",
        "fields": ["key"],
        "on": "click",
        "clear": "dblclick",
    }
    assert len(data(spec)) == 10
    assert "11 cases: 7 pass, 2 fail, 1 fault, 1 error" in spec["title"]["subtitle"]


def test_the_ulp_heatmap_greys_cells_that_compared_nothing(df: pd.DataFrame) -> None:
    spec = sc.view_chart(df, sc.MAX_ULP, "dim1", "dtypes").to_dict()
    enc = spec["layer"][0]["encoding"]
    assert enc["color"]["field"] == "max_ulp" and enc["color"]["scale"]["type"] == "symlog"
    assert "isValid" in enc["color"]["condition"]["test"] and enc["color"]["condition"]["value"] == charts.FREE_COLOR
    assert spec["layer"][0]["mark"]["invalid"] == "show"  # drawn grey, not dropped
    refused = next(c for c in data(spec) if c["key"] == "float32-9000-0")
    assert refused["max_ulp"] is None and refused["ulp_text"] == sf.NO_VALUE
    assert picks(spec)[0]["select"]["fields"] == ["key"]


def test_error_over_size_is_on_log_scales_with_a_line_per_series(df: pd.DataFrame) -> None:
    spec = sc.view_chart(df, sc.ERROR_SIZE, "numel", "dtypes", metric="max_rel").to_dict()
    points = spec["layer"][1]["encoding"]
    assert points["x"]["scale"]["type"] == "log" and points["y"]["scale"]["type"] == "log"
    assert points["color"]["field"] == "series" and points["shape"]["field"] == "status"
    assert {"label", "key", "value"} <= set(tooltip_fields(spec, 1))
    assert picks(spec)[0]["name"] == sc.SWEEP_SELECTION
    assert spec["title"]["text"] == "max relative error over numel"


def test_the_path_chart_outlines_where_the_path_changes(df: pd.DataFrame) -> None:
    spec = sc.view_chart(df, sc.PATHS, "dim1", "dtypes").to_dict()
    enc = spec["layer"][0]["encoding"]
    assert enc["color"]["field"] == "path" and sf.NO_PATH in enc["color"]["scale"]["domain"]
    assert enc["stroke"]["condition"]["test"] == "datum.switch"
    assert "float32: FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at dim1 = 4705" in spec["title"]["subtitle"]
    assert spec["layer"][1]["encoding"]["text"]["field"] == "tiling_key"


def test_the_time_chart_says_how_its_times_were_obtained(df: pd.DataFrame) -> None:
    spec = sc.view_chart(df, sc.TIME_BOUND, "dim1", "dtypes").to_dict()
    assert spec["title"]["text"] == "kernel time (predicted) vs memory bound (theoretical) over dim1"
    points = spec["layer"][1]["encoding"]
    assert points["y"]["scale"]["type"] == "log" and points["x"]["field"] == "size"
    assert spec["layer"][0]["encoding"]["strokeDash"]["field"] == "measure"
    assert {"label", "key", "line", "bound_share"} <= set(tooltip_fields(spec, 1))
    assert {r["size"] for r in data(spec)} == set(C_VALUES)  # dim1 as the size; float16 at 9000 ran (and failed)
    with pytest.raises(InvalidInput, match="view: got 'pie'"):
        sc.view_chart(df, "pie", "dim1", "dtypes")
    with pytest.raises(InvalidInput, match="x: got 'C'"):
        sc.view_chart(df, sc.PASS_FAIL, "C", "dtypes")


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, list[list[dict[str, Any]]], Path]:
    """Six Cast cases (three dtype pairs the other tests build too, two sizes), in this process."""
    results = tmp_path_factory.mktemp("sweep") / "cast.jsonl"
    batches: list[list[dict[str, Any]]] = []
    points = grid("cast", dtypes=CAST_PAIRS, shapes=[(100,), (1000,)])
    df = sweep(points, executor="serial", results=results, show_progress=False, on_rows=batches.append)
    return df, batches, results


CAST_PAIRS = ["float32:float16", "float32:int8", "bfloat16:float16"]


def test_a_real_serial_sweep_draws_every_view(real: tuple[pd.DataFrame, list[list[dict[str, Any]]], Path]) -> None:
    df, batches, _ = real
    assert len(df) == 6 and sum(map(len, batches)) == 6
    x, y = sf.default_axes(df)
    assert (x, y) == ("shape", "dtypes")
    cells = data(sc.view_chart(df, sc.PASS_FAIL, x, y).to_dict())
    assert len(cells) == 6 and {c["y"] for c in cells} == set(CAST_PAIRS)
    assert {c["key"] for c in cells} == set(df["key"])  # every cell opens its case
    paths = data(sc.view_chart(df, sc.PATHS, x, y).to_dict())
    assert {p["path"] for p in paths} == set(df["path"])
    times = sc.view_chart(df, sc.TIME_BOUND, x, y).to_dict()
    assert times["title"]["text"] == "kernel time (predicted) vs memory bound (theoretical) over numel"
    assert len(data(times)) == 12
    for view in sc.VIEWS:
        assert "NaN" not in json.dumps(sc.view_chart(df, view, x, y).to_dict()), view


# -- the panel and the app ----------------------------------------------------------------------------------------


def shown(panel: SweepPanel) -> dict[str, Any]:
    chart = panel.chart.chart
    assert chart is not None
    return chart.to_dict()


def click(panel: Any, key: str | None) -> None:
    """What the browser sends when a cell is clicked (altair's JupyterChart selection sync)."""
    value = {"vlPoint": {"or": [{"key": key}]}} if key else None
    panel.chart._vl_selections = {sc.SWEEP_SELECTION: {"value": value, "store": []}}


def test_update_adds_rows_and_redraws() -> None:
    rows = _rows()
    panel = SweepPanel(interval=0)
    drawn = panel.draws
    panel.update(rows[:4])
    assert len(panel.frame) == 4 and panel.draws == drawn + 1 and "4 cases" in panel.status.value
    panel.update(pd.DataFrame(rows[4:]))
    assert len(panel.frame) == len(rows) and panel.draws == drawn + 2
    assert ">1</b> fault" in panel.status.value and ">1</b> error" in panel.status.value
    panel.update([{**rows[0], "status": "fail"}])  # the same key again: replaced, not added
    assert len(panel.frame) == len(rows) and sf.status_counts(panel.frame)["fail"] == 3
    assert (panel.x.value, panel.y.value) == ("dim1", "dtypes")


def test_rows_that_come_sooner_than_the_interval_are_drawn_once_when_it_is_up() -> None:
    rows = _rows()
    panel = SweepPanel(interval=0.3)
    panel.update(rows[:2])  # the first batch draws at once (nothing drawn yet)
    drawn = panel.draws
    panel.update(rows[2:5])
    panel.update(rows[5:])
    assert panel.draws == drawn and len(panel.frame) == 2  # held back: not yet
    timer = panel._timer
    assert timer is not None
    timer.join(2)
    assert panel.draws == drawn + 1 and len(panel.frame) == len(rows)  # both batches, in one redraw


def test_the_axes_follow_the_rows_until_one_is_chosen() -> None:
    rows = [r for r in _rows() if r["dtypes"] == "float32"]
    panel = SweepPanel(rows[:1], interval=0)
    panel.update(rows[1:])
    assert panel.x.value == "dim1"
    panel.x.value = "plan.r"  # the user's choice
    assert panel._chosen["x"] == "plan.r"
    panel.update([_row("float16", 500)])
    assert panel.x.value == "plan.r" and panel.y.value == "dtypes"
    assert data(shown(panel))[0]["x"] == "500"


def test_clicking_a_cell_opens_its_row(df: pd.DataFrame) -> None:
    opened: list[dict[str, Any]] = []
    panel = SweepPanel(df, on_open=opened.append, interval=0)
    cell = next(c for c in data(shown(panel)) if c["x"] == "1000" and c["y"] == "float32")
    click(panel, cell["key"])
    assert [r["key"] for r in opened] == ["float32-1000-1"] and opened[0]["seed"] == 1
    assert isinstance(opened[0]["seed"], int) and opened[0]["status"] == "fail"
    assert "seed=1" in panel.opened.value
    click(panel, None)  # a double click clears: nothing opens
    assert len(opened) == 1
    panel.on_open = lambda row: 1 / 0
    click(panel, "float16-500-0")
    assert "could not open: ZeroDivisionError" in panel.opened.value  # shown, not raised into the widget


def test_the_app_opens_a_clicked_case_in_its_controls(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Workbench(wb.Case("cast", ("float32", "float16"), (1000,)))
    ran: list[wb.Case | None] = []
    monkeypatch.setattr(app, "start_run", lambda: ran.append(app.case))
    app.sweep.panel.update(_rows())
    app.sweep.panel.flush()
    click(app.sweep.panel, "float16-4705-0")
    case = wb.Case(SCE, ("float16",), (8, 4705), platform="Ascend910B3")
    assert app.current_case() == case and ran == [case]  # the controls say the case, then it runs
    assert app.controls["seed"].value == 0 and app.controls["distribution"].value == "default"
    edg = wb.Case("embedding_dense_grad", ("float32",), (64, 16), attrs={"num_weights": 100, "padding_idx": 3})
    row = {"op": edg.op, "dtypes": "float32", "shape": "64x16", "attrs": json.dumps(dict(edg.attrs))}
    app.open_row({**row, "seed": 5, "distribution": "zipf", "standard": "exact", "kernel": "shipped"}, run=False)
    assert app.current_case() == edg and len(ran) == 1
    assert (app.controls["seed"].value, app.controls["distribution"].value) == (5, "zipf")
    assert app.controls["standard"].value == "exact" and app.controls["kernel"].value == ""
    assert app.sweep.dtypes.options == tuple(":".join(d) for d in wb.OPS[edg.op].dtype_matrix)  # follows the op
    assert app.sweep.dtypes.value == (":".join(edg.dtypes),) and app.sweep.shapes.value == "64,16"


def test_the_sweep_section_runs_a_grid_of_the_controls_op(
    real: tuple[pd.DataFrame, list[list[dict[str, Any]]], Path],
) -> None:
    df, _, results = real
    app = Workbench(wb.Case("cast", ("float32", "float16"), (1000,)))
    form = app.sweep
    assert form.dtypes.value == ("float32:float16",) and form.shapes.value == "1000"
    assert app.widget.children[len(app._head)] is form.widget  # between the controls and the panels
    form.dtypes.value = tuple(CAST_PAIRS)
    form.shapes.value = "100; 1000"
    start = time.perf_counter()
    out = form.run(executor="serial", results=results)  # the same cases: every row reused from the file
    assert time.perf_counter() - start < 10 and out.attrs["reused"] == 6
    assert sorted(out["key"]) == sorted(df["key"]) and len(form.panel.frame) == 6
    assert "6 reused" in form.progress.value and ">6</b> pass" in form.panel.status.value
    form.shapes.value = " ; "
    with pytest.raises(InvalidInput, match="shapes"):
        form.grid()


def test_without_on_open_a_click_opens_the_case_in_a_workbench_below(
    real: tuple[pd.DataFrame, list[list[dict[str, Any]]], Path],
) -> None:
    df = real[0]
    panel = SweepPanel(df, interval=0)
    row = panel.open(str(df["key"].iloc[1]))
    assert row is not None and panel.open("no such key") is None
    below = panel.workbench
    assert below is not None and panel.widget.children[-1] is below.widget
    assert below._thread is not None
    below._thread.join(120)
    assert below.result is not None and below.result.case == Point.from_row(row).case
    assert below.result.verdict == row["verdict"]
