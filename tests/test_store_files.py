"""Where records go and what happens when the machine refuses them (issue 17, items 4 and 5).

- a record keeps exactly the name the user gave (`run.v1` is not `run` with a `.v1` suffix); only a trailing
  `.json`/`.npz` names the pair;
- an existing record (either file) is never replaced without `--force` / `force=True`;
- an output path that is a folder, under /proc, on a read-only mount or on a full disk is an InfrastructureError
  (exit 4, one line naming the path and the fix), refused before the run when the CLI can tell, and no file is left
  behind (the old record, when one is replaced, stays whole until the new pair is written).

Read-only and full file systems are real tmpfs mounts when this process may mount them (root); otherwise the
write call is made to fail with the same errno.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import workbench as wb
from workbench.core.errors import InfrastructureError, InvalidInput
from workbench.running import runner, store
from workbench.view.cli import main

CASE = wb.Case("cast", ("float32", "float16"), (64,))
ARGV = ["record", "cast", "--dtype", "float32:float16", "--shape", "64", "--quiet"]


@pytest.fixture(scope="module")
def small_run() -> wb.Result:
    """A run small enough that its record's npz fits in one page of a tmpfs."""
    return wb.run(CASE)


@pytest.fixture
def no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI must refuse the output path before it runs anything."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the case ran although --out was refused")

    monkeypatch.setattr(runner, "run", refuse)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ------------------------------------------------------------------------------------------------- names
def test_the_name_is_kept_as_given(small_run: wb.Result, tmp_path: Path) -> None:
    first = store.record(small_run, tmp_path / "run.v1")
    second = store.record(small_run, tmp_path / "run.v2")
    assert (first, second) == (tmp_path / "run.v1.json", tmp_path / "run.v2.json")
    assert names(tmp_path) == ["run.v1.json", "run.v1.npz", "run.v2.json", "run.v2.npz"]
    assert store.load(tmp_path / "run.v1").path == first and store.load(second).path == second
    assert store.load(tmp_path / "run.v1.npz").path == first  # either file of the pair names it


@pytest.mark.parametrize("given", ["run.json", "run.npz"])
def test_a_trailing_json_or_npz_names_the_pair(small_run: wb.Result, tmp_path: Path, given: str) -> None:
    assert store.record(small_run, tmp_path / given) == tmp_path / "run.json"
    assert names(tmp_path) == ["run.json", "run.npz"]


@pytest.mark.parametrize(
    ("given", "error", "message"),
    [
        ("", InfrastructureError, "is a folder, not a record's name"),
        (".", InfrastructureError, "is a folder, not a record's name"),
        (".json", InvalidInput, "allowed: a file name such as"),
        ("runs/.npz", InvalidInput, "allowed: a file name such as"),
    ],
)
def test_a_path_without_a_name_is_refused(
    small_run: wb.Result, tmp_path: Path, given: str, error: type[Exception], message: str
) -> None:
    (tmp_path / "runs").mkdir()
    with pytest.raises(error, match=f"^record.*{message}"):
        store.record(small_run, str(tmp_path / given) if given else given)
    assert names(tmp_path / "runs") == []


# ----------------------------------------------------------------------------------------- no overwrite
@pytest.mark.parametrize("existing", ["run.v1.json", "run.v1.npz"])
def test_an_existing_record_is_never_replaced_without_force(
    small_run: wb.Result, tmp_path: Path, existing: str
) -> None:
    (tmp_path / existing).write_bytes(b"someone's data")
    with pytest.raises(InvalidInput, match=rf"{existing}.*exists.*--force.*force=True"):
        store.record(small_run, tmp_path / "run.v1")
    assert names(tmp_path) == [existing] and (tmp_path / existing).read_bytes() == b"someone's data"


def test_force_replaces_both_files(small_run: wb.Result, tmp_path: Path) -> None:
    store.record(small_run, tmp_path / "run")
    again = replace(small_run, timings={**small_run.timings, "kernel_s": 0.5})
    with pytest.raises(InvalidInput, match="--force"):
        store.record(again, tmp_path / "run")
    assert store.load(tmp_path / "run").meta["timings"]["kernel_s"] == small_run.timings["kernel_s"]
    store.record(again, tmp_path / "run", force=True)
    assert store.load(tmp_path / "run").meta["timings"]["kernel_s"] == 0.5
    assert names(tmp_path) == ["run.json", "run.npz"]


def test_cli_keeps_the_name_and_refuses_a_taken_one_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main([*ARGV, "--out", str(tmp_path / "run.v1")]) == 0
    assert main([*ARGV, "--out", str(tmp_path / "run.v2")]) == 0
    assert names(tmp_path) == ["run.v1.json", "run.v1.npz", "run.v2.json", "run.v2.npz"]
    before = (tmp_path / "run.v1.json").read_bytes()
    inode = (tmp_path / "run.v1.json").stat().st_ino
    capsys.readouterr()
    with monkeypatch.context() as m:
        m.setattr(runner, "run", lambda *a, **k: pytest.fail("ran although the name is taken"))
        assert main([*ARGV, "--out", str(tmp_path / "run.v1")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path / "run.v1.json") in err and "--force" in err
    assert (tmp_path / "run.v1.json").read_bytes() == before
    assert main([*ARGV, "--out", str(tmp_path / "run.v1"), "--force"]) == 0
    assert (tmp_path / "run.v1.json").stat().st_ino != inode  # replaced by a new file, not the old one kept
    assert store.load(tmp_path / "run.v1").key == json.loads(before)["key"]
    assert names(tmp_path) == ["run.v1.json", "run.v1.npz", "run.v2.json", "run.v2.npz"]


# -------------------------------------------------------------------------------------- infrastructure
def _one_line_exit_4(capsys: pytest.CaptureFixture[str], path: str, words: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith("workbench: record ") and err.count("\n") == 1, err
    assert path in err and "fix: " in err and words in err, err
    return err


@pytest.mark.usefixtures("no_run")
def test_cli_out_that_is_a_folder_is_refused_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGV, "--out", str(tmp_path)]) == 4
    _one_line_exit_4(capsys, str(tmp_path), "is a folder")
    (tmp_path / "run.json").mkdir()
    for force in ([], ["--force"]):  # --force replaces a record, never a folder
        assert main([*ARGV, "--out", str(tmp_path / "run"), *force]) == 4
        _one_line_exit_4(capsys, str(tmp_path / "run.json"), "is a folder")
    assert names(tmp_path) == ["run.json"]


