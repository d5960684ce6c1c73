"""workbench.run and `workbench run`: the shipped kernels on the emulator, end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

import workbench as wb
from workbench.view.cli import main

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


CAST_ALL_CORES = ["run", "cast", "--dtype", "float32:float16", "--shape", "32768", "--quiet"]
EDG_PRECISION_FAIL = [
    *("run", "embedding_dense_grad", "--dtype", "float32", "--shape", "4096,64", "--attr", "num_weights=50"),
    *("--distribution", "same", "--standard", "exact", "--quiet"),
]


def test_cli_json_gives_every_time_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CAST_ALL_CORES, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sources = {k: t["source"] for k, t in doc["timings"].items()}
    # the emulator's kernel_s times the emulator on this host: it must not read as a device time
    assert sources == {
        "build_s": "host wall",
        "launch_s": "emulator wall",
        "run_s": "emulator wall",
        "kernel_s": "emulator wall",
        "golden_s": "host wall",
    }
    assert all(isinstance(t["seconds"], float) and t["seconds"] >= 0 for t in doc["timings"].values())
    assert {t["source"] for t in doc["stages"].values()} == {"host wall"} and "total_s" in doc["stages"]
    perf = doc["performance"]
    assert perf["kernel"]["source"] == "predicted" and perf["kernel"]["seconds"] > 0
    assert perf["builtin"]["source"] is None and "NPU" in perf["builtin"]["how"]
    assert perf["theoretical"]["source"] == "theoretical" and perf["theoretical"]["seconds"] > 0
    (p1,) = perf["criteria"]  # a predicted kernel against a proxy TBE time: a prediction, never a verdict
    assert p1["status"] in ("would pass", "would fail", "would explain") and p1["verdict"] is False
    assert {k: t["source"] for k, t in p1["times"].items()} == {"kernel": "predicted", "TBE": "proxy"}


def test_a_precision_fail_gets_no_criterion_verdict_in_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*EDG_PRECISION_FAIL, "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "PRECISION FAIL" and doc["performance"]["criteria"]
    for c in doc["performance"]["criteria"]:
        assert c["status"] == "not judged" and c["verdict"] is False and c["times"] == {}
        assert c["detail"].startswith("the run failed precision")
    assert main(EDG_PRECISION_FAIL) == 1
    out = capsys.readouterr().out
    assert "criterion T ≤ 1.1 × T_theory: not judged: the run failed precision" in out
    assert "(emulator wall)" in out and "(host wall)" in out and "kernel time: " in out
    assert not any(f": {status} (" in out for status in ("pass", "fail", "explain"))
