"""wb.compare_runs: two runs side by side (plan diff, outputs diffed and located to cores/tiles, both verdicts, every
time with its source, deltas only between like sources), its renderings, and the app's pin-as-A panel."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from planted import round_to_odd_kernel
from recorded_run import RECORDED_CASE

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.running.ab import Cell

CAST = wb.Case("cast", ("float32", "float16"), (400_000,))  # 8 cores of 3 tiles each on 310P3
INEXACT = np.float32(1 + 2**-12)  # half rounds it to 1.0 to nearest, to 1 + 2**-10 to odd: 1 ULP apart
SCE = "softmax_cross_entropy_with_logits"


def planted_positions(case: wb.Case, core: int, tile: int, n: int) -> np.ndarray:
    """n flat positions that `core` computes in `tile` (as the plan's locator says), spread over the tile."""
    plan = wb.plan(case)
    rng = plan.cores[core]
    candidates = np.arange(rng.start, rng.stop)
    owners = plan.locate_many(candidates)
    in_tile = candidates[owners.pos[(owners.core == core) & (owners.tile == tile)]]
    assert in_tile.size >= n
    return in_tile[:: in_tile.size // n][:n]


@pytest.fixture(scope="module")
def shipped_and_edited(tmp_path_factory: pytest.TempPathFactory) -> tuple[wb.Result, wb.Result, np.ndarray]:
    """CAST on inputs exact in half except 37 elements of core 5, tile 1: the shipped kernel (rounds to nearest) and
    the round-to-odd edit differ there only."""
    x = np.full(CAST.shape, 0.5, np.float32)
    planted = planted_positions(CAST, core=5, tile=1, n=37)
    x[planted] = INEXACT
    kernel = round_to_odd_kernel(tmp_path_factory.mktemp("planted"))
    shipped = wb.run(CAST, inputs={"x": x}, standard="exact")
    edited = wb.run(CAST, inputs={"x": x}, standard="exact", kernel=kernel)
    return shipped, edited, planted


def test_an_edited_kernel_s_differences_are_located_to_their_core_and_tile(shipped_and_edited) -> None:
    shipped, edited, planted = shipped_and_edited
    c = wb.compare_runs(shipped, edited, labels=("shipped", "edited"))
    assert [(d.field, d.a) for d in c.case_diff] == [("kernel", "shipped")] and c.case_diff[0].b == edited.kernel
    assert c.plan_diff == ()
    (y,) = c.outputs
    assert y.diffed and y.numel == 400_000 and y.differing == 37
    assert y.first == (int(planted[0]),) and y.max_ulp == 1 and y.max_abs == 2**-10
    (where,) = y.placements
    assert where.by == "shipped and edited" and where.cells == (Cell(core=5, tile=1, count=37),)
    assert where.where() == "all in core 5, tile 1"
    # both verdicts: the edit fails `exact` on exactly the planted elements
    assert (c.a.verdict, c.b.verdict) == ("PASS", "PRECISION FAIL")
    assert dict(c.b.outputs)["y"].startswith("FAIL: 37 of 400,000 failed (exact)")
    text = c.text()
    assert "y: 37 of 400,000 elements differ, all in core 5, tile 1" in text
    assert "PRECISION FAIL" in text and "plan: the same" in text
    assert "37 of 400,000 elements differ, all in core 5, tile 1" in c._repr_html_()
    assert "shipped PASS vs edited PRECISION FAIL" in repr(c)


def test_two_shapes_list_the_plan_fields_that_changed_and_do_not_diff_the_outputs() -> None:
    a = wb.run(wb.Case("cast", ("float32", "float16"), (4096,)))
    b = wb.run(wb.Case("cast", ("float32", "float16"), (5000,)))
    c = wb.compare_runs(a, b)
    assert [(d.field, d.a, d.b) for d in c.case_diff] == [("shape", (4096,), (5000,))]
    changed = {d.field: (d.a, d.b) for d in c.plan_diff}
    assert changed["fields.totalElements"] == (4096, 5000)
    assert all(changed[k] == (a.plan.fields.get(k[7:]), b.plan.fields.get(k[7:])) for k in changed if "fields." in k)
    assert {d.field for d in c.plan_diff} >= {"copy_bytes", "cores.core 0"}
    (y,) = c.outputs
    assert not y.diffed and y.differing == 0 and y.placements == ()
    assert y.reason == "shapes differ (A [4096], B [5000])"
    assert "y: not diffed: shapes differ (A [4096], B [5000])" in c.text()
    assert any("different inputs" in n for n in c.notes)


def test_two_platforms_compare_plans_and_outputs_of_the_same_inputs() -> None:
    case = wb.Case(SCE, ("float32",), (96, 256), platform="Ascend910B1")
    a = wb.run(case)
    b = wb.run(case.replace(platform="Ascend910B4"), inputs=a.inputs)
    c = wb.compare_runs(a, b)
    assert [(d.field, d.a, d.b) for d in c.case_diff] == [("platform", "Ascend910B1", "Ascend910B4")]
    changed = {d.field: (d.a, d.b) for d in c.plan_diff}
    assert changed["block_dim"] == (a.plan.block_dim, b.plan.block_dim) == (48, 32)
    assert changed["cores.core 47"][1] is None  # B has no 48th core
    assert c.notes == () and c.identical_outputs  # the same inputs, the same results on either split
    assert [o.summary() for o in c.outputs] == [
        "loss: identical (96 elements)",
        "backprop: identical (24,576 elements)",
    ]
    kernel = c.model[0]
    assert kernel.what == "kernel" and kernel.a_source == kernel.b_source == "predicted"
    assert kernel.delta == pytest.approx(kernel.b - kernel.a) and kernel.a != kernel.b  # each on its own platform


def test_the_emulator_against_a_replayed_record_of_it(live: wb.Result, recorded: Path) -> None:
    replayed = wb.run(RECORDED_CASE, backend="replay", distribution="edges")
    c = wb.compare_runs(live, replayed, labels=("emulator", "replay"))
    assert [(d.field, d.a, d.b) for d in c.case_diff] == [("backend", "emu", "replay")]
    assert c.plan_diff == () and c.notes == () and c.identical_outputs
    assert "record made on emulator" in c.b.what and c.a.verdict == c.b.verdict
    # the record has no emulator trace: no prediction for B (compare_runs runs nothing), and no delta against A's
    assert c.model_how[1] == "no prediction: no emulator trace (a replayed record keeps none)"
    assert all(r.b is None and r.delta is None and r.note == "no replay time" for r in c.model)
    kernel = next(r for r in c.timings if r.what == "kernel_s")
    assert kernel.a_source == kernel.b_source == "emulator wall" and kernel.b == live.timings["kernel_s"]
    assert kernel.delta == 0.0


def test_every_time_has_its_source_and_deltas_are_only_between_like_sources(shipped_and_edited) -> None:
    shipped, edited, _ = shipped_and_edited
    on_device = dataclasses.replace(edited, timing_sources={**edited.timing_sources, "kernel_s": "device-measured"})
    c = wb.compare_runs(shipped, on_device)
    for r in (*c.timings, *c.model):
        assert (r.a is None) == (r.a_source is None) and (r.b is None) == (r.b_source is None)
        if r.a_source != r.b_source:
            assert r.delta is None and r.note
    kernel = next(r for r in c.timings if r.what == "kernel_s")
    assert (kernel.a_source, kernel.b_source, kernel.delta) == ("emulator wall", "device-measured", None)
    assert kernel.note == "device-measured − emulator wall: not subtracted, the sources differ"
    launch = next(r for r in c.timings if r.what == "launch_s")
    assert launch.delta == pytest.approx(edited.timings["launch_s"] - shipped.timings["launch_s"])
    # per pipe: the model's times of the slowest core, predicted both, so subtracted
    pipes = {r.what: r for r in c.model}
    assert list(pipes) == ["kernel", *(f"{p} (slowest core)" for p in ("MTE2", "V", "MTE3", "S")), "memory bound"]
    assert all(r.a_source == r.b_source == "predicted" and r.delta is not None for r in c.model[:-1])
    assert pipes["memory bound"].a_source == "theoretical"
    text = c.text()
    assert "device-measured − emulator wall: not subtracted" in text
    assert "device-measured: measured on a device" in text  # the sources' legend
    table = text.split("timings (")[1].split("performance model")[0].splitlines()[3:]
    rows = [line for line in table if line.strip() and not line.startswith("   ")]  # not a wrapped note's line
    assert len(rows) == len(c.timings) and all(
        line.count("host wall") + line.count("emulator wall") + line.count("device-measured") >= 2 for line in rows
    )
    assert c.to_json()["timings"][3]["b"] == {"seconds": edited.timings["kernel_s"], "source": "device-measured"}


def test_bad_arguments_are_refused_by_name(shipped_and_edited) -> None:
    shipped, _, _ = shipped_and_edited
    with pytest.raises(InvalidInput, match="run B"):
        wb.compare_runs(shipped, "result.json")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="labels"):
        wb.compare_runs(shipped, shipped, labels=("A", "A"))


def test_the_app_pins_a_run_as_a_and_compares_the_next_run_with_it(tmp_path: Path) -> None:
    pytest.importorskip("ipywidgets")
    from workbench.view.ui import Workbench

    app = Workbench(wb.Case("cast", ("float32", "float16"), (4096,)))
    assert app.ab.pin_button.disabled  # nothing to pin before a run
    first = app.run()
    assert first is not None and not app.ab.pin_button.disabled
    app.ab.pin_button.click()
    assert app.ab.pinned is first and "A: cast" in app.ab.status.value and app.ab.comparison is None
    app.controls["shape"].value = "5000"
    second = app.run()
    c = app.ab.comparison
    assert c is not None and second is not None
    assert [(d.field, d.a, d.b) for d in c.case_diff] == [("shape", (4096,), (5000,))]
    assert "shapes differ" in app.ab.body.value and "fields.totalElements" in app.ab.body.value
    app.ab.unpin_button.click()
    assert app.ab.pinned is None and app.ab.body.value == ""
    app.run()
    assert app.ab.comparison is None  # nothing pinned: nothing compared


def test_the_cli_compares_two_records(
    shipped_and_edited, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench.running import store
    from workbench.view.cli import main

    monkeypatch.delenv(store.RECORDS_ENV, raising=False)
    shipped, edited, _ = shipped_and_edited
    a, b = store.record(shipped, tmp_path / "shipped"), store.record(edited, tmp_path / "edited")
    assert main(["compare", str(a), str(b)]) == 2  # B ran an edited copy, which a record does not keep
    assert "--kernel-b" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--kernel-b", edited.kernel, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["case_diff"] == [{"field": "kernel", "a": "shipped", "b": str(Path(edited.kernel).resolve())}]
    (y,) = out["outputs"]
    assert y["differing"] == 37 and y["placements"][0]["where"] == "all in core 5, tile 1"
    # replayed, both are judged under the default standard, within which 1 ULP passes
    assert (out["a"]["verdict"], out["b"]["verdict"]) == ("PASS", "PASS") and out["plan_diff"] == []
    assert "record made on emulator" in out["b"]["what"]
    # the records keep no trace: the emulator counts their work on the same kernels and inputs, so both are predicted
    model = {r["what"]: r for r in out["model"]}
    assert model["MTE2 (slowest core)"]["a"]["source"] == model["MTE2 (slowest core)"]["b"]["source"] == "predicted"
    assert all("work counted by the emulator" in how for how in out["model_how"])
    assert main(["compare", str(a), str(tmp_path / "missing")]) == 2


def test_msprof_pipe_times_are_compared_as_device_measured(shipped_and_edited, tmp_path: Path) -> None:
    from test_profiling import PIPE_HEADER, pipe_row

    from workbench.running.profiling import attach

    shipped, edited, _ = shipped_and_edited
    csv = tmp_path / "op_summary_0.csv"
    csv.write_text(
        "\n".join(
            [PIPE_HEADER, *(pipe_row(f"cast_kernel_{i}", "cast_kernel", "AI_CORE", i, 50.0, 8) for i in range(3))]
        )
    )
    c = wb.compare_runs(attach(shipped, csv), edited)
    mte2 = next(r for r in c.model if r.what == "MTE2 (msprof median)")
    # pipe_row's aiv_mte2_time(us) is 30.0; B has no op_summary: no B time and no delta
    assert (mte2.a, mte2.a_source, mte2.b, mte2.delta) == (pytest.approx(30e-6), "device-measured", None, None)
    both = wb.compare_runs(attach(shipped, csv), attach(edited, csv))
    rows = [r for r in both.model if r.what.endswith("(msprof median)")]
    assert [r.what.split()[0] for r in rows] == ["MTE2", "V", "MTE3", "S"]
    assert all(r.a_source == r.b_source == "device-measured" and r.delta == 0 for r in rows)


def test_nan_infinity_and_ulp_are_diffed_bit_by_bit(live: wb.Result) -> None:
    y = live.outputs["y"].copy()  # float16, 333 elements on 8 cores
    y[[3, 4, 10]] = [np.nan, np.nan, np.float16(y[10]) + np.float16(1)]  # NaN for 0, and 1.0 more
    left = dataclasses.replace(live, outputs={"y": y})
    y2 = y.copy()
    y2[3] = np.inf  # NaN against Inf: infinitely far, no ULP distance
    y2[10] = np.nextafter(y[10], np.float16(np.inf))  # 1 ULP above
    c = wb.compare_runs(left, dataclasses.replace(live, outputs={"y": y2}))
    (out,) = c.outputs
    assert out.differing == 2 and out.first == (3,) and out.worst == (3,)  # the NaN at 4 has the same bits on both
    assert out.max_abs == np.inf and out.max_ulp == 1
    owners = live.plan.locate_many(np.array([3, 10]))
    assert {(cell.core, cell.tile) for cell in out.placements[0].cells} == set(
        zip(owners.core.tolist(), owners.tile.tolist(), strict=True)
    )
    assert c.to_json()["outputs"][0]["max_abs"] == "inf"
