"""workbench.run and `workbench run`: the shipped kernels on the emulator, end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

import workbench as wb
from workbench.cli import main

CASES = [
    wb.Case("cast", ("float32", "float16"), (4099,)),
    wb.Case("cast", ("int64", "bool"), (37,)),
    wb.Case("embedding_dense_grad", "float32", (64, 16), attrs={"num_weights": 20, "padding_idx": 3}),
    wb.Case("embedding_dense_grad", "float32", (50, 5), attrs={"num_weights": 7, "scale_grad_by_freq": True}),
    wb.Case("softmax_cross_entropy_with_logits", "float16", (33, 17)),
    wb.Case("softmax_cross_entropy_with_logits", "bfloat16", (2, 3, 4, 5)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label())
def test_run_passes_against_the_golden(case: wb.Case) -> None:
    result = wb.run(case, seed=3)
    assert result.passed, result.text()
    assert set(result.reports) == {t.name for t in case.spec.outputs}
    assert result.timings["run_s"] > 0 and result.trace["cores"]
    assert len(result.trace["cores"]) == result.plan.block_dim


def test_run_reports_carry_tiling_provenance() -> None:
    result = wb.run(wb.Case("cast", ("float32", "int8"), (100_003,)), distribution="edges")
    worst = result.reports["y"].worst
    assert worst and all(e.location.startswith("core ") for e in worst)
    assert all("x" in e.inputs for e in worst)


def test_precision_failure_is_not_a_fault() -> None:
    case = wb.Case("embedding_dense_grad", "float32", (4096, 64), attrs={"num_weights": 50})
    result = wb.run(case, distribution="same", standard="exact")  # 8 cores add one run in fp32: not bit-exact
    assert not result.faulted and not result.passed and result.verdict == "PRECISION FAIL"


def test_empty_case_launches_nothing() -> None:
    result = wb.run(wb.Case("embedding_dense_grad", "float32", (0, 8), attrs={"num_weights": 4}))
    assert result.passed and result.timings["run_s"] == 0
    np.testing.assert_array_equal(result.outputs["out"], np.zeros((4, 8), np.float32))


def test_cli_run_json_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "cast", "--dtype", "bf16:int8", "--shape", "1000", "--distribution", "edges", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["passed"] and doc["backend"] == "emu" and doc["tiling_name"] == "BF16_TO_OTHER"
    assert set(doc["outputs"]) == {"y"} and "timings" in doc and isinstance(doc["diagnostics"], list)
    code = main(
        [
            "run",
            "embedding_dense_grad",
            "--dtype",
            "float32",
            "--shape",
            "4096,64",
            "--attr",
            "num_weights=50",
            "--distribution",
            "same",
            "--standard",
            "exact",
        ]
    )
    assert code == 1 and "PRECISION FAIL" in capsys.readouterr().out
    code = main(["run", "cast", "--dtype", "float32:float16", "--shape", "8", "--backend", "gpu"])
    assert code == 2 and "backend: got 'gpu'" in capsys.readouterr().err
