"""A rerun of the same case reuses its inputs and golden (a bounded cache of read-only arrays); anything that could
change them (seed, distribution, the case, inputs given by the caller) is a new computation."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.planning import pipeline
from workbench.running import reruns, runner

CASE = wb.Case("cast", ("float32", "float16"), (4099,))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    reruns.clear()
    calls = {"inputs": 0, "golden": 0}
    make, golden = runner.make_inputs, runner._timed_golden

    def counting_make(*a: object, **k: object) -> dict[str, np.ndarray]:
        calls["inputs"] += 1
        return make(*a, **k)  # type: ignore[arg-type]

    def counting_golden(*a: object, **k: object) -> object:
        calls["golden"] += 1
        return golden(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "make_inputs", counting_make)
    monkeypatch.setattr(runner, "_timed_golden", counting_golden)
    yield calls
    reruns.clear()


def test_a_rerun_reuses_inputs_and_golden_and_gives_the_same_verdict(counted: dict[str, int]) -> None:
    first = wb.run(CASE, seed=3)
    again = wb.run(CASE, seed=3)
    assert counted == {"inputs": 1, "golden": 1}
    assert first.passed and again.passed
    assert again.stages["inputs_s"] < 0.01 and again.stages["golden_s"] == 0.0
    assert again.timings["golden_s"] == first.timings["golden_s"] > 0  # the golden's cost, as it was measured
    for name in first.inputs:
        assert np.array_equal(first.inputs[name], again.inputs[name])
    assert np.array_equal(pipeline.golden(CASE, again.inputs)["y"].view(np.uint16), again.expected["y"].view(np.uint16))


def test_what_changes_the_inputs_is_computed_anew(counted: dict[str, int]) -> None:
    wb.run(CASE, seed=3)
    wb.run(CASE, seed=4)
    wb.run(CASE, seed=3, distribution="edges")
    wb.run(wb.Case("cast", ("float32", "float16"), (4100,)), seed=3)
    given = pipeline.make_inputs(CASE, 3)
    wb.run(CASE, seed=3, inputs=given)  # the caller's own arrays: never served from, never stored in, the cache
    assert counted == {"inputs": 4, "golden": 5}
    wb.run(CASE, seed=3)
    assert counted == {"inputs": 4, "golden": 5}


def test_a_result_cannot_change_what_later_runs_compare_against(counted: dict[str, int]) -> None:
    result = wb.run(CASE, seed=5)
    with pytest.raises(ValueError, match="read-only"):
        result.inputs["x"][0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        result.expected["y"][0] = 1.0
    assert wb.run(CASE, seed=5).passed


def test_the_cache_is_bounded_in_bytes(counted: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> None:
    one = 4099 * (4 + 2)  # float32 x and float16 y
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", str(2 * one))
    for seed in (1, 2, 3):
        wb.run(CASE, seed=seed)
    assert reruns.held() == 2 * one
    wb.run(CASE, seed=1)  # the least recently used went first
    assert counted["inputs"] == 4
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "0")
    reruns.clear()
    wb.run(CASE, seed=1)
    wb.run(CASE, seed=1)
    assert counted["inputs"] == 6 and reruns.held() == 0


def test_the_size_is_bytes_or_a_size_and_a_bad_one_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "512M")
    assert reruns.limit() == 512 << 20
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "1G")
    assert reruns.limit() == 1 << 30
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "lots")
    with pytest.raises(InvalidInput, match="WORKBENCH_RERUN_CACHE: got 'lots'"):
        wb.run(CASE, seed=9)
