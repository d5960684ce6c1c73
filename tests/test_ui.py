"""The widgets app headlessly: set control values as a user would, assert the plan, the panels and the chart specs."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")

import workbench as wb
from workbench.view.render import frames
from workbench.view.render.html import BADGE
from workbench.view.ui import Workbench

SCE = "softmax_cross_entropy_with_logits"
GREEN = BADGE["pass"]  # the badge of a verdict on device-measured times


@pytest.fixture(scope="module")
def app() -> Workbench:
    return Workbench()


def spec(widget: object) -> dict:
    return widget.chart.to_dict()  # type: ignore[attr-defined]


def rows(chart_spec: dict, layer: int = 0) -> list[dict]:
    """The rows a chart (or one layer of a layered chart) draws."""
    source = chart_spec.get("data") or chart_spec["layer"][layer]["data"]
    return chart_spec["datasets"][source["name"]]


def test_starts_on_the_first_ops_worked_example(app: Workbench) -> None:
    assert app.case == wb.Case("cast", ("float32", "float16"), (1_000_000,))
    assert app.plan == wb.plan(app.case) and not app.error
    assert not app.run_button.disabled


def test_dtype_boxes_offer_only_valid_pairs() -> None:
    app = Workbench()
    src, dst = app._dtype_boxes
    src.value = "bool"
    assert set(dst.options) == {d for s, d in wb.OPS["cast"].dtype_matrix if s == "bool"}
    assert app.case is not None and app.case.dtypes == ("bool", dst.value)
    src.value = "int64"
    assert "float16" in dst.options and all(("int64", d) in wb.OPS["cast"].dtype_matrix for d in dst.options)


def test_shape_is_validated_live_with_the_error_beside_it() -> None:
    app = Workbench()
    app.controls["shape"].value = "12,x"
    assert app.case is None and app.plan is None and app.run_button.disabled
    assert "shape: got '12,x'" in app.shape_error.value.replace("&#x27;", "'")
    assert "no plan" in app.tiling.table.value and app.status.value == ""  # the error is shown once, beside the shape
    app.controls["shape"].value = "100003"
    assert app.shape_error.value == "" and app.plan is not None and app.plan.fields["totalElements"] == 100_003


def test_typing_through_an_invalid_shape_keeps_the_last_good_plan_as_the_baseline() -> None:
    app = Workbench()
    app.controls["shape"].value = "4096"
    for text in ("4096,", "4096,5", "4096,51", "4096,512"):  # "4096," has no plan
        app.controls["shape"].value = text
    assert app.plan is not None and app.plan.fields["totalElements"] == 4096 * 512
    assert "<tr data-field='totalElements' class='wb-changed'>" in app.tiling.table.value
    assert "<span class='wb-was'>208896</span>" in app.tiling.table.value  # 4096 x 51, the last good plan


def test_tiling_panel_highlights_the_fields_that_changed() -> None:
    app = Workbench()
    app.controls["shape"].value = "100003"
    before = dict(app.plan.fields)  # type: ignore[union-attr]
    app._dtype_boxes[0].value = "bfloat16"
    after = dict(app.plan.fields)  # type: ignore[union-attr]
    changed = {k for k in after if after[k] != before[k]}
    table = app.tiling.table.value
    assert changed and table.count("class='wb-changed'") == len(changed)
    for name in changed:
        assert f"<tr data-field='{name}' class='wb-changed'>" in table
    assert "BF16_TO_OTHER" in table


def test_charts_follow_the_plan() -> None:
    app = Workbench()
    app.controls["shape"].value = "100003"
    cores = rows(spec(app.tiling.cores))
    assert [r["count"] for r in cores] == [c.count for c in app.plan.cores]  # type: ignore[union-attr]
    ub = rows(spec(app.tiling.ub))
    assert sum(r["bytes"] for r in ub) == app.plan.ub_size  # type: ignore[union-attr]
    app.controls["op"].value = SCE
    assert app.case is not None and app.case.op == SCE
    assert {r["part"] for r in rows(spec(app.tiling.ub))} >= {b.name for b in app.plan.ub_buffers}  # type: ignore[union-attr]


def test_what_if_controls_replan_and_say_so() -> None:
    app = Workbench(wb.Case(SCE, ("float32",), (64, 10000)))
    assert app.what_if() == {}
    app.controls["core_count"].value = 4
    assert app.what_if() == {"core_count": 4} and app.plan is not None and app.plan.block_dim == 4
    assert "what-if" in app.tiling.table.value
    app.controls["ub_size"].value = 65536
    assert app.plan.ub_size == 65536 and app.plan == wb.plan(app.case, ub_size=65536, core_count=4)  # type: ignore[union-attr]
    app.reset_button.click()
    assert app.what_if() == {} and app.plan == wb.plan(app.case)  # type: ignore[arg-type]


def test_op_change_rebuilds_the_op_controls() -> None:
    app = Workbench()
    app.controls["op"].value = "embedding_dense_grad"
    assert set(app._attr_widgets) == {"num_weights", "padding_idx", "scale_grad_by_freq"}
    assert list(app.controls["platform"].options) == list(wb.OPS["embedding_dense_grad"].target_platforms())
    app._attr_widgets["scale_grad_by_freq"].value = True
    assert app.plan is not None and app.plan.tiling_key == 1
    app._attr_widgets["num_weights"].value = "many"
    assert app.plan is None and "num_weights" in app.status.value


def test_a_failing_run_fills_summary_precision_and_timings() -> None:
    app = Workbench(wb.Case(SCE, ("float16",), (64, 1000)))
    app.controls["standard"].value = "exact"  # fp16 softmax is not bit-exact to the float64-derived golden
    result = app.run()
    assert result is not None and not result.passed and result.verdict == "PRECISION FAIL"
    assert "PRECISION FAIL" in app.summary.widget.value and "exact" in app.summary.widget.value
    assert app.precision.widget.layout.display == "" and set(app.precision.output.options) == set(result.reports)
    out = app.precision.output.value
    ulp = rows(spec(app.precision.ulp))
    assert sum(r["n"] for r in ulp) == result.reports[out].numel
    heat = rows(spec(app.precision.heatmap))
    assert 0 < len(heat) <= frames.MAX_CELLS and sum(r["count"] for r in heat) == result.reports[out].numel
    assert len(app.precision.frame) == result.reports[out].failed  # every failing element, a row each
    assert "performance criteria" in app.timings.table.value and "wb-criterion" in app.timings.table.value
    # a run that failed precision gets no performance verdict, only the neutral "not judged"
    assert (
        "data-status='not judged'" in app.timings.table.value and "the run failed precision" in app.timings.table.value
    )
    assert "data-status='pass'" not in app.timings.table.value and GREEN not in app.timings.table.value
    assert "device-measured" in app.timings.table.value and app.timings.widget.layout.display == ""
    timeline = spec(app.timings.pipes)
    pipes = timeline["datasets"][(timeline.get("data") or timeline["layer"][0]["data"])["name"]]
    assert {r["pipe"] for r in pipes} >= {"MTE2", "V", "MTE3"} and {r["core"] for r in pipes} == set(
        range(result.plan.block_dim)
    )

    frame = app.precision.frame
    app.precision.mismatches.select(frame.index[0])  # select the worst mismatch: its core and tile are outlined
    assert frame is not None
    layer = spec(app.tiling.cores)["layer"]
    (selected,) = [v for k, v in spec(app.tiling.cores)["datasets"].items() if k == layer[1]["data"]["name"]]
    assert [r["core"] for r in selected] == [int(c) for c in str(frame.iloc[0]["cores"]).split(",")]


def test_the_timings_panel_gives_every_time_its_source_and_a_verdict_only_on_device_times(tmp_path: Path) -> None:
    app = Workbench(wb.Case("cast", ("float32", "float16"), (8, 65536)))
    result = app.run()
    assert result is not None and result.passed
    panel = app.timings.table.value
    for source in ("host wall", "emulator wall", "predicted", "theoretical", "device-measured"):
        assert f"<tr data-source='{source}'>" in panel, source
    assert "says nothing about device speed" in panel
    assert "predicted: would " in panel and "(not measured: kernel predicted, TBE proxy)" in panel
    assert "data-status='pass'" not in panel and GREEN not in panel  # the model against a proxy: no green badge
    header = "Device_id,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)"
    rows = [f"0,{i},2,cast_kernel_{i},cast_kernel,AI_CORE,{10 * i},{d}" for i, d in enumerate((41.0, 40.2, 40.6))]
    csv = tmp_path / "op_summary_0.csv"
    csv.write_text("\n".join([header, *rows, "0,9,2,Cast_9,Cast,AI_CORE,100,39.5"]) + "\n")
    app.import_msprof(csv)  # device-measured kernel and TBE times: 40.6 µs <= 39.5 / 0.95, a verdict
    panel = app.timings.table.value
    assert "data-status='pass'" in panel and GREEN in panel
    assert "(kernel device-measured, TBE device-measured)" in panel


def test_the_run_button_runs_in_a_thread_and_reports_progress() -> None:
    app = Workbench(wb.Case("cast", ("float32", "float16"), (4099,)))
    seen: list[str] = []
    app.progress.observe(lambda ch: seen.append(ch["new"]), "value")
    app.run_button.click()
    assert app._thread is not None
    app._thread.join(300)
    assert app.result is not None and app.result.passed and not app.run_button.disabled
    assert seen[0].startswith("⏳") and seen[-1].startswith("PASS")


def test_a_bad_kernel_path_is_refused_beside_the_run_not_raised() -> None:
    app = Workbench()
    app.controls["kernel"].value = "/nonexistent/my_cast.cpp"
    assert app.run() is None and "kernel" in app.status.value and app.result is None


def test_save_charts_writes_png_and_svg_of_every_chart_on_show(tmp_path: object) -> None:
    app = Workbench(wb.Case("cast", ("float32", "float16"), (1000,)))
    before = app.save_charts(tmp_path)  # type: ignore[arg-type]
    assert sorted(p.name.rsplit("-", 1)[1] for p in before) == [
        "cores.png", "cores.svg", "neighbourhood.png", "neighbourhood.svg", "ub.png", "ub.svg"
    ]  # fmt: skip
    app.run()
    paths = app.save_charts(tmp_path)  # type: ignore[arg-type]
    assert {p.name.rsplit("-", 1)[1].split(".")[0] for p in paths} == {
        "cores",
        "ub",
        "neighbourhood",
        "failures",
        "ulp",
        "heatmap",
        "timings",
        "pipes",
    }
    for p in paths:
        head = p.read_bytes()[:8]
        assert head.startswith(b"\x89PNG") if p.suffix == ".png" else head.startswith(b"<svg")


def test_a_faulting_edited_kernel_shows_each_diagnostic_with_its_source_lines(tmp_path: object) -> None:
    case = wb.Case("cast", ("float32", "float16"), (200_000,))
    copy = wb.copy_kernel(case, tmp_path)  # type: ignore[arg-type]
    shipped = "pipe_.InitBuffer(inQue_, BUFFER_NUM, F_ * sizeof(SrcT));"
    assert shipped in copy.read_text()
    copy.write_text(copy.read_text().replace(shipped, shipped.replace("sizeof(SrcT)", "sizeof(SrcT) / 4")))
    app = Workbench(case)
    app.controls["kernel"].value = str(copy)
    result = app.run()
    assert result is not None and result.verdict == "KERNEL FAULT" and result.kernel == str(copy)
    summary = app.summary.widget.value
    assert "KERNEL FAULT" in summary and "UB_TENSOR_OVERRUN" in summary and "(edited copy)" in summary
    line = next(d.line for d in result.diagnostics if d.kind == "UB_TENSOR_OVERRUN")
    source = copy.read_text().splitlines()[line - 1]
    assert f"&gt; {line:5d} | {html.escape(source)}" in summary  # the faulting line, marked, among its neighbours


def test_an_edited_kernel_that_does_not_compile_shows_its_errors_at_its_lines(tmp_path: object) -> None:
    case = wb.Case("cast", ("float32", "float16"), (1000,))
    copy = wb.copy_kernel(case, tmp_path)  # type: ignore[arg-type]
    lines = copy.read_text().splitlines()
    at = lines.index("using namespace AscendC;") + 1
    lines.insert(at, "int broken = not_declared_anywhere;")
    copy.write_text("\n".join(lines) + "\n")
    app = Workbench(case)
    app.controls["kernel"].value = str(copy)
    assert app.run() is None and app.result is None
    status = app.status.value
    assert f"<code>{copy.name}:{at + 1}:14</code>" in status and "not_declared_anywhere" in status
    assert f"&gt; {at + 1:5d} | int broken = not_declared_anywhere;" in status  # the line, among its neighbours
    assert "{" not in status.split("g++ rejected")[1].split("</b>")[0]  # no Python dict repr of the defines


def test_the_controls_work_before_the_panels_are_in() -> None:
    """`workbench app`'s first cell: the controls validate and plan at once; Run and save wait for the panels."""
    app = Workbench(panels=False)
    assert not app.panels_loaded and app.loading in app.widget.children
    assert "loading the tiling panel and the charts" in app.loading.value
    assert app.run_button.disabled and app.save_button.disabled
    app.controls["shape"].value = "12,x"
    assert app.plan is None and "shape: got '12,x'" in app.shape_error.value.replace("&#x27;", "'")
    app.controls["shape"].value = "100003"
    assert app.plan is not None and app.plan.fields["totalElements"] == 100_003 and app.run_button.disabled
    app.load_panels()
    assert app.panels_loaded and app.loading not in app.widget.children and app.tiling.widget in app.widget.children
    assert not app.run_button.disabled and not app.save_button.disabled
    assert app.tiling.plan == app.plan  # the panel shows the plan the controls made while it was loading
    app.load_panels()  # once only
    assert app.widget.children.count(app.tiling.widget) == 1


def test_the_charts_script_bundle_is_made_once_and_then_read_from_the_cache(tmp_path: Path) -> None:
    """Bundling altair's chart script takes vl-convert seconds in every fresh kernel: the second kernel reads it."""
    env = {**os.environ, "WORKBENCH_CACHE": str(tmp_path)}
    show = "import altair as alt; print(len(alt.JupyterChart._esm), alt.JupyterChart._is_offline)"
    first = f"from workbench.view.ui.app import offline_charts; offline_charts(); {show}"
    out = subprocess.run([sys.executable, "-c", first], env=env, check=True, capture_output=True, text=True).stdout
    (cached,) = (tmp_path / "charts").glob("jupyterchart-*.js")
    assert out.split() == [str(len(cached.read_text(encoding="utf-8"))), "True"] and cached.stat().st_size > 100_000
    second = (
        "import vl_convert\n"
        "def refuse(*a, **k): raise AssertionError('bundled again')\n"
        "vl_convert.javascript_bundle = refuse\n" + first
    )
    again = subprocess.run([sys.executable, "-c", second], env=env, check=True, capture_output=True, text=True).stdout
    assert again == out
