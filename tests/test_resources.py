"""The one locator of kernels/ and data/, and what happens when the platform files are missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.core import platform, resources
from workbench.core.errors import UnsupportedPlatform
from workbench.view.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_a_checkout_resolves_to_its_own_folders() -> None:
    assert resources.root() == REPO
    assert resources.path("kernels/cast/cast_kernel.cpp").is_file()
    assert (resources.emu_dir() / "include" / "kernel_operator.h").is_file()
    assert sorted(p.name for p in resources.platforms_dir().glob("*.ini"))[0] == "Ascend310P3.ini"


@pytest.fixture
def no_platform_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(resources, "platforms_dir", lambda: tmp_path)
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    platform.PLATFORMS._table.cache_clear()  # type: ignore[attr-defined]
    yield tmp_path
    platform.PLATFORMS._table.cache_clear()  # type: ignore[attr-defined]


def test_no_platform_files_is_an_error_naming_where_it_looked(no_platform_files: Path) -> None:
    with pytest.raises(UnsupportedPlatform, match=str(no_platform_files)):
        platform.load_platforms()


def test_cli_platforms_refuses_instead_of_printing_an_empty_table(
    no_platform_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["platforms"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("workbench: platform files: got ") and str(no_platform_files) in err


def test_a_missing_bundle_is_an_error_naming_where_it_looked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(resources.resources, "files", lambda _: tmp_path / "site-packages" / "workbench")
    resources.root.cache_clear()
    try:
        with pytest.raises(resources.WorkbenchError, match="_bundle"):
            resources.root()
    finally:
        resources.root.cache_clear()
