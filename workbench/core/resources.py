"""The one locator of what ships beside the Python code: `kernels/` (the ops' Ascend C sources, the ascemu
emulator and the examples `workbench examples` copies), `data/` (platform files) and `notebooks/` (the tutorials
`workbench lab` opens).

In a checkout (and an editable install) they are the repository's top-level folders. In a wheel they are
package data under `workbench/_bundle/`: setup.py copies the folders there at build time, so the
repository keeps one layout and the installed package carries everything a run needs.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from .errors import WorkbenchError

BUNDLE = "_bundle"
_MARKER = Path("kernels", "emu", "include", "kernel_operator.h")
EMU_PLACEHOLDER = "/__ascemu__"  # emu_dir() as cached binaries name it (emu/build.py maps it with -ffile-prefix-map)


@cache
def root() -> Path:
    """The folder holding `kernels/` and `data/`: the wheel's bundle first, else the checkout."""
    package = resources.files("workbench")
    candidates = [Path(str(package)) / BUNDLE, Path(str(package)).parent]
    for candidate in candidates:
        if (candidate / _MARKER).is_file():
            return candidate
    raise WorkbenchError(
        "package data",
        " or ".join(str(c) for c in candidates),
        "an install that carries kernels/ and data/ (reinstall the wheel, or `pip install -e .` in a checkout)",
    )


def path(relative: str | Path) -> Path:
    """A shipped file or folder by its repository-relative path, e.g. `kernels/cast/cast_kernel.cpp`."""
    return root() / relative


def emu_dir() -> Path:
    return path("kernels/emu")


def emu_include_dir() -> Path:
    """The emulator's headers: what kernels include (kernel_operator.h) and the emulator's own code (ascemu/)."""
    return emu_dir() / "include"


def platforms_dir() -> Path:
    return path("data/platforms")


def notebooks_dir() -> Path:
    return path("notebooks")


def examples_dir() -> Path:
    """The example kernel and the example programs (`workbench examples` copies them)."""
    return path("kernels/examples")
