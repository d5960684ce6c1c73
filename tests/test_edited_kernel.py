"""Edit a kernel, rerun, compare: a copy of the shipped source runs with the same tiling and report."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.view.cli import main

CASE = wb.Case("cast", ("float32", "float16"), (1003,))  # 31 full 32-element blocks + 11: core 7 runs the tail window


def test_an_unchanged_copy_passes_and_a_planted_bug_is_found(tmp_path: Path) -> None:
    copy = wb.copy_kernel(CASE, tmp_path)
    assert (
        copy.name == "cast_kernel.cpp"
        and copy.read_text() == resources.path("kernels/cast/cast_kernel.cpp").read_text()
    )
    same = wb.run(CASE, kernel=copy)
    assert same.passed and same.kernel == str(copy) and "edited copy" in same.text()

    source = copy.read_text()
    planted = source.replace("t_.tailElems != 0", "t_.tailElems == 0")  # skip the tail window
    assert planted != source
    copy.write_text(planted)
    broken = wb.run(CASE, kernel=copy)
    assert not broken.passed and not broken.faulted
    report = broken.reports["y"]
    failing = [e for e in report.worst if abs(e.expected - e.actual) > 0 or e.actual != e.actual]
    assert report.failed == 11 and len(failing) == 10  # the 11 elements past the last whole block; worst shows 10
    assert all(e.flat >= 992 and e.location.startswith("core 7,") for e in failing), [e.location for e in failing]


def test_copy_kernel_never_overwrites_and_run_names_a_missing_kernel(tmp_path: Path) -> None:
    wb.copy_kernel(CASE, tmp_path / "mine.cpp")
    with pytest.raises(wb.WorkbenchError, match=r"^dest: got .*never overwrites"):
        wb.copy_kernel(CASE, tmp_path / "mine.cpp")
    with pytest.raises(wb.WorkbenchError, match=r"^kernel: got .*existing Ascend C source"):
        wb.run(CASE, kernel=tmp_path / "nope.cpp")


def test_cli_kernel_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = wb.copy_kernel(CASE, tmp_path)
    assert main(["run", "cast", "--dtype", "float32:float16", "--shape", "1003", "--kernel", str(copy), "--quiet"]) == 0
    assert f"kernel: {copy} (edited copy)" in capsys.readouterr().out.replace("\n      ", " ")


@pytest.mark.parametrize("reuse", ["0", "1"], ids=["one-shot", "worker"])
@pytest.mark.parametrize("call", ["exit(0)", "_exit(0)"])
def test_a_kernel_that_ends_its_process_is_a_kernel_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], call: str, reuse: str
) -> None:
    """exit()/_exit() in kernel code ends the emulator with status 0 and no report: KERNEL_EXIT, never a verdict on
    whatever the output memory held (issue 17, item 2)."""
    monkeypatch.setenv("ASCEMU_REUSE_PROCESS", reuse)
    copy = wb.copy_kernel(CASE, tmp_path / f"{call[:-3]}.cpp")
    source = copy.read_text()
    entry = source.index("{", source.index('extern "C" __global__ __aicore__ void cast_kernel')) + 1
    copy.write_text("#include <unistd.h>\n" + source[:entry] + f"\n    {call};" + source[entry:])
    result = wb.run(CASE, kernel=copy)
    assert result.verdict == "KERNEL FAULT" and result.exit_code == 2 and not result.reports, result.text()
    assert [d.kind for d in result.diagnostics] == ["KERNEL_EXIT"]
    assert (result.outputs["y"].view(np.uint16) == 0xFFFF).all()  # poison: the launch never wrote y back
    argv = ["run", "cast", "--dtype", "float32:float16", "--shape", "1003", "--kernel", str(copy), "--quiet"]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert out.startswith("KERNEL FAULT") and "fatal KERNEL_EXIT" in out and "exit()/_exit()" in out, out


def test_cores_that_end_the_process_at_once_leave_one_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every core calls _exit, two at a time (the ordered mode's threads): the first fatal record ends the launch and
    is its only one, on every run (before, about one run in ten had two records, as the schedule fell)."""
    monkeypatch.setenv("ASCEMU_REUSE_PROCESS", "1")
    copy = wb.copy_kernel(CASE, tmp_path / "every_core_exits.cpp")
    source = copy.read_text()
    entry = source.index("{", source.index('extern "C" __global__ __aicore__ void cast_kernel')) + 1
    copy.write_text("#include <unistd.h>\n" + source[:entry] + "\n    _exit(0);" + source[entry:])
    assert wb.run(CASE, kernel=copy).plan.block_dim > 2
    kinds = [[d.kind for d in wb.run(CASE, kernel=copy).diagnostics] for _ in range(60)]
    assert all(k == ["KERNEL_EXIT"] for k in kinds), kinds


def test_a_kernel_that_is_not_utf8_text_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = wb.copy_kernel(CASE, tmp_path)
    copy.write_bytes(copy.read_bytes().replace(b"// ", "// caf\xe9 ".encode("latin-1"), 1))
    with pytest.raises(wb.WorkbenchError, match=rf"^kernel: got '{copy}'; allowed: a UTF-8 text file"):
        wb.run(CASE, kernel=copy)
    argv = ["run", "cast", "--dtype", "float32:float16", "--shape", "1003", "--kernel", str(copy), "--quiet"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"workbench: kernel: got '{copy}'"), err
