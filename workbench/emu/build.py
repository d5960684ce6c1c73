"""Build kernel variants with g++ against the ascemu headers into a content-hash keyed cache.

The key hashes everything that can change the binary: compiler identity, flags, defines, the kernel
sources and every header beside them, and the whole emulator include/driver tree. A build goes to a
temporary file in the cache directory and is renamed into place, under a per-key file lock, so several
processes (pytest-xdist, notebooks) can ask for the same variant at once: one compiles, the others wait
and reuse it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .. import progress, resources
from ..errors import InvalidInput, WorkbenchError

PLATFORM_MACRO = {"P310": "ascend310p", "P910B": "ascend910b"}


class BuildError(WorkbenchError):
    """g++ rejected a kernel variant; `log` holds the compiler output."""

    def __init__(self, what: str, log: str) -> None:
        first = next((ln for ln in log.splitlines() if "error" in ln), log.strip()[:400])
        super().__init__("kernel build", what, f"a kernel that compiles with g++ -std=c++20: {first}")
        self.log = log


@dataclass(frozen=True)
class Variant:
    """One compiled kernel: sources + entry + platform + defines (+ extra include dirs)."""

    sources: tuple[Path, ...]
    entry: str
    platform: str  # "P310" or "P910B"
    defines: tuple[tuple[str, str], ...] = ()
    include_dirs: tuple[Path, ...] = ()
    opt: str = "-O2"

    def flags(self) -> list[str]:
        dirs = dict.fromkeys(
            (resources.emu_dir() / "include", *self.include_dirs, *(s.parent for s in self.sources))
        )  # ordered: the key hashes flags
        incs = [f"-I{d}" for d in dirs]
        defs = [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in self.defines]
        return [
            "-std=c++20",
            self.opt,
            "-g",
            "-pthread",
            f"-DASCEMU_PLATFORM={PLATFORM_MACRO[self.platform]}",
            *incs,
            *defs,
        ]


def cache_dir() -> Path:
    root = Path(os.environ.get("WORKBENCH_CACHE") or Path.home() / ".cache" / "ascendc-workbench") / "emu"
    root.mkdir(parents=True, exist_ok=True)
    return root


@cache
def _compiler_id(gxx: str) -> str:
    return subprocess.run([gxx, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]


def _tree_files(dirs: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        out += sorted(p for p in d.rglob("*") if p.is_file() and p.suffix in (".h", ".hpp", ".cpp", ".cc", ".inc"))
    return out


def variant_key(v: Variant, gxx: str) -> str:
    h = hashlib.sha256()
    h.update(_compiler_id(gxx).encode())
    h.update(repr((v.entry, v.platform, v.flags())).encode())
    dirs = {resources.emu_dir(), *v.include_dirs, *(s.parent for s in v.sources)}
    for path in sorted(set(_tree_files(dirs)) | set(v.sources)):
        h.update(str(path.name).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:24]


def gxx() -> str:
    exe = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")
    if exe is None:
        raise WorkbenchError("compiler", "g++", "g++ 12 or newer on PATH (apt-get install g++)")
    return exe


@dataclass(frozen=True)
class Built:
    path: Path
    key: str
    cached: bool
    seconds: float


def build(v: Variant, driver: Path | None = None) -> Built:
    """Return the binary for `v`, compiling it only if no cached build exists."""
    t0 = time.perf_counter()
    compiler = gxx()
    key = variant_key(v, compiler)
    binary = cache_dir() / f"{_file_stem(v.entry)}-{key}"
    if binary.exists():
        return Built(binary, key, True, time.perf_counter() - t0)
    lock = cache_dir() / f".{key}.lock"
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # released when the file closes
        if binary.exists():  # another process built it while we waited
            return Built(binary, key, True, time.perf_counter() - t0)
        with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
            out = Path(tmp) / "kernel.bin"
            # One translation unit: the driver with the first kernel source force-included, so the driver
            # sees the entry's real prototype (kernels/emu/README.md, mechanism A); further sources link.
            first, *rest = v.sources
            cmd = [
                compiler,
                *v.flags(),
                f"-DASCEMU_ENTRY={v.entry}",
                "-include",
                str(first),
                *map(str, rest),
                str(driver or resources.emu_dir() / "driver" / "main.cpp"),
                "-o",
                str(out),
            ]
            with progress.stage(f"building {v.entry} for {PLATFORM_MACRO[v.platform]} with g++"):
                proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"{v.entry} ({v.platform}, {dict(v.defines)})", proc.stderr or proc.stdout)
            os.replace(out, binary)
    return Built(binary, key, False, time.perf_counter() - t0)


def _file_stem(entry: str) -> str:
    """The entry as a file name: `add_kernel<float, 8>` becomes `add_kernel_float_8` (the key keeps it unique)."""
    return re.sub(r"[^A-Za-z0-9_]+", "_", entry).strip("_")[:80] or "kernel"


_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def defines_of(mapping: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """`{NAME: value}` as sorted (name, text) pairs; True defines the bare name, False leaves it out."""
    for name, value in mapping.items():
        if not isinstance(name, str) or not _MACRO_NAME.fullmatch(name):
            raise InvalidInput("define", name, "a C macro name (a letter or _, then letters, digits or _)")
        if "\n" in str(value):  # g++ would read the rest as a new line of the command-line prelude
            raise InvalidInput(f"define {name}", value, "a value on one line")
    return tuple(sorted((k, "" if v is True else str(v)) for k, v in mapping.items() if v is not False))
