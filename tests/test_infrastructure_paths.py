"""Paths the machine refuses (issue 17, item 5): the emulator's scratch folder and `--html FILE` full, read-only, a
folder, /proc or a device. Each is one line on stderr naming the path and the fix, exit code 4, never a traceback, a
verdict or a partial file; an output path is checked before the run.

The full and read-only filesystems are real: small tmpfs mounts (root only). Without the right to mount, these tests
skip locally and fail in CI (CI=true), like the browser test.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.running.emu.scratch import release_scratch
from workbench.view.cli import main

CAST = ["run", "cast", "--dtype", "float32:float16", "--quiet"]


@contextlib.contextmanager
def tmpfs(path: Path, size: str = "64k", read_only: bool = False) -> Iterator[Path]:
    """A tmpfs of `size` mounted at `path` for the block; unmounted afterwards."""
    path.mkdir()
    options = f"size={size}" + (",ro" if read_only else "")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        reason = f"cannot mount a tmpfs here ({proc.stderr.strip() or proc.returncode})"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (CI=true: the full-disk tests must run)", pytrace=False)
        pytest.skip(reason)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill_up(folder: Path) -> None:
    """Write into `folder` until its filesystem has no block left."""
    fd = os.open(folder / "ballast", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
    finally:
        os.close(fd)
    probe = folder / "one-more-byte"
    with pytest.raises(OSError) as info:
        probe.write_bytes(b"x")
    assert info.value.errno == errno.ENOSPC
    probe.unlink(missing_ok=True)


def one_line(err: str, path: object, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("workbench: "), err
    assert str(path) in err and "fix: " in err and "Traceback" not in err, err
    assert all(w in err for w in words), err


# -- --html FILE ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("folder", ["is a folder"]),
        ("/proc", ["cannot create files here"]),
        ("a pipe", ["not a regular file"]),
    ],
)
def test_an_html_path_the_machine_refuses_is_exit_4_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, words: list[str]
) -> None:
    # A named pipe stands for any special file (/dev/null): the rename of a finished report would replace it.
    # (Never /dev/null itself here: a workbench without the check, run as root, replaces the machine's /dev/null.)
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    target = {"folder": tmp_path, "/proc": Path("/proc/report.html"), "a pipe": fifo}[where]
    assert main([*CAST, "--shape", "1000", "--html", str(target)]) == 4
    out, err = capsys.readouterr()
    assert out == "", out  # refused before the run: no verdict printed
    one_line(err, target, "--html", *words)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # never replaced by a file
    assert list(tmp_path.iterdir()) == [fifo]


def test_an_html_path_on_a_read_only_or_full_filesystem_is_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with tmpfs(tmp_path / "ro", read_only=True) as ro:
        assert main([*CAST, "--shape", "1000", "--html", str(ro / "r.html")]) == 4
        out, err = capsys.readouterr()
        assert out == "" and list(ro.iterdir()) == []
        one_line(err, ro / "r.html", "read-only filesystem")
    with tmpfs(tmp_path / "full") as full:
        fill_up(full)
        assert main([*CAST, "--shape", "1000", "--html", str(full / "r.html")]) == 4
        out, err = capsys.readouterr()
        assert out == "" and sorted(p.name for p in full.iterdir()) == ["ballast"]
        one_line(err, full / "r.html", "no space left")


def test_a_disk_that_fills_during_the_html_write_leaves_no_partial_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder passes the check before the run (a byte fits), but the report (hundreds of KB of SVG) does not."""
    with tmpfs(tmp_path / "small", size="64k") as small:
        assert main([*CAST, "--shape", "1000", "--html", str(small / "r.html")]) == 4
        _, err = capsys.readouterr()
        assert list(small.iterdir()) == []  # neither the report nor its temporary file
        one_line(err, small / "r.html", "HTML report", "no space left")


# -- the emulator's scratch folder ----------------------------------------------------------------------------------


@pytest.fixture
def scratch_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The launch scratch is pooled per process: drop the pool so the next launch makes its folder anew."""
    release_scratch()
    yield monkeypatch
    monkeypatch.undo()
    release_scratch()


def scratch_refused(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], root: Path, elements: int, *words: str
) -> None:
    """A Cast run of `elements` with ASCEMU_SCRATCH_DIR=`root` is exit 4: nothing on stdout, one line naming `root`."""
    env.setenv("ASCEMU_SCRATCH_DIR", str(root))
    assert main([*CAST, "--shape", str(elements)]) == 4
    out, err = capsys.readouterr()
    assert out == ""
    one_line(err, root, "emulator scratch folder", "ASCEMU_SCRATCH_DIR", *words)


def test_a_scratch_folder_that_is_a_file_or_proc_is_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scratch_env: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    scratch_refused(scratch_env, capsys, not_a_folder, 1000, "a file where a folder")
    scratch_refused(scratch_env, capsys, Path("/proc"), 1000, "cannot create files here")


def test_a_full_or_read_only_scratch_folder_is_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scratch_env: pytest.MonkeyPatch
) -> None:
    with tmpfs(tmp_path / "ro", read_only=True) as ro:
        scratch_refused(scratch_env, capsys, ro, 1000, "read-only filesystem")
    release_scratch()
    with tmpfs(tmp_path / "tiny") as tiny:
        scratch_refused(scratch_env, capsys, tiny, 100000, "no room for a 401408-byte GM buffer")  # 400 KB in 64 KiB
        release_scratch()
        assert list(tiny.iterdir()) == []  # the pooled scratch folder went with the pool


def test_a_report_the_full_scratch_could_not_hold_is_exit_4_not_a_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scratch_env: pytest.MonkeyPatch
) -> None:
    """8184 float32 -> float16: x (8 pages), y (5), the workspace, the tiling and launch.json (1 each) fill the 16
    pages of a 64 KiB tmpfs exactly. The kernel runs and the done file (empty) is created, but the report cannot be
    written: no diagnostics are known, so there is no verdict (and no KERNEL_EXIT either)."""
    with tmpfs(tmp_path / "tiny") as tiny:
        scratch_refused(scratch_env, capsys, tiny, 8184, "could not write its report")
        release_scratch()
    with tmpfs(tmp_path / "room", size="1m") as room:  # the same launch with room to spare passes
        scratch_env.setenv("ASCEMU_SCRATCH_DIR", str(room))
        assert main([*CAST, "--shape", "8184"]) == 0
        assert capsys.readouterr().out.startswith("PASS")
        release_scratch()
