"""The real-world conformance suite (issue 11): operators of our own in the styles of Huawei's Ascend C code, each run
on the emulator for every SoC it targets and compared with its numpy reference, with no diagnostic at all.

The manifest is suite.py (see docs/conformance.md). Every kernel is built once per SoC, two compilers at a time, at
-O0 in the workbench build cache. Besides the runs, the manifest itself is checked: at least 15 kernels, every idiom
of IDIOMS exercised by some kernel, each kernel's idioms exactly those its code shows, and docs/conformance.md's index
tables equal to the ones the manifest renders.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workbench.running.emu import POISON, Diagnostic, In, Kernel, Out, load, run_program
from workbench.running.emu.build import Built
from workbench.running.emu.program import build_program

from . import suite
from .suite import KERNELS, Case

SEED = 11
OPT = "-O0"  # compiles in about 60 % of -O1's time; the cases are small enough for the slower code
RUNS = [
    pytest.param(
        kernel,
        soc,
        case,
        id=f"{kernel.name}-{soc}-{case.name}",
        marks=[pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else [],
    )
    for kernel in KERNELS
    for soc in kernel.socs
    for case in kernel.cases
]
Outcome = tuple[dict[str, np.ndarray], tuple[Diagnostic, ...], tuple[tuple[int, str], ...]]


@pytest.fixture(scope="module")
def builds(request: pytest.FixtureRequest) -> dict[tuple[str, str], Kernel | Built | Exception]:
    """Every kernel the selected runs need, built (or refused) once per SoC, two compilers at a time: a loaded entry
    or a whole program's binary."""
    by_name = {k.name: k for k in KERNELS}
    selected = (
        getattr(item, "callspec", None)
        for item in request.session.items
        if getattr(item, "module", None) is request.module
    )
    jobs = list(dict.fromkeys((c.params["kernel"].name, c.params["soc"]) for c in selected if c and "soc" in c.params))

    def one(job: tuple[str, str]) -> Kernel | Built | Exception:
        kernel, soc = by_name[job[0]], job[1]
        try:
            if kernel.entry is None:
                return build_program(kernel.path, soc, opt=OPT)
            dirs = [suite.KERNEL_DIR / d for d in kernel.include_dirs]
            loaded = load(kernel.path, kernel.entry, soc, defines=dict(kernel.defines), include_dirs=dirs, opt=OPT)
            loaded.built()
            return loaded
        except Exception as exc:  # the run that needs it reports it
            return exc

    with ThreadPoolExecutor(2) as pool:
        return dict(zip(jobs, pool.map(one, jobs), strict=True))


