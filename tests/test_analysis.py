"""Guided analysis (issue 22 item 6): every rule fires on a run that crosses its threshold and stays quiet on one that
does not, with the value, its source and a docs anchor that exists."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import workbench as wb
from workbench.core.errors import WorkbenchError
from workbench.judge import analysis
from workbench.judge.analysis import RULES, Finding, Rule, evaluate, fired_findings

DOCS = Path(__file__).resolve().parents[1] / "docs"
CAST = ("float32", "float16")
SCE = "softmax_cross_entropy_with_logits"


@pytest.fixture(scope="module")
def runs() -> dict[str, wb.Result]:
    """Four shipped-op runs chosen to cross (or not) each threshold."""
    return {
        "tiny cast": wb.run(wb.Case("cast", CAST, (100,))),  # 6 of 8 cores, 16 elements each: launch, small, repeat 1
        "cast 1M": wb.run(wb.Case("cast", CAST, (1, 1024, 1024))),  # 8 of 8 cores, GM-bound, full UB
        "sce small": wb.run(wb.Case(SCE, "float32", (64, 1000))),  # 910B3: 32 of 40 cores, UB 43 %
        "sce splitr": wb.run(wb.Case(SCE, "float32", (8, 100000))),  # 8 of 40 cores busy
    }


# rule id -> (a run it fires on, a run it does not fire on)
CASES = {
    "gm-bound": ("cast 1M", "tiny cast"),
    "launch-bound": ("tiny cast", "cast 1M"),
    "idle-cores": ("sce splitr", "cast 1M"),
    "ub-full": ("cast 1M", "sce small"),
    "small-copies": ("tiny cast", "cast 1M"),
    "repeat-one": ("tiny cast", "cast 1M"),
}


def _by_id(findings: tuple[Finding, ...]) -> dict[str, Finding]:
    return {f.rule.id: f for f in findings}


def test_every_rule_is_covered_and_documented() -> None:
    assert set(CASES) == {r.id for r in RULES}
    page = (DOCS / "analysis.md").read_text(encoding="utf-8")
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", page, re.M)}
    for rule in RULES:
        path, anchor = rule.doc.split("#")
        assert path == "docs/analysis.md" and anchor in anchors, rule.doc
        assert rule.threshold_source.startswith("[CHOICE]") or "docs/" in rule.threshold_source


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires_on_one_run_and_not_on_another(runs: dict[str, wb.Result], rule_id: str) -> None:
    hot, cold = CASES[rule_id]
    fired = _by_id(fired_findings(runs[hot]))[rule_id]
    quiet = _by_id(evaluate(runs[cold]))[rule_id]
    assert fired.fired and not quiet.fired
    assert rule_id not in _by_id(fired_findings(runs[cold]))
    assert fired.threshold == fired.rule.threshold and fired.doc.startswith("docs/analysis.md#")
    assert fired.source in ("predicted", "emulator trace", "tiling plan", "device-measured")


def test_gm_share_is_device_measured_when_msprof_has_pipe_times(runs: dict[str, wb.Result], tmp_path: Path) -> None:
    from test_profiling import PIPE_HEADER, pipe_row

    from workbench.running.profiling import attach

    run = runs["cast 1M"]
    assert _by_id(fired_findings(run))["gm-bound"].source == "predicted"
    for duration, fires in ((50.0, True), (100.0, False)):  # pipe_row: aiv_mte2_time 30 µs, aiv_mte3_time 12 µs
        csv = tmp_path / f"op_summary_{int(duration)}.csv"
        csv.write_text("\n".join([PIPE_HEADER, pipe_row("cast_kernel_0", "cast_kernel", "AI_CORE", 1.0, duration, 8)]))
        gm = _by_id(evaluate(attach(run, csv)))["gm-bound"]
        assert (gm.value, gm.source, gm.fired) == (pytest.approx(42 / duration), "device-measured", fires)
        assert gm.message.startswith(f"MTE-bound: {42 / duration:.0%} of device-measured time in MTE2 + MTE3")


def test_messages_quote_the_measured_numbers(runs: dict[str, wb.Result]) -> None:
    splitr = _by_id(fired_findings(runs["sce splitr"]))
    assert splitr["idle-cores"].message == "8 of 40 cores busy (block_dim 8)"
    assert splitr["idle-cores"].value == pytest.approx(0.2) and splitr["idle-cores"].source == "tiling plan"
    gm = _by_id(fired_findings(runs["cast 1M"]))["gm-bound"]
    assert gm.value >= 0.7 and gm.message.startswith(f"MTE-bound: {gm.value:.0%} of predicted time in MTE2 + MTE3")
    assert gm.source == "predicted"
    tiny = _by_id(fired_findings(runs["tiny cast"]))
    cores = runs["tiny cast"].trace["cores"]
    ops = sum(c[p]["ops"] for c in cores for p in ("mte2", "mte3"))
    assert tiny["small-copies"].message == f"{ops} of {ops} DataCopy calls under 512 B"
    calls = sum(e["calls"] for c in cores for e in c["vec"])
    assert tiny["repeat-one"].message.startswith(f"{calls} of {calls} vector instructions with repeat 1")
    ub = _by_id(fired_findings(runs["cast 1M"]))["ub-full"]
    plan = runs["cast 1M"].plan
    assert ub.message.startswith(f"UB {plan.ub_fraction:.0%} used ({plan.ub_used} of {plan.ub_capacity} B)")


def test_the_emulator_counts_single_repeat_instructions(runs: dict[str, wb.Result]) -> None:
    """The trace's single_repeat_calls (added for the repeat-one rule): a count-form instruction over <= 256 B is one
    repeat, a larger one is not."""
    entries = [e for c in runs["cast 1M"].trace["cores"] for e in c["vec"]]
    assert entries and all(e["single_repeat_calls"] == 0 and e["repeats"] > e["calls"] for e in entries)
    tiny = [e for c in runs["tiny cast"].trace["cores"] for e in c["vec"]]
    assert tiny and all(e["single_repeat_calls"] == e["calls"] == e["repeats"] for e in tiny)


def test_a_trace_without_the_counter_skips_the_rule(runs: dict[str, wb.Result]) -> None:
    run = runs["tiny cast"]
    old = [{**c, "vec": [{k: v for k, v in e.items() if k != "single_repeat_calls"} for e in c["vec"]]}
           for c in run.trace["cores"]]  # fmt: skip
    findings = _by_id(evaluate(replace(run, trace={**run.trace, "cores": old})))
    assert "repeat-one" not in findings and "small-copies" in findings


def test_a_run_without_a_trace_gets_only_the_plan_rules(runs: dict[str, wb.Result]) -> None:
    bare = replace(runs["sce splitr"], trace={})
    assert set(_by_id(evaluate(bare))) == {"idle-cores", "ub-full"}


def test_rules_are_data_and_bad_ones_are_refused(runs: dict[str, wb.Result]) -> None:
    strict = replace(RULES[2], threshold=0.9)  # idle-cores at 90 %: 32 of 40 busy now fires
    idle = _by_id(fired_findings(runs["sce small"], (strict,)))["idle-cores"]
    assert idle.message == "32 of 40 cores busy (block_dim 32)"
    with pytest.raises(WorkbenchError, match="metric"):
        Rule("x", "x", "no_such_metric", 1.0, ">=", "", "docs/analysis.md#x", "[CHOICE]")
    with pytest.raises(WorkbenchError, match="comparison"):
        Rule("x", "x", "gm_share", 1.0, "=>", "", "docs/analysis.md#x", "[CHOICE]")
    with pytest.raises(WorkbenchError, match="threshold"):
        Rule("x", "x", "gm_share", float("nan"), ">=", "", "docs/analysis.md#x", "[CHOICE]")
    assert set(analysis.METRICS) == {r.metric for r in RULES}


def test_text_and_html_show_the_fired_findings_with_their_links(runs: dict[str, wb.Result]) -> None:
    a = analysis.analysis_of(runs["sce splitr"])
    assert {f.rule.id for f in a.fired} == {"gm-bound", "idle-cores", "ub-full"}
    text = a.text()
    assert (
        text.startswith("analysis: 3 finding(s)")
        and "8 of 40 cores busy (block_dim 8)  [20% < 75%, tiling plan]" in text
    )
    assert "docs/analysis.md#idle-cores" in text and "roofline on Ascend910B3 (40 cores)" in text
    assert "small-copies" not in text  # evaluated, did not fire: not listed
    page = a._repr_html_()
    assert "<a href='docs/analysis.md#idle-cores'>idle cores</a>" in page and "8 of 40 cores busy" in page
    assert "[CHOICE] 75 %" in page and "GM bandwidth" in page
    quiet = analysis.analysis_of(replace(runs["cast 1M"], trace={}))
    assert [f.rule.id for f in quiet.fired] == ["ub-full"]  # the plan's rule; the trace's rules do not apply
    assert "UB 99% used (251904 of 253952 B): no emulator trace says whether every queue is double-buffered" in (
        quiet.text()
    )
    assert "no emulator trace (a device run" in quiet.text()  # the roofline's note
    nothing = analysis.analysis_of(replace(runs["sce small"], trace={}))
    assert nothing.text().startswith("analysis: no findings (checked idle-cores, ub-full;")


def test_cli_run_analyse(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from workbench.view.cli import main

    argv = ["run", "cast", "--dtype", "float32:float16", "--shape", "100", "-q"]
    assert main([*argv, "--analyse"]) == 0
    out = capsys.readouterr().out
    assert "analysis: 4 finding(s)" in out and "docs/analysis.md#launch-bound" in out and "roofline on" in out
    assert main([*argv, "--analyse", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    fired = [f["rule"] for f in data["findings"] if f["fired"]]
    assert fired == ["launch-bound", "ub-full", "small-copies", "repeat-one"]
    assert data["roofline"]["ceilings"]["GM bandwidth"]["kind"] == "theoretical" and data["passed"] is True
    assert main(argv) == 0 and "analysis:" not in capsys.readouterr().out


def test_app_shows_the_analysis_panel_after_a_run() -> None:
    pytest.importorskip("ipywidgets")
    from workbench.view.ui import Workbench

    app = Workbench(wb.Case(SCE, "float32", (8, 100000)))
    assert app.analysis.widget.layout.display == "none"  # nothing before a run
    result = app.run()
    assert result is not None and app.analysis.widget.layout.display == ""
    assert "8 of 40 cores busy" in app.analysis.findings.value
    assert "docs/analysis.md#idle-cores" in app.analysis.findings.value
    roof = app.analysis.roofline.chart.to_dict()
    assert roof["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    (point,) = roof["datasets"][roof["layer"][1]["data"]["name"]]
    assert point["label"] == "kernel (predicted)"
    pipes = app.analysis.pipes.chart.to_dict()
    assert {r["pipe"] for r in pipes["datasets"][pipes["layer"][0]["data"]["name"]]} == {"MTE2", "V", "MTE3", "S"}


def test_ub_full_says_when_double_buffering_does_not_fit(runs: dict[str, wb.Result]) -> None:
    """The consequence comes from the trace's queues: the same full plan with its VECIN queue single-buffered."""
    run = runs["cast 1M"]
    cores = [
        {
            **c,
            "ub": {
                **c["ub"],
                "queues": [{**q, "num": 1 if q["pos"] == "VECIN" else q["num"]} for q in c["ub"]["queues"]],
            },
        }
        for c in run.trace["cores"]
    ]
    ub = _by_id(fired_findings(replace(run, trace={**run.trace, "cores": cores})))["ub-full"]
    assert ub.message.endswith("double buffering does not fit (VECIN queues single-buffered)")
    assert _by_id(fired_findings(run))["ub-full"].message.endswith("the tiles are as large as UB allows")
