"""Issue 21, item 1: a CANN CPU twin in two files, as a KernelLaunch sample's CPU-debug build compiles it.

twin/main.cpp (ours) is the host: GmAlloc, ./input/*.bin, ICPU_RUN_KF, ./output/*.bin. Its kernel, axpy_custom
(z = AXPY_ALPHA * x + y), is in twin/axpy_custom.cpp, and both include twin/axpy_custom_tiling.h. Run as
`workbench emu-run main.cpp axpy_custom.cpp -DAXPY_ALPHA=0.75f`, the two are compiled with the same options and linked:
the output matches numpy bit for bit, silently, and the ICPU_RUN_KF launch has its record. The main alone does not
link, and the error names the kernel it misses and the line that calls it. A tiling whose tiles are not 32-byte
multiples (`main 8000 1`) draws DataCopy warnings, which reach the run's record and the command's output.

One build (two objects and a link, ~12 s of g++ on a cold cache) serves every test here: the one-file build reuses
the cached main.o, and the warning variant is a run-time argument of the same binary.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.running.emu import run_program
from workbench.running.emu.cache import Built
from workbench.running.emu.launch import default_timeout_s
from workbench.running.emu.program import LinkError, build_program, link_problems
from workbench.view.cli import main

TWIN = Path(__file__).resolve().parent / "twin"
DOC = TWIN.parents[2] / "docs" / "programs.md"
MAIN, KERNEL = TWIN / "main.cpp", TWIN / "axpy_custom.cpp"
SOC = "Ascend910B3"
ALPHA = np.float32(0.75)
DEFINES = {"AXPY_ALPHA": "0.75f"}
N = 8 * 2048


def line_of(path: Path, tag: str) -> int:
    for i, text in enumerate(path.read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


@pytest.fixture(scope="module")
def built() -> Built:
    return build_program([MAIN, KERNEL], SOC, defines=DEFINES)


def data(folder: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The sample's data files: ./input/input_{x,y}.bin, and an empty ./output for output_z.bin."""
    rng = np.random.default_rng(n)
    x, y = (rng.normal(0, 4, n).astype(np.float32) for _ in range(2))
    (folder / "input").mkdir()
    (folder / "output").mkdir()
    x.tofile(folder / "input" / "input_x.bin")
    y.tofile(folder / "input" / "input_y.bin")
    return x, y


