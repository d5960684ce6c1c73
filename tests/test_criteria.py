"""The seeds' performance criteria, the built-in op comparisons (double benchmark) and the timings they show.

A criterion's verdict (pass/fail/explain) rests on device-measured times only; any other time gives the neutral
"predicted: would …" naming its sources; a run that failed precision or faulted is "not judged"."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import workbench as wb
from workbench.judge.baseline import MIN_ERR, compare_builtin, double_benchmark, error_stats
from workbench.judge.criteria import Time, builtin_time, evaluate, kernel_time, versus_tbe
from workbench.judge.perfmodel import predict
from workbench.ops.embedding_dense_grad.criteria import theory_s
from workbench.running.launch import Diagnostic
from workbench.view.render.frames import timings_frame
from workbench.view.render.html import BADGE, NEUTRAL_BADGE, criteria_html

US = 1e-6


@pytest.fixture(scope="module")
def cast_run() -> wb.Result:
    return wb.run(wb.Case("cast", ("float32", "float16"), (8 * 4096,)))


def on_device(result: wb.Result, kernel_s: float, builtin_s: float | None = None) -> wb.Result:
    """The same run as a device would report it: device-measured kernel (and built-in) times."""
    npu = {"timing": "measured", "how": "measured on the device", "emulated": False, "builtin": "aclnnCast"}
    timings = {**result.timings, "kernel_s": kernel_s}
    sources = {**result.timing_sources, "kernel_s": "device-measured", "launch_s": "host wall"}
    if builtin_s is not None:
        timings["builtin_kernel_s"], sources["builtin_kernel_s"] = builtin_s, "device-measured"
    return replace(result, backend="npu", trace={**result.trace, "npu": npu}, timings=timings, timing_sources=sources)


def device(us: float) -> Time:
    return Time(us * US, "device-measured", "")


@pytest.mark.parametrize(
    ("kernel_us", "tbe_us", "status"),
    [
        (100, 96, "pass"),  # 100 <= 96 / 0.95 = 101.05
        (102, 96, "fail"),
        (9, 5, "explain"),  # small shape (TBE < 10 µs): a 4 µs gap needs an explanation
        (7.9, 5, "pass"),  # small shape, 2.9 µs gap
    ],
)
def test_versus_tbe_applies_95_percent_and_the_small_shape_rule(kernel_us: float, tbe_us: float, status: str) -> None:
    c = versus_tbe("P", device(kernel_us), device(tbe_us), 0.95, "rule")
    assert c.status == status and c.verdict
    assert c.headline == f"{status} (kernel device-measured, TBE device-measured)"


@pytest.mark.parametrize(
    ("kernel", "tbe"),
    [
        ("predicted", "proxy"),
        ("device-measured", "proxy"),
        ("predicted", "device-measured"),
        ("emulator wall", "proxy"),
    ],
)
@pytest.mark.parametrize(("kernel_us", "tbe_us", "outcome"), [(100, 96, "pass"), (102, 96, "fail"), (9, 5, "explain")])
def test_only_device_measured_times_give_a_verdict_any_other_source_a_neutral_prediction(
    kernel: str, tbe: str, kernel_us: float, tbe_us: float, outcome: str
) -> None:
    c = versus_tbe("P", Time(kernel_us * US, kernel, ""), Time(tbe_us * US, tbe, ""), 0.95, "rule")  # type: ignore[arg-type]
    assert c.status == f"would {outcome}" and not c.verdict
    assert c.headline == f"predicted: would {outcome} (not measured: kernel {kernel}, TBE {tbe})"


def test_a_criterion_without_a_time_is_not_evaluated_and_says_why() -> None:
    c = versus_tbe("P", Time(1e-5, "predicted", ""), Time(None, None, "needs an NPU"), 0.95, "rule")
    assert c.status == "not evaluated" and c.detail == "needs an NPU" and c.headline == "not evaluated"
    with pytest.raises(ValueError, match="measured"):  # a time's source is one of the vocabulary's
        Time(1e-5, "measured", "")  # type: ignore[arg-type]


def test_emulator_runs_are_judged_on_the_model_never_on_the_emulators_wall_time(cast_run: wb.Result) -> None:
    t = kernel_time(cast_run)
    assert t.source == "predicted" and t.seconds == predict(cast_run.trace, cast_run.case.soc).kernel_s
    assert t.seconds != cast_run.timings["kernel_s"] and cast_run.timing_sources["kernel_s"] == "emulator wall"
    (p1,) = evaluate(cast_run)
    assert p1.name.startswith("P1") and "(predicted) vs TBE" in p1.detail and "(proxy)" in p1.detail
    assert p1.status.startswith("would ") and not p1.verdict  # a predicted kernel against a proxy TBE: no verdict
    assert dict(p1.times)["kernel"].source == "predicted" and dict(p1.times)["TBE"].source == "proxy"
    assert builtin_time(cast_run).seconds is None and "NPU" in builtin_time(cast_run).how


def test_cast_p1_uses_measured_times_on_a_device_and_gates_all_core_cases_only(cast_run: wb.Result) -> None:
    assert cast_run.plan.block_dim == cast_run.case.soc.core_num
    (p1,) = evaluate(on_device(cast_run, 50 * US, 48 * US))
    assert (p1.status, p1.verdict) == ("pass", True) and "50 µs" in p1.detail
    (p1,) = evaluate(on_device(cast_run, 60 * US, 48 * US))
    assert p1.status == "fail"
    (p1,) = evaluate(on_device(cast_run, 50 * US))  # a device kernel time against TBE's proxy: still a prediction
    assert p1.status.startswith("would ") and "TBE proxy" in p1.headline
    few = wb.run(wb.Case("cast", ("float32", "float16"), (64,)))
    assert few.plan.block_dim < few.case.soc.core_num
    (p1,) = evaluate(few)
    assert p1.status == "not evaluated" and "all-core" in p1.detail


def failed_precision(result: wb.Result) -> wb.Result:
    """`result` with its one output's report failing (the kernel's outputs judged against a wrong golden)."""
    (name,) = result.reports
    wrong = {name: result.expected[name] + np.ones_like(result.expected[name])}
    report = wb.compare(result.outputs[name], wrong[name], result.reports[name].dtype)
    return replace(result, reports={name: report}, expected=wrong)


def test_a_run_that_failed_precision_gets_no_criterion_verdict(cast_run: wb.Result) -> None:
    def not_judged(run: wb.Result) -> None:
        assert run.verdict == "PRECISION FAIL"
        (p1,) = evaluate(run)
        assert p1.name.startswith("P1") and p1.status == "not judged" and not p1.verdict and not p1.times
        assert p1.detail.startswith("the run failed precision") and p1.headline == "not judged"

    not_judged(failed_precision(cast_run))
    not_judged(failed_precision(on_device(cast_run, 50 * US, 48 * US)))  # even device times that would pass


def test_a_faulted_run_gets_no_criterion_verdict(cast_run: wb.Result) -> None:
    def not_judged(run: wb.Result) -> None:
        assert run.verdict == "KERNEL FAULT"
        (p1,) = evaluate(run)
        assert p1.status == "not judged" and p1.detail.startswith("the kernel faulted") and not p1.times

    not_judged(replace(cast_run, exit_code=3))
    fault = Diagnostic("GM_OUT_OF_BOUNDS", "error", 0, "DataCopy", "cast.cpp", 1, "read past the end")
    not_judged(replace(on_device(cast_run, 50 * US, 48 * US), diagnostics=(fault,)))


def test_cast_p2_compares_bfloat16_with_the_float32_input_on_the_same_shape() -> None:
    shape = (8 * 4096,)
    bf16 = wb.run(wb.Case("cast", ("bfloat16", "float16"), shape))
    names = [c.name for c in evaluate(bf16)]
    assert names == ["P1 ≥ 95 % of TBE", "P2 bfloat16 ≥ 90 % of float32 input"]
    assert evaluate(bf16)[1].status == "not evaluated" and "float32→float16" in evaluate(bf16)[1].detail
    f32 = wb.run(wb.Case("cast", ("float32", "float16"), shape))
    p2 = evaluate(on_device(bf16, 88 * US), on_device(f32, 80 * US))[1]
    assert p2.status == "pass" and p2.sources == "bfloat16 kernel device-measured, float32 kernel device-measured"
    assert evaluate(bf16, f32)[1].status.startswith("would ")  # both predicted: a prediction, not a verdict
    p2 = evaluate(on_device(bf16, 89 * US), on_device(f32, 80 * US))[1]
    assert p2.status == "fail"
    p2 = evaluate(on_device(bf16, 50 * US), f32)[1]  # a measured time against a predicted one proves nothing
    assert p2.status == "not evaluated"
    p2 = evaluate(on_device(bf16, 88 * US), failed_precision(on_device(f32, 80 * US)))[1]
    assert p2.status == "not evaluated" and "PRECISION FAIL" in p2.detail  # nor does a reference that failed


def test_edg_gate_follows_the_seed_formula_on_the_main_path_only() -> None:
    run = wb.run(wb.Case("embedding_dense_grad", ("float32", "int32"), (512, 64), attrs={"num_weights": 100}))
    input_bytes = 512 * 64 * 4 + 512 * 4
    assert theory_s(run) == pytest.approx(input_bytes * 2 / (204e9 * 0.5))  # 1.3 µs: below 100 µs, 1.3x applies
    (c,) = evaluate(on_device(run, 1.3 * theory_s(run) * 0.99))
    assert c.status == "pass" and c.sources == "kernel device-measured, T_theory theoretical"  # a bound is no guess
    (c,) = evaluate(run)
    assert c.status.startswith("would ") and "kernel predicted" in c.sources
    (c,) = evaluate(on_device(run, 1.3 * theory_s(run) * 1.01))
    assert c.status == "explain"  # below 100 µs a miss asks for an analysis, not a fail
    unaligned = wb.run(wb.Case("embedding_dense_grad", ("float32", "int32"), (64, 12), attrs={"num_weights": 10}))
    (c,) = evaluate(unaligned)
    assert c.status == "explain" and "unaligned D" in c.detail


def test_double_benchmark_ratios_are_hand_computed() -> None:
    g = np.array([1.0, 2.0, 4.0, 0.0], np.float32)
    kernel = np.array([1.01, 2.0, 4.0, 0.0], np.float32)  # rel 0.01 at one element
    builtin = np.array([1.0, 2.02, 4.0, 0.0], np.float32)  # rel 0.01 at another
    k = error_stats(kernel, g)
    assert k.mare == pytest.approx(0.01, rel=1e-5) and k.mere == pytest.approx(0.01 / 3, rel=1e-5)
    assert k.rmse == pytest.approx(np.sqrt(0.01**2 / 4), rel=1e-4)
    d = double_benchmark("y", "float32", kernel, builtin, g)
    assert d.ratios["mare"] == pytest.approx(1.0, rel=1e-4) and d.ratios["rmse"] == pytest.approx(0.5, rel=1e-3)
    assert d.passed
    exact = double_benchmark("y", "float16", kernel, g, g)  # an exact built-in op: the divisor is floored
    assert exact.ratios["mare"] == pytest.approx(0.01 / MIN_ERR["float16"], rel=1e-4) and not exact.passed


def test_three_comparisons_when_the_builtin_op_ran(cast_run: wb.Result) -> None:
    builtin = {"y": cast_run.expected["y"].copy()}
    builtin["y"][0] = np.float16(1000)
    b = compare_builtin(cast_run.reports, cast_run.outputs, builtin, cast_run.expected)
    assert not b.builtin_vs_golden["y"].passed and not b.kernel_vs_builtin["y"].passed
    assert set(b.double_benchmark) == {"y"}


def test_the_timings_frame_gives_every_time_its_source(cast_run: wb.Result) -> None:
    frame = timings_frame(on_device(cast_run, 50 * US, 48 * US)).set_index(["step", "source"])
    assert frame.loc[("kernel", "device-measured"), "seconds"] == pytest.approx(50 * US)
    assert frame.loc[("kernel", "device-measured"), "how"] == "measured on the device"
    assert frame.loc[("built-in (TBE)", "device-measured"), "seconds"] == pytest.approx(48 * US)
    emu = timings_frame(cast_run).set_index(["step", "source"])
    # the emulator's own time is labelled as such, never as a device time; the device row says what it needs
    assert emu.loc[("kernel", "emulator wall"), "seconds"] == cast_run.timings["kernel_s"]
    assert "says nothing about device speed" in emu.loc[("kernel", "emulator wall"), "how"]
    assert not emu.loc[("kernel", "device-measured"), "available"]
    assert "needs an NPU" in emu.loc[("kernel", "device-measured"), "how"]
    assert emu.loc[("kernel", "predicted"), "available"] and emu.loc[("kernel", "theoretical"), "available"]
    assert emu.loc[("build", "host wall"), "available"] and emu.loc[("golden", "host wall"), "available"]
    assert set(emu.index.get_level_values("source")) <= {"device-measured", "emulator wall", "host wall",
                                                          "predicted", "theoretical"}  # fmt: skip


def test_criteria_badges_are_coloured_only_for_a_verdict_on_device_times(cast_run: wb.Result) -> None:
    html = criteria_html(evaluate(on_device(cast_run, 60 * US, 48 * US)))
    assert "data-status='fail'" in html and "(kernel device-measured, TBE device-measured)" in html
    assert "T_TBE / 0.95" in html and BADGE["fail"] in html
    predicted = criteria_html(evaluate(cast_run))
    assert "predicted: would " in predicted and "(not measured: kernel predicted, TBE proxy)" in predicted
    assert NEUTRAL_BADGE in predicted and not any(colour in predicted for colour in BADGE.values())  # no green
    failed = criteria_html(evaluate(failed_precision(on_device(cast_run, 50 * US, 48 * US))))
    assert "data-status='not judged'" in failed and "the run failed precision" in failed
    assert not any(colour in failed for colour in BADGE.values())
    assert criteria_html(()) == ""
