"""Progress on stderr: shown in a terminal while something takes time, silent otherwise."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from workbench.core import progress
from workbench.view.cli import main


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    yield
    progress.set_enabled(None)


def test_a_slow_stage_shows_what_runs_and_for_how_long(capsys: pytest.CaptureFixture[str]) -> None:
    progress.set_enabled(True)
    with progress.stage("building cast_kernel for ascend310p with g++", after=0.0):
        time.sleep(0.5)
    err = capsys.readouterr().err
    assert "building cast_kernel for ascend310p with g++ (00:00)" in err


def test_a_quick_stage_draws_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    progress.set_enabled(True)
    with progress.stage("quick", after=5.0):
        pass
    assert capsys.readouterr().err == ""


def test_silent_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert not progress.enabled()  # pytest's captured stderr is no tty
    with progress.stage("not shown", after=0.0):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""


def test_quiet_flag_turns_progress_off(capsys: pytest.CaptureFixture[str]) -> None:
    progress.set_enabled(True)
    assert main(["run", "cast", "--dtype", "float32:float16", "--shape", "64", "--quiet"]) == 0
    assert not progress.enabled() and capsys.readouterr().err == ""
