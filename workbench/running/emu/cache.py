"""The compile cache: every artifact (a kernel binary, a precompiled header, the emulator's runtime object) is named
by what the compiler read to make it, and by nothing else.

A compile is looked up first by its command line (the manifest, ccache's "direct mode"): each earlier compile of the
same command recorded the files the compiler read (its -MD dependency list) with their contents' hashes, and when
every one of them still has that content, the artifact it made is the answer: the compiler does not run. Otherwise
the compiler runs and its artifact is filed under the content key: the compiler's identity, the command with every
user folder replaced by a placeholder, and (placeholder path, content hash) of every file the compiler read. Paths
inside the artifact are mapped to the same placeholders (-ffile-prefix-map), so identical sources in two folders make
one artifact, and `Built.local` puts the caller's folders back into what the artifact reports.

Every artifact has an entry beside it (`NAME.json`: its size and SHA-256, the content key, what it was made from);
a hit is checked against it (once per process while the file is unchanged), and a bad artifact (empty, truncated,
edited, not executable) is rebuilt without a word. Compiles run under a per-command file lock (a second process
waits, and says so), in a temporary folder that a killed build leaves behind for the next compile to remove, with
the compiler in a process group of its own that an interrupt kills whole. The cache folder itself failing (a file
where the folder should be, read-only, a full disk) is an InfrastructureError naming the path and the fix.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from ...core import progress
from ...core._files import cache_home, os_error
from ...core.errors import InfrastructureError, WorkbenchError

SCHEMA = 3  # bump when the layout or the key's recipe changes: older entries are then never matched
_MANIFEST_KEEP = 8  # header states remembered per command (an edit-undo-edit loop finds its binaries again)
_FIX_CACHE = "set WORKBENCH_CACHE to a writable folder (or free space / fix the permissions there)"


def cache_root() -> Path:
    """The emulator's cache folder, created on first use: $WORKBENCH_CACHE/emu (default ~/.cache/ascendc-workbench)."""
    root = cache_home() / "emu"
    for folder in (root.parent, root):
        if folder.exists() and not folder.is_dir():
            raise InfrastructureError("build cache", folder, "is a file, not a folder", _FIX_CACHE)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cache_fault(root, exc) from None
    return root


def _cache_fault(path: Path, exc: OSError) -> InfrastructureError:
    return os_error("build cache", path, exc, _FIX_CACHE)


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """OSErrors of the cache's own writes are infrastructure faults naming `path`."""
    try:
        yield
    except OSError as exc:
        raise _cache_fault(path, exc) from None


