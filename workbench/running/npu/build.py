"""Build an op's Ascend C kernel for a SoC with CANN's own CMake module, as CANN's kernel-launch samples do.

The generated project is CANN's documented kernel-launch recipe around the shipped kernel source:

    include(<cann>/compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake)    # older packages: tools/tikcpp/...
    ascendc_library(<lib> SHARED <kernel source>)
    ascendc_include_directories(<lib> PRIVATE <folder of the op's TilingData header>)
    ascendc_compile_definitions(<lib> PRIVATE <the op's defines> ASCENDC_DUMP=0)

`ascendc_library` compiles the kernel with CANN's compiler and emits `lib<lib>.so` plus one generated header per
kernel, `include/<lib>/aclrtlaunch_<entry>.h`, declaring the host launch stub `aclrtlaunch_<entry>(blockDim,
stream, <GM_ADDR args as void*>, <a struct passed by value becomes a host pointer>)`. `ASCENDC_DUMP=0` switches
printf/DumpTensor off, so a timing build does not pay for the dump buffer on every launch; `dump=True` keeps it.

Sources (public; docs/npu.md#sources has the list with links):
- the CMake functions `ascendc_library`, `ascendc_compile_definitions`, `ascendc_include_directories` and the
  install layout `out/lib`, `out/include/<lib>/aclrtlaunch_<kernel>.h`: CANN's Ascend C programming guide
  (kernel-launch project build); kernel-launch samples `cmake/npu_lib.cmake` (tjulitianyi1997/AscendProjects,
  `operator/AddCustomSample/KernelLaunch/AddKernelInvocationTilingNeo/cmake/npu_lib.cmake`; gitcode Ascend/RecSDK,
  `training/torch_rec_v2/dynamic_emb/cmake/npu_lib.cmake`), which also give the module's two locations;
- `ASCENDC_DUMP=0` in `ascendc_compile_definitions`: the printf and DumpTensor API pages, e.g.
  https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/ascendcopapi/atlasascendc_api_07_0193.html;
- the installed version: `<home>/<arch>-linux/ascend_toolkit_install.info` (its `version=` line; CANN install
  guides, "check the version field of CANN Toolkit") and `<home>/version.cfg`
  (`toolkit_running_version=[8.3.0.1.200:8.3.RC1]`, read the same way by public CMake scripts).

Not run on a device or against a real CANN here (the development machine has neither): the CMake text follows
the samples above, and the Python around it (project files, cmake steps, finding the artefacts, the export check)
is tested with a stand-in `ascendc.cmake` (tests/test_npu_build.py). Every kernel here takes a workspace and then
its tiling, so the build defines `HAVE_WORKSPACE` and `HAVE_TILING`, as CANN's kernel-launch guide and samples do:
without HAVE_WORKSPACE the framework sets no system workspace and `GetUserWorkspace` returns a null-based address
on the device (CANN's GetUserWorkspace and SetSysWorkSpace pages; docs/diagnostics.md#sys_workspace_unset);
without HAVE_TILING the generated wrapper takes the last parameter, the tiling struct, as the workspace and the
device compile fails (aclrtlaunch.py has the rule and its source).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform as _host
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ...core import progress, resources
from ...core.errors import UnsupportedPlatform, WorkbenchError
from ...planning.registry import get_op
from .aclrtlaunch import declared_params, stub_defines

if TYPE_CHECKING:
    from ...planning.case import Case

HOME_ENV = "ASCEND_HOME_PATH"
CMAKE_DIR_ENV = "ASCENDC_CMAKE_DIR"  # CANN's runtime examples take the module folder from this variable
MODULE_DIRS = ("compiler/tikcpp/ascendc_kernel_cmake", "tools/tikcpp/ascendc_kernel_cmake")
INSTALL_HINT = (
    "the CANN toolkit package (Ascend-cann-toolkit_<version>_linux-<arch>.run) installed and "
    "`source <install>/set_env.sh` run, which sets ASCEND_HOME_PATH; without CANN, `--backend emu` "
    "or WORKBENCH_ACL=emulated run the same kernel on the emulator"
)
_CANN_MARKERS = ("lib64", "compiler", "tools", "version.cfg", "x86_64-linux", "aarch64-linux")
_LOG_TAIL_LINES = 25


class KernelSource(Protocol):
    """What a build needs of a kernel: a KernelInfo (`spec.kernel(case)`) or a PreparedLaunch both have it."""

    @property
    def source(self) -> str | Path: ...  # repository-relative, or an absolute path (an edited copy)

    @property
    def entry(self) -> str: ...

    @property
    def defines(self) -> Mapping[str, object]: ...

    @property
    def args(self) -> Sequence[object]: ...  # the GM tensors, in parameter order (names or launch Arguments)


class CannNotFound(WorkbenchError):
    """CANN, or the part of it a step needs, is not where ASCEND_HOME_PATH points (or that is unset)."""


class NpuBuildError(WorkbenchError):
    """A cmake step failed; `log` holds its output (also written to `<out_dir>/build.log`)."""

    def __init__(self, step: str, what: str, log: str, log_path: Path) -> None:
        tail = "\n".join(log.rstrip().splitlines()[-_LOG_TAIL_LINES:])
        super().__init__(f"cmake {step}", what, f"a clean {step}; full log in {log_path}; its end:\n{tail}")
        self.step, self.log, self.log_path = step, log, log_path


@dataclass(frozen=True)
class NpuBuild:
    """A kernel library built for one SoC: load `library`, call `aclrtlaunch_<entry>` (declared in `header`)."""

    library: Path
    header: Path
    entry: str
    soc: str
    dump: bool
    cann_version: str | None = None

    @property
    def launch_symbol(self) -> str:
        return f"aclrtlaunch_{self.entry}"


def cann_home() -> Path:
    """The CANN install ASCEND_HOME_PATH points at; CannNotFound (with what to install) if there is none."""
    value = os.environ.get(HOME_ENV, "").strip()
    if not value:
        raise CannNotFound(HOME_ENV, None, INSTALL_HINT)
    home = Path(value).expanduser()
    if not home.is_dir():
        raise CannNotFound(HOME_ENV, value, f"an existing folder; {INSTALL_HINT}")
    if not any((home / marker).exists() for marker in _CANN_MARKERS):
        raise CannNotFound(HOME_ENV, value, f"a CANN install (with lib64/, compiler/ or <arch>-linux/); {INSTALL_HINT}")
    return home


def arches() -> tuple[str, ...]:
    """The `<arch>-linux` folder names a CANN install may have, this machine's first."""
    machine = _host.machine().lower()
    return tuple(dict.fromkeys((machine, "aarch64", "x86_64")))


