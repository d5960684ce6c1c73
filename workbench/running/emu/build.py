"""Build kernel variants with g++ against the ascemu headers, through the content-addressed compile cache (cache.py).

A kernel binary is made of up to three cached artifacts, each compiled once per platform and flags:
- the emulator's runtime object (`kernels/emu/runtime/ascemu_runtime.cpp`: every non-template emulator function),
  linked into every kernel, so a kernel build compiles only the kernel and the templates it instantiates;
- a precompiled header of `kernel_operator.h`, used when the kernel's first directive includes it (a kernel that
  defines or tests a macro before that include is compiled from the headers, as is a -D the headers read: g++
  checks that itself);
- the kernel's own translation unit: the driver with the kernel source force-included (kernels/emu/README.md,
  mechanism A), so the driver sees the entry's real prototype.  A source with ASSERT sites that only CANN's device
  build accepts is compiled from a rewritten copy in the cache (rewrite.py `assert_sites`, on the same lines, after a
  `#line` naming the user's file); every other source is compiled where it is.
The key of each covers exactly what the compiler read (cache.py); identical copies of a kernel in two folders share
one binary, and what the binary reports names the caller's file (`Built.local`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ...core import resources
from ...core._files import check_text_source
from ...core.errors import InvalidInput, WorkbenchError
from .cache import Built, CompileFailed, Unit, cache_root, compile_cached, ensure_file, file_digest, need
from .rewrite import assert_sites, with_line_directive

__all__ = ["PLATFORM_MACRO", "BuildError", "Built", "CompileError", "Variant", "build", "defines_of"]

PLATFORM_MACRO = {"P310": "ascend310p", "P910B": "ascend910b"}
_EMU_TOKEN = resources.EMU_PLACEHOLDER  # the emulator's folder, as binaries and keys see it


@dataclass(frozen=True)
class CompileError:
    """One error g++ reported, placed at the user's own line: a template error inside the emulator's headers is
    placed where the kernel's code required it (the header's own place is kept in `origin`)."""

    file: str
    line: int
    column: int
    message: str
    excerpt: str = ""  # the source line
    origin: str = ""  # "header.h:12" when the error itself was reported inside an emulator header

    def text(self) -> str:
        head = f"{Path(self.file).name}:{self.line}:{self.column}: error: {self.message}"
        via = f" (reported in {self.origin})" if self.origin else ""
        src = f"\n    {self.line:>5} | {self.excerpt}" if self.excerpt else ""
        return head + via + src

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "excerpt": self.excerpt,
            "origin": self.origin,
        }


SHOWN_ERRORS = 5


class BuildError(WorkbenchError):
    """g++ rejected a kernel: `errors` are the first few at the user's own lines, `log` all the compiler said."""

    def __init__(self, what: str, log: str, own_files: tuple[str, ...] = ()) -> None:
        self.log = log
        self.all_errors = parse_errors(log, own_files)
        self.errors = self.all_errors[:SHOWN_ERRORS]
        first = self.errors[0].text().splitlines()[0] if self.errors else _first_line(log)
        more = len(self.all_errors) - 1
        tail = f" (and {more} more error{'s' * (more > 1)})" if more > 0 else ""
        super().__init__("kernel build", what, f"a kernel that compiles with g++ -std=c++20: {first}{tail}")

    def text(self) -> str:
        """The errors as a terminal shows them: one block per error with its source line."""
        if not self.errors:
            return self.log.strip()[-2000:]
        more = len(self.all_errors) - len(self.errors)
        extra = [f"... and {more} more (the whole compiler output is BuildError.log)"] if more > 0 else []
        return "\n".join([*(e.text() for e in self.errors), *extra])

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "compile_errors": [e.to_json() for e in self.all_errors]}


def _first_line(log: str) -> str:
    return next((ln for ln in log.splitlines() if "error" in ln), log.strip()[:400])


_DIAG = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|warning|note): (?P<msg>.*)$"
)
_REQUIRED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+):\s+required from here")


