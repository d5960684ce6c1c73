"""`import workbench` (and the CLI) must not pull in the heavy optional modules."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("ipywidgets", "altair", "pandas", "acl", "torch", "ray")


def test_import_workbench_loads_no_heavy_module() -> None:
    code = f"import sys, workbench; workbench.OPS['cast']; print([m for m in {HEAVY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_cli_tiling_loads_no_heavy_module() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from workbench.view.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['tiling', 'cast', '--dtype', 'float32:float16', '--shape', '1000'])\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
