"""Build-and-run helpers for the ascemu tests in this folder (test_emu_conformance.py, test_emu_faults.py, ...).

Test modules here import these plain helpers with `from emu_helpers import ...`: pytest puts this folder on the
module search path for them (a test folder without __init__.py, the default "prepend" import mode), so no test
edits the path itself.  The session-wide builds and the user-kernel factory are fixtures in conftest.py.

Builds use the documented single-translation-unit driver mechanism (kernels/emu/README.md):
    g++ -std=c++20 -O1 -g -pthread -DASCEMU_PLATFORM=<p> -I kernels/emu/include \
        -include <kernel.cpp> kernels/emu/driver/main.cpp -DASCEMU_ENTRY=<entry> -o <binary>
header-only by default; `build(..., separate=True)`, or ASCEMU_TEST_SEPARATE_RUNTIME=1 in the environment for every
build, compiles the kernel with -DASCEMU_SEPARATE_RUNTIME and links kernels/emu/runtime/ascemu_runtime.cpp compiled
once per platform and optimisation level (runtime_object).
Every launch runs in a subprocess (hard timeout), so a crashing kernel never takes pytest down.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from workbench.running.emu import Kernel

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "kernels" / "emu" / "include"
DRIVER = REPO / "kernels" / "emu" / "driver" / "main.cpp"
RUNTIME = REPO / "kernels" / "emu" / "runtime" / "ascemu_runtime.cpp"
SEPARATE_ENV = "ASCEMU_TEST_SEPARATE_RUNTIME"  # "1": every build() links the separately compiled runtime
EMU_DIR = Path(__file__).resolve().parent
KERNEL_CONF = EMU_DIR / "conf_kernel.cpp"  # the §9 conformance cases, one per tiling_key
KERNEL_FAULT = EMU_DIR / "fault_kernel.cpp"  # one deliberately broken kernel per check kind


# The conftest fixture `user_kernel`: user_kernel(directory, source, entry, platform) -> context manager of a Kernel
UserKernel = Callable[[Path, str, str, str], contextlib.AbstractContextManager["Kernel"]]


@contextlib.contextmanager
def user_kernel(directory: Path, source: str, entry: str, platform: str) -> Iterator[Kernel]:
    """`source` built as a user's own kernel (workbench.running.emu.load, -O1) in a build cache of its own under
    `directory`; the previous WORKBENCH_CACHE is restored afterwards."""
    from workbench.running.emu import load

    src = directory / f"{entry}.cpp"
    src.write_text(source)
    old = os.environ.get("WORKBENCH_CACHE")
    os.environ["WORKBENCH_CACHE"] = str(directory / "cache")
    try:
        kernel = load(src, entry=entry, platform=platform, opt="-O1")
        kernel.built()
        yield kernel
    finally:
        if old is None:
            del os.environ["WORKBENCH_CACHE"]
        else:
            os.environ["WORKBENCH_CACHE"] = old


EXIT_CLEAN, EXIT_ERRORS, EXIT_FATAL, EXIT_DEADLOCK, EXIT_CRASH, EXIT_HARNESS = 0, 1, 2, 3, 4, 5


def _emu_sources_digest() -> str:
    h = hashlib.sha256()
    for p in [*sorted(INCLUDE.rglob("*.h")), DRIVER, RUNTIME]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _compile(cmd: list[str], out: Path) -> Path:
    """Runs g++ `cmd` (which writes `out`.tmp) and moves its product into place: concurrent builds never see half."""
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    r = subprocess.run([*cmd, "-o", str(tmp)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{r.stderr[-6000:]}")
    os.replace(tmp, out)
    return out


def _flags(platform: str, opt: str) -> list[str]:
    return ["g++", "-std=c++20", opt, "-g", "-pthread", f"-DASCEMU_PLATFORM={platform}", "-I", str(INCLUDE)]


def runtime_object(platform: str, out_dir: Path, opt: str = "-O1") -> Path:
    """kernels/emu/runtime/ascemu_runtime.cpp compiled for `platform` with build()'s flags (cached in out_dir)."""
    obj = Path(out_dir) / f"ascemu_runtime_{platform}{opt}_{_emu_sources_digest()}.o"
    return obj if obj.exists() else _compile([*_flags(platform, opt), "-c", str(RUNTIME)], obj)


def build(
    kernel: Path,
    entry: str,
    platform: str,
    out_dir: Path,
    opt: str = "-O1",
    defines=(),
    separate: bool | None = None,
) -> Path:
    """Compiles `kernel` with the ascemu driver; cached by source digest inside out_dir.  `separate`: link the
    separately compiled runtime (-DASCEMU_SEPARATE_RUNTIME); None takes $ASCEMU_TEST_SEPARATE_RUNTIME."""
    kernel = Path(kernel)
    if separate is None:
        separate = os.environ.get(SEPARATE_ENV) == "1"
    mode = "separate" if separate else "header-only"
    key = _emu_sources_digest() + kernel.read_text() + platform + opt + " ".join(defines) + mode
    binary = Path(out_dir) / f"{kernel.stem}_{platform}_{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    if binary.exists():
        return binary
    cmd = [
        *_flags(platform, opt),
        *[f"-D{d}" for d in defines],
        *(["-DASCEMU_SEPARATE_RUNTIME"] if separate else []),
        "-include",
        str(kernel),
        str(DRIVER),
        f"-DASCEMU_ENTRY={entry}",
        *([str(runtime_object(platform, out_dir, opt))] if separate else []),
    ]
    return _compile(cmd, binary)


