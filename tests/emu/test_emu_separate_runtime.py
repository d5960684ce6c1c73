"""Header-only and separately compiled runtime are the same emulator (kernels/emu/README.md, "Building a kernel
binary"; ascemu/linkage.h).

Every kernel here is built twice: header-only (the kernel, the driver and the whole emulator in one translation
unit) and with -DASCEMU_SEPARATE_RUNTIME, linked with kernels/emu/runtime/ascemu_runtime.cpp compiled once per
platform.  The same launches then give the same exit codes, output bytes, diagnostics (kind, severity, core, api,
file, line, message, details, count), traces and printf: the shipped Cast, SoftmaxCrossEntropyWithLogits and
EmbeddingDenseGrad kernels through the workbench's launcher (a reused worker process), and every case of
conf_kernel.cpp / fault_kernel.cpp (a crash and a timeout included) one process each.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from emu_helpers import DRIVER, INCLUDE, KERNEL_CONF, KERNEL_FAULT, build, conf_tiling, run, runtime_object

import workbench as wb
from workbench.core.platform import get_platform
from workbench.running.emu import In, Out, Workspace
from workbench.running.emu.build import PLATFORM_MACRO
from workbench.running.emu.launch import run_launch
from workbench.running.emu.signature import bind, signature
from workbench.running.launch import PreparedLaunch, prepare

MODES = ("header-only", "separate")


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Binaries and the runtime objects (one per platform) of this module."""
    return tmp_path_factory.mktemp("emu_separate_runtime")


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _same_text(s: str) -> str:
    """Text with its addresses masked: GM and pc values differ between two processes (ASLR), nothing else may."""
    return _ADDRESS.sub("0x?", s)


def _diags(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("kind", "severity", "core", "api", "file", "line", "column", "function", "message", "details", "count")
    return [json.loads(_same_text(json.dumps({k: d.get(k) for k in keys}, sort_keys=True))) for d in records]


# ------------------------------------------------------------------------------------------------ shipped kernels
# (label, case, input distribution): one case per shipped kernel, small enough for a test, several cores each.
SHIPPED = [
    ("cast f32->i32", wb.Case("cast", ("float32", "int32"), (30003,)), None),
    ("sce fp32", wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)), "soft"),
    (
        "edg fp32",
        wb.Case("embedding_dense_grad", ("float32",), (512, 64), attrs={"num_weights": 300}),
        "uniform",
    ),
]


