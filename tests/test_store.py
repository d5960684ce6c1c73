"""Records and the replay backend: a bit-exact round trip, clear errors for damaged records, and the shipped
records (made on the emulator) replayed through the same pipeline as a live run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from recorded_run import RECORDED_CASE as CASE

import workbench as wb
from workbench.core import resources
from workbench.core.errors import InvalidInput, WorkbenchError
from workbench.running import store
from workbench.running.launch import prepare
from workbench.view.cli import main
from workbench.view.render import frames


def test_round_trip_is_bit_exact(live: wb.Result, recorded: Path) -> None:
    rec = store.load(recorded)
    assert rec.source == "emulator" and rec.meta["schema"] == store.SCHEMA and rec.meta["case"] == CASE.to_json()
    assert rec.key == store.launch_key(prepare(CASE, live.plan, live.inputs))
    for mine, theirs in ((rec.inputs, live.inputs), (rec.outputs, live.outputs)):
        assert set(mine) == set(theirs)
        for k in mine:
            assert mine[k].dtype == theirs[k].dtype and mine[k].tobytes() == theirs[k].tobytes()


def test_replay_serves_the_recorded_run(live: wb.Result, recorded: Path) -> None:
    replayed = wb.run(CASE, backend="replay", distribution="edges")
    assert replayed.passed and replayed.backend == "replay"
    assert replayed.outputs["y"].tobytes() == live.outputs["y"].tobytes()
    assert replayed.trace["replay"]["source"] == "emulator" and replayed.trace["replay"]["path"] == str(recorded)
    assert replayed.timing_sources == {**live.timing_sources, "golden_s": "host wall"}  # emulator wall stays so
    how = frames.timings_frame(replayed).set_index(["step", "source"]).loc[("launch", "emulator wall"), "how"]
    assert "recorded on the emulator at " in how and "replayed from" in how
    with pytest.raises(InvalidInput, match="replay"):  # a replay is a record already
        store.record(replayed, recorded.parent / "again")


def test_a_device_record_keeps_the_builtin_outputs_and_measured_times(
    live: wb.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from workbench.judge.criteria import builtin_time, kernel_time

    builtin = {"y": live.expected["y"].copy()}
    npu = {"timing": "measured", "how": "measured on the device", "emulated": False, "cann_version": "8.0.RC3"}
    device = replace(
        live,
        backend="npu",
        builtin=builtin,
        trace={"npu": npu},
        timings={**live.timings, "kernel_s": 9e-6, "builtin_kernel_s": 8e-6},
        timing_sources={**live.timing_sources, "kernel_s": "device-measured", "builtin_kernel_s": "device-measured"},
    )
    monkeypatch.setenv(store.RECORDS_ENV, str(tmp_path))
    rec = store.load(store.record(device, tmp_path / "device"))
    assert rec.source == "npu" and rec.meta["cann_version"] == "8.0.RC3" and rec.meta["timing"].startswith("measured")
    assert rec.builtin["y"].tobytes() == builtin["y"].tobytes()
    replayed = wb.run(CASE, backend="replay", distribution="edges")
    assert replayed.baseline is not None and replayed.baseline.builtin_vs_golden["y"].passed  # three comparisons
    assert kernel_time(replayed).source == "device-measured" and kernel_time(replayed).seconds == 9e-6
    assert builtin_time(replayed).seconds == 8e-6


def test_a_faulted_run_is_recorded_and_replayed_as_a_fault(
    live: wb.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from workbench.running.launch import Diagnostic

    abort = Diagnostic(
        "KERNEL_ABORT", "fatal", 3, "DataCopy", "/elsewhere/cast.cpp", 12, "m", count=2, details={"a": 1}
    )
    faulted = replace(live, exit_code=2, diagnostics=(abort,))
    monkeypatch.setenv(store.RECORDS_ENV, str(tmp_path))
    rec = store.load(store.record(faulted, tmp_path / "fault"))
    assert rec.meta["exit_code"] == 2 and rec.diagnostics == (abort,)
    replayed = wb.run(CASE, backend="replay", distribution="edges")
    assert replayed.faulted and replayed.verdict == "KERNEL FAULT" and replayed.diagnostics == (abort,)


def test_replay_without_a_record_names_the_key_and_where_it_looked(recorded: Path) -> None:
    with pytest.raises(
        WorkbenchError, match=rf"^backend: got 'replay'; allowed: a record of this exact launch .*{store.RECORDS_ENV}"
    ):
        wb.run(CASE, backend="replay", seed=1)  # another seed: other inputs, another launch key


def test_a_truncated_or_tampered_record_is_refused(recorded: Path) -> None:
    npz, meta = recorded.with_suffix(".npz"), json.loads(recorded.read_text())
    npz.write_bytes(npz.read_bytes()[:-100])
    with pytest.raises(InvalidInput, match=rf"^record {npz}: .*truncated"):
        store.load(recorded)
    meta["schema"] = 99
    recorded.write_text(json.dumps(meta))
    with pytest.raises(InvalidInput, match=rf"^record {recorded}: schema: got 99; allowed: {store.SCHEMA}"):
        store.load(recorded)
    recorded.write_text("{not json")
    with pytest.raises(InvalidInput, match=rf"^record {recorded}: got not valid JSON"):
        store.load(recorded)


def test_a_record_whose_arrays_disagree_with_its_json_is_refused(recorded: Path) -> None:
    meta = json.loads(recorded.read_text())
    meta["arrays"]["out.y"]["shape"] = [334]  # the npz's hash still matches: the digest over the JSON does not
    recorded.write_text(json.dumps(meta))
    with pytest.raises(InvalidInput, match="modified after recording"):
        store.load(recorded)


SHIPPED = sorted(resources.path("data/records").glob("*.json"))


def test_records_ship_for_every_op_in_this_schema() -> None:
    records = [store.load(p) for p in SHIPPED]  # verified: digest, fields, arrays
    assert {r.meta["case"]["op"] for r in records} == set(wb.OPS)
    assert all(
        r.source == "emulator" and r.meta["schema"] == 2 and r.meta["digest"].startswith("sha256:") for r in records
    )


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_records_replay_and_match_the_emulator_today(path: Path) -> None:
    """If this fails after a kernel or tiling change, re-record: `workbench record ... --out data/records/NAME
    --force` (docs/records.md)."""
    meta = json.loads(path.read_text())
    c = meta["case"]
    case = wb.Case(c["op"], tuple(c["dtypes"]), tuple(c["shape"]), c["format"], c["attrs"], c["platform"])
    replayed = wb.run(case, backend="replay", seed=meta["seed"], distribution=meta["distribution"])
    live = wb.run(case, seed=meta["seed"], distribution=meta["distribution"])
    assert replayed.passed and live.passed
    for name, arr in live.outputs.items():
        assert np.array_equal(arr.view(np.uint8), replayed.outputs[name].view(np.uint8)), name


def test_cli_record_refuses_a_missing_folder_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["record", "cast", "--dtype", "float32:float16", "--shape", "64", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "nope" / "r")]) == 2
    assert capsys.readouterr().err.startswith("workbench: --out: got ")
    assert main([*argv, "--out", str(tmp_path / "r")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.npz"]  # no temporary file left behind
