"""A diagnostic points at the kernel's line or at the launch, never into the emulator's own headers
(docs/diagnostics.md#reading-a-diagnostic): the launch-level checks name no line, and the Python side shows a record
that names a header anyway (a stored record, an older binary) at the kernel's call its details give, else at the
launch, without an excerpt of the header."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import workbench as wb
from workbench.core import resources
from workbench.running.launch import Diagnostic, is_emulator_header
from workbench.view.demo import examples
from workbench.view.render.html import diagnostic_html

LAUNCH_IMPL = resources.emu_include_dir() / "ascemu" / "impl" / "launch_impl.h"
KERNEL = resources.path("kernels/cast/cast_kernel.cpp")


def test_output_unwritten_of_a_passing_run_names_no_emulator_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_RERUN_CACHE", "0")  # a launch of this emulator, not an earlier run's records
    edg = next(ex.case for ex in examples() if ex.case.op == "embedding_dense_grad")
    r = wb.run(edg)  # rows no index names stay the launcher's zeros: OUTPUT_UNWRITTEN (info)
    assert r.passed
    unwritten = [d for d in r.diagnostics if d.kind == "OUTPUT_UNWRITTEN"]
    assert unwritten, [str(d) for d in r.diagnostics]
    for d in r.diagnostics:
        assert not is_emulator_header(d.file) and "/kernels/emu/include/" not in d.file, d
        assert not any(h in str(d) for h in ("launch_impl.h", "launch.h", "runtime_impl.h")), str(d)
    for d in unwritten:
        assert (d.file, d.line, d.core) == ("", 0, -1)
        assert str(d).startswith("launch: info OUTPUT_UNWRITTEN [launch]: ")


@pytest.mark.parametrize(
    "file",
    [
        str(LAUNCH_IMPL),
        f"{resources.EMU_PLACEHOLDER}/include/ascemu/impl/launch_impl.h",
        "kernels/emu/include/ascemu/launch.h",  # as a stored record names a shipped file (data/records)
    ],
    ids=["path", "placeholder", "stored"],
)
def test_a_record_naming_an_emulator_header_is_shown_at_the_launch(file: str) -> None:
    d = Diagnostic("OUTPUT_UNWRITTEN", "info", -1, "", file, 441, "12 of 64 bytes of output 'arg1:output' ...")
    assert (d.file, d.line) == ("", 0)
    assert str(d).startswith("launch: info OUTPUT_UNWRITTEN [launch]")


def test_a_record_naming_an_emulator_header_is_shown_at_the_kernels_call() -> None:
    details = {"api_file": str(KERNEL), "api_line": 42, "resolved": True}
    d = Diagnostic("CRASH", "fatal", 0, "DataCopy", str(LAUNCH_IMPL), 300, "SIGSEGV", "memcpy", details=details)
    assert (d.file, d.line, d.function) == (str(KERNEL), 42, "")
    assert str(d).startswith("cast_kernel.cpp:42: fatal CRASH [core 0, DataCopy]")
    inner = {"api_file": str(LAUNCH_IMPL), "api_line": 7}  # a call site inside the emulator is no kernel's call
    assert Diagnostic("CRASH", "fatal", 0, "", str(LAUNCH_IMPL), 300, "x", details=inner).file == ""


def test_a_stored_record_replays_at_the_launch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # the record's relative path is from the package's root, wherever the caller is
    attrs = {"num_weights": 10, "scale_grad_by_freq": True}
    stored = wb.run(wb.Case("embedding_dense_grad", ("float32", "int32"), (64, 24), attrs=attrs), backend="replay")
    (d,) = [d for d in stored.diagnostics if d.kind == "OUTPUT_UNWRITTEN"]  # stored at ascemu/launch.h:456
    assert (d.file, d.line) == ("", 0) and str(d).startswith("launch: info OUTPUT_UNWRITTEN")


def test_a_kernel_line_is_kept() -> None:
    d = Diagnostic.from_json({"kind": "GM_OOB", "severity": "error", "core": 1, "file": str(KERNEL), "line": 12})
    assert (d.file, d.line) == (str(KERNEL), 12)
    assert not is_emulator_header("") and not is_emulator_header(str(KERNEL))
    assert not is_emulator_header("/__wb_dir0__/my_kernel.cpp")  # a user's folder, as a cached binary names it


def test_diagnostic_html_shows_no_excerpt_of_an_emulator_header() -> None:
    header = SimpleNamespace(file=str(LAUNCH_IMPL), line=20)  # any record with a file and a line, as html takes it
    assert Path(header.file).is_file() and "<pre>" not in diagnostic_html(header)
    assert "<pre>" in diagnostic_html(SimpleNamespace(file=str(KERNEL), line=20))
