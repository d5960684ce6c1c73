"""The pytest plugin (workbench/view/pytest_plugin.py), run the way a user runs it: small test files in a pytester
folder.

A kernel that adds passes and a wrong golden fails with the precision report; a kernel writing out of bounds, and one
that writes nothing, fail as kernel faults at the kernel's line, and one that does not compile with g++'s errors; a
Case passes, an edited kernel named by the marker fails with the run's report and --workbench-keep keeps it; a sweep
fails listing the points that did not pass; the shipped example test passes as copied; and loading the plugin
imports nothing heavy.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import altair  # noqa: F401  # imported here, once: an inner run's imports are forgotten after it (the HTML report's)
import pandas as pd
import pytest

import workbench as wb
import workbench.running.emu  # before the inner runs: pytester forgets the modules a run imported, not their users
from workbench.core import resources
from workbench.core._files import cache_home
from workbench.core.errors import InvalidInput
from workbench.view.pytest_plugin import check_sweep

pytest_plugins = ["pytester"]

EXAMPLES = resources.examples_dir()
# pytester moves HOME into its folder: the inner runs must still find the build cache (else every build is cold)
CACHE = cache_home()
# The inner runs load no installed plugin (`tester` turns autoloading off: hypothesis's would import and rewrite its
# modules again in every run) and this one by its module name, whether or not its entry point is installed. This
# process imported the module already, so the inner run cannot rewrite its asserts (it has none) and says so.
PLUGIN = (
    *("-p", "workbench.view.pytest_plugin", "-p", "no:cacheprovider", "-W", "error"),
    *("-W", "ignore:Module already imported so cannot be rewritten:pytest.PytestAssertRewriteWarning"),
)
CAST = wb.Case("cast", ("float32", "int32"), (1000,))

KERNEL_TESTS = """
import numpy as np
import pytest
from workbench.core.errors import InvalidInput
from workbench.view.pytest_plugin import Expect

TILING = np.array([4096, 1024], np.uint32).tobytes()
x, y = np.random.default_rng(0).random((2, 8 * 4096), dtype=np.float32)

def test_adds(workbench_kernel):
    kernel = workbench_kernel("add_custom.cpp", entry="add_custom")
    check = kernel[8](x, y, Expect(x + y, name="z"), workspace=0, tiling=TILING)
    assert check.verdict == "PASS" and check.reports["z"].failed == 0 and np.array_equal(check.outputs["z"], x + y)
    start = np.zeros_like(x)
    again = kernel[8](x, y, Expect(x + y, initial=start), workspace=0, tiling=TILING)
    assert list(again.reports) == ["argument 2"] and not start.any()  # the initial array is copied, never written

def test_wrong_golden(workbench_kernel):
    kernel = workbench_kernel("add_custom.cpp", entry="add_custom")
    kernel[8](x, y, Expect(x - y, name="z"), workspace=0, tiling=TILING)

def test_float64_golden_needs_the_output_dtype(workbench_kernel):
    kernel = workbench_kernel("add_custom.cpp", entry="add_custom")
    with pytest.raises(InvalidInput, match="Expect.dtype"):
        kernel[8](x, y, Expect(x.astype(np.float64) + y), workspace=0, tiling=TILING)
"""

FAULT_TESTS = """
import numpy as np
from workbench.view.pytest_plugin import Expect

TILING = np.array([4096, 1024], np.uint32).tobytes()
x, y = np.random.default_rng(0).random((2, 8 * 4096), dtype=np.float32)

def test_out_of_bounds(workbench_kernel):
    kernel = workbench_kernel("add_oob.cpp", entry="add_custom")
    kernel[8](x, y, Expect(x + y, name="z"), workspace=0, tiling=TILING)

def test_writes_nothing(workbench_kernel):
    kernel = workbench_kernel("add_none.cpp", entry="add_custom")
    kernel[8](x, y, Expect(x + y, name="z"), workspace=0, tiling=TILING)

def test_does_not_compile(workbench_kernel):
    kernel = workbench_kernel("add_typo.cpp", entry="add_custom")
    kernel[8](x, y, Expect(x + y, name="z"), workspace=0, tiling=TILING)

