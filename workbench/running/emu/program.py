"""Whole programs on the emulator: a single-source `.asc` file (kernels and a host main() that calls ACL), or a
CANN CPU twin in several files (a main.cpp that runs its kernel with ICPU_RUN_KF, and the kernel's .cpp).

    run = workbench.running.emu.run_program("add.asc", platform="Ascend910B3")
    run = workbench.running.emu.run_program(["main.cpp", "add_custom.cpp"], platform="Ascend910B3")
    run.exit_code, run.stdout, run.launches[0].diagnostics

The program is built with g++ against ascemu, each file to an object, then linked: every
`kernel<<<blockDim, l2ctrl, stream>>>(args...)` is rewritten into a launch on emulated cores, and ICPU_RUN_KF is one
too (kernels/emu/include/ascemu/program.h; a `#line` directive keeps every diagnostic on the user's file and line),
and `#include "acl/acl.h"` finds the emulator's ACL shim (kernels/emu/include/acl/). Its main() then runs in a child
process with a timeout. docs/programs.md says what is supported.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ...core import resources
from ...core._files import check_text_source
from ...core.errors import InvalidInput, UnsupportedPlatform, WorkbenchError
from ...core.platform import get_platform
from ..backends import faulted
from ..launch import Diagnostic
from .build import PLATFORM_MACRO, BuildError, Built, defines_of, gxx
from .cache import CompileFailed, Unit, cache_root, compile_cached, ensure_file, need
from .launch import DIAG_PREFIX, _stderr_diagnostics, check_timeout
from .rewrite import instantiated, rewrite_launches

__all__ = [
    "LinkError",
    "LinkProblem",
    "ProgramLaunch",
    "ProgramRun",
    "UnsupportedAclCall",
    "build_program",
    "link_problems",
    "run_program",
    "shim_calls",
]

_EMU_PLATFORM = {2002: "P310", 2201: "P910B"}
ACL_PREFIX = "ASCEMU_ACL "
_GRACE_S = 10.0  # past timeout_s: the emulator's own per-launch watchdog reports first
# [CHOICE] The whole run's bound when no timeout_s is given: each launch has its own scaled watchdog, and this only
# ends a program whose host code never returns (an hour: more than any program of the samples' kind needs).
PROGRAM_RUN_LIMIT_S = 3600.0


class UnsupportedAclCall(BuildError):
    """The program calls (or names) an ACL function, type or constant the emulator's shim does not have."""

    def __init__(self, names: Sequence[str], where: str, log: str) -> None:
        WorkbenchError.__init__(
            self,
            "ACL call",
            f"{', '.join(names)} ({where})",
            "one the emulator's ACL shim provides (docs/programs.md): " + ", ".join(shim_calls()),
        )
        self.names, self.log = tuple(names), log
        self.errors = self.all_errors = ()


@cache
def shim_calls() -> tuple[str, ...]:
    """The ACL functions the shim defines, read from its headers (the one list of what is supported)."""
    names: list[str] = []
    for header in sorted((resources.emu_dir() / "include" / "acl").glob("*.h")):
        names += re.findall(r"^inline\s+[\w\s\*]*?\b(acl\w+)\s*\(", header.read_text(), re.M)
    return tuple(dict.fromkeys(names))


# ------------------------------------------------------------------------------------------------ the build
def _flags(
    platform: str, opt: str, source: Path, include_dirs: Sequence[Path], defines: Sequence[tuple[str, str]]
) -> list[str]:
    return [
        "-std=c++20",
        opt,
        "-g1",  # line tables, enough for a crash's file:line (addr2line); full -g costs a third more build time
        "-pthread",
        f"-DASCEMU_PLATFORM={PLATFORM_MACRO[platform]}",
        f"-I{resources.emu_dir() / 'include'}",
        "-iquote",
        str(source.parent),
        *(f"-I{d}" for d in include_dirs),
        *(f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in defines),
        "-include",
        "ascemu/program.h",
    ]