def cann_version(home: Path) -> str | None:
    """CANN's version string (e.g. "8.0.RC1") from the files the installer writes; None when neither is there."""
    for arch in arches():
        info = Path(home) / f"{arch}-linux" / "ascend_toolkit_install.info"
        for line in _lines(info):
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() == "version" and value.strip():
                return value.strip()
    for line in _lines(Path(home) / "version.cfg"):
        key, sep, value = line.partition("=")
        if sep and key.strip() == "toolkit_running_version":
            inner = value.strip().strip("[]")
            return (inner.rpartition(":")[2] or inner).strip() or None
    return None


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def ascendc_cmake_dir(home: Path) -> Path:
    """The folder holding CANN's `ascendc.cmake` (ASCENDC_CMAKE_DIR first, then the two known locations)."""
    candidates = [Path(p) for p in (os.environ.get(CMAKE_DIR_ENV, "").strip(),) if p]
    candidates += [Path(home) / d for d in MODULE_DIRS]
    for folder in candidates:
        if (folder / "ascendc.cmake").is_file():
            return folder
    raise CannNotFound(
        "Ascend C CMake module",
        " or ".join(str(c / "ascendc.cmake") for c in candidates),
        f"the CANN toolkit's ascendc.cmake (the toolkit at {home} looks incomplete); {INSTALL_HINT}",
    )


def example_case(op: str, dtypes: str | tuple[str, ...] | None = None, soc: str | None = None) -> Case:
    """The op's first worked example (workbench demo), with other dtypes or SoC if given: what a build is for
    when only the op is named. Only the dtypes matter to the kernel build (they pick the defines)."""
    from ...planning.worked import examples

    spec = get_op(op)
    case = next(ex.case for ex in examples() if ex.case.op == spec.name)
    changes: dict[str, object] = {}
    if dtypes:
        changes["dtypes"] = dtypes
    if soc:
        changes["platform"] = soc
    return case.replace(**changes) if changes else case


def _target_soc(op: str, soc: str | None) -> str:
    from ...core.platform import resolve

    spec = get_op(op)
    targets = spec.target_platforms()
    name = resolve(soc or spec.platforms[0])  # the same default SoC a Case gets
    if name not in targets:
        raise UnsupportedPlatform("soc", soc, f"{spec.name} targets {', '.join(targets)}")
    return name


def library_name(kernel: KernelSource, dump: bool) -> str:
    """`wb_<entry>_<8 hex>`: one name per variant (source, defines, dump), so two variants built into one folder,
    or loaded into one process, never shadow each other (dlopen reuses a library already open under that path)."""
    key = json.dumps([str(resources.path(kernel.source)), _define_items(kernel, dump)])
    return f"wb_{kernel.entry}_{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def _kernel(op: str, kernel: KernelSource | None) -> KernelSource:
    if kernel is None:
        return spec_kernel(op)
    if isinstance(kernel, (str, Path)):
        raise WorkbenchError(
            "kernel",
            str(kernel),
            "a KernelInfo (spec.kernel(case)) or a PreparedLaunch: a source, its entry and the case's defines "
            "(a path alone would build the op's default dtype variant)",
        )
    return kernel