@pytest.mark.usefixtures("no_run")
def test_cli_out_under_proc_is_refused_before_running(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGV, "--out", "/proc/workbench-record"]) == 4
    _one_line_exit_4(capsys, "/proc", "cannot create")
    assert not Path("/proc/workbench-record.json").exists()


@contextlib.contextmanager
def _tmpfs(options: str) -> Iterator[Path | None]:
    """A real tmpfs mounted with `options`, or None when this process may not mount one (then the tests make the
    write call fail with the errno the mount would give)."""
    folder = Path(tempfile.mkdtemp(prefix="wb-records-tmpfs-"))
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    except OSError:
        done = None
    try:
        yield folder if done is not None and done.returncode == 0 else None
    finally:
        if done is not None and done.returncode == 0:
            subprocess.run(["umount", "-l", str(folder)], check=True)
        folder.rmdir()


@contextlib.contextmanager
def _read_only_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A read-only mount, or `tmp_path` with the store's write probe failing as the mount would make it fail."""
    with _tmpfs("ro,size=64k") as mount:
        if mount is None:
            monkeypatch.setattr(store, "_probe", lambda f: (_ for _ in ()).throw(OSError(errno.EROFS, "ro", str(f))))
        yield mount or tmp_path


@contextlib.contextmanager
def _small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Callable[[int], None]]]:
    """A 64 KiB tmpfs and `fill(pages)`, which leaves that many pages free: a record's small npz fits in one page,
    its JSON then does not. Where this process may not mount, `tmp_path` and a `fill` that makes the store's writes
    fail with ENOSPC after `pages` successful ones."""
    with _tmpfs("size=64k") as mount:

        def fill(pages: int) -> None:
            if mount is not None:
                st = os.statvfs(mount)
                (mount / "filler").write_bytes(b"\0" * ((st.f_bavail - pages) * st.f_frsize))
                return
            real, calls = store._write_file, {"n": 0}

            def write(path: Path, data: bytes) -> None:
                calls["n"] += 1
                if calls["n"] > pages:
                    with open(path, "wb"):  # the file exists when the disk fills, as it would
                        pass
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
                real(path, data)

            monkeypatch.setattr(store, "_write_file", write)

        yield mount or tmp_path, fill


@pytest.mark.usefixtures("no_run")
def test_cli_out_on_a_read_only_mount_is_refused_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with _read_only_folder(tmp_path, monkeypatch) as folder:
        assert main([*ARGV, "--out", str(folder / "run")]) == 4
        _one_line_exit_4(capsys, str(folder), "read-only")
        assert names(folder) == []


def test_record_on_a_read_only_mount(small_run: wb.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _read_only_folder(tmp_path, monkeypatch) as folder:
        with pytest.raises(InfrastructureError, match=rf"^record {folder}: .*read-only.*; fix: "):
            store.record(small_run, folder / "run")
        assert names(folder) == []


@pytest.mark.parametrize("free_pages", [0, 1], ids=["npz fails", "json fails"])
def test_a_full_disk_leaves_no_partial_record(
    small_run: wb.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free_pages: int
) -> None:
    with _small_disk(tmp_path, monkeypatch) as (folder, fill):
        fill(free_pages)
        failing = "npz" if free_pages == 0 else "json"
        with pytest.raises(InfrastructureError, match=rf"^record {folder}/run\.{failing}: .*space.*; fix: "):
            store.record(small_run, folder / "run")
        assert [n for n in names(folder) if n != "filler"] == []


def test_a_full_disk_keeps_the_record_it_was_to_replace(
    small_run: wb.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _small_disk(tmp_path, monkeypatch) as (folder, fill):
        old = store.record(small_run, folder / "run")
        before = {p.name: p.read_bytes() for p in folder.iterdir()}
        fill(1)
        with pytest.raises(InfrastructureError, match="space"):
            store.record(replace(small_run, timings={**small_run.timings, "kernel_s": 0.5}), folder / "run", force=True)
        assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "filler"} == before
        assert store.load(old).meta["timings"]["kernel_s"] == small_run.timings["kernel_s"]


def test_cli_full_disk_is_exit_4_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with _small_disk(tmp_path, monkeypatch) as (folder, fill):
        fill(0)
        assert main([*ARGV, "--out", str(folder / "run")]) == 4
        _one_line_exit_4(capsys, str(folder / "run.npz"), "no space")
        assert [n for n in names(folder) if n != "filler"] == []
