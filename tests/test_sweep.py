"""wb.sweep: grids with the op's own validation, one row per point (failures, faults and refusals are rows), the
results file that resumes an interrupted sweep and makes a rerun free, the local pool, and `workbench sweep`."""

from __future__ import annotations

import json

import pytest
from planted import round_to_odd_kernel

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.sweeps import Point, grid, points_of, sweep
from workbench.sweeps.executors import LocalPool, Serial, batches
from workbench.sweeps.gridfile import grid_from_mapping
from workbench.sweeps.results import ResultsFile
from workbench.sweeps.tasks import make_task
from workbench.view.cli import main

CAST = "cast"
# columns that say where and how long, not what: they differ between two runs of the same case
HOST_COLUMNS = ("worker", "build_s", "launch_s", "run_s", "kernel_s", "golden_s", "wall_s")


def small_grid() -> wb.sweep.Grid:  # type: ignore[name-defined]
    return grid(CAST, dtypes=["float32:float16", "int8:float16"], shapes=[(100,), (3000,)])


def test_grid_drops_what_the_op_refuses_with_its_reason_and_keeps_the_rest():
    g = grid(CAST, dtypes=["float32:float16", "float32:float17"], shapes=[(4,), (5, 6)], seeds=[0, 1])
    assert len(g) == 4 and {p.seed for p in g} == {0, 1}
    assert len(g.dropped) == 2 and all("float17" in str(d.values["dtypes"]) for d in g.dropped)
    assert all(d.reason.startswith("dtype:") for d in g.dropped)
    everything = grid(CAST)
    assert len(everything) == 60  # the whole dtype matrix at the default shape
    only_to_half = grid(CAST, where=lambda c: c.dtypes[1] == "float16")
    assert 0 < len(only_to_half) < 60 and sum(d.reason == "filtered by where" for d in only_to_half.dropped) > 0


def test_grid_attrs_as_a_product_and_bad_values_named():
    g = grid(
        "embedding_dense_grad", dtypes=None, shapes=[(8, 16)], attrs={"num_weights": [10, 20], "padding_idx": [-1, 3]}
    )
    assert sorted((p.case.attrs["num_weights"], p.case.attrs["padding_idx"]) for p in g) == [
        (10, -1),
        (10, 3),
        (20, -1),
        (20, 3),
    ]
    with pytest.raises(InvalidInput, match=r"attrs\.num_weights"):
        grid("embedding_dense_grad", attrs={"num_weights": 10})
    with pytest.raises(InvalidInput, match="seed"):
        grid(CAST, seeds=[-1])
    with pytest.raises(wb.WorkbenchError, match="distribution"):
        Point(wb.Case(CAST, "float32:float16", (4,)), 0, "gaussian")
    with pytest.raises(InvalidInput, match=r"cases\[1\]"):
        points_of([wb.Case(CAST, "float32:float16", (4,)), 7])


def test_a_grid_file_names_unknown_keys_and_mixes_grids_with_cases():
    g = grid_from_mapping(
        {
            "ops": "cast",
            "dtypes": ["int8:float16"],
            "shapes": [[4], "9"],
            "cases": [{"op": "cast", "dtypes": ["float32", "int8"], "shape": [7], "seed": 3}],
        }
    )
    assert [p.case.shape for p in g] == [(4,), (9,), (7,)] and g.points[-1].seed == 3
    with pytest.raises(InvalidInput, match="grid: shape"):
        grid_from_mapping({"ops": "cast", "shape": [4]})


def test_one_row_per_point_in_order_and_a_failure_or_refusal_is_a_row(tmp_path):
    points = [
        *small_grid(),
        Point(wb.Case(CAST, "float32:float16", (1 << 26,))),  # over the memory budget given below: refused
    ]
    df = sweep(
        points,
        executor="serial",
        results=tmp_path / "r.jsonl",
        max_memory="64M",
        standard="exact",
        kernel=round_to_odd_kernel(tmp_path / "cast_odd.cpp"),
    )
    assert list(df["label"]) == [p.label() for p in points]
    by_label = dict(zip(df["label"], df["status"], strict=True))
    assert by_label[points[-1].label()] == "error"
    assert "max_memory" in df.loc[df["label"] == points[-1].label(), "error"].item()
    # round-to-odd differs from round-to-nearest: exact fails float32 -> float16, and 310P has no int8 -> half
    # CAST_ODD, which the emulator reports as an error-level diagnostic: a fault
    assert set(df.loc[df["dtypes"] == "float32:float16", "status"].iloc[:2]) == {"fail"}
    assert set(df.loc[df["dtypes"] == "int8:float16", "status"]) == {"fault"}
    assert df.attrs["counts"] == {"pass": 0, "fail": 2, "fault": 2, "error": 1}
    fails = df[df["status"] == "fail"]
    assert (fails["max_ulp"] >= 1).all() and (fails["y.failed"] > 0).all() and (fails["kernel"] == "cast_odd.cpp").all()
    faults = df[df["status"] == "fault"]
    assert (faults["diag_error"] > 0).all() and faults["diag_kinds"].str.contains("UNSUPPORTED_CAST_MODE").all()


