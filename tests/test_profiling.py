"""msprof op_summary CSVs, on samples built from the documented headers: the current PipeUtilization set, the
Memory set, and an older file without `(us)` in its time columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.core.errors import InvalidInput
from workbench.running.profiling import find_op_summaries, kernel_durations, normalise, read_op_summary

PIPE_HEADER = (
    "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
    "Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,"
    "Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,"
    "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,"
    "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,"
    "aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),"
    "aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
    "cube_utilization(%)"
)


def pipe_row(name: str, op_type: str, task: str, start: float, duration: float, block: int) -> str:
    fixed = [0, "N/A", 3, 2, name, op_type, "dynamic", task, start, duration, 0.5, block, 0, "NO", '"1000000"']
    fixed += ["DT_FLOAT", "ND", '"1000000"', "DT_FLOAT16", "ND", "N/A"]
    metrics = ["N/A"] * 13 + [duration * 0.9, 1234, 10.0, 0.2, 1.0, 0.02, 30.0, 0.6, 12.0, 0.24, 0.01, 0]
    return ",".join(map(str, fixed + metrics))


PIPE = "\n".join(
    [
        PIPE_HEADER,
        pipe_row("cast_custom_0", "CastCustom", "AI_VECTOR_CORE", 100.0, 52.5, 8),
        pipe_row("cast_custom_1", "CastCustom", "AI_VECTOR_CORE", 200.0, 50.5, 8),
        pipe_row("Cast_2", "Cast", "AI_VECTOR_CORE", 300.0, 48.0, 8),
    ]
)

OLD = "\n".join(
    [
        "Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,Task Type,Task Start Time,Task Duration,"
        "Task Wait Time,Block Dim,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,"
        "Output Formats,aicore_time(us),total_cycles,mac_ratio,scalar_ratio,mte2_ratio,mte3_ratio",
        'N/A,N/A,7,1,N/A,EmbeddingDenseGrad_0,EmbeddingDenseGrad,AI_CORE,5.5,210.25,1.0,8,"4096,512",'
        'DT_FLOAT,ND,"1000,512",DT_FLOAT,ND,200.0,99999,0,0.1,0.7,0.3',
    ]
)

MEMORY = "\n".join(
    [
        "Device_id,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
        "Task Wait Time(us),Block Dim,aic_l1_read_bw(GB/s),aiv_ub_read_bw(GB/s),aiv_main_mem_read_bw(GB/s)",
        "0,1,2,SoftmaxCrossEntropyWithLogits_9,SoftmaxCrossEntropyWithLogits,MIX_AIV,1.0,33.0,0,40,N/A,512.5,180.25",
    ]
)


def test_normalise_column_names() -> None:
    assert normalise("Task Duration(us)") == "task_duration_us" and normalise("OP Type") == "op_type"
    assert normalise("cube_utilization(%)") == "cube_utilization_pct" and normalise("aiv_ub_read_bw(GB/s)") == (
        "aiv_ub_read_bw_gbps"
    )


def test_the_pipe_utilization_header_parses_by_name() -> None:
    f = read_op_summary(PIPE)
    assert list(f["op_name"]) == ["cast_custom_0", "cast_custom_1", "Cast_2"] and len(f.columns) == 46
    assert list(f["duration_us"]) == [52.5, 50.5, 48.0] and list(f["task_start_us"]) == [100.0, 200.0, 300.0]
    assert set(f["task_type"]) == {"AI_VECTOR_CORE"} and list(f["block_dim"]) == [8, 8, 8]
    assert f["aiv_mte2_time_us"].iloc[0] == 30.0 and np.isnan(f["aicore_time_us"].iloc[0])  # N/A -> NaN
    assert f["input_shapes"].iloc[0] == "1000000" and f["input_data_types"].iloc[0] == "DT_FLOAT"


def test_an_older_file_without_us_in_its_time_columns() -> None:
    f = read_op_summary(OLD)
    assert f["duration_us"].iloc[0] == 210.25 and f["task_start_us"].iloc[0] == 5.5 and f["wait_us"].iloc[0] == 1.0
    assert f["task_type"].iloc[0] == "AI_CORE" and f["input_shapes"].iloc[0] == "4096,512" and "mac_ratio" in f


def test_another_metric_set_keeps_its_columns() -> None:
    f = read_op_summary(MEMORY)
    assert f["task_type"].iloc[0] == "MIX_AIV" and f["aiv_main_mem_read_bw_gbps"].iloc[0] == 180.25
    assert np.isnan(f["aic_l1_read_bw_gbps"].iloc[0])


def test_kernel_durations_separate_the_custom_kernel_from_the_built_in_op() -> None:
    f = read_op_summary(PIPE)
    custom = kernel_durations(f, "castcustom")
    assert list(custom["op_name"]) == ["cast_custom_0", "cast_custom_1"]
    every = kernel_durations(f)
    assert every.set_index("op_name").loc["Cast_2", "median_us"] == 48.0 and set(every["tasks"]) == {1}


def test_files_are_found_in_both_layouts_and_bad_ones_refused(tmp_path: Path) -> None:
    new = tmp_path / "PROF_1" / "mindstudio_profiler_output" / "op_summary_20261201.csv"
    old = tmp_path / "PROF_0" / "device_0" / "summary" / "op_summary_0_1.csv"
    for path, text in ((new, PIPE), (old, OLD)):
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    assert find_op_summaries(tmp_path) == [old, new]
    assert len(read_op_summary(new)) == 3
    bad = tmp_path / "op_summary_bad.csv"
    bad.write_text("Device_id,Task ID\n0,1\n")
    with pytest.raises(InvalidInput, match=r"^op_summary: got .*missing \['op_name', 'duration_us'\]"):
        read_op_summary(bad)
    with pytest.raises(InvalidInput, match="readable msprof op_summary CSV"):
        read_op_summary(tmp_path / "absent.csv")


def test_attach_gives_a_run_device_times_and_calibrates_the_model(tmp_path: Path) -> None:
    import workbench as wb
    from workbench.judge.criteria import builtin_time, calibrate, evaluate, kernel_time
    from workbench.running.profiling import attach
    from workbench.view.render.html import device_html

    run = wb.run(wb.Case("cast", ("float32", "float16"), (8 * 4096,)))
    csv = tmp_path / "op_summary_0.csv"
    csv.write_text(
        "\n".join(
            [
                PIPE_HEADER,
                pipe_row("cast_kernel_0", "cast_kernel", "AI_CORE", 1.0, 10.0, 8),
                pipe_row("cast_kernel_1", "cast_kernel", "AI_CORE", 20.0, 12.0, 8),
                pipe_row("cast_kernel_2", "cast_kernel", "AI_CORE", 40.0, 11.0, 8),
                pipe_row("Cast_3", "Cast", "AI_CORE", 60.0, 9.0, 8),
            ]
        )
    )
    profiled = attach(run, tmp_path)  # a folder: its op_summary files are found
    t, tbe = kernel_time(profiled), builtin_time(profiled)
    assert (t.seconds, t.source) == (pytest.approx(11e-6), "device-measured") and "3 task(s)" in t.how
    assert (tbe.seconds, tbe.source) == (pytest.approx(9e-6), "device-measured")
    (p1,) = evaluate(profiled)  # 11 µs vs 9 µs: small shape (< 10 µs), 2 µs gap
    assert p1.status == "pass" and p1.sources == "kernel device-measured, TBE device-measured"
    prediction, fitted, measured = calibrate(profiled)  # type: ignore[misc]
    assert fitted.predicted_s[0] == pytest.approx(11e-6, rel=1e-6) and abs(fitted.rel_errors[0]) < 1e-6
    assert measured.seconds == pytest.approx(11e-6) and prediction.kernel_s != pytest.approx(
        11e-6
    )  # the default model was off; the fit closes the gap
    page = device_html(profiled)
    assert "cast_kernel_0" in page and "Cast_3" in page and "model vs measurement" in page
    assert calibrate(run) is None and device_html(run) == ""
    with pytest.raises(InvalidInput, match="tasks named like 'cast_kernel'"):
        attach(run, _write(tmp_path / "other.csv", MEMORY))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
