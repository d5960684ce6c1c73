"""Fixtures more than one test module uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from recorded_run import RECORDED_CASE

import workbench as wb
from workbench.running import store


@pytest.fixture(scope="module")
def live() -> wb.Result:
    """A run of RECORDED_CASE, made once per module."""
    return wb.run(RECORDED_CASE, distribution="edges")


@pytest.fixture
def recorded(live: wb.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`live` recorded as tmp_path/cast_case, its folder the one replay searches."""
    monkeypatch.setenv(store.RECORDS_ENV, str(tmp_path))
    return store.record(live, tmp_path / "cast_case")