def test_a_passing_row_says_how_each_time_was_obtained(tmp_path):
    df = sweep(small_grid().points[:1], executor="serial", results=tmp_path / "r.jsonl")
    ok = df.iloc[0]
    assert ok["status"] == "pass" and ok["verdict"] == "PASS" and ok["error"] == ""
    assert ok["kernel_time_source"] == "predicted" and ok["memory_bound_source"] == "theoretical"
    assert ok["kernel_s_source"] == "emulator wall" and ok["path"] and ok["block_dim"] >= 1


def test_a_rerun_is_free_and_an_interrupted_sweep_resumes_where_it_stopped(tmp_path):
    results = tmp_path / "r.jsonl"
    g = small_grid()
    first = sweep(g.points[:2], executor="serial", results=results)  # "interrupted" after two cases
    assert first.attrs["ran"] == 2
    whole = sweep(g, executor="serial", results=results)
    assert whole.attrs["ran"] == 2 and whole.attrs["reused"] == 2
    again = sweep(g, executor="serial", results=results)
    assert again.attrs["ran"] == 0 and again.attrs["reused"] == 4
    assert sweep(again[again["dtypes"] == "int8:float16"], executor="serial", results=results).attrs["reused"] == 2
    assert again.drop(columns=list(HOST_COLUMNS)).equals(whole.drop(columns=list(HOST_COLUMNS)))
    assert sweep(g, executor="serial", results=results, resume=False).attrs["ran"] == 4


def test_a_torn_last_line_is_skipped_cut_off_and_its_case_run_again(tmp_path):
    results = tmp_path / "r.jsonl"
    g = small_grid()
    sweep(g, executor="serial", results=results)
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # a crash mid-write
    store = ResultsFile(results)
    assert store.torn == 1 and len(store.rows) == 3
    assert results.read_bytes().endswith(b"\n")  # cut back to the last whole row
    df = sweep(g, executor="serial", results=results)
    assert df.attrs["ran"] == 1 and len(results.read_bytes().splitlines()) == 4


def test_the_key_names_the_case_the_kernel_source_and_the_backend(tmp_path):
    p = small_grid().points[0]
    key = make_task(p, "emu", None, None, None).key
    assert key == make_task(Point.from_json(p.to_json()), "emu", None, None, None).key
    assert key != make_task(Point(p.case, seed=1), "emu", None, None, None).key
    assert key != make_task(p, "replay", None, None, None).key
    assert key != make_task(p, "emu", "exact", None, None).key
    edited = round_to_odd_kernel(tmp_path / "cast_odd.cpp")
    assert key != make_task(p, "emu", None, (edited.name, edited.read_text()), None).key


def test_the_local_pool_gives_the_rows_one_process_gives(tmp_path):
    g = small_grid()
    serial = sweep(g, executor=Serial(), results=tmp_path / "a.jsonl")
    pooled = sweep(g, executor=LocalPool(2), results=tmp_path / "b.jsonl")
    assert pooled.attrs["executor"] == "local"
    assert set(pooled["worker"]).isdisjoint(serial["worker"])  # the pool's workers are other processes
    assert pooled.drop(columns=list(HOST_COLUMNS)).equals(serial.drop(columns=list(HOST_COLUMNS)))


def test_batches_keep_a_variant_together_and_give_every_worker_work():
    tasks = [
        make_task(p, "emu", None, None, None)
        for p in grid(CAST, dtypes=["int8:float16", "float32:float16"], shapes=[(n,) for n in range(1, 9)])
    ]
    cut = batches(tasks, workers=2)
    assert sorted(t.key for b in cut for t in b) == sorted(t.key for t in tasks)
    assert all(len({t.variant for t in b}) == 1 for b in cut) and len(cut) >= 4


def test_the_cli_writes_rows_and_exits_1_when_a_case_fails(tmp_path, capsys):
    kernel = round_to_odd_kernel(tmp_path / "cast_odd.cpp")
    out = tmp_path / "rows.csv"
    flags = [
        "sweep",
        "--op",
        "cast",
        "--dtype",
        "float32:float16",
        "--shape",
        "100",
        "--shape",
        "7,9",
        "--standard",
        "exact",
        "--executor",
        "serial",
        "--results",
        str(tmp_path / "r.jsonl"),
        "-q",
    ]
    assert main([*flags, "--out", str(out)]) == 0
    import pandas as pd

    assert len(pd.read_csv(out)) == 2
    capsys.readouterr()
    assert main([*flags, "--kernel", str(kernel), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["counts"]["fail"] == 2 and len(summary["not_passed"]) == 2
    assert main([*flags, "--out", str(tmp_path / "rows.xlsx")]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["sweep", "--op", "cast", "--dtype", "float32:float17", "-q"]) == 2
    assert "float17" in capsys.readouterr().err