def prebuilt_kernel(source: Path, entry: str, platform: str, out_dir: Path, separate: bool) -> Kernel:
    """`source` built by build() (-O1, header-only or `separate`) as a workbench.running.emu Kernel on SoC
    `platform`, so the workbench's launcher and its reused workers run that binary."""
    from workbench.running.emu import Kernel, load
    from workbench.running.emu.build import Built

    kernel = load(source, entry, platform, opt="-O1")
    macro = {2002: "ascend310p", 2201: "ascend910b"}[kernel.platform.npu_arch]
    binary = build(source, entry, macro, out_dir, separate=separate)

    @dataclass(frozen=True)
    class Prebuilt(Kernel):
        def built(self) -> Built:
            return Built(binary, binary.name, True, 0.0)

    return Prebuilt(kernel.variant, kernel.platform)


@dataclass
class Run:
    rc: int
    report: dict
    stdout: str
    stderr: str
    out: bytes = b""
    ws: bytes = b""
    files: dict = field(default_factory=dict)

    @property
    def diags(self) -> list[dict]:
        return self.report.get("diagnostics", [])

    def kinds(self) -> set[str]:
        return {d["kind"] for d in self.diags}

    def of(self, kind: str) -> list[dict]:
        return [d for d in self.diags if d["kind"] == kind]

    def i32(self) -> np.ndarray:
        return np.frombuffer(self.out, dtype=np.int32)

    def stderr_diags(self) -> list[dict]:
        out = []
        for line in self.stderr.splitlines():
            if line.startswith("ASCEMU_DIAG "):
                out.append(json.loads(line[len("ASCEMU_DIAG ") :]))
        return out


def run(
    binary: Path,
    work: Path,
    *,
    platform: str,
    block_dim: int = 1,
    tiling_key: int = 0,
    tiling: bytes | None = None,
    in_bytes: bytes | None = None,
    in_size: int | None = None,
    out_size: int = 16384,
    out_fill: int | None = 0,
    ws_size: int = 4096,
    ws_fill: int | None = 0,
    mode: str = "serial",
    timeout_s: float = 20,
    strict=False,
    extra: dict | None = None,
    hard_timeout: float = 60,
    tag: str = "run",
) -> Run:
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    p = lambda name: str(work / f"{tag}_{name}")  # noqa: E731
    args = []
    if in_bytes is None:
        in_bytes = b"\0" * 64
    Path(p("in.bin")).write_bytes(in_bytes)
    a_in = {
        "kind": "gm",
        "bytes": in_size if in_size is not None else len(in_bytes),
        "role": "input",
        "in_file": p("in.bin"),
    }
    a_out = {"kind": "gm", "bytes": out_size, "role": "output", "out_file": p("out.bin")}
    if out_fill is not None:
        a_out["fill"] = out_fill
    a_ws = {"kind": "gm", "bytes": ws_size, "role": "workspace", "out_file": p("ws.bin")}
    if ws_fill is not None:
        a_ws["fill"] = ws_fill
    Path(p("tiling.bin")).write_bytes(conf_tiling() if tiling is None else tiling)
    args = [a_in, a_out, a_ws, {"kind": "bytes", "in_file": p("tiling.bin")}]
    launch = {
        "platform": platform,
        "block_dim": block_dim,
        "tiling_key": tiling_key,
        "mode": mode,
        "strict": strict,
        "timeout_s": timeout_s,
        "report_path": p("report.json"),
        "args": args,
    }
    if extra:
        launch.update(extra)
    Path(p("launch.json")).write_text(json.dumps(launch))
    try:
        r = subprocess.run(
            [str(binary), "--launch", p("launch.json")], capture_output=True, text=True, timeout=hard_timeout
        )
        rc, so, se = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:  # pragma: no cover - the emulator's own watchdog should fire first
        rc, so, se = -9, e.stdout or "", e.stderr or ""
    rep = {}
    if Path(p("report.json")).exists():
        rep = json.loads(Path(p("report.json")).read_text())
    out = Path(p("out.bin")).read_bytes() if Path(p("out.bin")).exists() else b""
    ws = Path(p("ws.bin")).read_bytes() if Path(p("ws.bin")).exists() else b""
    return Run(rc, rep, so, se, out, ws)


def conf_tiling(n=0, p0=0, p1=0, p2=0) -> bytes:
    return struct.pack("<4i", n, p0, p1, p2)


def marker_line(source: Path, marker: str) -> int:
    """1-based line of the statement tagged `// LINE:<marker>` (exact tag match)."""
    pat = re.compile(r"//.*\bLINE:" + re.escape(marker) + r"(\s|$)")
    for i, line in enumerate(Path(source).read_text().splitlines(), 1):
        if pat.search(line):
            return i
    raise KeyError(marker)


def f16(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.int32).astype(np.uint16).view(np.float16)


def f32(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.int32).view(np.float32)