def _build_shipped(launch: PreparedLaunch, out_dir: Path, separate: bool) -> Path:
    """The launch's kernel with the defines and include directories the workbench's emu backend compiles it with
    (workbench/running/emu/build.py), at -O1 as the other emulator tests, header-only or separate."""
    macro = PLATFORM_MACRO[{2002: "P310", 2201: "P910B"}[get_platform(launch.platform).npu_arch]]
    defs = [f"-D{k}={v}" if v is not True else f"-D{k}" for k, v in launch.defines.items() if v is not False]
    incs = [f"-I{d}" for d in (*launch.include_dirs, launch.source.parent)]
    binary = out_dir / f"{launch.entry}_{'separate' if separate else 'header_only'}"
    cmd = ["g++", "-std=c++20", "-O1", "-g", "-pthread", f"-DASCEMU_PLATFORM={macro}", f"-I{INCLUDE}", *incs, *defs]
    cmd += [f"-DASCEMU_ENTRY={launch.entry}", "-include", str(launch.source), str(DRIVER)]
    if separate:
        cmd += ["-DASCEMU_SEPARATE_RUNTIME", str(runtime_object(macro, out_dir))]
    r = subprocess.run([*cmd, "-o", str(binary)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    return binary


def _launch_shipped(binary: Path, launch: PreparedLaunch) -> dict[str, Any]:
    """The launch as workbench/running/backends/emu.py runs it (mode ordered, a reused worker), on fresh output
    arrays."""
    outputs = [np.empty_like(a.array) for a in launch.args if a.role == "output"]
    it = iter(outputs)
    args = [In(a.array) if a.role == "input" else Out(next(it), fill=a.fill) for a in launch.args]
    values: list[tuple[str, Any]] = [(f"argument {i}", a) for i, a in enumerate(args)]
    values += [("workspace", Workspace(launch.workspace_bytes, fill=launch.workspace_fill)), ("tiling", launch.tiling)]
    plat = get_platform(launch.platform)
    macro = PLATFORM_MACRO[{2002: "P310", 2201: "P910B"}[plat.npu_arch]]
    out = run_launch(
        binary,
        macro,
        plat.soc,
        launch.block_dim,
        bind(launch.entry, signature(binary), values),
        launch.tiling_key,
        60.0,
        {"core_count": plat.core_num, "mode": "ordered"},
    )
    return {
        "exit_code": out.exit_code,
        "outputs": [o.tobytes() for o in outputs],
        "diagnostics": _diags([d.__dict__ for d in out.diagnostics]),
        "trace": out.trace,
        "printf": out.printf,
    }


@pytest.mark.slow  # about 70 s of builds; the default suite keeps this module's linking test, CI runs all of it
@pytest.mark.parametrize(("label", "case", "dist"), SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_kernels_run_the_same_in_both_modes(build_dir: Path, label: str, case: wb.Case, dist: str | None):
    launch = prepare(case, wb.plan(case), wb.make_inputs(case, seed=0, distribution=dist))
    assert launch.block_dim > 1, f"{label}: the case should run on several cores"
    got = {m: _launch_shipped(_build_shipped(launch, build_dir, m == "separate"), launch) for m in MODES}
    a, b = got["header-only"], got["separate"]
    assert a["exit_code"] == b["exit_code"] == 0, (a["diagnostics"], b["diagnostics"])
    assert a["outputs"] == b["outputs"]
    assert a["diagnostics"] == b["diagnostics"]
    assert a["trace"] == b["trace"] and a["trace"]["cores"], "trace missing"
    assert a["printf"] == b["printf"]


# ------------------------------------------------------------------------------------------------ conf / fault kernels
def _keys(source: Path) -> list[int]:
    return sorted({int(k) for k in re.findall(r"TILING_KEY_IS\((\d+)\)", source.read_text())})


def _one_shot(binary: Path, work: Path, platform: str, key: int, block_dim: int) -> dict[str, Any]:
    r = run(
        binary,
        work,
        platform=platform,
        block_dim=block_dim,
        tiling_key=key,
        tiling=conf_tiling(64, 1, 2, 3),
        in_bytes=bytes(range(256)) * 16,
        timeout_s=2,
        tag=f"k{key}_b{block_dim}",
    )
    rep = r.report
    trace = rep.get("trace")
    if any(d["kind"] == "TIMEOUT" for d in rep.get("diagnostics", [])):
        trace = _counts_masked(trace)  # how far a looping core got before the watchdog is wall-clock time
    return {
        "exit_code": r.rc,
        "out": r.out,
        "ws": r.ws,
        "diagnostics": _diags(rep.get("diagnostics", [])),
        "diag_counts": rep.get("diag_counts"),
        "trace": trace,
        "printf": rep.get("printf"),
        "output_unwritten": rep.get("output_unwritten"),
        "stdout": r.stdout,
        "stderr": _same_text(r.stderr),
    }


def _counts_masked(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _counts_masked(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_counts_masked(x) for x in v]
    return 0 if isinstance(v, int) and not isinstance(v, bool) else v


@pytest.mark.slow  # about 45 s of builds (see above)
@pytest.mark.parametrize(
    ("source", "entry", "platform"),
    [(KERNEL_CONF, "conf_kernel", "ascend310p"), (KERNEL_FAULT, "fault_kernel", "ascend310p")],
    ids=["conf_kernel", "fault_kernel"],
)
def test_conformance_and_fault_cases_run_the_same_in_both_modes(
    build_dir: Path, tmp_path: Path, source: Path, entry: str, platform: str
) -> None:
    bins = {m: build(source, entry, platform, build_dir, separate=m == "separate") for m in MODES}
    assert bins["header-only"] != bins["separate"]
    keys = _keys(source)
    assert len(keys) >= 10
    kinds: set[str] = set()
    for key in keys:
        for block_dim in (1, 3):
            a, b = (_one_shot(bins[m], tmp_path / m, platform, key, block_dim) for m in MODES)
            assert a == b, f"tiling key {key}, block_dim {block_dim}: the modes differ"
            kinds |= {d["kind"] for d in a["diagnostics"]}
    # the cases reach the emulator's checks, its fatal paths and its crash handler, not just clean runs
    if source == KERNEL_FAULT:
        assert {"UB_OVERFLOW", "GM_WRITE_RACE", "TIMEOUT", "CRASH", "KERNEL_ABORT"} <= kinds, kinds
    else:
        assert len(kinds) >= 10, kinds


def test_a_separate_kernel_does_not_link_another_platforms_runtime(build_dir: Path, tmp_path: Path) -> None:
    """The runtime object carries its platform: a 310P kernel linked with the 910B runtime fails to link, naming it."""
    rt910 = runtime_object("ascend910b", build_dir)
    cmd = ["g++", "-std=c++20", "-O1", "-g", "-pthread", "-DASCEMU_PLATFORM=ascend310p", "-I", str(INCLUDE)]
    cmd += ["-DASCEMU_SEPARATE_RUNTIME", "-DASCEMU_ENTRY=fault_kernel", "-include", str(KERNEL_FAULT), str(DRIVER)]
    r = subprocess.run([*cmd, str(rt910), "-o", str(tmp_path / "mixed")], capture_output=True, text=True)
    assert r.returncode != 0
    assert "ascemu_runtime_for_ascend310p" in r.stderr
