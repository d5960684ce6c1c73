"""The build cache is content-addressed: a binary is named by exactly what g++ read to make it.

Two edited copies in one folder run their own code; identical copies in two folders share one binary and still name
their own file; editing a header rebuilds only its includers; a broken cached binary is rebuilt without a word; the
cache failing is an infrastructure fault (exit 4) naming the path; an interrupted or killed build leaves no compiler
running and no temporaries behind; a compile error is shown at the kernel's own lines.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.core import progress, resources
from workbench.core.errors import InfrastructureError
from workbench.running import emu
from workbench.running.emu import cache
from workbench.running.emu.build import BuildError
from workbench.view.cli import main

CAST = wb.Case("cast", ("float32", "int32"), (1000,))
ADD = resources.path("kernels/examples/add_custom.cpp")
N, CORES, TILE = 8 * 256, 8, 128


def add(source: Path, platform: str = "Ascend310P3", **defines: object) -> emu.Kernel:
    return emu.load(source, entry="add_custom", platform=platform, defines=defines or None)


def launch(kernel: emu.Kernel) -> tuple[np.ndarray, emu.KernelRun]:
    x, y = np.arange(N, dtype=np.float32), np.full(N, 2, np.float32)
    z = np.zeros(N, np.float32)
    tiling = np.array([N // CORES, TILE], np.uint32).tobytes()
    run = kernel[CORES](x, y, z, workspace=0, tiling=tiling)
    return z, run


def fresh(text: str) -> str:
    """A source no earlier test compiled (a unique comment): its build is cold, the shared parts stay warm."""
    return f"// {time.monotonic_ns()}-{os.getpid()}\n{text}"


# -- Found 1: the key names what is compiled ----------------------------------------------------------------------
def test_two_edited_copies_in_one_folder_each_run_their_own_code(tmp_path: Path) -> None:
    good = wb.copy_kernel(CAST, tmp_path / "good.cpp")
    broken = wb.copy_kernel(CAST, tmp_path / "broken.cpp")
    text = broken.read_text()
    early = text.replace("    op.Process();", "    return;  // planted: nothing is computed\n    op.Process();")
    assert early != text
    broken.write_text(early)
    for order in ((good, broken), (broken, good)):
        verdicts = {p.name: wb.run(CAST, kernel=p) for p in order}
        assert verdicts["good.cpp"].passed, verdicts["good.cpp"].text()
        assert not verdicts["broken.cpp"].passed
        assert verdicts["broken.cpp"].kernel == str(broken) and verdicts["good.cpp"].kernel == str(good)


def test_emu_load_two_kernels_with_one_entry_in_one_folder(tmp_path: Path) -> None:
    (tmp_path / "plus.cpp").write_text(ADD.read_text())
    minus = ADD.read_text().replace("Add(zl, xi, yi, t_.tile);", "Sub(zl, xi, yi, t_.tile);")
    (tmp_path / "minus.cpp").write_text(minus)
    z_plus, run_plus = launch(add(tmp_path / "plus.cpp"))
    z_minus, run_minus = launch(add(tmp_path / "minus.cpp"))
    x = np.arange(N, dtype=np.float32)
    assert not run_plus.faulted and not run_minus.faulted
    assert np.array_equal(z_plus, x + 2) and np.array_equal(z_minus, x - 2)
    assert run_plus.build.path != run_minus.build.path


# -- Deliver 1: content-addressed ---------------------------------------------------------------------------------
def test_identical_copies_in_two_folders_share_one_binary_and_name_their_own_file(tmp_path: Path) -> None:
    # the last tile's copy out reads 8 floats past zl's end: UB_TENSOR_OVERRUN at this line, in each folder's file
    text = fresh(ADD.read_text().replace("DataCopy(zGm[off], zo, t_.tile);", "DataCopy(zGm[off], zo, t_.tile + 8);"))
    runs = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "k.cpp").write_text(text)
        runs.append((tmp_path / folder / "k.cpp", launch(add(tmp_path / folder / "k.cpp"))[1]))
    (_, run_a), (_, run_b) = runs
    assert run_a.build.path == run_b.build.path  # one binary: the second compile found the first one's file
    for path, run in runs:
        faults = [d for d in run.diagnostics if d.is_fault]
        assert faults and {d.file for d in faults} == {str(path)}, [str(d) for d in faults]
        line = 1 + text.splitlines().index(next(ln for ln in text.splitlines() if "t_.tile + 8" in ln))
        assert {d.line for d in faults} == {line}


def test_the_key_follows_defines_and_platform(tmp_path: Path) -> None:
    source = tmp_path / "k.cpp"
    source.write_text(fresh(ADD.read_text()))
    paths = {add(source).built().path, add(source, UNUSED=1).built().path, add(source, "Ascend910B3").built().path}
    assert len(paths) == 3


def test_editing_a_header_rebuilds_only_the_binaries_that_include_it(tmp_path: Path) -> None:
    (tmp_path / "scale.h").write_text("constexpr float SCALE = 1.0f;\n")
    body = ADD.read_text()
    with_header = body.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include "scale.h"')
    (tmp_path / "uses.cpp").write_text(fresh(with_header))
    (tmp_path / "plain.cpp").write_text(fresh(body))
    uses, plain = add(tmp_path / "uses.cpp").built(), add(tmp_path / "plain.cpp").built()
    again = add(tmp_path / "uses.cpp").built(), add(tmp_path / "plain.cpp").built()
    assert all(b.cached for b in again) and [b.path for b in again] == [uses.path, plain.path]
    (tmp_path / "scale.h").write_text("constexpr float SCALE = 2.0f;\n")
    after_uses, after_plain = add(tmp_path / "uses.cpp").built(), add(tmp_path / "plain.cpp").built()
    assert not after_uses.cached and after_uses.path != uses.path
    assert after_plain.cached and after_plain.path == plain.path
    (tmp_path / "scale.h").write_text("constexpr float SCALE = 1.0f;\n")  # undo: the first binary is found again
    undone = add(tmp_path / "uses.cpp").built()
    assert undone.cached and undone.path == uses.path


def test_a_header_saved_while_it_is_compiled_is_never_filed_under_its_new_content(tmp_path: Path) -> None:
    body = ADD.read_text().replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include "offset.h"')
    add_line = "Add(zl, xi, yi, t_.tile);"
    body = body.replace(add_line, f"{add_line}\n            Adds(zl, zl, OFFSET, t_.tile);")
    source = tmp_path / "k.cpp"
    source.write_text(fresh(body))
    header = tmp_path / "offset.h"
    os.mkfifo(header)  # g++ blocks at the #include until the test hands it the old text: the race made certain
    builder = threading.Thread(target=add(source).built)
    builder.start()
    with open(header, "w") as fifo:
        fifo.write("constexpr float OFFSET = 0.0f;\n")
    saved = tmp_path / "offset.h.saved"
    saved.write_text("constexpr float OFFSET = 100.0f;\n")
    os.replace(saved, header)  # the editor's save, while g++ still compiles what it read
    builder.join()
    z, run = launch(add(source))
    assert not run.faulted and np.array_equal(z, np.arange(N, dtype=np.float32) + 102)


def test_a_kernel_defining_a_macro_before_kernel_operator_h_is_built_from_the_headers(tmp_path: Path) -> None:
    # a precompiled header would have read kernel_operator.h before the kernel's own #define: not offered then
    text = ADD.read_text().replace(
        '#include "kernel_operator.h"', '#define WB_TEST_FLAG 1\n#include "kernel_operator.h"'
    )
    (tmp_path / "k.cpp").write_text(fresh(text))
    built = add(tmp_path / "k.cpp").built()
    entry = json.loads(built.path.with_name(built.path.name + ".json").read_text())
    assert not any(a.endswith(".h") and "/pch/" in a for a in entry["args"])
    z, run = launch(add(tmp_path / "k.cpp"))
    assert not run.faulted and np.array_equal(z, np.arange(N, dtype=np.float32) + 2)


# -- Found 5: a broken cache entry is rebuilt; the cache failing is an infrastructure fault --------------------------
def _break_truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _break_empty(p: Path) -> None:
    p.write_bytes(b"")


def _break_byte(p: Path) -> None:
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))


def _break_mode(p: Path) -> None:
    p.chmod(0o644)


@pytest.mark.parametrize("damage", [_break_empty, _break_truncate, _break_byte, _break_mode])
def test_a_broken_cached_binary_is_rebuilt_silently(tmp_path: Path, damage: object) -> None:
    source = tmp_path / "k.cpp"
    source.write_text(fresh(ADD.read_text()))
    first = add(source).built()
    damage(first.path)  # type: ignore[operator]
    z, run = launch(add(source))
    assert not run.build.cached and run.build.path == first.path
    assert not run.faulted and np.array_equal(z, np.arange(N, dtype=np.float32) + 2)


def test_a_damaged_signature_file_is_asked_again(tmp_path: Path) -> None:
    source = tmp_path / "k.cpp"
    source.write_text(fresh(ADD.read_text()))
    built = add(source).built()
    built.path.with_name(built.path.name + ".sig.json").write_text("{not json")
    sys.modules["workbench.running.emu.signature"].signature.cache_clear()  # type: ignore[attr-defined]
    z, run = launch(add(source))
    assert not run.faulted and np.array_equal(z, np.arange(N, dtype=np.float32) + 2)


def test_the_cache_path_being_a_file_is_an_infrastructure_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("WORKBENCH_CACHE", str(blocker))
    with pytest.raises(InfrastructureError, match=r"is a file, not a folder; fix: set WORKBENCH_CACHE"):
        add(ADD).built()
    assert main(["run", "cast", "--dtype", "float32:int32", "--shape", "64", "--quiet"]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(blocker) in err[0] and "fix:" in err[0], err


@pytest.fixture
def read_only_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache on a tmpfs that is then remounted read-only (root ignores file modes, not a read-only mount)."""
    mnt = tmp_path / "ro"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", str(mnt)], check=True)
    monkeypatch.setenv("WORKBENCH_CACHE", str(mnt))
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_read_only_cache_serves_what_it_has_and_refuses_new_builds(read_only_cache: Path, tmp_path: Path) -> None:
    source = tmp_path / "k.cpp"
    source.write_text(ADD.read_text())
    built = add(source).built()
    subprocess.run(["mount", "-o", "remount,ro", str(read_only_cache)], check=True)
    again = add(source).built()
    assert again.cached and again.path == built.path
    source.write_text(fresh(ADD.read_text()))
    with pytest.raises(InfrastructureError, match=r"read-only filesystem; fix: set WORKBENCH_CACHE"):
        add(source).built()


