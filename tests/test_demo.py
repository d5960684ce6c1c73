from __future__ import annotations

import re

from workbench.planning.worked import examples
from workbench.view.demo import run_demo


def test_demo_runs_every_example_with_the_expected_verdict() -> None:
    lines: list[str] = []
    assert run_demo(lines.append, backend=None) == 0
    text = "\n".join(lines)
    assert f"{len(examples())}/{len(examples())} examples gave the expected verdict" in text
    # the deliberate failure is traced to a core and tile with the offending input value (the failures tie on
    # severity: the first ones by position are shown)
    assert "FAIL y [float16 4099]" in text and "core 0, tile 0" in text and "x=inf" in text


def test_demo_covers_every_op() -> None:
    assert {ex.case.op for ex in examples()} == {"cast", "embedding_dense_grad", "softmax_cross_entropy_with_logits"}


def test_demo_runs_the_kernels_on_the_emulator() -> None:
    lines: list[str] = []
    assert run_demo(lines.append) == 0, "\n".join(lines)
    text = "\n".join(lines)
    assert text.count("kernel on emu:") == len(examples()) and "KERNEL FAULT" not in text
    wide = [line for line in text.splitlines() if len(line) > 120]
    assert not wide, wide[:3]
    # a passing example raises no alarm: no warning or error diagnostic, and every mismatch has a core
    # (a diagnostic line reads "file:line: SEVERITY KIND [core ...]: message"; verdicts may say "error budget")
    alarms = re.findall(r": (?:warning|error|fatal) [A-Z][A-Z0-9_]* \[", text)
    assert not alarms and "core ?" not in text, alarms