def test_writes_nothing_onto_the_fill_it_was_given(workbench_kernel):
    kernel = workbench_kernel("add_none.cpp", entry="add_custom")
    kernel[8](x, y, Expect(np.zeros_like(x), name="z", fill=0), workspace=0, tiling=TILING)
"""

CASE_TESTS = """
import pytest
import workbench as wb

CAST = wb.Case("cast", ("float32", "int32"), (1000,))

def test_shipped(workbench_case):
    result = workbench_case(CAST)
    assert result.passed and result.backend == "emu" and result.kernel == ""

@pytest.mark.workbench(kernel="broken.cpp")
def test_edited(workbench_case):
    workbench_case(CAST)

@pytest.mark.workbench(kernal="broken.cpp")
def test_misspelt_marker(workbench_case):
    workbench_case(CAST)
"""

SWEEP_TESTS = """
import pandas as pd
import pytest

pytestmark = pytest.mark.workbench(kernel="mine.cpp", standard="single_benchmark")
ROW = {"label": "cast[float32:int32 1000 ND @Ascend310P3] seed 0", "error": ""}

@pytest.fixture
def asked(monkeypatch):
    asked = {}
    def sweep(points, **options):
        asked.update(options, points=points)
        status = "fault" if points == "bad" else "pass"
        verdict = "KERNEL FAULT" if points == "bad" else "PASS"
        return pd.DataFrame([{**ROW, "status": status, "verdict": verdict, "diag_kinds": "GM_OOB"}])
    monkeypatch.setattr("workbench.sweeps.sweep", sweep, raising=False)
    return asked

def test_passing_sweep(workbench_sweep, asked, request):
    frame = workbench_sweep("good")
    assert len(frame) == 1 and asked["backend"] == "npu" and asked["standard"] == "single_benchmark"
    assert asked["kernel"] == request.path.parent / "mine.cpp"

def test_failing_sweep(workbench_sweep, asked):
    workbench_sweep("bad", backend="emu")