def _cmake_str(text: str | Path) -> str:
    """A CMake quoted argument (backslash, quote and $ escaped)."""
    raw = Path(text).as_posix() if isinstance(text, Path) else str(text)
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def _define_items(info: KernelSource, dump: bool) -> list[str]:
    from ..emu.build import defines_of  # the same define spelling the emulator build uses

    items = [f"{k}={v}" if v != "" else k for k, v in defines_of(info.defines)]
    return items + [k if v is True else f"{k}={v}" for k, v in device_defines(info, dump).items()]


def device_defines(info: KernelSource, dump: bool = False) -> dict[str, object]:
    """What the npu build defines besides the kernel's own: HAVE_WORKSPACE and HAVE_TILING, checked against the
    kernel's declaration (aclrtlaunch.stub_defines: the generated wrapper must set the system workspace from the
    workspace parameter, second to last), and ASCENDC_DUMP=0 unless `dump`."""
    source = resources.path(info.source)
    params = declared_params(source.read_text(encoding="utf-8", errors="replace"), info.entry)
    extra: dict[str, object] = dict.fromkeys(stub_defines(len(info.args), params), True)
    if not dump:
        extra["ASCENDC_DUMP"] = 0
    return extra


def npu_project(op: str, soc: str | None, *, dump: bool = False, kernel: KernelSource | None = None) -> dict[str, str]:
    """The files (name -> text) of the CMake project that builds `kernel` for `soc` (default: the op's default
    SoC). Pure: reads nothing but the op table.

    `kernel` is the case's KernelInfo (`spec.kernel(case)`) or its PreparedLaunch: the source (repository-relative,
    or an absolute path to an edited copy), the entry and the defines that pick the dtype variant. None builds the
    op's first worked example's variant. The folder of the op's TilingData header is on the include path always.
    """
    spec = get_op(op)
    name = _target_soc(op, soc)
    info = _kernel(op, kernel)
    source = resources.path(info.source)  # an absolute path stays itself
    tiling_dir = resources.path(spec.tiling_header).parent
    lib = library_name(info, dump)
    defines = _define_items(info, dump)
    lines = [
        f"# Generated by the workbench: {spec.name} ({info.entry}) for {name} with CANN's Ascend C CMake module.",
        "# Configure with -DASCEND_CANN_PACKAGE_PATH=<CANN install> (default: $ENV{ASCEND_HOME_PATH}).",
        "cmake_minimum_required(VERSION 3.16)",
        f"project(workbench_{spec.name})",
        "",
        f'set(SOC_VERSION "{name}" CACHE STRING "the SoC to build for")',
        'set(ASCEND_CANN_PACKAGE_PATH "$ENV{ASCEND_HOME_PATH}" CACHE PATH "the CANN install")',
        'set(RUN_MODE "npu" CACHE STRING "npu: device code")',
        'set(CMAKE_BUILD_TYPE "Release" CACHE STRING "Release: the timed build" FORCE)',
        'set(CMAKE_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/out" CACHE STRING "where lib/ and include/ go" FORCE)',
        "",
        "if(NOT ASCENDC_CMAKE_DIR)",
        *(
            f'  {"if" if i == 0 else "elseif"}(EXISTS "${{ASCEND_CANN_PACKAGE_PATH}}/{d}/ascendc.cmake")\n'
            f'    set(ASCENDC_CMAKE_DIR "${{ASCEND_CANN_PACKAGE_PATH}}/{d}")'
            for i, d in enumerate(MODULE_DIRS)
        ),
        "  else()",
        '    message(FATAL_ERROR "ascendc.cmake not found under ${ASCEND_CANN_PACKAGE_PATH}: install the CANN '
        'toolkit and source <install>/set_env.sh")',
        "  endif()",
        "endif()",
        'include("${ASCENDC_CMAKE_DIR}/ascendc.cmake")',
        "",
        f"ascendc_library({lib} SHARED {_cmake_str(source)})",
        f"ascendc_include_directories({lib} PRIVATE {_cmake_str(tiling_dir)})",
    ]
    if defines:
        lines.append(f"ascendc_compile_definitions({lib} PRIVATE {' '.join(_cmake_str(d) for d in defines)})")
    manifest = {
        "op": spec.name,
        "soc": name,
        "entry": info.entry,
        "library": f"lib{lib}.so",
        "header": f"aclrtlaunch_{info.entry}.h",
        "source": str(source),
        "defines": defines,
        "dump": dump,
    }
    return {"CMakeLists.txt": "\n".join(lines) + "\n", "workbench-build.json": json.dumps(manifest, indent=2) + "\n"}


