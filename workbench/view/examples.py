"""`workbench examples`: the example kernel and single-source programs that ship with the package
(`kernels/examples/`), copied into a folder of the user's to build, run and edit."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..core import resources
from ..core.errors import WorkbenchError

DEFAULT_DIR = "workbench-examples"


def shipped_examples() -> list[Path]:
    """Every shipped example file, by its path inside the package."""
    root = resources.examples_dir()
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def copy_examples(dest: str | Path = DEFAULT_DIR) -> tuple[list[Path], list[Path]]:
    """Copy the shipped examples into `dest` (created if needed), keeping their layout. A file already there is
    never replaced. Returns (the copies made, the files that were there already)."""
    folder = Path(dest).expanduser()
    if folder.exists() and not folder.is_dir():
        raise WorkbenchError("--dir", str(dest), "a folder, or a path where one can be created")
    root = resources.examples_dir()
    copied, kept = [], []
    try:
        for source in shipped_examples():
            target = folder / source.relative_to(root)
            if target.exists():
                kept.append(target)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            copied.append(target)
    except OSError as exc:
        raise WorkbenchError("--dir", str(dest), f"a folder you can write to ({exc.strerror})") from None
    return copied, kept