def _unsupported_acl(log: str) -> tuple[list[str], str]:
    """The ACL names g++ could not find, in order, and where the first one is used."""
    pattern = re.compile(
        r"^(?P<where>[^\s:][^:]*:\d+):\d+: error: ['‘](?:::)?(?P<name>acl\w*|ACL_\w+)['’] "
        r"(?:was not declared|does not name a type|has not been declared|is not a member)"
        r"|undefined reference to `(?P<linked>acl\w*)",
        re.M,
    )
    names: dict[str, None] = {}
    where = ""
    for m in pattern.finditer(log):
        names[m.group("name") or m.group("linked")] = None
        if not where and m.group("where"):
            where = f"{Path(m.group('where').rsplit(':', 1)[0]).name}:{m.group('where').rsplit(':', 1)[1]}"
    return list(names), where or "link"


@dataclass(frozen=True)
class LinkProblem:
    """One symbol the link could not resolve: `undefined` (used, defined in none of the program's files) or
    `multiple` (defined in two of them)."""

    symbol: str  # demangled: "axpy_custom", "ns::helper(float)"
    problem: str  # "undefined" | "multiple"
    file: str  # where it is used (undefined) or defined a second time (multiple); "" when the linker did not say
    line: int = 0
    other: str = ""  # multiple: "file:line" of the first definition

    @property
    def site(self) -> str:
        return f"{Path(self.file).name}:{self.line}" if self.line else Path(self.file).name

    def text(self) -> str:
        where = f" ({self.site})" if self.file else ""
        if self.problem == "multiple":
            return f"{self.symbol} defined twice{where}, first at {self.other}"
        return f"{self.symbol}{where}"

    def to_json(self) -> dict[str, object]:
        return {"symbol": self.symbol, "problem": self.problem, "file": self.file, "line": self.line}


class LinkError(BuildError):
    """Every file compiled, but they do not make one program: `problems` names each symbol and where it is used."""

    def __init__(self, problems: Sequence[LinkProblem], sources: Sequence[Path], log: str) -> None:
        undefined = [p for p in problems if p.problem == "undefined"]
        shown = "; ".join(p.text() for p in problems)
        given = " ".join(s.name for s in sources)
        if undefined:
            value = f"undefined reference{'s' * (len(undefined) > 1)} to {shown}"
            allowed = (
                f"every function the program calls defined in one of its files ({given}); a kernel in a file of "
                f"its own is given too: `workbench emu-run {given} KERNEL.cpp`"
            )
        else:
            value = f"symbols defined in two files: {shown}"
            allowed = f"each function defined in one of the program's files ({given}) only"
        WorkbenchError.__init__(self, "program link", value, allowed)
        self.problems, self.log = tuple(problems), log
        self.errors = self.all_errors = ()

    def to_json(self) -> dict[str, object]:
        return {**WorkbenchError.to_json(self), "link_errors": [p.to_json() for p in self.problems]}


_LINK_LOCATION = r"(?:(?P<file>[^\s:][^:\n]*?):(?:(?P<line>\d+)|\([^)\n]*\)): )?"
_UNDEFINED = re.compile(r"^(?:\S*ld(?:\.\w+)?: )?" + _LINK_LOCATION + r"undefined reference to [`'](?P<sym>.+)'$", re.M)
_MULTIPLE = re.compile(
    r"^(?:\S*ld(?:\.\w+)?: )?" + _LINK_LOCATION + r"multiple definition of [`'](?P<sym>.+?)'; "
    r"(?P<first>.+?): first defined here$",
    re.M,
)


def link_problems(log: str) -> tuple[LinkProblem, ...]:
    """The linker's unresolved and twice-defined symbols, each once (at its first use), in the linker's order."""
    found: dict[tuple[str, str], LinkProblem] = {}
    for problem, pattern in (("undefined", _UNDEFINED), ("multiple", _MULTIPLE)):
        for m in pattern.finditer(log):
            symbol = _demangled(m["sym"])
            if (symbol, problem) in found:
                continue
            first = re.search(r"([^:\s]+?)(?::(\d+))?(?::\([^)]*\))?$", m.groupdict().get("first") or "")
            other = "" if first is None else Path(first[1]).name + (f":{first[2]}" if first[2] else "")
            found[(symbol, problem)] = LinkProblem(symbol, problem, m["file"] or "", int(m["line"] or 0), other)
    return tuple(found.values())