def test_a_full_disk_while_building_is_an_infrastructure_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], check=True)
    try:
        monkeypatch.setenv("WORKBENCH_CACHE", str(mnt))
        source = tmp_path / "k.cpp"
        source.write_text(ADD.read_text())
        with pytest.raises(InfrastructureError, match=r"no space left"):
            add(source).built()
        assert not any((mnt / "emu" / "tmp").iterdir())  # no half-written temporaries
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


# -- Found 7: processes ----------------------------------------------------------------------------------------------
def _start_cold_run(tmp_path: Path, name: str = "k.cpp") -> tuple[subprocess.Popen[str], Path]:
    """`workbench run --kernel` of a fresh copy: its build is cold (the shared runtime and header are warm)."""
    wb.run(CAST)  # warm the shared parts
    source = wb.copy_kernel(CAST, tmp_path / name)
    source.write_text(fresh(source.read_text()))
    cmd = [sys.executable, "-m", "workbench", "run", "cast", "--dtype", "float32:int32", "--shape", "1000"]
    proc = subprocess.Popen(
        [*cmd, "--kernel", str(source), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc, source


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.communicate()


def _compilers_of(source: Path) -> list[int]:
    """Live compiler processes (g++, cc1plus, as, ld) compiling `source`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if comm in ("cc1plus", "g++", "as", "collect2", "ld") and str(source).encode() in cmdline:
            found.append(int(pid))
    return found


def _wait_for(predicate: object, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def _temporaries() -> set[Path]:
    folder = cache.cache_root() / "tmp"
    return set(folder.iterdir()) if folder.is_dir() else set()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_a_build_stops_the_compiler(tmp_path: Path, sig: signal.Signals) -> None:
    proc, source = _start_cold_run(tmp_path)
    try:
        assert _wait_for(lambda: _compilers_of(source)), proc.stderr
        before = _temporaries()
        assert before  # the build's own folder, while its compiler runs
        proc.send_signal(sig)  # the workbench's own pid only: its compiler's process group must go with it
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert _wait_for(lambda: not _compilers_of(source), 10), _compilers_of(source)
        assert not before & _temporaries()  # its temporaries went too
    finally:
        _stop(proc)


def test_a_killed_build_leaves_temporaries_the_next_build_removes(tmp_path: Path) -> None:
    proc, source = _start_cold_run(tmp_path)
    assert _wait_for(lambda: _compilers_of(source)), proc.stderr
    left = _temporaries()
    _stop(proc)  # SIGKILL: nothing of the workbench runs after this
    assert _wait_for(lambda: not _compilers_of(source), 120)  # the orphaned compiler finishes on its own
    assert left and left <= _temporaries()  # what the killed build left
    other = tmp_path / "other.cpp"
    other.write_text(fresh(ADD.read_text()))
    add(other).built()
    assert not left & _temporaries()


def test_a_build_folder_is_never_taken_for_a_dead_one_while_it_is_claimed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread or process cleaning up between a build's making its folder and locking it must see a live
    build (a conformance build in a second thread removed the first's folder: `can't create .../out.o`)."""
    real_open = open

    def open_then_clean(*args: object, **kwargs: object) -> object:
        handle = real_open(*args, **kwargs)  # type: ignore[call-overload]
        if args[1:2] == ("w",) and str(args[0]).startswith(str(cache.cache_root() / "tmp")):  # the build's claim
            cache._remove_stale_temporaries(cache.cache_root())  # as a second build starting this very moment would
        return handle

    monkeypatch.setattr(cache, "open", open_then_clean, raising=False)
    source = tmp_path / "claimed.cpp"
    source.write_text(fresh(ADD.read_text()))
    z, run = launch(add(source))
    assert run.exit_code == 0 and (z == np.arange(N, dtype=np.float32) + 2).all()


def test_a_build_waiting_for_another_process_says_so(tmp_path: Path) -> None:
    proc, source = _start_cold_run(tmp_path)
    try:
        assert _wait_for(lambda: _compilers_of(source)), proc.stderr
        seen: list[str] = []
        with progress.listening(lambda what, started: seen.append(what) if started else None):
            result = wb.run(CAST, kernel=source)
        assert result.passed and result.timings["build_s"] > 0
        assert any(s.startswith("waiting for another process building cast_kernel") for s in seen), seen
        assert proc.wait(timeout=120) == 0, proc.communicate()
    finally:
        _stop(proc)


# -- Found 10: compile errors at the kernel's own lines --------------------------------------------------------------
UNDECLARED, WRONG_TYPE = "int oops = undefined_thing;", "Muls(zl, xi, (double)2.0, t_.tile);"
MESSAGES = ("'undefined_thing' was not declared in this scope", "no matching function for call to 'Muls")


def test_compile_errors_are_shown_at_the_kernels_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ADD.read_text().splitlines()
    at = lines.index("            Add(zl, xi, yi, t_.tile);")
    lines[at + 1 : at + 1] = ["            " + WRONG_TYPE]
    lines.insert(5, UNDECLARED)
    source = tmp_path / "broken.cpp"
    source.write_text("\n".join(lines) + "\n")
    with pytest.raises(BuildError) as info:
        add(source).built()
    errors = info.value.errors
    assert [(Path(e.file).name, e.line) for e in errors[:2]] == [("broken.cpp", 6), ("broken.cpp", at + 3)]
    assert all(msg in e.message for e, msg in zip(errors, MESSAGES, strict=False))
    assert (errors[0].excerpt, errors[1].excerpt) == (UNDECLARED, WRONG_TYPE)
    text = info.value.text()
    assert "broken.cpp:6:12: error: 'undefined_thing'" in text and "| int oops" in text

    args = ["run", "cast", "--dtype", "float32:int32", "--shape", "64", "--kernel", str(source), "--quiet"]
    copy = wb.copy_kernel(CAST, tmp_path / "cast_broken.cpp")
    copy.write_text(copy.read_text().replace("using namespace AscendC;", "using namespace AscendC;\nint x = nope;"))
    args[-2] = str(copy)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "cast_broken.cpp:" in err and "'nope' was not declared" in err and "| int x = nope;" in err
    assert main([*args, "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["error"] == "BuildError"
    first = out["compile_errors"][0]
    assert first["file"] == str(copy) and first["excerpt"] == "int x = nope;" and "'nope'" in first["message"]


def test_cache_module_keys_see_placeholders_not_folders(tmp_path: Path) -> None:
    unit = cache.Unit("bin", "k", (f"-I{tmp_path}/inc", f"{tmp_path}/k.cpp"), ((str(tmp_path), "/__wb_dir0__"),))
    assert [unit.placeholder(a) for a in unit.args] == ["-I/__wb_dir0__/inc", "/__wb_dir0__/k.cpp"]
    assert unit.placeholder(f"{tmp_path}x/k.cpp") == f"{tmp_path}x/k.cpp"  # a sibling folder is not inside


@pytest.mark.slow
def test_a_precompiled_header_is_never_shared_between_two_emulator_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GCC keeps in a .gch the paths it read, and -fpch-deps reports them to every build that uses it: a header
    # precompiled in a checkout that is gone since made every later build "keep changing while it is compiled"
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    kernel = tmp_path / "k.cpp"
    kernel.write_text(ADD.read_text())
    for name in ("a", "b"):
        shutil.copytree(resources.emu_dir(), tmp_path / name / "emu")
    monkeypatch.setattr(resources, "emu_dir", lambda: tmp_path / "a" / "emu")
    launch(add(kernel))
    shutil.rmtree(tmp_path / "a")  # that checkout is gone; the cache it filled is not
    monkeypatch.setattr(resources, "emu_dir", lambda: tmp_path / "b" / "emu")
    z, run = launch(add(kernel))
    assert not run.faulted and np.array_equal(z, np.arange(N, dtype=np.float32) + 2)
    assert all(str(tmp_path / "a") not in dep for dep, _, _ in run.build.deps)