"""


@pytest.fixture
def tester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("WORKBENCH_CACHE", str(CACHE))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def planted(tester: pytest.Pytester, name: str, old: str, new: str) -> int:
    """add_custom.cpp with `old` replaced by `new`, written as `name` in the pytester folder; the line of `new`."""
    text = (EXAMPLES / "add_custom.cpp").read_text()
    assert old in text
    edited = text.replace(old, new)
    (tester.path / name).write_text(edited)
    return edited[: edited.index(new)].count("\n") + 1 + new[: new.index("planted")].count("\n")


def test_a_kernel_that_adds_passes_and_a_wrong_golden_fails_with_the_precision_report(tester: pytest.Pytester) -> None:
    shutil.copy(EXAMPLES / "add_custom.cpp", tester.path)
    tester.makepyfile(test_kernels=KERNEL_TESTS)
    out = tester.runpytest_inprocess(*PLUGIN)
    out.assert_outcomes(passed=2, failed=1)
    text = out.stdout.str()
    # the workbench's own report: its header, its summary lines and the worst elements, under the verdict
    assert "Failed: PRECISION FAIL: add_custom<<<8>>> on Ascend310P3\n" in text
    assert f"  kernel: {tester.path / 'add_custom.cpp'}\n" in text
    out.stdout.fnmatch_lines(
        [
            "*FAIL z [[]float32 32768[]] double_thousandth (T=0.0001 budget=3)",
            "*  counts: failed 32765/32768  nan_mismatch 0  inf_mismatch 0",
            "*  verdict: FAIL by double_thousandth*",
            "*  worst 10 (failing first, then largest error):",
        ]
    )
    # the traceback ends at the user's launch, not inside the plugin
    assert '>       kernel[8](x, y, Expect(x - y, name="z"), workspace=0, tiling=TILING)' in text
    assert "pytest_plugin.py" not in text


def test_a_kernel_that_writes_out_of_bounds_or_nothing_fails_as_a_fault_at_its_line(tester: pytest.Pytester) -> None:
    oob = planted(
        tester,
        "add_oob.cpp",
        "DataCopy(zGm[off], zo, t_.tile);",
        "DataCopy(zGm[off + t_.perCore * 8], zo, t_.tile);  // planted: past z's end",
    )
    early = "    return;  // planted: nothing is computed\n    op.Process();\n}"
    planted(tester, "add_none.cpp", "    op.Process();\n}", early)
    typo = planted(tester, "add_typo.cpp", "    op.Process();\n}", "    op.Process()  // planted: no semicolon\n}")
    tester.makepyfile(test_faults=FAULT_TESTS)
    out = tester.runpytest_inprocess(*PLUGIN)
    out.assert_outcomes(passed=1, failed=3)
    text = out.stdout.str()
    assert "Failed: KERNEL FAULT: add_custom<<<8>>> on Ascend310P3\n" in text
    assert f"  kernel: {tester.path / 'add_oob.cpp'}\n" in text
    assert "emu, exit code 1; output z was never written" in text
    # the diagnostics as the workbench prints them, a loop's repeats counted, then the faulting line itself
    assert f"add_oob.cpp:{oob}: error GM_OOB [core 0, DataCopy]: DataCopy writes bytes [131072, 135168)" in text
    assert re.search(rf"\.\.\. and \d+ more error GM_OOB at add_oob\.cpp:{oob} \(cores 0-7\)", text)
    assert f"  at {tester.path / 'add_oob.cpp'}:{oob}" in text
    assert re.search(rf">\s+{oob} \|\s+DataCopy\(zGm\[off \+ t_\.perCore \* 8\]", text)
    # a kernel that exits cleanly but never writes its output is a fault too, never a precision question
    assert f"  kernel: {tester.path / 'add_none.cpp'}\n" in text
    assert "emu, exit code 0; output z was never written (it still holds the poison it started as)" in text
    assert "launch: warning OUTPUT_UNWRITTEN [launch]: 131072 of 131072 bytes of output 'arg2:output'" in text
    # a kernel that does not compile fails with g++'s error at the user's line, and no traceback of the build
    assert "Failed: kernel build: g++ rejected add_typo.cpp for ascend310p" in text
    assert re.search(rf"add_typo\.cpp:{typo}:\d+: error: expected ';' before '}}' token", text)
    assert "BuildError" not in text


def test_a_case_passes_and_an_edited_kernel_fails_with_the_run_report_kept(tester: pytest.Pytester) -> None:
    broken = wb.copy_kernel(CAST, tester.path / "broken.cpp")
    text = broken.read_text()
    early = text.replace("    op.Process();", "    return;  // planted: nothing is computed\n    op.Process();")
    assert early != text
    broken.write_text(early)  # the very edit test_build_cache.py makes: its build is shared through the cache
    tester.makepyfile(test_cases=CASE_TESTS)
    out = tester.runpytest_inprocess(*PLUGIN, "--workbench-keep", "kept")
    out.assert_outcomes(passed=1, failed=1, errors=1)
    shown = out.stdout.str()
    assert "Failed: PRECISION FAIL: cast[float32:int32 1000 ND @Ascend310P3]" in shown
    assert "broken.cpp (edited copy)" in shown
    assert "FAIL y [int32 1000] exact (mismatches_allowed=0)" in shown
    kept = tester.path / "kept" / "test_cases.py__test_edited"
    assert f"kept: {kept}.txt, {kept}.html" in shown
    assert Path(f"{kept}.txt").read_text().startswith("PRECISION FAIL: cast[float32:int32 1000 ND @Ascend310P3]")
    assert Path(f"{kept}.html").stat().st_size > 0
    assert "InvalidInput: workbench marker: got 'kernal='; allowed: keyword arguments kernel, backend" in shown


def test_a_sweep_fixture_takes_its_defaults_from_the_marker_and_the_option(tester: pytest.Pytester) -> None:
    tester.makepyfile(test_sweeps=SWEEP_TESTS)
    out = tester.runpytest_inprocess(*PLUGIN, "--workbench-backend", "npu")
    out.assert_outcomes(passed=1, failed=1)
    out.stdout.fnmatch_lines(
        [
            "E*Failed: sweep: 1 of 1 points did not pass (1 fault)",
            "E*status*label*verdict*why",
            "E*fault*cast[[]float32:int32 1000 ND @Ascend310P3[]] seed 0*KERNEL FAULT*diagnostics GM_OOB",
        ]
    )


def sweep_row(label: str, status: str, **columns: object) -> dict[str, object]:
    verdict = {"pass": "PASS", "fail": "PRECISION FAIL", "fault": "KERNEL FAULT"}.get(status, "ERROR: InvalidShape")
    base: dict[str, object] = {"status": status, "label": label, "verdict": verdict, "error": ""}
    return {**base, "exit_code": 0, "diag_kinds": "", "failed": 0, "max_ulp": 0, "max_rel": 0.0, **columns}


def test_check_sweep_lists_every_point_that_did_not_pass() -> None:
    frame = pd.DataFrame(
        [
            sweep_row("cast a", "pass"),
            sweep_row("cast b", "fail", failed=12, max_ulp=3, max_rel=0.002),
            sweep_row("cast c", "fault", exit_code=1, diag_kinds="GM_OOB,OUTPUT_UNWRITTEN", failed=None),
            sweep_row("cast d", "error", error="shape: got (0, -1); allowed: positive sizes"),
        ]
    )
    frame.attrs["results"] = "/tmp/sweep.jsonl"
    with pytest.raises(pytest.fail.Exception) as failed:
        check_sweep(frame)
    lines = str(failed.value).splitlines()
    assert lines[0] == "sweep: 3 of 4 points did not pass (1 fail, 1 fault, 1 error); results in /tmp/sweep.jsonl"
    assert lines[1].split() == ["status", "label", "verdict", "why"]
    rows = [line.split(None, 3) for line in lines[3:]]
    assert [r[:3] for r in rows] == [["fail", "cast", "b"], ["fault", "cast", "c"], ["error", "cast", "d"]]
    assert "failed 12, max_ulp 3, max_rel 0.002" in lines[3]
    assert "exit code 1, diagnostics GM_OOB,OUTPUT_UNWRITTEN" in lines[4] and "failed" not in lines[4]
    assert "shape: got (0, -1); allowed: positive sizes" in lines[5]
    assert all("cast a" not in line for line in lines)


def test_check_sweep_passes_a_clean_sweep_and_refuses_an_empty_or_foreign_frame() -> None:
    frame = pd.DataFrame([sweep_row("cast a", "pass"), sweep_row("cast b", "pass")])
    assert check_sweep(frame) is frame
    assert check_sweep([sweep_row("cast a", "pass")]) == [sweep_row("cast a", "pass")]  # rows read back as dicts
    with pytest.raises(pytest.fail.Exception, match="no points were run"):
        check_sweep(pd.DataFrame())
    with pytest.raises(InvalidInput, match="rows without status"):
        check_sweep(pd.DataFrame([{"label": "x", "verdict": "PASS", "error": ""}]))


def test_the_shipped_example_passes_where_it_is_copied(tester: pytest.Pytester) -> None:
    for name in ("test_add_custom.py", "add_custom.cpp"):
        shutil.copy(EXAMPLES / name, tester.path)
    out = tester.runpytest_inprocess(*PLUGIN)
    out.assert_outcomes(passed=3)


def test_loading_the_plugin_imports_nothing_heavy_and_declares_its_options(tester: pytest.Pytester) -> None:
    tester.makepyfile(
        test_plain="""
        import sys

        def test_plain():
            heavy = ("pandas", "altair", "ipywidgets", "workbench.running.emu", "workbench.sweep")
            assert [m for m in heavy if m in sys.modules] == []
        """
    )
    tester.runpytest_subprocess(*PLUGIN).assert_outcomes(passed=1)  # a process of its own: this one has them all
    out = tester.runpytest_inprocess(*PLUGIN, "--help")
    out.stdout.fnmatch_lines(["*--workbench-backend=NAME*", "*--workbench-keep=DIR*"])