def _demangled(symbol: str) -> str:
    """collect2 demangles its names already; a raw one (COLLECT_NO_DEMANGLE) goes through c++filt when there is one."""
    if not symbol.startswith("_Z"):
        return symbol
    try:
        out = subprocess.run(["c++filt", symbol], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return symbol
    return out or symbol


def _refusal(log: str, sources: Sequence[Path], platform: str, *, linking: bool) -> BuildError:
    names, where = _unsupported_acl(log)
    if names:
        return UnsupportedAclCall(names, where, log)
    if linking and (problems := link_problems(log)):
        return LinkError(problems, sources, log)
    return BuildError(f"{', '.join(s.name for s in sources)} ({platform})", log)


def _source_paths(path: str | Path | Sequence[str | Path]) -> list[Path]:
    """The program's files, each once, in the order given (the first names the binary)."""
    given = [path] if isinstance(path, (str, Path)) else list(path)
    if not given:
        raise InvalidInput("program", "no file", "one or more existing .asc or .cpp files")
    out: list[Path] = []
    for one in given:
        source = Path(one).resolve()
        if not source.is_file():
            raise InvalidInput("program", str(one), "an existing .asc or .cpp file")
        if source in out:
            raise InvalidInput("program", str(one), "each file once (it is already one of the program's files)")
        check_text_source(source, "program")
        out.append(source)
    return out


def build_program(
    path: str | Path | Sequence[str | Path],
    platform: str = "Ascend310P3",
    opt: str = "-O1",
    defines: Mapping[str, object] | None = None,
    include_dirs: Sequence[str | Path] = (),
) -> Built:
    """The program's emulator binary, compiled only when the cache has none for exactly what g++ would read.

    `path` is one source file or several (a CPU-twin main.cpp and its kernel's .cpp: a KernelLaunch sample's CMake
    builds the kernel files into a library, `ascendc_kernels_cpu`, that the `main.cpp` executable links; e.g.
    KernelLaunch/AddKernelInvocationTilingNeo/CMakeLists.txt and cmake/cpu_lib.cmake of the Ascend samples):
    each is compiled with the same options (its own folder first for `#include "..."`) and their objects are linked
    into one program; each object and the program are cached by their content, so editing one file recompiles it
    alone. A program g++ rejects raises UnsupportedAclCall (an ACL name the shim lacks), LinkError (a symbol no file
    defines, or two do, each named with where it is used) or BuildError."""
    sources = _source_paths(path)
    plat = get_platform(platform)
    if plat.npu_arch not in _EMU_PLATFORM:
        raise UnsupportedPlatform("platform", platform, "an Ascend310P or Ascend910B SoC")
    emu_platform = _EMU_PLATFORM[plat.npu_arch]
    dirs = [Path(d).resolve() for d in include_dirs]
    for given, resolved in zip(include_dirs, dirs, strict=True):
        if not resolved.is_dir():
            raise InvalidInput("include dir", str(given), "an existing directory")
    macros = defines_of(defines or {})
    objects = []
    for source in sources:
        rewritten, _ = rewrite_launches(source.read_text(encoding="utf-8"), str(source))
        # the rewritten unit lives in the cache under its own content's name: the command names it, so keys follow it
        digest = hashlib.sha256(rewritten.encode()).hexdigest()[:32]
        unit_file = cache_root() / "units" / digest / f"{source.stem}.cpp"
        ensure_file(unit_file, rewritten)
        objects.append(
            Unit(
                "obj",
                f"program-{source.stem}",
                (*_flags(emu_platform, opt, source, dirs, macros), "-c", str(unit_file)),
                suffix=".o",
                what=f"building {source.name} for {PLATFORM_MACRO[emu_platform]} with g++",
            )
        )
    program = Unit(
        "bin",
        f"program-{sources[0].stem}",
        ("-pthread", *(need(i) for i in range(len(objects)))),
        needs=tuple(objects),
        what=f"linking {' '.join(s.name for s in sources)} with g++",
    )
    try:
        return compile_cached(gxx(), program)
    except CompileFailed as exc:
        failed = [s for s, o in zip(sources, objects, strict=True) if o is exc.unit] or sources
        raise _refusal(exc.log, failed, emu_platform, linking=exc.unit is program) from None


# ------------------------------------------------------------------------------------------------ the run
@dataclass(frozen=True)
class ProgramLaunch:
    """One `<<<>>>` launch the program made, in order."""

    index: int
    kernel: str
    block_dim: int
    file: str
    line: int
    exit_code: int | None  # the emulator's code (kernels/emu/README.md §5.6); None: the process ended inside it
    diagnostics: tuple[Diagnostic, ...]
    printf: tuple[tuple[int, str], ...] = ()  # (core, text) of the kernel's AscendC::printf
    kernel_s: float = 0.0
    timeout_s: float = 0.0  # the watchdog the launch ran under (0: its report was never written)
    trace: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def site(self) -> str:
        return f"{Path(self.file).name}:{self.line}"

    @property
    def faulted(self) -> bool:
        return self.exit_code is None or faulted(self.exit_code, self.diagnostics)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kernel": self.kernel,
            "block_dim": self.block_dim,
            "file": self.file,
            "line": self.line,
            "exit_code": self.exit_code,
            "faulted": self.faulted,
            "kernel_s": self.kernel_s,
            "timeout_s": self.timeout_s,
            "printf": [{"core": c, "text": t} for c, t in self.printf],
            "diagnostics": [_diag_json(d) for d in self.diagnostics],
        }


