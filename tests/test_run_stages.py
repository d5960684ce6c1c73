"""run() reports where its time went (Result.stages), computes the golden while the kernel runs where the cores
allow (runner.OVERLAP), and still refuses bad input values before the kernel sees them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import workbench as wb
from workbench.planning.registry import get_op
from workbench.running import runner

CAST = wb.Case("cast", ("float32", "float16"), (4096,))
EDG = wb.Case("embedding_dense_grad", ("float32",), (8, 16), attrs={"num_weights": 6})
STAGES = ("plan_s", "inputs_s", "golden_s", "golden_wait_s", "prepare_s", "execute_s", "compare_s", "result_s")


@pytest.mark.parametrize("overlap", [False, True])
def test_stages_add_up_to_the_run(overlap: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "OVERLAP", overlap)
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "0")  # every stage computed, not served from an earlier run
    r = wb.run(CAST)
    s = r.stages
    assert set(s) == {*STAGES, "total_s"} and all(v >= 0 for v in s.values())
    path = sum(s[k] for k in STAGES if k != "golden_s")  # golden_wait_s: the part of golden_s on the run's path
    assert s["total_s"] == pytest.approx(path, abs=1e-6)
    if overlap:
        assert s["golden_wait_s"] <= s["golden_s"] + 0.05
    else:
        assert s["golden_wait_s"] == pytest.approx(s["golden_s"], abs=1e-3)
    assert s["golden_s"] == r.timings["golden_s"]
    assert r.to_json()["stages"] == {k: {"seconds": v, "source": "host wall"} for k, v in s.items()}


def test_bad_values_are_refused_before_the_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_launch(*_: object) -> None:
        raise AssertionError("the kernel must not run on refused data")

    monkeypatch.setattr(runner, "prepare", no_launch)
    data = wb.make_inputs(EDG)
    data["sort_indices"] = np.full_like(data["sort_indices"], 6)  # >= num_weights
    with pytest.raises(wb.WorkbenchError, match="sort_indices"):
        wb.run(EDG, inputs=data)


@pytest.mark.parametrize("overlap", [False, True])
def test_a_golden_error_surfaces(overlap: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("golden bug")

    monkeypatch.setattr(runner, "OVERLAP", overlap)
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "0")  # an earlier run's golden must not stand in for this one
    spec = dataclasses.replace(get_op("cast"), golden=broken)
    monkeypatch.setattr(runner, "get_op", lambda _: spec)
    with pytest.raises(RuntimeError, match="golden bug"):
        wb.run(CAST)
