"""Progress in a notebook cell: one display line updated in place with the running stage, then the last word; never
in a terminal or under pytest, and never beside the app's own progress (a listener)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

import workbench as wb
from workbench.core import notebook_progress, progress

BUILD = "building cast_kernel for ascend310p with g++"
LAUNCH = "running cast_kernel on 8 emulated cores"


class FakeDisplay:
    """IPython's display(..., display_id=True) and its handle's update(), recording the text of each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, text: str) -> FakeDisplay:
        self.calls.append(("display", text))
        return self

    def update(self, obj: Any, **kwargs: Any) -> None:
        assert kwargs == {"raw": True}
        self.calls.append(("update", obj["text/plain"]))

    @property
    def texts(self) -> list[str]:
        return [text for _, text in self.calls]


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDisplay]:
    """A notebook kernel whose displays are recorded."""
    fake = FakeDisplay()
    # whatever an earlier test left: progress not silenced, no listener (an app's) registered
    progress.set_enabled(None)
    monkeypatch.setattr(progress, "_listeners", [])
    monkeypatch.setattr(notebook_progress, "in_kernel", lambda: True)
    monkeypatch.setattr(notebook_progress, "display_text", fake)
    monkeypatch.setattr(notebook_progress, "TICK_S", 0.05)
    yield fake
    progress.set_enabled(None)


def test_the_stages_and_the_last_word_share_one_line(shown: FakeDisplay) -> None:
    with progress.notebook_line() as finish:
        with progress.stage(BUILD, after=0.0):
            time.sleep(0.1)
        with progress.stage(LAUNCH, after=0.0):
            pass
        finish("done: PASS in 0.1 s")
    assert [kind for kind, _ in shown.calls].count("display") == 1 and shown.calls[0][0] == "display"
    assert shown.texts[0] == f"⏳ {BUILD} … 0 s"
    assert f"⏳ {LAUNCH} … 0 s" in shown.texts
    assert shown.texts[-1] == "done: PASS in 0.1 s"


def test_a_long_stage_counts_its_seconds_in_place(shown: FakeDisplay) -> None:
    with progress.notebook_line(), progress.stage(BUILD, after=0.1):
        time.sleep(1.6)
    assert shown.calls[0] == ("display", f"⏳ {BUILD} … 0 s")
    assert ("update", f"⏳ {BUILD} … 1 s") in shown.calls
    assert shown.texts[-1].startswith("done in ")


def test_a_quick_block_leaves_no_line(shown: FakeDisplay) -> None:
    with progress.notebook_line() as finish:
        with progress.stage(LAUNCH, after=5.0):
            pass
        finish("done: PASS in 0.0 s")
    assert shown.calls == []


def test_a_block_that_raises_says_where_it_stopped(shown: FakeDisplay) -> None:
    with pytest.raises(KeyboardInterrupt), progress.notebook_line(), progress.stage(BUILD, after=0.0):
        raise KeyboardInterrupt
    assert shown.texts[-1].startswith("stopped after ") and shown.texts[-1].endswith(f" while {BUILD}")


def test_a_stage_outside_a_block_has_a_line_of_its_own(shown: FakeDisplay) -> None:
    with progress.stage(BUILD, after=0.0):
        pass
    assert shown.texts[0] == f"⏳ {BUILD} … 0 s"
    assert shown.texts[-1].startswith(f"done: {BUILD} in ")


def test_no_line_beside_a_listener(shown: FakeDisplay) -> None:
    seen: list[tuple[str, bool]] = []
    with progress.listening(lambda what, begin: seen.append((what, begin))), progress.notebook_line() as finish:
        with progress.stage(BUILD, after=0.0):
            pass
        finish("done: PASS in 0.0 s")
    assert seen == [(BUILD, True), (BUILD, False)] and shown.calls == []


def test_no_line_when_progress_is_off(shown: FakeDisplay) -> None:
    progress.set_enabled(False)
    with progress.stage(BUILD, after=0.0):
        pass
    assert shown.calls == []


def test_no_line_outside_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not notebook_progress.in_kernel()  # pytest: no IPython kernel
    monkeypatch.setattr(notebook_progress, "display_text", lambda text: pytest.fail(f"displayed {text!r}"))
    with progress.notebook_line() as finish, progress.stage(BUILD, after=0.0):
        finish("done")


def test_run_shows_its_launch_and_ends_with_the_verdict(shown: FakeDisplay, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "stage", partial(progress.stage, after=0.0))  # every stage shown at once
    case = wb.Case("cast", ("float32", "float16"), (4096,))
    r = wb.run(case)
    assert r.passed
    assert any(t.startswith("⏳ running cast_kernel on ") for t in shown.texts), shown.texts
    assert shown.texts[-1] == f"done: PASS in {r.stages['total_s']:.1f} s — {case.label()}"
