"""Every notebook in notebooks/ runs top to bottom on the emulator, and every one is stored stripped.

Each notebook runs in a fresh python3 kernel, in a temporary working directory, against this checkout (its root
is put first on the kernel's PYTHONPATH). A cell that raises fails the test with nbclient's CellExecutionError,
which shows the cell and its traceback; the notebooks assert their own results (e.g. 02's planted bug must fail
and its fix must pass), so a regression in the package shows up here. Kernel builds use the normal build cache,
so a cold cache only makes the first run slower.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 900  # seconds per cell: generous for a cold build cache (each kernel build takes 10-20 s)
# A Python warning printed by the kernel ("file.py:12: SomeWarning: text"): notebooks are docs, warnings are defects.
WARNING_LINE = re.compile(r"^\S.*:\d+: \w*Warning: ")


def _id(path: Path) -> str:
    return path.stem


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, f"no notebooks found in {ROOT / 'notebooks'}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError (with the cell and its traceback) on the first failing cell
    warned = [
        f"cell {i}: {line[:300]}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "stream" and out.name == "stderr"
        for line in out.text.splitlines()
        if WARNING_LINE.match(line)
    ]
    assert not warned, f"{path.name} printed warnings:\n" + "\n".join(warned)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_notebook_is_stored_stripped(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs or execution counts; run `python notebooks/strip.py`"
