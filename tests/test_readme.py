"""The README's code runs: every ```python block (in order, one namespace) and every `$ workbench` line of the
```console blocks, from a directory outside the checkout."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README.read_text(), re.MULTILINE | re.DOTALL)


def _commands() -> list[str]:
    lines = [ln for block in _blocks("console") for ln in block.splitlines() if ln.startswith("$ ")]
    return [ln[2:].split("#", 1)[0].strip() for ln in lines]


def test_the_readme_has_code_to_run() -> None:
    assert len(_blocks("python")) >= 2 and len(_commands()) >= 8


def test_python_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for block in _blocks("python"):
        exec(compile(block, str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "6 BF16_TO_OTHER 8" in out and "core 7" in out and "PASS" in out
    assert "False () True" in out  # the user's own kernel ran clean and added correctly


@pytest.mark.parametrize("command", _commands())
def test_console_commands_run(command: str, tmp_path: Path) -> None:
    argv = shlex.split(command)
    assert argv[0] == "workbench"
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() and "Traceback" not in proc.stderr
