"""Roofline (issue 22 item 4): per pipe and per kernel, achieved against the platform's ceilings, each number with its
source; a device point when an msprof op_summary is attached; the chart spec and the text."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_profiling import PIPE_HEADER, pipe_row

import workbench as wb
from workbench.core.platform import get_platform
from workbench.judge.perfmodel import params_for, predict
from workbench.judge.roofline import PIPES, ceilings, roofline
from workbench.view.render import roofline as render


@pytest.fixture(scope="module")
def cast_run() -> wb.Result:
    return wb.run(wb.Case("cast", ("float32", "float16"), (1, 1024, 1024)))


def test_ceilings_come_from_the_platform_and_the_model() -> None:
    plat, p = get_platform("Ascend910B1"), params_for("Ascend910B1")
    memory, vector, scalar = ceilings(plat)
    assert memory.rate == plat.memory_bandwidth and plat.bandwidth_source in memory.source
    assert memory.kind == "theoretical" and vector.kind == scalar.kind == "predicted"
    assert vector.rate == pytest.approx(plat.core_num * plat.clock_mhz * 1e6 * p.vec_bytes_per_cycle)  # type: ignore[operator]
    assert p.sources["clock_hz"] in vector.source and p.sources["vec_bytes_per_cycle"] in vector.source
    assert scalar.rate == pytest.approx(plat.core_num * p.clock_hz / p.scalar_ub_cycles)


def test_pipes_divide_the_traced_work_by_the_predicted_kernel_time(cast_run: wb.Result) -> None:
    rl = roofline(cast_run)
    pred = predict(cast_run.trace, cast_run.case.soc)
    cores = cast_run.trace["cores"]
    assert [p.pipe for p in rl.pipes] == list(PIPES) and {p.time_source for p in rl.pipes} == {"predicted"}
    mte2 = rl.pipes[0]
    assert mte2.work == sum(c["mte2"]["bytes"] for c in cores) == 4 << 20  # 1M float32 read once
    assert mte2.achieved == pytest.approx(mte2.work / pred.kernel_s)
    assert mte2.utilisation == pytest.approx(mte2.work / pred.kernel_s / cast_run.case.soc.memory_bandwidth)
    assert mte2.busy_s == pred.slowest.mte2_s and mte2.busy_source == "predicted"  # type: ignore[union-attr]
    vec = rl.pipes[1]
    assert vec.work == 256 * sum(e["repeats"] for c in cores for e in c["vec"])
    assert rl.bound() == "MTE" and rl.bound("device-measured") is None
    (kernel,) = rl.kernels
    assert kernel.intensity == pytest.approx(vec.work / (mte2.work + rl.pipes[2].work))
    assert kernel.kernel_s == pred.kernel_s and "no device time" in rl.note


def test_an_attached_msprof_summary_adds_device_points(cast_run: wb.Result, tmp_path: Path) -> None:
    from workbench.running.profiling import attach

    csv = tmp_path / "op_summary_0.csv"
    rows = [pipe_row(f"cast_kernel_{i}", "cast_kernel", "AI_CORE", 10.0 * i, 100.0 + i, 8) for i in range(3)]
    csv.write_text("\n".join([PIPE_HEADER, *rows]))
    rl = roofline(attach(cast_run, csv))
    device = [p for p in rl.pipes if p.time_source == "device-measured"]
    assert [p.pipe for p in device] == list(PIPES) and rl.note == ""
    assert device[0].kernel_s == pytest.approx(101e-6)  # the median task duration
    # pipe_row's aiv_mte2_time(us) is 30.0 and aiv_vec_time(us) 10.0: msprof's busy times, labelled device-measured
    assert (device[0].busy_s, device[0].busy_source) == (pytest.approx(30e-6), "device-measured")
    assert (device[1].busy_s, device[1].busy_source) == (pytest.approx(10e-6), "device-measured")
    assert [k.time_source for k in rl.kernels] == ["predicted", "device-measured"]
    assert device[0].achieved == pytest.approx(device[0].work / 101e-6)


def test_a_run_without_a_trace_has_ceilings_but_no_points(cast_run: wb.Result) -> None:
    rl = roofline(replace(cast_run, trace={}))
    assert rl.pipes == () and rl.kernels == () and "no emulator trace" in rl.note
    assert rl.memory.rate == cast_run.case.soc.memory_bandwidth


def test_a_replayed_record_with_msprof_rows_gets_its_work_counted_by_the_emulator(tmp_path: Path) -> None:
    """A record has no trace; wb.analyse counts its work with the emulator on the same kernel and inputs, so the
    msprof rows give device-measured points (and the record's predicted ones), and the note says where the work is
    from."""
    from workbench.running.profiling import attach
    from workbench.running.work import WORK_FROM, with_counted_work

    case = wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8, 100))
    replayed = wb.run(case, backend="replay")
    assert "cores" not in replayed.trace and roofline(replayed).pipes == ()
    entry = case.spec.kernel(case).entry  # type: ignore[misc]
    csv = tmp_path / "op_summary_0.csv"
    csv.write_text(
        "\n".join([PIPE_HEADER, *(pipe_row(f"{entry}_{i}", entry, "AI_CORE", 10.0 * i, 40.0, 8) for i in range(3))])
    )
    analysed = wb.analyse(attach(replayed, csv))
    rl = analysed.roofline
    assert [k.time_source for k in rl.kernels] == ["predicted", "device-measured"] and WORK_FROM in rl.note
    emulated = wb.run(case, inputs=replayed.inputs)
    device = [p for p in rl.pipes if p.time_source == "device-measured"]
    assert device[0].work == sum(c["mte2"]["bytes"] for c in emulated.trace["cores"]) > 0
    assert device[0].kernel_s == pytest.approx(40e-6)
    assert "msprof" in with_counted_work(attach(replayed, csv)).trace  # the run's own rows are kept beside the counts
    assert "replay" in with_counted_work(replayed).trace  # and so is the record's provenance


def test_a_run_the_emulator_cannot_repeat_says_why_it_has_no_points(tmp_path: Path) -> None:
    replayed = wb.run(wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8, 100)), backend="replay")
    gone = replace(replayed, kernel=str(tmp_path / "deleted.cpp"))  # an edited copy that is no longer there
    rl = wb.analyse(gone).roofline
    assert rl.pipes == () and "the emulator could not repeat it" in rl.note and "deleted.cpp" in rl.note


def test_chart_spec_is_log_log_with_roofs_and_labelled_points(cast_run: wb.Result) -> None:
    rl = roofline(cast_run)
    spec = render.roofline_chart(rl).to_dict()
    roofs, dots, labels = spec["layer"]
    for layer in (roofs, dots):
        assert layer["encoding"]["x"]["scale"]["type"] == "log" and layer["encoding"]["y"]["scale"]["type"] == "log"
    assert roofs["mark"]["type"] == "line" and dots["mark"]["type"] == "point" and labels["mark"]["type"] == "text"
    data = spec["datasets"]
    roof_rows = data[roofs["data"]["name"]]
    assert {r["roof"] for r in roof_rows} == {"memory", "vector"}
    memory = [r for r in roof_rows if r["roof"] == "memory"]
    assert all(r["rate"] == pytest.approx(r["intensity"] * rl.memory.rate) for r in memory)
    assert "(theoretical)" in memory[0]["source"] and rl.memory.source in memory[0]["source"]
    (point,) = data[dots["data"]["name"]]
    assert point["label"] == "kernel (predicted)" and point["source"] == "predicted"
    assert labels["encoding"]["text"]["field"] == "label"
    # each roof is named, with its rate and its source's kind, in the roofs' legend (a dash per roof)
    assert roofs["encoding"]["strokeDash"]["field"] == "name" and roofs["encoding"]["strokeDash"]["title"] == "roofs"
    names = list(dict.fromkeys(r["name"] for r in roof_rows))
    assert names == ["memory roof 205 GB/s (theoretical)", "vector roof 2.05 TB/s (predicted)"]
    bars = render.pipes_chart(rl).to_dict()
    assert bars["layer"][1]["mark"]["type"] == "rule"


def test_text_names_every_pipe_its_source_and_the_ceilings(cast_run: wb.Result) -> None:
    text = render.roofline_text(roofline(cast_run))
    for pipe in PIPES:
        assert f"\n  {pipe} " in text
    assert "closest to its ceiling: MTE" in text and "ceiling GM bandwidth 205 GB/s (theoretical)" in text
    assert "ceiling vector" in text and "(predicted)" in text