def ensure_file(path: Path, text: str) -> None:
    """`path` holds exactly `text` (written atomically when it does not)."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    with _writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.with_name(f".{path.name}.{os.getpid()}")
        staged.write_text(text)
        os.replace(staged, path)


# ------------------------------------------------------------------------------------------------ identities
@cache
def compiler_id(exe: str) -> str:
    """Which compiler: its resolved path, size and time, version and target (a reinstalled g++ is another one)."""
    real = os.path.realpath(exe)
    st = os.stat(real)
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    target = subprocess.run([exe, "-dumpmachine"], capture_output=True, text=True, check=True).stdout.strip()
    return f"{real}|{st.st_size}|{st.st_mtime_ns}|{version}|{target}"


_digests: dict[str, tuple[tuple[int, int, int, int], str]] = {}  # path -> (stat signature, sha256): hash a file once


def _stat_sig(st: os.stat_result) -> tuple[int, int, int, int]:
    """Size, times and inode: any write changes the ctime, which no tool can set back, so an equal signature means the
    content the hash was taken of."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def file_digest(path: str | Path) -> str | None:
    """SHA-256 of a file's content (None when it is missing), recomputed only when its size, time or inode change."""
    key = str(path)
    try:
        st = os.stat(key)
    except OSError:
        return None
    sig = _stat_sig(st)
    known = _digests.get(key)
    if known is not None and known[0] == sig:
        return known[1]
    h = hashlib.sha256()
    try:
        with open(key, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    _digests[key] = (sig, h.hexdigest())
    return h.hexdigest()


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


# ------------------------------------------------------------------------------------------------ units
@dataclass(frozen=True)
class Unit:
    """One compiler run whose output the cache keeps.

    `args` are the compiler's arguments with real paths, without -o and the dependency flags; an argument that is
    exactly `need(i)` stands for how a command names the artifact of `needs[i]` (a runtime object, a precompiled
    header), built first. `roots` are the folders (innermost last) the artifact and the key see as placeholders."""

    kind: str  # cache subfolder: "bin", "pch" or "obj"
    stem: str  # the readable part of the artifact's name
    args: tuple[str, ...]
    roots: tuple[tuple[str, str], ...] = ()  # (real folder, placeholder)
    needs: tuple[Unit, ...] = ()
    suffix: str = ""  # ".h.gch", ".o" or "" (an executable)
    beside: str = ""  # a precompiled header's stub: written as the artifact's name without ".gch", which g++ opens
    what: str = ""  # progress text while the compiler runs

    def prefix_maps(self) -> list[str]:
        return [f"-ffile-prefix-map={real}={token}" for real, token in self.roots]

    def placeholder(self, text: str) -> str:
        """`text` (a path, or an argument such as -I/path) with each root's folder replaced by its placeholder,
        the innermost root first."""
        for real, token in reversed(self.roots):
            text = re.sub(re.escape(real.rstrip("/")) + r"(?=/|$)", token, text)
        return text


def need(i: int) -> str:
    return f"\0need{i}"


@dataclass(frozen=True)
class Built:
    path: Path
    key: str  # the content key
    cached: bool  # found without running the compiler
    seconds: float  # this call: a lookup, or the compile
    roots: tuple[tuple[str, str], ...] = ()
    log: str = ""  # the compiler's warnings (a compile that ran)
    deps: tuple[tuple[str, str, tuple[int, ...]], ...] = field(default=(), repr=False)  # (file, sha256, stat) read

    @property
    def use(self) -> str:
        """How a command line names the artifact: a precompiled header by its stub (NAME.h for NAME.h.gch)."""
        return str(self.path.with_suffix("")) if self.path.name.endswith(".h.gch") else str(self.path)

    def local(self, text: str) -> str:
        """`text` (a file name or a message the artifact printed) with the caller's folders put back."""
        for real, token in self.roots:
            if token in text:
                text = text.replace(token, real.rstrip("/"))
        return text


class CompileFailed(WorkbenchError):
    """The compiler refused the unit: `log` is its output (build.py turns it into a BuildError)."""

    def __init__(self, unit: Unit, log: str) -> None:
        super().__init__(unit.kind, unit.stem, "source the compiler accepts")
        self.unit, self.log = unit, log


def _direct_key(ident: str, unit: Unit) -> str:
    """The command's identity: what the manifest is filed under (the needs by their own commands, not their keys,
    so a hit never has to look at them)."""
    return _digest(
        SCHEMA, ident, unit.kind, unit.args, unit.roots, unit.beside, [_direct_key(ident, n) for n in unit.needs]
    )


def compile_cached(compiler: str, unit: Unit) -> Built:
    """The artifact of `unit`: from the cache when what the compiler would read is unchanged, else compiled."""
    t0 = time.perf_counter()
    root = cache_root()
    ident = compiler_id(compiler)
    direct = _direct_key(ident, unit)
    manifest = root / "manifest" / f"{direct}.json"
    found = _lookup(root, unit, manifest)
    if found is None:
        with _writing(root):
            for sub in ("manifest", "locks", "tmp", unit.kind):
                (root / sub).mkdir(exist_ok=True)
        with _locked(root / "locks" / f"{direct}.lock", unit):
            found = _lookup(root, unit, manifest)  # another process may have built it while this one waited
            if found is None:
                needs = [compile_cached(compiler, n) for n in unit.needs]
                _remove_stale_temporaries(root)
                built = _compile(root, compiler, ident, unit, needs, manifest)
                return replace(built, seconds=time.perf_counter() - t0)
    path, key, deps = found
    if unit.beside:
        ensure_file(path.with_suffix(""), unit.beside)
    return Built(path, key, True, time.perf_counter() - t0, unit.roots, deps=deps)


def _lookup(
    root: Path, unit: Unit, manifest: Path
) -> tuple[Path, str, tuple[tuple[str, str, tuple[int, ...]], ...]] | None:
    for entry in _manifest_entries(manifest):
        deps, key = entry.get("deps"), entry.get("key")
        if not isinstance(deps, list) or not isinstance(key, str):
            continue
        if all(isinstance(d, list) and len(d) == 3 and _unchanged(*d) for d in deps):
            path = _artifact_path(root, unit, key)
            if verified(path):
                return path, key, tuple((d[0], d[1], tuple(d[2])) for d in deps)
    return None


def _unchanged(path: str, digest: str, sig: list[int]) -> bool:
    """The file still has the content hashed as `digest`: its stat signature is the recorded one, or its hash is."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if list(_stat_sig(st)) == sig:
        return True
    return file_digest(path) == digest


def _manifest_entries(manifest: Path) -> list[dict[str, Any]]:
    try:
        entries = json.loads(manifest.read_text()).get("entries", [])
    except (OSError, ValueError, AttributeError):  # missing or damaged: a miss, never an error
        return []
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _artifact_path(root: Path, unit: Unit, key: str) -> Path:
    return root / unit.kind / f"{unit.stem}-{key}{unit.suffix}"


_verified: dict[str, tuple[int, int, int, int]] = {}  # artifacts already checked against their entry, by stat


def verified(path: Path) -> bool:
    """The artifact is there and is exactly what its entry says was built (size, SHA-256, executable bit)."""
    try:
        st = os.stat(path)
        entry = json.loads(path.with_name(path.name + ".json").read_text())
    except (OSError, ValueError):
        return False
    if _verified.get(str(path)) == _stat_sig(st):
        return True
    ok = (
        isinstance(entry, dict)
        and st.st_size > 0
        and entry.get("size") == st.st_size
        and (path.suffix != "" or os.access(path, os.X_OK))
        and entry.get("sha256") == file_digest(path)
    )
    if ok:
        _verified[str(path)] = _stat_sig(st)
    return ok


def _compile(root: Path, compiler: str, ident: str, unit: Unit, needs: list[Built], manifest: Path) -> Built:
    with _writing(root / "tmp"):
        tmp = root / "tmp" / f"{os.getpid()}-{time.monotonic_ns()}"
        tmp.mkdir()
        claim = open(tmp / ".claiming", "w")  # noqa: SIM115 - held (locked) for the compile: marks the folder as live
        fcntl.flock(claim, fcntl.LOCK_EX)
        os.rename(tmp / ".claiming", tmp / ".owner")  # named only once locked: an unlocked .owner means a dead build
    try:
        args = [_named(a, needs) for a in unit.args]
        out = tmp / f"out{unit.suffix}"
        cmd = [compiler, *args, *unit.prefix_maps(), "-MD", "-o", str(out)]  # deps: tmp/out*.d, one per source
        for _ in range(_EDITED_DURING_BUILD_RETRIES):
            started = time.time_ns()
            with progress.stage(unit.what or f"compiling {unit.stem} with g++"):
                code, log = run_compiler(cmd, tmp)
            if code != 0:
                if _out_of_space(log):
                    raise InfrastructureError("build cache", tmp, "no space left on the device", _FIX_CACHE)
                raise CompileFailed(unit, log)
            read = sorted({d for f in tmp.glob("*.d") for d in _read_deps(f)})
            changed = _changed_since(read, started)
            if not changed:
                break
            # saved while g++ read it: the binary may be of the old text and the hash of the new one; compile again
        else:
            raise InfrastructureError("build input", changed[0], "keeps changing while it is compiled", "run again")
        hashed = [(d, file_digest(d)) for d in read]  # before the stat signatures: a hash is of what was stat'ed
        if any(h is None for _, h in hashed):
            gone = next(d for d, h in hashed if h is None)
            raise InfrastructureError("build input", gone, "vanished during the build", "run again")
        deps = {d: (d, str(h), tuple(_signature(d))) for d, h in hashed}
        for n in needs:  # what the needs were made from, and the needs themselves, are this artifact's inputs too
            for d in (*n.deps, (str(n.path), str(file_digest(n.path)), tuple(_signature(str(n.path))))):
                deps.setdefault(d[0], d)
        key = _digest(
            SCHEMA,
            ident,
            unit.kind,
            [unit.placeholder(a) for a in unit.args],
            unit.beside,
            [n.key for n in needs],
            sorted((unit.placeholder(d), h) for d, h in hashed),
            # a precompiled header keeps the paths it was made from (-fpch-deps reports them to every user): it is
            # never shared between two emulator folders, or a build after the other folder is gone waits on files
            # that no longer exist
            [real for real, _ in unit.roots] if unit.kind == "pch" else [],
        )
        target = _artifact_path(root, unit, key)
        with _writing(target.parent):
            if not verified(target):  # identical sources elsewhere may have made it already: keep that one
                entry = {
                    "schema": SCHEMA,
                    "key": key,
                    "size": out.stat().st_size,
                    "sha256": file_digest(out),
                    "compiler": ident,
                    "args": [unit.placeholder(a) for a in unit.args],
                    "deps": sorted(unit.placeholder(d) for d in read),
                    "needs": [n.key for n in needs],
                    "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                }
                staged = tmp / "entry.json"
                staged.write_text(json.dumps(entry, indent=1))
                os.replace(out, target)  # the artifact first: an entry never describes a missing file
                os.replace(staged, target.with_name(target.name + ".json"))
            if unit.beside:
                ensure_file(target.with_suffix(""), unit.beside)
            _remember(manifest, [[d, h, list(sig)] for d, h, sig in deps.values()], key, tmp)
        return Built(target, key, False, 0.0, unit.roots, log, tuple(deps.values()))
    finally:
        claim.close()
        shutil.rmtree(tmp, ignore_errors=True)


_EDITED_DURING_BUILD_RETRIES = 3


def _changed_since(paths: list[str], started_ns: int) -> list[str]:
    """The files written (or gone) since `started_ns`: any write sets a file's ctime to the time of the write."""
    out = []
    for path in paths:
        try:
            if os.stat(path).st_ctime_ns >= started_ns:
                out.append(path)
        except OSError:
            out.append(path)
    return out


def _named(arg: str, needs: list[Built]) -> str:
    for i, n in enumerate(needs):
        if arg == need(i):
            return n.use
    return arg


def _signature(path: str) -> list[int]:
    known = _digests.get(path)
    return list(known[0]) if known else []


def _remember(manifest: Path, deps: list[list[Any]], key: str, tmp: Path) -> None:
    entries = [e for e in _manifest_entries(manifest) if e.get("key") != key]
    entries = [{"deps": deps, "key": key}, *entries][:_MANIFEST_KEEP]
    staged = tmp / "manifest.json"
    staged.write_text(json.dumps({"schema": SCHEMA, "entries": entries}))
    os.replace(staged, manifest)


def _read_deps(path: Path) -> list[str]:
    """The files a `-MD` dependency list names (make syntax: `target: a b \\` continued lines, `\\ ` for spaces)."""
    text = path.read_text().replace("\\\n", " ")
    _, _, rest = text.partition(": ")
    names = re.findall(r"(?:\\ |[^\s])+", rest.split("\n\n")[0])
    return [os.path.realpath(n.replace("\\ ", " ")) for n in names if not n.endswith(":")]


def _out_of_space(log: str) -> bool:
    return "No space left on device" in log or "Disk quota exceeded" in log


# ------------------------------------------------------------------------------------------------ processes
def run_compiler(cmd: Sequence[str], tmp: Path) -> tuple[int, str]:
    """Run the compiler in a process group of its own (cc1plus, as, ld included) with its temporaries in `tmp`; an
    exception while it runs (Ctrl-C, SIGTERM turned into SystemExit by the CLI) kills the whole group first."""
    env = {**os.environ, "LC_ALL": "C", "TMPDIR": str(tmp)}  # plain quotes in messages; no /tmp/cc*.s left behind
    proc = subprocess.Popen(
        list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )
    try:
        out, _ = proc.communicate()
    except BaseException:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        raise
    return proc.returncode, out.decode(errors="replace")


@contextlib.contextmanager
def _locked(lock: Path, unit: Unit) -> Iterator[None]:
    with _writing(lock):
        fh = open(lock, "w")  # noqa: SIM115 - the lock lives as long as the file is open
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            with progress.stage(f"waiting for another process {_gerund(unit)}", after=0.0):
                fcntl.flock(fh, fcntl.LOCK_EX)
        yield  # released when the file closes


def _gerund(unit: Unit) -> str:
    return unit.what[:1].lower() + unit.what[1:] if unit.what else f"compiling {unit.stem}"


def _remove_stale_temporaries(root: Path) -> None:
    """Temporary folders whose compile is no longer running (its process was killed): nobody holds their lock."""
    for folder in (root / "tmp").iterdir() if (root / "tmp").is_dir() else ():
        owner = folder / ".owner"
        try:
            with open(owner) as fh:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live compile
        except OSError:
            if time.time() - _mtime(folder) < 60:  # just created, its owner file not yet there
                continue
        shutil.rmtree(folder, ignore_errors=True)
    for legacy in root.glob("tmp?*"):  # the earlier layout's TemporaryDirectory folders, left by killed builds
        if legacy.is_dir() and time.time() - _mtime(legacy) > 3600:
            shutil.rmtree(legacy, ignore_errors=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