def test_two_files_run_together_bit_exact_with_the_icpu_run_kf_launch_recorded(built: Built, tmp_path: Path) -> None:
    x, y = data(tmp_path, N)
    cmd = [sys.executable, "-m", "workbench", "emu-run", str(MAIN), str(KERNEL), "--platform", SOC]
    proc = subprocess.run(
        [*cmd, "-DAXPY_ALPHA=0.75f", "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    run = json.loads(proc.stdout)
    assert run["exit_code"] == 0 and not run["faulted"]
    assert "alpha 0.75" in run["stdout"]  # the main was compiled with the -D too
    [launch] = run["launches"]
    assert launch["kernel"] == "axpy_custom" and launch["block_dim"] == 8
    assert (Path(launch["file"]).name, launch["line"]) == ("main.cpp", line_of(MAIN, "launch"))
    assert launch["exit_code"] == 0 and launch["kernel_s"] > 0
    # no --timeout: the watchdog scaled to the GM the main allocated (x, y, z and the 8-byte tiling) and 8 blocks
    assert launch["timeout_s"] == pytest.approx(default_timeout_s(3 * 4 * N + 8, 8), rel=1e-9)
    assert launch["diagnostics"] == [] and run["host_diagnostics"] == []  # not even info
    z = np.fromfile(tmp_path / "output" / "output_z.bin", np.float32)
    np.testing.assert_array_equal(z.view(np.uint32), (x * ALPHA + y).view(np.uint32))
    # the binary is keyed by every file g++ read: both sources (as their rewritten units) and the shared header
    assert {Path(d[0]).name for d in built.deps} >= {"main.cpp", "axpy_custom.cpp", "axpy_custom_tiling.h"}


def test_the_main_alone_names_the_kernel_it_misses(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(LinkError) as refused:
        build_program(MAIN, SOC, defines=DEFINES)
    [missing] = refused.value.problems
    assert (missing.symbol, missing.problem) == ("axpy_custom", "undefined")
    assert (Path(missing.file).name, missing.line) == ("main.cpp", line_of(MAIN, "launch"))
    assert main(["emu-run", str(MAIN), "--platform", SOC, "-DAXPY_ALPHA=0.75f"]) == 2
    err = capsys.readouterr().err
    assert f"undefined reference to axpy_custom (main.cpp:{line_of(MAIN, 'launch')})" in err, err
    assert "collect2" not in err


def test_a_twins_warnings_reach_the_record_and_the_output(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data(tmp_path, 8000)  # 1000 floats a core in one tile a buffer: 500 floats = 2000 bytes, not a 32-byte multiple
    run = run_program([MAIN, KERNEL], SOC, ["8000", "1"], cwd=tmp_path, defines=DEFINES)
    [launch] = run.launches
    assert launch.exit_code == 0 and launch.kernel == "axpy_custom"
    rounded = [d for d in launch.diagnostics if d.kind == "DATACOPY_ROUNDED"]
    assert rounded and {d.severity for d in rounded} == {"warning"}, [str(d) for d in launch.diagnostics]
    assert {(Path(d.file).name, d.line) for d in rounded} >= {("axpy_custom.cpp", line_of(KERNEL, "copy-x"))}
    monkeypatch.chdir(tmp_path)
    assert main(["emu-run", str(MAIN), str(KERNEL), "--platform", SOC, "-DAXPY_ALPHA=0.75f", "--", "8000", "1"]) == 0
    err = capsys.readouterr().err
    assert f"axpy_custom.cpp:{line_of(KERNEL, 'copy-x')}: warning DATACOPY_ROUNDED" in err, err


def test_the_two_file_run_in_the_docs_is_what_the_workbench_prints(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/programs.md shows this twin's runs in a ```text block (its console blocks run from an empty folder,
    where the twin is not): each `$ workbench ...` line gives exactly the lines under it, times aside."""
    block = next(b for b in re.findall(r"^```text\n(.*?)^```", DOC.read_text(), re.M | re.S) if "axpy_custom" in b)
    runs = re.findall(r"^\$ workbench (.*)\n((?:(?!\$ ).*\n)*)", block, re.M)
    assert len(runs) == 2, block
    data(tmp_path, N)
    monkeypatch.chdir(tmp_path)
    for command, shown in runs:
        words = [str(TWIN / w) if w.endswith(".cpp") else w for w in command.split()]
        main(words)
        out = capsys.readouterr()
        printed = re.sub(r"\d+\.\d+ s\)", "T s)", out.out + out.err)
        assert printed.splitlines() == re.sub(r"\d+\.\d+ s\)", "T s)", shown).splitlines(), command


def test_link_problems_name_each_symbol_once_with_its_file() -> None:
    log = (
        "/usr/bin/ld: /c/program-main-1.o: in function `main':\n"
        "/src/main.cpp:57: undefined reference to `axpy_custom'\n"
        "/usr/bin/ld: /src/main.cpp:58: undefined reference to `axpy_custom'\n"
        "/usr/bin/ld: k.cpp:(.text+0x4b): undefined reference to `ns::tile(float) const'\n"
        "/usr/bin/ld: /c/b.o: in function `main':\n"
        "/src/k.cpp:9: multiple definition of `main'; /c/a.o:/src/main.cpp:40: first defined here\n"
        "collect2: error: ld returned 1 exit status\n"
    )
    got = [(p.symbol, p.problem, p.site, p.other) for p in link_problems(log)]
    assert got == [
        ("axpy_custom", "undefined", "main.cpp:57", ""),
        ("ns::tile(float) const", "undefined", "k.cpp", ""),
        ("main", "multiple", "k.cpp:9", "main.cpp:40"),
    ]