def _launch(kernel: Kernel, case: Case, inputs: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> Outcome:
    assert case.launch is not None
    launch = case.launch(inputs)
    initial = case.initial(inputs) if case.initial else {}
    outputs = {name: initial.get(name, np.empty_like(want)).copy() for name, want in expected.items()}
    args: list[Any] = []
    for a in launch.args:
        if isinstance(a, str) and a in inputs:
            args.append(In(inputs[a]))
        elif isinstance(a, str):
            args.append(Out(outputs[a], fill=None if a in initial else POISON))
        else:
            args.append(a)
    run = kernel[launch.block_dim](
        *args, workspace=launch.workspace, tiling=launch.tiling, tiling_key=launch.tiling_key
    )
    assert run.exit_code == 0, [str(d) for d in run.diagnostics]
    return outputs, run.diagnostics, run.printf


def _write_inputs(inputs: dict[str, np.ndarray], workdir: Path) -> None:
    (workdir / "input").mkdir()
    (workdir / "output").mkdir()
    for name, array in inputs.items():
        array.tofile(workdir / "input" / f"input_{name}.bin")


def _read_outputs(expected: dict[str, np.ndarray], workdir: Path) -> dict[str, np.ndarray]:
    return {
        name: np.fromfile(workdir / "output" / f"output_{name}.bin", want.dtype).reshape(want.shape)
        for name, want in expected.items()
    }


def _run_asc(
    kernel: suite.Kernel, soc: str, inputs: dict[str, np.ndarray], expected: dict[str, np.ndarray], workdir: Path
) -> Outcome:
    _write_inputs(inputs, workdir)
    run = run_program(kernel.path, soc, cwd=workdir, opt=OPT)
    assert run.exit_code == 0 and not run.faulted and run.launches, run.summary() + run.stderr
    assert all(launch.exit_code == 0 for launch in run.launches), run.summary()
    printf = tuple(p for launch in run.launches for p in launch.printf)
    return _read_outputs(expected, workdir), run.diagnostics, printf


def _run_twin(built: Built, inputs: dict[str, np.ndarray], expected: dict[str, np.ndarray], workdir: Path) -> Outcome:
    """A CPU-twin main: ICPU_RUN_KF writes the launch's report where ASCEMU_REPORT says."""
    _write_inputs(inputs, workdir)
    report_path = workdir / "report.json"
    env = {**os.environ, "ASCEMU_REPORT": str(report_path), "ASCEMU_TIMEOUT": "60"}
    proc = subprocess.run([str(built.path)], cwd=workdir, env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0 and report_path.exists(), (proc.returncode, proc.stderr[-2000:])
    report = json.loads(report_path.read_text())
    assert report["exit_code"] == 0, report["diagnostics"]
    diagnostics = tuple(Diagnostic.from_json(d) for d in report.get("diagnostics", []))
    printf = tuple((int(p["core"]), str(p["text"])) for p in report.get("printf", []))
    return _read_outputs(expected, workdir), diagnostics, printf


@pytest.mark.parametrize(("kernel", "soc", "case"), RUNS)
def test_kernel_matches_numpy_and_runs_clean(
    builds: dict[tuple[str, str], Kernel | Built | Exception],
    kernel: suite.Kernel,
    soc: str,
    case: Case,
    tmp_path: Path,
) -> None:
    built = builds[(kernel.name, soc)]
    if isinstance(built, Exception):
        raise built
    inputs = case.inputs(np.random.default_rng(SEED))
    expected = case.reference(inputs)
    if isinstance(built, Kernel):
        got, diagnostics, printf = _launch(built, case, inputs, expected)
    elif kernel.twin:
        got, diagnostics, printf = _run_twin(built, inputs, expected, tmp_path)
    else:
        got, diagnostics, printf = _run_asc(kernel, soc, inputs, expected, tmp_path)

    assert [str(d) for d in diagnostics] == []  # not even info: a correct kernel runs silent
    for name, want in expected.items():
        assert got[name].dtype == want.dtype and got[name].shape == want.shape, name
        if kernel.rtol:
            np.testing.assert_allclose(got[name], want, rtol=kernel.rtol, atol=0, err_msg=name)
        else:
            bits = np.dtype(f"u{want.dtype.itemsize}")
            np.testing.assert_array_equal(got[name].view(bits), want.view(bits), err_msg=f"{name}, bit for bit")
    assert printf == (case.printf(inputs) if case.printf else ())


# ------------------------------------------------------------------------------------------------ the manifest
def test_the_suite_has_at_least_15_kernels_each_in_its_own_file() -> None:
    assert len(KERNELS) >= 15
    assert len({k.name for k in KERNELS}) == len({k.file for k in KERNELS}) == len(KERNELS)
    sources = {p.name for p in suite.KERNEL_DIR.iterdir() if p.suffix in (".cpp", ".asc")}
    assert sources == {k.file for k in KERNELS}  # no kernel file outside the manifest
    for kernel in KERNELS:
        assert kernel.cases and set(kernel.socs) <= {suite.P310, suite.P910}, kernel.name
        assert (kernel.entry is None) == (kernel.path.suffix == ".asc" or kernel.twin), kernel.name
        assert bool(kernel.rtol) == bool(kernel.tolerance), f"{kernel.name}: a tolerance says why"
        header = kernel.path.read_text().split("\n#", 1)[0]
        assert re.search(r"^// Style: ", header, re.M), f"{kernel.file}: the header comment names its style"


def test_every_idiom_is_exercised_by_some_kernel() -> None:
    claimed = {name for kernel in KERNELS for name in kernel.idioms}
    assert [i.name for i in suite.IDIOMS if i.name not in claimed] == []
    assert len(suite.IDIOM_NAMES) == len(set(suite.IDIOM_NAMES))


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_a_kernel_claims_exactly_the_idioms_in_its_code(kernel: suite.Kernel) -> None:
    assert set(kernel.idioms) <= set(suite.IDIOM_NAMES)
    claimed, found = set(kernel.idioms), set(suite.detected(kernel))
    assert (sorted(claimed - found), sorted(found - claimed)) == ([], []), "(claimed but absent, present unclaimed)"


def test_idioms_are_found_in_code_not_in_comments() -> None:
    add = next(k for k in KERNELS if k.name == "add_custom")
    assert "Add" in suite.detected(add) and "sync-all" not in suite.detected(add)
    assert "KernelLaunch samples" in add.path.read_text() and "KernelLaunch" not in suite.code_of(add.path)
    assert 'extern "C"' in suite.code_of(add.path)  # string literals stay


def test_docs_index_is_the_one_the_manifest_renders() -> None:
    documented = suite.documented_tables(suite.DOC.read_text())
    assert documented == suite.index_tables(), "run `python tests/conformance/suite.py --write`"
    assert "(conformance.md)" in (suite.DOC.parent / "README.md").read_text()
