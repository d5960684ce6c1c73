"""Strip outputs and execution counts from notebooks in place, so they are stored clean in git.

    python notebooks/strip.py               # every notebooks/*.ipynb next to this script
    python notebooks/strip.py a.ipynb ...   # the given notebooks
    python notebooks/strip.py --check       # change nothing; exit 1 if a notebook is not stripped

Code cells lose their outputs, execution counts and run-time metadata (timings, scroll and collapse state); the
notebook loses saved widget state, and its language_info is cut to the language name (so the Python version of the
last run does not show up as a change). Sources, cell ids and the kernelspec are kept.
tests/test_notebooks.py checks that every notebook is stripped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

CELL_METADATA_DROPPED = ("execution", "collapsed", "scrolled", "ExecuteTime")
NOTEBOOK_METADATA_DROPPED = ("widgets",)


def strip(nb: nbformat.NotebookNode) -> bool:
    """Strip `nb` in place; True if anything changed."""
    changed = False
    for key in NOTEBOOK_METADATA_DROPPED:
        changed |= nb.metadata.pop(key, None) is not None
    info = nb.metadata.get("language_info")
    if info and set(info) != {"name"}:
        nb.metadata["language_info"] = {"name": info.get("name", "python")}
        changed = True
    for cell in nb.cells:
        for key in CELL_METADATA_DROPPED:
            changed |= cell.metadata.pop(key, None) is not None
        if cell.cell_type != "code":
            continue
        if cell.outputs or cell.execution_count is not None:
            cell.outputs = []
            cell.execution_count = None
            changed = True
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every *.ipynb next to this script)")
    parser.add_argument("--check", action="store_true", help="report unstripped notebooks, change nothing")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(Path(__file__).resolve().parent.glob("*.ipynb"))
    dirty = []
    for path in paths:
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        if strip(nb):
            dirty.append(path)
            if not args.check:
                nbformat.write(nb, path)
    for path in dirty:
        print(f"{'not stripped' if args.check else 'stripped'}: {path}")
    return 1 if args.check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