@dataclass(frozen=True)
class ProgramRun:
    """What a program's run produced. `stderr` is the program's own: the emulator's machine-readable lines
    (ASCEMU_DIAG, ASCEMU_ACL) are in `launches` and `host_diagnostics` instead."""

    exit_code: int  # the program's exit status; negative: the signal that ended it
    stdout: str
    stderr: str
    launches: tuple[ProgramLaunch, ...]
    host_diagnostics: tuple[Diagnostic, ...]  # failed ACL calls (ACL_ERROR), copies of never-written device bytes
    build: Built
    timed_out: bool = False
    wall_s: float = 0.0

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.host_diagnostics + tuple(d for launch in self.launches for d in launch.diagnostics)

    @property
    def faulted(self) -> bool:
        """A kernel fault, a failed ACL call, a crash or a timeout; the program's own exit status aside."""
        return (
            self.timed_out
            or self.exit_code < 0
            or any(launch.faulted for launch in self.launches)
            or any(d.is_fault for d in self.host_diagnostics)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "faulted": self.faulted,
            "wall_s": self.wall_s,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "launches": [launch.to_json() for launch in self.launches],
            "host_diagnostics": [_diag_json(d) for d in self.host_diagnostics],
            "build": {"path": str(self.build.path), "cached": self.build.cached, "seconds": self.build.seconds},
        }

    def summary(self) -> str:
        """One line per launch and per host diagnostic, then the program's end."""
        lines = []
        for launch in self.launches:
            state = "did not finish" if launch.exit_code is None else f"exit {launch.exit_code}"
            faults = [d for d in launch.diagnostics if d.is_fault]
            lines.append(
                f"launch {launch.index}: {launch.kernel}<<<{launch.block_dim}>>> at {launch.site}: {state}, "
                f"{len(launch.diagnostics)} diagnostics ({len(faults)} errors)"
            )
            lines += [f"  {d}" for d in launch.diagnostics if d.severity != "info"]
        lines += [
            f"host: {Path(d.file).name}:{d.line}: {d.severity} {d.kind} [{d.api}]: {d.message}"
            for d in self.host_diagnostics
        ]
        if self.timed_out:
            end = "killed after the timeout"
        elif self.exit_code < 0:
            end = f"ended by {_signal_name(-self.exit_code)}"
        else:
            end = f"exited with {self.exit_code}"
        lines.append(f"program {end} ({len(self.launches)} launches, {self.wall_s:.2f} s)")
        return "\n".join(lines)


