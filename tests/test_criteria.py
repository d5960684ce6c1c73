"""The seeds' performance criteria, the built-in op comparisons (double benchmark) and the timings they show."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import workbench as wb
from workbench.baseline import MIN_ERR, compare_builtin, double_benchmark, error_stats
from workbench.criteria import Time, builtin_time, evaluate, kernel_time, versus_tbe
from workbench.ops.embedding_dense_grad.criteria import theory_s
from workbench.perfmodel import predict
from workbench.render.frames import timings_frame
from workbench.render.html import criteria_html

US = 1e-6


@pytest.fixture(scope="module")
def cast_run() -> wb.Result:
    return wb.run(wb.Case("cast", ("float32", "float16"), (8 * 4096,)))


def on_device(result: wb.Result, kernel_s: float, builtin_s: float | None = None) -> wb.Result:
    """The same run as a device would report it: measured kernel (and built-in) times."""
    npu = {"timing": "measured", "how": "measured on the device", "emulated": False, "builtin": "aclnnCast"}
    timings = {**result.timings, "kernel_s": kernel_s}
    if builtin_s is not None:
        timings["builtin_kernel_s"] = builtin_s
    return replace(result, backend="npu", trace={**result.trace, "npu": npu}, timings=timings)


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
    c = versus_tbe("P", Time(kernel_us * US, "measured", ""), Time(tbe_us * US, "measured", ""), 0.95, "rule")
    assert c.status == status and c.basis == "measured"


def test_a_criterion_without_a_time_is_not_evaluated_and_says_why() -> None:
    c = versus_tbe("P", Time(1e-5, "predicted", ""), Time(None, "", "needs an NPU"), 0.95, "rule")
    assert c.status == "not evaluated" and c.detail == "needs an NPU"
    mixed = versus_tbe("P", Time(1e-5, "predicted", ""), Time(1e-5, "measured", ""), 0.95, "rule")
    assert mixed.basis == "predicted"  # one predicted input makes the verdict predicted


def test_emulator_runs_are_judged_on_the_model_never_on_the_emulators_wall_time(cast_run: wb.Result) -> None:
    t = kernel_time(cast_run)
    assert t.basis == "predicted" and t.seconds == predict(cast_run.trace, cast_run.case.soc).kernel_s
    assert t.seconds != cast_run.timings["kernel_s"]
    (p1,) = evaluate(cast_run)
    assert (
        p1.name.startswith("P1")
        and p1.basis == "proxy"
        and "(predicted) vs TBE" in p1.detail
        and "(proxy)" in p1.detail
    )
    assert builtin_time(cast_run).seconds is None and "NPU" in builtin_time(cast_run).how


def test_cast_p1_uses_measured_times_on_a_device_and_gates_all_core_cases_only(cast_run: wb.Result) -> None:
    assert cast_run.plan.block_dim == cast_run.case.soc.core_num
    (p1,) = evaluate(on_device(cast_run, 50 * US, 48 * US))
    assert (p1.status, p1.basis) == ("pass", "measured") and "50 µs" in p1.detail
    (p1,) = evaluate(on_device(cast_run, 60 * US, 48 * US))
    assert p1.status == "fail"
    few = wb.run(wb.Case("cast", ("float32", "float16"), (64,)))
    assert few.plan.block_dim < few.case.soc.core_num
    (p1,) = evaluate(few)
    assert p1.status == "not evaluated" and "all-core" in p1.detail


def test_cast_p2_compares_bfloat16_with_the_float32_input_on_the_same_shape() -> None:
    shape = (8 * 4096,)
    bf16 = wb.run(wb.Case("cast", ("bfloat16", "float16"), shape))
    names = [c.name for c in evaluate(bf16)]
    assert names == ["P1 ≥ 95 % of TBE", "P2 bfloat16 ≥ 90 % of float32 input"]
    assert evaluate(bf16)[1].status == "not evaluated" and "float32→float16" in evaluate(bf16)[1].detail
    f32 = wb.run(wb.Case("cast", ("float32", "float16"), shape))
    p2 = evaluate(on_device(bf16, 88 * US), on_device(f32, 80 * US))[1]
    assert (p2.status, p2.basis) == ("pass", "measured")  # 88 <= 80 / 0.9 = 88.9
    p2 = evaluate(on_device(bf16, 89 * US), on_device(f32, 80 * US))[1]
    assert p2.status == "fail"
    p2 = evaluate(on_device(bf16, 50 * US), f32)[1]  # a measured time against a predicted one proves nothing
    assert p2.status == "not evaluated"


def test_edg_gate_follows_the_seed_formula_on_the_main_path_only() -> None:
    run = wb.run(wb.Case("embedding_dense_grad", ("float32", "int32"), (512, 64), attrs={"num_weights": 100}))
    input_bytes = 512 * 64 * 4 + 512 * 4
    assert theory_s(run) == pytest.approx(input_bytes * 2 / (204e9 * 0.5))  # 1.3 µs: below 100 µs, 1.3x applies
    (c,) = evaluate(on_device(run, 1.3 * theory_s(run) * 0.99))
    assert c.status == "pass"
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


def test_the_timings_frame_labels_a_device_run_measured_and_shows_tbe(cast_run: wb.Result) -> None:
    frame = timings_frame(on_device(cast_run, 50 * US, 48 * US)).set_index(["step", "kind"])
    assert frame.loc[("kernel", "measured"), "seconds"] == pytest.approx(50 * US)
    assert frame.loc[("kernel", "measured"), "how"] == "measured on the device"
    assert frame.loc[("kernel", "built-in"), "seconds"] == pytest.approx(48 * US)
    emu = timings_frame(cast_run).set_index(["step", "kind"])
    assert "not a device time" in emu.loc[("kernel", "measured"), "how"]
    assert emu.loc[("kernel", "predicted"), "available"]


def test_criteria_badges_render_status_basis_and_rule(cast_run: wb.Result) -> None:
    html = criteria_html(evaluate(on_device(cast_run, 60 * US, 48 * US)))
    assert "data-status='fail'" in html and "<i>(measured)</i>" in html and "T_TBE / 0.95" in html
    assert criteria_html(()) == ""