def spec_kernel(op: str) -> KernelSource:
    spec = get_op(op)
    if spec.kernel is None:
        raise WorkbenchError("op", op, "an op with a shipped kernel")
    return spec.kernel(example_case(op))


def _cmake() -> str:
    exe = shutil.which("cmake")
    if exe is None:
        raise WorkbenchError("cmake", None, "CMake 3.16 or newer on PATH (apt-get install cmake, or pip install cmake)")
    return exe


def _write_atomic(path: Path, text: str) -> None:
    """Write next to the target and rename over it: a reader sees the old file or the new one, never half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build(
    op: str, soc: str | None, out_dir: str | Path, *, dump: bool = False, kernel: KernelSource | None = None
) -> NpuBuild:
    """Write the project into `out_dir`, configure, build and install it with cmake, and check the library.

    `kernel` as in npu_project: pass the case's KernelInfo or PreparedLaunch, or the library is the op's default
    dtype variant. CannNotFound when ASCEND_HOME_PATH is unset or holds no CANN (or no Ascend C CMake module):
    this never pretends to have built. A failing cmake step raises NpuBuildError with the end of its log.
    """
    info = _kernel(op, kernel)
    name = _target_soc(op, soc)
    home = cann_home()
    module = ascendc_cmake_dir(home)
    cmake = _cmake()
    out = Path(out_dir).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    for file_name, text in npu_project(op, name, dump=dump, kernel=info).items():
        _write_atomic(out / file_name, text)
    build_dir, log_path = out / "build", out / "build.log"
    steps = [
        ("configure", [cmake, "-S", str(out), "-B", str(build_dir), f"-DASCEND_CANN_PACKAGE_PATH={home}",
                       f"-DASCENDC_CMAKE_DIR={module}", f"-DSOC_VERSION={name}", "-DCMAKE_BUILD_TYPE=Release"]),
        ("build", [cmake, "--build", str(build_dir), "--parallel", str(os.cpu_count() or 1)]),
        ("install", [cmake, "--install", str(build_dir)]),
    ]  # fmt: skip
    log: list[str] = []
    what = f"{info.entry} for {name}"
    for step, cmd in steps:
        with progress.stage(f"cmake {step}: {what}"):
            proc = subprocess.run(cmd, capture_output=True, text=True)
        log += [f"$ {' '.join(cmd)}", proc.stdout, proc.stderr, f"(exit {proc.returncode})"]
        _write_atomic(log_path, "\n".join(log) + "\n")
        if proc.returncode != 0:
            raise NpuBuildError(step, what, proc.stdout + proc.stderr, log_path)
    lib = library_name(info, dump)
    library = _artefact(out, f"lib{lib}.so", what)
    header = _artefact(out, f"aclrtlaunch_{info.entry}.h", what, under=Path("include") / lib)
    check_export(library, f"aclrtlaunch_{info.entry}")
    return NpuBuild(library, header, info.entry, name, dump, cann_version(home))


def _artefact(out: Path, file_name: str, what: str, under: Path | None = None) -> Path:
    """The installed copy (out/out/...) if there is one, else the one in the build tree; with `under`, only a
    copy in a folder ending in it (the header of this library, not another variant's)."""
    for root in (out / "out", out / "build"):
        found = sorted(root.rglob(file_name)) if root.is_dir() else []
        found = [f for f in found if under is None or f.parent.as_posix().endswith(under.as_posix())]
        if found:
            return found[0]
    raise WorkbenchError(
        "npu build", what, f"a build that produces {file_name} (cmake succeeded but it is not under {out})"
    )


def exported_symbols(library: Path) -> set[str] | None:
    """The dynamic symbols `library` defines (`nm -D --defined-only`), or None without nm."""
    nm = shutil.which("nm")
    if nm is None:
        return None
    proc = subprocess.run([nm, "-D", "--defined-only", str(library)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise WorkbenchError("kernel library", str(library), f"a shared library nm can read: {proc.stderr.strip()}")
    return {parts[-1] for line in proc.stdout.splitlines() if len(parts := line.split()) >= 2}


def check_export(library: Path, symbol: str) -> None:
    """Raise unless `library` exports `symbol` (nm when present, else by loading it with ctypes)."""
    symbols = exported_symbols(library)
    if symbols is not None:
        if symbol not in symbols:
            raise WorkbenchError(
                "kernel library", str(library), f"a library exporting {symbol} (nm -D does not list it)"
            )
        return
    try:
        handle = ctypes.CDLL(str(library))
    except OSError as exc:  # loading runs the stub's constructor, which needs CANN's runtime libraries
        raise WorkbenchError("kernel library", str(library), f"a library that loads to check {symbol}: {exc}") from None
    if not hasattr(handle, symbol):
        raise WorkbenchError("kernel library", str(library), f"a library exporting {symbol}")
