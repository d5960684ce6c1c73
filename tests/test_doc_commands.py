"""The examples of the docs pages below run as written, from an empty folder outside the checkout: each page's
```console blocks (its `$ ` lines, in order, as one shell script in which `workbench` is this Python's
`python -m workbench`) and, for PYTHON_PAGES, its ```python blocks (in order, one namespace)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
CONSOLE_PAGES = ("programs.md", "records.md", "sweeps.md", "workbench.md")
PYTHON_PAGES = ("programs.md",)  # its example ends with `run`, a ProgramRun of the shipped add.asc


def blocks(page: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", (DOCS / page).read_text(), re.MULTILINE | re.DOTALL)


def console_script(page: str) -> str:
    return "\n".join(line[2:] for block in blocks(page, "console") for line in block.splitlines() if line[:2] == "$ ")


@pytest.mark.parametrize("page", CONSOLE_PAGES)
def test_console_examples_run_as_written(page: str, tmp_path: Path) -> None:
    script = console_script(page)
    assert script.count("workbench ") >= 1, f"docs/{page} has no `$ workbench` line in a ```console block"
    prelude = f'set -euxo pipefail\nworkbench() {{ {shlex.quote(sys.executable)} -m workbench "$@"; }}\n'
    proc = subprocess.run(["bash", "-c", prelude + script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]


@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_python_examples_run_as_written(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    code = blocks(page, "python")
    assert code, f"docs/{page} has no ```python block"
    for block in code:
        exec(compile(block, str(DOCS / page), "exec"), namespace)
    run = namespace["run"]
    assert getattr(run, "exit_code", None) == 0 and not getattr(run, "faulted", True), run
    assert "add_custom 8" in capsys.readouterr().out