def parse_errors(log: str, own_files: tuple[str, ...] = ()) -> tuple[CompileError, ...]:
    """g++'s errors in order, each at the user's line when it has one (`own_files`: the user's sources and headers;
    empty: any file outside the emulator's folder). An error g++ reports inside an emulator header is placed where
    the user's code caused it: the "required from here" line of a template instantiation, printed before the error,
    or the "in expansion of macro" line of a macro the user's line expanded, printed after it."""
    emu = str(resources.emu_dir())
    own = {os.path.realpath(f) for f in own_files}

    def is_own(path: str) -> bool:
        real = os.path.realpath(path)
        return real in own if own else not real.startswith(emu)

    out: list[CompileError] = []
    required: tuple[str, int, int] | None = None  # the user's line the current template context started from
    unplaced: int | None = None  # index in `out` of an error still at an emulator header's line
    for line in log.splitlines():
        req = _REQUIRED.match(line)
        if req and is_own(req["file"]):
            required = (req["file"], int(req["line"]), int(req["col"]))
            continue
        m = _DIAG.match(line)
        if not m:
            continue
        if m["kind"] in ("error", "fatal error"):
            file, ln, col, origin = m["file"], int(m["line"]), int(m["col"]), ""
            unplaced = None
            if not is_own(file) and required is not None:
                origin = f"{Path(file).name}:{ln}"
                file, ln, col = required
            elif not is_own(file):
                unplaced = len(out)
            out.append(CompileError(file, ln, col, m["msg"], _excerpt(file, ln), origin))
            required = None
        elif m["kind"] == "warning":
            required = unplaced = None
        elif unplaced is not None and m["msg"].startswith("in expansion of macro") and is_own(m["file"]):
            header = out[unplaced]
            file, ln = m["file"], int(m["line"])
            out[unplaced] = CompileError(
                file, ln, int(m["col"]), header.message, _excerpt(file, ln), f"{Path(header.file).name}:{header.line}"
            )
            unplaced = None
    return tuple(out)


def _excerpt(path: str, line: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, 1):
                if i == line:
                    return text.rstrip("\n").strip()[:200]
    except OSError:
        pass
    return ""


# ------------------------------------------------------------------------------------------------ variants
@dataclass(frozen=True)
class Variant:
    """One compiled kernel: sources + entry + platform + defines (+ extra include dirs)."""

    sources: tuple[Path, ...]
    entry: str
    platform: str  # "P310" or "P910B"
    defines: tuple[tuple[str, str], ...] = ()
    include_dirs: tuple[Path, ...] = ()
    opt: str = "-O2"

    def base_flags(self) -> list[str]:
        """What every artifact of the variant's platform is compiled with (the runtime, the header, the kernel)."""
        return [
            "-std=c++20",
            self.opt,
            "-g1",  # line tables: what a CRASH or KERNEL_EXIT line needs (addr2line); full -g costs a third more time
            "-pthread",
            "-pipe",  # no assembler temporaries on disk (a killed build left 27 MB /tmp/cc*.s)
            f"-DASCEMU_PLATFORM={PLATFORM_MACRO[self.platform]}",
        ]

    def flags(self) -> list[str]:
        dirs = dict.fromkeys((_include(), *self.include_dirs, *(s.parent for s in self.sources)))
        defs = [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in self.defines]
        return [*self.base_flags(), *(f"-I{d}" for d in dirs), *defs]

    def roots(self) -> tuple[tuple[str, str], ...]:
        """The folders the binary and its key see as placeholders: the emulator's, then the user's (longest last,
        so a source folder inside an include folder gets its own)."""
        user = dict.fromkeys(str(d) for d in (*self.include_dirs, *(s.parent for s in self.sources)))
        named = [(d, f"/__wb_dir{i}__") for i, d in enumerate(user)]
        return ((str(resources.emu_dir()), _EMU_TOKEN), *sorted(named, key=lambda r: len(r[0])))


def _include() -> Path:
    return resources.emu_dir() / "include"


def gxx() -> str:
    exe = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")
    if exe is None:
        raise WorkbenchError("compiler", "g++", "g++ 12 or newer on PATH (apt-get install g++)")
    return exe


