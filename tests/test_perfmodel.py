"""The performance model (workbench/judge/perfmodel.py): hand-computed predictions for synthetic traces, the per-SoC
defaults and their sources, the fit, the pipe timeline frame and chart, and the op worked examples on the emulator."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import pytest

import workbench as wb
from workbench.core.errors import WorkbenchError
from workbench.judge import perfmodel as pm
from workbench.view.render import charts, frames

SOC = "Ascend310P3"  # 8 physical cores
DOUBLE = (("VECIN", 2), ("VECOUT", 2))
SINGLE = (("VECIN", 1), ("VECOUT", 1))
# Round numbers so every expectation below is arithmetic: 1 GHz, 10 GB/s per core, 1 cycle per repeat, 1 µs launch.
P = pm.ModelParams(
    clock_hz=1e9,
    bandwidth=80e9,
    eta=1.0,
    mte_rate=10e9,
    mte_op_s=0.0,
    atomic_factor=2.0,
    mte_shared=True,
    vec_bytes_per_cycle=256.0,
    vec_call_cycles=0.0,
    repeat_cycles={},
    scalar_ub_cycles=1.0,
    scalar_gm_miss_cycles=100.0,
    launch_s=1e-6,
    sources={},
)


def core(
    index: int = 0,
    *,
    mte2: int = 0,
    mte2_ops: int = 1,
    mte3: int = 0,
    mte3_ops: int = 1,
    atomic: int = 0,
    vec: tuple[tuple[str, int, int, int], ...] = (),  # (api, calls, repeats, internal_repeats)
    scalar: dict[str, int] | None = None,
    queues: tuple[tuple[str, int], ...] = (),
) -> dict[str, Any]:
    return {
        "core": index,
        "mte2": {"bytes": mte2, "ops": mte2_ops if mte2 else 0, "bursts": 0, "small_ops": 0},
        "mte3": {"bytes": mte3, "ops": mte3_ops if mte3 else 0, "bursts": 0, "small_ops": 0},
        "ub2ub": {"bytes": 0, "ops": 0},
        "atomic": {"bytes": atomic, "ops": 1 if atomic else 0, "dtype": "float" if atomic else ""},
        "vec": [
            {"api": api, "src": "float", "dst": "float", "count": 64, "calls": c, "repeats": r, "internal_repeats": i}
            for api, c, r, i in vec
        ],
        "scalar": {
            "ub_get": 0,
            "ub_set": 0,
            "gm_get": 0,
            "gm_set": 0,
            "dcache_miss_lines": 0,
            "dcci": 0,
            **(scalar or {}),
        },
        "ub": {
            "peak_bytes": 0,
            "buffers": 0,
            "queues": [{"pos": p, "num": n, "len": 1024, "depth": n} for p, n in queues],
        },
    }


def trace(*cores: dict[str, Any]) -> dict[str, Any]:
    return {"cores": list(cores)}


def test_one_core_mte_only_runs_back_to_back() -> None:
    pred = pm.predict(trace(core(mte2=10_000, mte2_ops=2, mte3=5_000)), SOC, P)
    (c,) = pred.cores
    assert (c.mte2_s, c.mte3_s, c.vec_s, c.scalar_s) == pytest.approx((1e-6, 0.5e-6, 0, 0))
    assert not c.overlapped and c.core_s == pytest.approx(1.5e-6)
    assert pred.kernel_s == pytest.approx(2.5e-6)  # + 1 µs launch
    assert pred.bound_s == pytest.approx(15_000 / 80e9) and pred.gm_bytes == 15_000
    assert pred.bottleneck == "MTE2"
    with_alpha = pm.predict(trace(core(mte2=10_000, mte2_ops=2, mte3=5_000)), SOC, replace(P, mte_op_s=1e-7))
    assert with_alpha.cores[0].core_s == pytest.approx(1.5e-6 + 3 * 1e-7)  # three DataCopy calls


def test_vector_bound_core_counts_calls_repeats_and_overrides() -> None:
    vec = (("Add", 10, 10_000, 0), ("ReduceSum", 2, 1_000, 1_000))
    params = replace(P, vec_call_cycles=5.0, repeat_cycles={"ReduceSum": 3.0})
    pred = pm.predict(trace(core(mte2=1_000, vec=vec, queues=DOUBLE)), SOC, params)
    c = pred.cores[0]
    assert c.vec_s == pytest.approx((10 * 5 + 10_000 + 2 * 5 + 2_000 * 3) * 1e-9)
    assert pred.bottleneck == "V"
    assert c.core_s == pytest.approx(c.vec_s + c.mte2_s)  # one tile: nothing overlaps
    assert params.repeat_cost("Cast", "float", "half") == 1.0
    assert replace(P, repeat_cycles={"Cast:float:half": 2.0}).repeat_cost("Cast", "float", "half") == 2.0


def test_double_buffered_pipes_overlap_single_buffered_add_up() -> None:
    work = {"mte2": 40_000, "mte2_ops": 4, "mte3": 20_000, "mte3_ops": 4, "vec": (("Cast", 4, 2_000, 0),)}
    single = pm.predict(trace(core(**work, queues=SINGLE)), SOC, P).cores[0]
    double = pm.predict(trace(core(**work, queues=DOUBLE)), SOC, P).cores[0]
    separate = pm.predict(trace(core(**work, queues=DOUBLE)), SOC, replace(P, mte_shared=False)).cores[0]
    assert (single.mte2_s, single.vec_s, single.mte3_s) == pytest.approx((4e-6, 2e-6, 2e-6))
    assert not single.overlapped and single.core_s == pytest.approx(8e-6)
    assert double.overlapped and double.tiles == 4
    assert double.core_s == pytest.approx(6e-6 + 2e-6 / 4)  # MTE2+MTE3 share the rate; one tile of V fills/drains
    assert separate.core_s == pytest.approx(4e-6 + (2e-6 + 2e-6) / 4)  # max(MTE2, V, MTE3) + one tile of the others
    tbuf_only = pm.predict(trace(core(**work, queues=(("TBuf", 1),))), SOC, P).cores[0]
    assert not tbuf_only.overlapped


def test_slowest_core_sets_the_kernel_time_and_cores_share_the_chip() -> None:
    pred = pm.predict(trace(core(0, mte2=1_000), core(1, mte2=30_000)), SOC, P)
    assert pred.slowest is not None and pred.slowest.core == 1
    assert pred.kernel_s == pytest.approx(3e-6 + 1e-6)
    shared = pm.predict(trace(core(0, mte2=1_000), core(1, mte2=30_000)), SOC, replace(P, bandwidth=16e9))
    assert shared.cores[1].mte2_s == pytest.approx(30_000 / 8e9)  # 16 GB/s over 2 busy cores < 10 GB/s per core
    idle = pm.predict(trace(core(0, mte2=30_000), core(1)), SOC, replace(P, bandwidth=16e9))
    assert idle.cores[0].mte2_s == pytest.approx(30_000 / 10e9)  # an idle core takes no share


def test_blocks_beyond_the_physical_cores_wait_for_a_free_core() -> None:
    pred = pm.predict(trace(*(core(i, mte2=10_000) for i in range(9))), SOC, P)  # 310P3 has 8 cores
    assert [c.start_s for c in pred.cores] == pytest.approx([0.0] * 8 + [1e-6])
    assert pred.kernel_s == pytest.approx(2e-6 + 1e-6)


def test_atomic_bytes_cost_gamma_times_plain_bytes() -> None:
    pred = pm.predict(trace(core(mte3=3_000, atomic=1_000)), SOC, P)
    assert pred.cores[0].mte3_s == pytest.approx((2_000 + 2 * 1_000) / 10e9)
    assert pred.gm_bytes == 3_000  # the bound counts bytes moved, not their cost


def test_scalar_accesses_and_dcache_misses() -> None:
    pred = pm.predict(trace(core(scalar={"ub_get": 100, "gm_get": 10, "dcache_miss_lines": 2})), SOC, P)
    assert pred.cores[0].scalar_s == pytest.approx((110 * 1 + 2 * 100) * 1e-9)
    assert pred.bottleneck == "launch"  # 0.31 µs of work under a 1 µs launch


@pytest.mark.parametrize("empty", [{"cores": []}, {}])
def test_empty_trace_costs_the_launch(empty: dict[str, Any]) -> None:
    pred = pm.predict(empty, SOC, P)
    assert pred.cores == () and pred.kernel_s == P.launch_s and pred.bound_s == 0.0
    assert pred.bottleneck == "launch" and pred.slowest is None
    assert pred.how.startswith("predicted by the performance model from the emulator trace")


def test_bad_input_is_a_workbench_error() -> None:
    with pytest.raises(WorkbenchError, match="trace"):
        pm.predict({"cores": "nope"}, SOC, P)
    with pytest.raises(WorkbenchError, match=r"ModelParams\.eta"):
        replace(P, eta=0.0)
    with pytest.raises(WorkbenchError, match=r"ModelParams\.launch_s"):
        replace(P, launch_s=float("nan"))
    with pytest.raises(WorkbenchError, match="repeat_cycles"):
        replace(P, repeat_cycles={"Exp": -1.0})


@pytest.mark.parametrize("soc", list(wb.PLATFORMS))
def test_params_for_sources_every_field(soc: str) -> None:
    params = pm.params_for(soc)
    names = {f.name for f in fields(params)} - {"sources"}
    assert set(params.sources) == names
    assert all(len(params.sources[n]) > 10 and "no source recorded" not in params.sources[n] for n in names)
    assert params.bandwidth == wb.PLATFORMS[soc].memory_bandwidth
    for name in ("mte_op_s", "vec_bytes_per_cycle", "scalar_ub_cycles", "scalar_gm_miss_cycles", "launch_s"):
        assert "assumed" in params.sources[name], name


def test_params_for_per_soc_values() -> None:
    p310 = pm.params_for("Ascend310P3")
    assert (p310.clock_hz, p310.eta, p310.mte_rate) == (1e9, 0.5, pytest.approx(204.8e9 / 8))
    assert "assumed" in p310.sources["clock_hz"]
    b3, b1 = pm.params_for("Ascend910B3"), pm.params_for("Ascend910B1")
    assert (b3.clock_hz, b3.eta, b3.mte_rate) == (1.8e9, 1.0, pytest.approx(57.6e9))  # the SCE page's BW_core
    assert b1.clock_hz == 1.85e9 and "cube_freq" in b1.sources["clock_hz"]
    assert pm.predict({}, "Ascend910B3").kernel_s == 3e-6


def _fit_traces() -> list[dict[str, Any]]:
    """Memory-bound, vector-bound, single-buffered and imbalanced launches: enough variety to pin three unknowns."""
    return [
        trace(core(mte2=40_000, mte2_ops=4, mte3=20_000, mte3_ops=4, vec=(("Cast", 4, 500, 0),), queues=DOUBLE)),
        trace(core(mte2=8_000, mte2_ops=8, mte3=8_000, mte3_ops=8, vec=(("Exp", 8, 20_000, 0),), queues=DOUBLE)),
        trace(core(mte2=10_000, vec=(("Add", 1, 3_000, 0),), queues=SINGLE)),
        trace(core(0, mte2=5_000), core(1, mte2=50_000, vec=(("Add", 2, 1_000, 500),))),
        trace(core(mte2=200, vec=(("Add", 1, 10, 0),), scalar={"ub_get": 400})),
    ]


def test_fit_recovers_known_parameters() -> None:
    truth = replace(P, mte_rate=5e9, eta=0.5, vec_bytes_per_cycle=128.0, launch_s=4e-6)
    rows = [(pm.predict(t, SOC, P), pm.predict(t, SOC, truth).kernel_s) for t in _fit_traces()]
    result = pm.fit(rows)
    assert result.fitted == ("mem_scale", "vec_scale", "launch_s")
    assert (result.mem_scale, result.vec_scale, result.launch_s) == pytest.approx((2.0, 2.0, 4e-6), rel=1e-6)
    assert result.max_rel_error < 1e-6
    assert result.params.mte_rate == pytest.approx(5e9) and result.params.vec_bytes_per_cycle == pytest.approx(128)
    assert "fitted to 5 measured rows" in result.params.sources["mte_rate"]
    again = [pm.predict(t, SOC, result.params).kernel_s for t in _fit_traces()]
    assert again == pytest.approx(list(result.measured_s), rel=1e-6)  # the fitted params reproduce the measurements


def test_fit_with_one_row_fits_the_bandwidth_only() -> None:
    t = _fit_traces()[0]
    result = pm.fit([(pm.predict(t, SOC, P), pm.predict(t, SOC, replace(P, mte_rate=4e9)).kernel_s)])
    assert result.fitted == ("mem_scale",) and "fewer rows than the 3 unknowns" in result.note
    assert result.mem_scale == pytest.approx(2.5, rel=1e-6) and result.vec_scale == 1.0 and result.launch_s == 1e-6
    assert result.max_rel_error < 1e-9
    assert result.params.sources["vec_bytes_per_cycle"] == P.sources["vec_bytes_per_cycle"]


def test_fit_rejects_bad_rows() -> None:
    pred = pm.predict(_fit_traces()[0], SOC, P)
    for rows in ([], [(pred, 0.0)], [(pred, 1e-5), (pm.predict({}, SOC, replace(P, eta=0.9)), 1e-5)], [(1, 2)]):
        with pytest.raises(WorkbenchError, match="rows"):
            pm.fit(rows)  # type: ignore[arg-type]


def _timeline_prediction() -> pm.Prediction:
    work = {"mte2": 40_000, "mte2_ops": 4, "mte3": 20_000, "mte3_ops": 4, "vec": (("Cast", 4, 2_000, 0),)}
    return pm.predict(
        trace(core(0, **work, queues=DOUBLE), core(1, **work, queues=SINGLE, scalar={"ub_get": 500})), SOC, P
    )


def test_pipe_timeline_frame_lays_out_overlapped_and_sequential_pipes() -> None:
    frame = frames.pipe_timeline_frame(_timeline_prediction())
    assert list(frame.columns) == [
        "core", "pipe", "start_s", "end_s", "overlapped", "start_us", "end_us", "kernel_us", "bottleneck"
    ]  # fmt: skip
    spans = {(r.core, r.pipe): (r.start_us, r.end_us) for r in frame.itertuples()}
    assert spans[(0, "MTE2")] == pytest.approx((0, 4)) and spans[(0, "V")] == pytest.approx((0, 2))
    assert spans[(0, "MTE3")] == pytest.approx((4, 6))  # shares MTE2's rate, so it follows it
    assert spans[(1, "MTE2")] == pytest.approx((0, 4)) and spans[(1, "V")] == pytest.approx((4, 6))
    assert spans[(1, "MTE3")] == pytest.approx((6, 8)) and spans[(1, "S")] == pytest.approx((8, 8.5))
    assert frame["overlapped"].tolist() == [True] * 3 + [False] * 4
    assert frame["kernel_us"].unique().tolist() == pytest.approx([9.5])  # core 1 (8.5 µs) + 1 µs launch
    assert frames.pipe_timeline_frame(pm.predict({}, SOC, P)).empty


def test_pipe_timeline_chart_spec() -> None:
    spec = charts.pipe_timeline_chart(frames.pipe_timeline_frame(_timeline_prediction())).to_dict()
    bars, rule = spec["layer"]
    assert bars["mark"]["type"] == "bar" and rule["mark"]["type"] == "rule"
    enc = bars["encoding"]
    assert (enc["x"]["field"], enc["x2"]["field"], enc["y"]["field"]) == ("start_us", "end_us", "core")
    assert enc["yOffset"]["field"] == "lane" and enc["color"]["scale"]["domain"] == ["MTE2", "V", "MTE3", "S"]
    assert {t["field"] for t in enc["tooltip"]} >= {"core", "pipe", "overlapped"}
    assert rule["encoding"]["x"]["field"] == "kernel_us"


EXAMPLES = [  # the worked examples of docs/ops/*.md §4, with the GM traffic they state
    (wb.Case("cast", ("float32", "float16"), (1_000_000,)), 6_000_000),
    (wb.Case("embedding_dense_grad", ("float32",), (4096, 512), attrs={"num_weights": 1000}), None),
    (wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)), 768_256),
]


@pytest.mark.parametrize(("case", "traffic"), EXAMPLES, ids=lambda x: x.op if isinstance(x, wb.Case) else "")
def test_worked_examples_on_the_emulator(case: wb.Case, traffic: int | None) -> None:
    result = wb.run(case)
    pred = pm.predict(result.trace, case.soc)
    assert len(pred.cores) == wb.plan(case).block_dim
    assert 0 < pred.bound_s < pred.kernel_s < 1e-3 and pred.bottleneck in ("MTE2", "V", "MTE3", "S", "launch")
    if traffic is not None:
        assert pred.gm_bytes == traffic
    if pred.params.eta < 1:
        assert pred.kernel_s - pred.params.launch_s > pred.bound_s  # memory-bound ops cannot beat BW_chip·η
    frame = frames.pipe_timeline_frame(pred)
    assert set(frame["core"]) == {c.core for c in pred.cores}