def _diag_json(d: Diagnostic) -> dict[str, Any]:
    return {
        "kind": d.kind,
        "severity": d.severity,
        "core": d.core,
        "api": d.api,
        "file": d.file,
        "line": d.line,
        "message": d.message,
        "count": d.count,
        "details": d.details,
    }


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run_program(
    path: str | Path | Sequence[str | Path],
    platform: str = "Ascend310P3",
    args: Sequence[str] = (),
    *,
    timeout_s: float | None = None,
    cwd: str | Path | None = None,
    mode: str = "serial",
    strict: bool = False,
    opt: str = "-O1",
    defines: Mapping[str, object] | None = None,
    include_dirs: Sequence[str | Path] = (),
) -> ProgramRun:
    """Build the program (cached; `path`: its file, or its files as build_program takes them) and run its main()
    with `args` in a child process, in `cwd` (default: here).

    `timeout_s` bounds each launch (the emulator's watchdog) and, with a few seconds' grace, the whole run. None:
    each launch gets the watchdog scaled to its work (launch.default_timeout_s over the GM the program has allocated
    when it launches), and the whole run PROGRAM_RUN_LIMIT_S."""
    built = build_program(path, platform, opt, defines, include_dirs)
    plat = get_platform(platform)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ascemu-program-") as run_dir:
        env = {
            **os.environ,
            "ASCEMU_PROGRAM_RUN_DIR": run_dir,
            "ASCEMU_SOC": plat.soc,
            "ASCEMU_CORE_COUNT": str(plat.core_num),
            "ASCEMU_MODE": mode,
            "ASCEMU_STRICT": "1" if strict else "0",
        }
        if timeout_s is None:
            env.pop("ASCEMU_TIMEOUT", None)  # the emulator scales each launch's watchdog
        else:
            env["ASCEMU_TIMEOUT"] = str(check_timeout(timeout_s))
        env.pop("ASCEMU_REPORT", None)
        timed_out = False
        try:
            proc = subprocess.run(
                [str(built.path), *map(str, args)],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=env,
                cwd=cwd,
                timeout=(PROGRAM_RUN_LIMIT_S if timeout_s is None else timeout_s) + _GRACE_S,
            )
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:  # subprocess.run has killed the child
            timed_out, code = True, -signal.SIGKILL
            out, err = exc.stdout or b"", exc.stderr or b""
        stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
        launches = _launches(Path(run_dir), stderr)
    own = "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith((ACL_PREFIX, DIAG_PREFIX)))
    return ProgramRun(
        code, stdout, own, launches, _host_diagnostics(stderr, launches), built, timed_out, time.perf_counter() - t0
    )


def _host_diagnostics(stderr: str, launches: Sequence[ProgramLaunch]) -> tuple[Diagnostic, ...]:
    """The shim's records, and the emulator's records outside every launch (an Ascend C API called from host code
    ends the program with HARNESS), in the order the program wrote them."""
    in_launches = {(d.kind, d.core, d.file, d.line) for launch in launches for d in launch.diagnostics}
    out = []
    for line in stderr.splitlines():
        for prefix in (ACL_PREFIX, DIAG_PREFIX):
            if line.startswith(prefix):
                try:
                    d = Diagnostic.from_json(json.loads(line[len(prefix) :]))
                except ValueError:
                    continue
                if prefix == ACL_PREFIX or (d.kind, d.core, d.file, d.line) not in in_launches:
                    out.append(d)
    return tuple(out)


def _launches(run_dir: Path, stderr: str) -> tuple[ProgramLaunch, ...]:
    out: list[ProgramLaunch] = []
    metas = sorted(run_dir.glob("launch-*[0-9].json"), key=lambda p: int(p.stem.split("-")[1]))
    for meta_path in metas:
        meta = json.loads(meta_path.read_text())
        kernel = instantiated(str(meta["kernel"]), str(meta.get("function", "")))
        report = _read_json(meta_path.with_suffix(".report.json"))
        diags = [Diagnostic.from_json(d) for d in report.get("diagnostics", [])]
        exit_code = report.get("exit_code")
        if exit_code is None:  # the process died inside this launch: its crash record went to stderr only
            earlier = [d for launch in out for d in launch.diagnostics]
            diags += _stderr_diagnostics(stderr, known=earlier)
        out.append(
            ProgramLaunch(
                index=int(meta["index"]),
                kernel=kernel,
                block_dim=int(meta["block_dim"]),
                file=str(meta["file"]),
                line=int(meta["line"]),
                exit_code=None if exit_code is None else int(exit_code),
                diagnostics=tuple(diags),
                printf=tuple((int(p.get("core", -1)), str(p.get("text", ""))) for p in report.get("printf", [])),
                kernel_s=float(report.get("wall_time_s", 0.0) or 0.0),
                timeout_s=float((report.get("config") or {}).get("timeout_s", 0.0) or 0.0),
                trace=dict(report.get("trace") or {}),
            )
        )
    return tuple(out)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}