def build(v: Variant, driver: Path | None = None) -> Built:
    """The binary for `v`, compiled only when the cache has none for exactly what the compiler would read."""
    for source in v.sources:
        check_text_source(source, "kernel source")
    platform = PLATFORM_MACRO[v.platform]
    runtime = _runtime(v) if driver is None else None
    separate = ["-DASCEMU_SEPARATE_RUNTIME"] if runtime else []
    needs = [u for u in (runtime, _precompiled_header(v, separate) if _takes_pch(v.sources[0]) else None) if u]
    first, *rest = (_as_compiled(s) for s in v.sources)
    args = [
        *v.flags(),
        *separate,
        f"-DASCEMU_ENTRY={v.entry}",
        *(["-fpch-deps", "-include", need(len(needs) - 1)] if needs and needs[-1].kind == "pch" else []),
        "-include",
        str(first),
        *map(str, rest),
        str(driver or resources.emu_dir() / "driver" / "main.cpp"),
        *([need(0)] if runtime else []),
    ]
    unit = Unit(
        "bin",
        _file_stem(v.entry),
        tuple(args),
        v.roots(),
        tuple(needs),
        what=f"building {v.entry} for {platform} with g++",
    )
    try:
        return compile_cached(gxx(), unit)
    except CompileFailed as exc:
        if exc.unit is not unit:  # the emulator's own runtime or header: not the user's error
            raise BuildError(f"the emulator's {exc.unit.stem}", exc.log) from None
        raise BuildError(f"{v.sources[0].name} for {platform}", exc.log, tuple(str(s) for s in v.sources)) from None


def _as_compiled(source: Path) -> Path:
    """The file g++ reads for `source`: itself, or (when it has ASSERT sites only CANN's device build accepts) a
    rewritten copy in the cache, named by its content, whose `#line` names `source`."""
    text = source.read_text(encoding="utf-8", errors="replace")
    fixed = assert_sites(text)
    if fixed == text:
        return source
    unit = with_line_directive(fixed, str(source))
    copy = cache_root() / "units" / hashlib.sha256(unit.encode()).hexdigest()[:32] / source.name
    ensure_file(copy, unit)
    return copy


# The runtime and the header are compiled from the emulator's folder only: their keys never depend on a kernel.
def _runtime(v: Variant) -> Unit | None:
    source = resources.emu_dir() / "runtime" / "ascemu_runtime.cpp"
    if not source.is_file():  # an emulator without separate compilation: everything is in the kernel's unit
        return None
    platform = PLATFORM_MACRO[v.platform]
    args = (*v.base_flags(), f"-I{_include()}", "-c", str(source))
    what = f"building the emulator's runtime for {platform} (once)"
    return Unit("obj", f"ascemu-runtime-{platform}", args, v.roots()[:1], suffix=".o", what=what)


_PCH_TEXT = '#include "kernel_operator.h"\n'


def _precompiled_header(v: Variant, separate: list[str]) -> Unit:
    stub = cache_root() / "pch" / "ascemu_pch.h"
    ensure_file(stub, _PCH_TEXT)
    platform = PLATFORM_MACRO[v.platform]
    args = (*v.base_flags(), *separate, f"-I{_include()}", "-x", "c++-header", str(stub))
    what = f"precompiling the emulator's headers for {platform} (once)"
    return Unit("pch", f"kernel_operator-{platform}", args, v.roots()[:1], suffix=".h.gch", beside=_PCH_TEXT, what=what)


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@cache
def _pch_ready(source: Path, digest: str | None) -> bool:
    """The kernel's first directive includes kernel_operator.h: nothing before it can change what the header means."""
    text = _COMMENTS.sub("", source.read_text(encoding="utf-8", errors="replace"))
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return re.fullmatch(r'#\s*include\s*[<"]kernel_operator\.h[>"]', first) is not None


def _takes_pch(source: Path) -> bool:
    return os.environ.get("ASCEMU_PCH", "1") != "0" and _pch_ready(source, file_digest(source))


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
