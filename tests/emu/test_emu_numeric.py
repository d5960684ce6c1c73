"""Build and run the ascemu numeric unit tests (tests/emu/test_numeric.cpp).

The C++ program checks kernels/emu/include/ascemu/{types,numeric,fast}.h against spec §4 and §9
(tests 1-19, 30-37): cast tables and documented examples, rounding modes, saturation vs inf/nan,
bulk-cast bit identity, reductions and tmp sizes, transcendental rounding, and the vectorised float
paths of fast.h bit for bit against the exact per-element ones.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "kernels" / "emu" / "include"
FLAGS = ["g++", "-std=c++20", "-O1", "-Wall", "-Wextra", "-Werror", "-I", str(INCLUDE)]


def _build(src: Path, exe: Path, defines: list[str] | None = None) -> None:
    build = subprocess.run(
        [*FLAGS, *(defines or []), str(src), "-o", str(exe)], capture_output=True, text=True, timeout=300
    )
    assert build.returncode == 0, build.stderr[-4000:]


@pytest.mark.parametrize("defines", [[], ["-DASCEMU_NO_CLONES"]], ids=["clones", "baseline"])
def test_numeric_unit_tests_pass(tmp_path: Path, defines: list[str]) -> None:
    """`clones`: the fast paths as this CPU picks them; `baseline`: plain -O1 code, as on a CPU without AVX2."""
    exe = tmp_path / "test_numeric"
    _build(Path(__file__).parent / "test_numeric.cpp", exe, defines)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    summary = re.search(r"checks: (\d+) failures: (\d+)", run.stdout)
    assert summary, run.stdout[-2000:]
    assert int(summary.group(2)) == 0
    assert int(summary.group(1)) >= 1000  # a run that checks nothing must fail


def test_headers_are_self_contained(tmp_path: Path) -> None:
    for header in ("ascemu/types.h", "ascemu/fast.h", "ascemu/numeric.h"):
        src = tmp_path / "one.cpp"
        src.write_text(f'#include "{header}"\n#include "{header}"\nint main() {{ return 0; }}\n')
        _build(src, tmp_path / "one")
