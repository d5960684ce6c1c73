"""Issue 11, the kernel surface and the launch: kernels written the way CANN's examples and cann-ops operators are.

The kernels are in surface/ (our own, in those styles):
- surface_kernel.cpp: `kernel_tiling/kernel_tiling.h`, float16_t / float32_t, ASSERT with and without `;`,
  GetTPipePtr() in a helper outside namespace AscendC, GlobalTensor::operator() (310P and 910B), two TBufPool
  stages sharing UB, TBuf::AllocTensor, printf / PRINTF in KernelRun, GM_ADDR workspace and tiling parameters.
- static_add.cpp: LocalMemAllocator and LocalTensor(TPosition, addr, tileSize), entry `half_sum<float, 256>`
  (a template with two arguments) whose parameters end with its output: the launch passes no tiling.
- surface_faults.cpp: one misuse of those APIs per `mode` (a scalar parameter), each reported at its line.
- refused_reinterpret.cpp, own_main.cpp: compile-only checks (GlobalTensor::ReinterpretCast refused on both chips;
  ASCEMU_MAIN of a two-argument template entry).
- refused_names.cpp: compile-only, names that exist but whose use is refused (arithmetic on int4b_t tensors, Matmul and
  REGIST_MATMUL_OBJ from lib/matmul_intf.h, Fill of a dtype it lacks), and their accepted uses.
- custom_bufpool.cpp: compile-only, a user-defined TBufPool (EXTERN_IMPL_BUFPOOL) refused at its line.
- opnn_scale_add.cpp + op_host/scale_add_tiling.h: an ops-nn-style bare GET_TILING_DATA whose struct is defined in an
  op_host header: refused naming the fix without one, run with -DASCEMU_TILING_STRUCT / -DASCEMU_TILING_HEADER.
Every output is compared with numpy bit for bit.
"""

from __future__ import annotations

import ctypes
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from workbench.core.errors import InvalidInput
from workbench.running.emu import In, Kernel, KernelRun, Out, load
from workbench.running.emu.signature import Param, signature

SURFACE = Path(__file__).resolve().parent / "surface"
INCLUDE = SURFACE.parents[2] / "kernels" / "emu" / "include"
SOCS = {"ascend310p": "Ascend310P3", "ascend910b": "Ascend910B1"}
CORES, TILE, TILES = 4, 256, 4  # surface_kernel: 4 cores x 4 tiles of 256


class SurfaceTiling(ctypes.Structure):
    """surface/surface_tiling.h SurfaceTilingData."""

    _fields_ = [
        ("totalLength", ctypes.c_uint32),
        ("tileLength", ctypes.c_uint32),
        ("scale", ctypes.c_float),
        ("maxTile", ctypes.c_uint32),
    ]


def line_of(source: str, tag: str) -> int:
    """1-based line of the statement tagged `// LINE:<tag>` in surface/<source>."""
    for i, text in enumerate((SURFACE / source).read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


def loud(run: KernelRun) -> list[str]:
    """Warnings and worse: a correct kernel has none."""
    return [str(d) for d in run.diagnostics if d.severity in ("warning", "error", "fatal")]


@pytest.fixture(scope="module")
def kernels() -> dict[str, Kernel]:
    """The surface kernels, built once each (-O1, in the workbench build cache, so reruns are fast)."""
    loaded = {
        **{
            f"surface-{p}": load(SURFACE / "surface_kernel.cpp", "surface_kernel", soc, opt="-O1")
            for p, soc in SOCS.items()
        },
        "static": load(SURFACE / "static_add.cpp", "half_sum<float, 256>", "Ascend310P3", opt="-O1"),
        "faults": load(SURFACE / "surface_faults.cpp", "surface_faults", "Ascend310P3", opt="-O1"),
    }
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda k: k.built(), loaded.values()))
    return loaded


# ------------------------------------------------------------------------------------------------ the cann-ops style
@pytest.mark.parametrize("platform", SOCS)
def test_cann_ops_style_kernel(kernels: dict[str, Kernel], platform: str) -> None:
    n = CORES * TILES * TILE
    x = np.random.default_rng(11).normal(0, 4, n).astype(np.float16)
    y, z = np.zeros(n, np.float32), np.zeros(n, np.float32)
    tiling = SurfaceTiling(n, TILE, 0.75, 1024)
    run = kernels[f"surface-{platform}"][CORES](In(x), Out(y, fill=0), Out(z, fill=0), workspace=1024, tiling=tiling)
    assert run.exit_code == 0 and not loud(run), loud(run)
    xf = x.astype(np.float32)
    np.testing.assert_array_equal(y.view(np.uint32), (xf * np.float32(0.75)).view(np.uint32))
    np.testing.assert_array_equal(z.view(np.uint32), (xf * xf).view(np.uint32))
    firsts = [float(y[c * TILES * TILE]) for c in range(CORES)]
    assert run.printf == tuple(
        (c, f"core {c}: first tile scaled\ncore {c}: {TILES} tiles of {TILE}, y[0] = {firsts[c]:f}\n")
        for c in range(CORES)
    )
    assert run.stdout.splitlines()[:2] == [
        "[core 0] core 0: first tile scaled",
        f"[core 0] core 0: {TILES} tiles of {TILE}, y[0] = {firsts[0]:f}",
    ]


def test_failing_assert_ends_the_launch_at_its_line(kernels: dict[str, Kernel]) -> None:
    n = CORES * 2048
    x = np.ones(n, np.float16)
    y, z = np.zeros(n, np.float32), np.zeros(n, np.float32)
    run = kernels["surface-ascend310p"][CORES](x, y, z, workspace=1024, tiling=SurfaceTiling(n, 2048, 1.0, 1024))
    aborts = [d for d in run.diagnostics if d.kind == "KERNEL_ABORT"]
    assert run.exit_code == 2 and aborts, [str(d) for d in run.diagnostics]
    d = aborts[0]
    assert d.severity == "fatal" and d.line == line_of("surface_kernel.cpp", "assert-tile")
    assert d.file.endswith("surface_kernel.cpp") and "ASSERT(td.tileLength <= td.maxTile" in d.message
    assert d.details["expression"].startswith("td.tileLength <= td.maxTile")


# ------------------------------------------------------------------------------------------------ static tensors
def test_static_tensor_kernel_with_a_two_argument_template_entry(kernels: dict[str, Kernel]) -> None:
    n = 4 * 4 * 256
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=n).astype(np.float32), rng.normal(size=n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    run = kernels["static"][4](In(x), In(y), z)  # three parameters, the output last: nothing appended
    assert run.exit_code == 0 and not loud(run), loud(run)
    np.testing.assert_array_equal(z.view(np.uint32), ((x + y) * np.float32(0.5)).view(np.uint32))
    assert run.build.path.name.startswith("half_sum_float_256-")


def test_own_main_names_a_two_argument_template_entry() -> None:
    r = _syntax_only(SURFACE / "own_main.cpp", "ascend310p")
    assert r.returncode == 0, r.stderr[-2000:]


# ------------------------------------------------------------------------------------------------ the launch
def test_the_launch_follows_the_declared_parameters(kernels: dict[str, Kernel]) -> None:
    assert signature(kernels["static"].built().path) == (Param("gm"),) * 3
    assert signature(kernels["surface-ascend310p"].built().path) == (Param("gm"),) * 5
    assert signature(kernels["faults"].built().path) == (Param("gm"), Param("scalar", 4, "int32"))
    x = np.zeros(64, np.float32)
    with pytest.raises(InvalidInput, match=r"4 \(argument 0, argument 1, argument 2, tiling\).*3 parameters"):
        kernels["static"][1](x, x, x, tiling=b"\0" * 16)
    with pytest.raises(InvalidInput, match="5 parameters surface_kernel declares"):
        kernels["surface-ascend310p"][1](x, x, x, workspace=64)  # no tiling: the kernel declares one
    with pytest.raises(InvalidInput, match="int32"):
        kernels["faults"][1](x, 1.5)  # a scalar parameter takes a number of its type
    with pytest.raises(InvalidInput, match="argument 1"):
        kernels["faults"][1](x, [1])  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ misuse
FAULTS = {  # mode: (kind, severity, the tagged line) for each record the mode must produce
    1: [("UB_OVERFLOW", "error", "static-overflow"), ("UB_OOB", "error", "static-overflow-use")],
    2: [("UB_MISALIGNED", "error", "static-misaligned")],
    3: [("UB_PIPE_ALIASING", "warning", "allocator-with-pipe"), ("UB_STATIC_OVERLAP", "warning", "allocator-overlap")],
    4: [("UB_OVERFLOW", "error", "allocator-overflow")],
    5: [("UB_OVERFLOW", "error", "pool-overflow")],
    6: [("UB_USE_AFTER_FREE", "error", "pool-after-reset")],
    7: [("UB_TOO_MANY_BUFFERS", "error", "pool-too-many")],
    8: [("PARAM_RANGE", "error", "pool-share-longer")],
    9: [("GM_OOB|GM_UNKNOWN_POINTER", "error", "gm-parentheses-oob")],
    10: [("KERNEL_ABORT", "fatal", "assert-fails")],
}


def test_correct_static_use_is_silent(kernels: dict[str, Kernel]) -> None:
    out = np.zeros(64, np.float32)
    run = kernels["faults"][1](Out(out, fill=0), 0)
    assert run.exit_code == 0 and not loud(run), loud(run)
    np.testing.assert_array_equal(out, np.full(64, 3.5, np.float32))


@pytest.mark.parametrize("mode", FAULTS)
def test_misuse_is_reported_at_its_line(kernels: dict[str, Kernel], mode: int) -> None:
    out = np.zeros(64, np.float32)
    run = kernels["faults"][1](Out(out, fill=0), np.int32(mode))
    for kinds, severity, tag in FAULTS[mode]:
        line = line_of("surface_faults.cpp", tag)
        hits = [d for d in run.diagnostics if re.fullmatch(kinds, d.kind) and d.line == line]
        assert hits and hits[0].severity == severity, (tag, [str(d) for d in run.diagnostics])
    if mode == 10:  # the fatal record ends the launch before the statement the ASSERT guards
        assert run.exit_code == 2 and out[0] == 0


# ------------------------------------------------------------------------------------------------ compile-time refusal
def _syntax_only(source: Path, platform: str, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = ["g++", "-std=c++20", "-fsyntax-only", f"-DASCEMU_PLATFORM={platform}", f"-I{INCLUDE}", *extra, str(source)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("platform", SOCS)
def test_global_tensor_reinterpret_cast_is_refused(platform: str) -> None:
    r = _syntax_only(SURFACE / "refused_reinterpret.cpp", platform)
    assert r.returncode != 0
    assert "needs a newer architecture" in r.stderr and f"not for {platform}" in r.stderr, r.stderr[-2000:]
    assert f"refused_reinterpret.cpp:{line_of('refused_reinterpret.cpp', 'refused')}" in r.stderr


REFUSED_NAMES = {  # REFUSE: (the tagged line, what the message says)
    1: ("int4-tensor", "Adds: this dtype is not supported on"),  # no vector arithmetic on int4b_t (issue 21)
    2: ("matmul", "AscendC::Matmul: Matmul runs on the cube unit, which is outside the emulator"),
    3: ("regist", "REGIST_MATMUL_OBJ: Matmul runs on the cube unit, which is outside the emulator"),
    4: ("fill-int8", "Fill: this dtype is not supported on"),
}


def test_names_whose_use_is_refused_compile_when_unused() -> None:
    """REFUSE=0: lib/matmul_intf.h included, MatmulType named, SetL2CacheHint<CacheRwMode>, int4b_t scalars,
    CeilDivision and DivCeil."""
    r = _syntax_only(SURFACE / "refused_names.cpp", "ascend310p", "-DREFUSE=0")
    assert r.returncode == 0, r.stderr[-2000:]


@pytest.mark.parametrize("refuse", REFUSED_NAMES)
def test_names_whose_use_is_refused(refuse: int) -> None:
    tag, message = REFUSED_NAMES[refuse]
    platform = "ascend910b" if refuse % 2 else "ascend310p"  # both chips over the four cases
    r = _syntax_only(SURFACE / "refused_names.cpp", platform, f"-DREFUSE={refuse}")
    assert r.returncode != 0 and message in r.stderr, r.stderr[-2000:]
    assert f"refused_names.cpp:{line_of('refused_names.cpp', tag)}" in r.stderr, r.stderr[-2000:]


# ------------------------------------------------------------------------------------------------ custom TBufPool
def test_the_supported_tbufpool_compiles_where_a_custom_one_would() -> None:
    r = _syntax_only(SURFACE / "custom_bufpool.cpp", "ascend310p", "-DCUSTOM=0")
    assert r.returncode == 0, r.stderr[-2000:]


@pytest.mark.parametrize("platform", SOCS)
def test_a_custom_tbufpool_is_refused_at_its_macro(platform: str) -> None:
    r = _syntax_only(SURFACE / "custom_bufpool.cpp", platform, "-DCUSTOM=1")
    assert r.returncode != 0
    first = next(line for line in r.stderr.splitlines() if "error:" in line)
    assert "EXTERN_IMPL_BUFPOOL(MyBufPool): a custom TBufPool is not supported" in first, r.stderr[-2000:]
    assert "use AscendC::TBufPool<pos, bufIDSize>" in first
    assert f"custom_bufpool.cpp:{line_of('custom_bufpool.cpp', 'extern-impl')}" in r.stderr


# ------------------------------------------------------------------------------------------------ op_host tiling
OP_HOST_TILING = {
    "ASCEMU_TILING_STRUCT": "optiling::ScaleAddTilingData",
    "ASCEMU_TILING_HEADER": '"scale_add_tiling.h"',
}


class ScaleAddTiling(ctypes.Structure):
    """surface/op_host/scale_add_tiling.h ScaleAddTilingData."""

    _fields_ = [("totalLength", ctypes.c_uint32), ("tileLength", ctypes.c_uint32), ("scale", ctypes.c_float)]


def test_get_tiling_data_without_a_known_struct_names_the_fix() -> None:
    r = _syntax_only(SURFACE / "opnn_scale_add.cpp", "ascend910b")
    assert r.returncode != 0
    first = next(line for line in r.stderr.splitlines() if "error:" in line)
    assert "GET_TILING_DATA: the tiling struct's type is not known here" in first, r.stderr[-2000:]
    for fix in ("REGISTER_TILING_DEFAULT(YourTilingData)", "-DASCEMU_TILING_STRUCT=", "-DASCEMU_TILING_HEADER="):
        assert fix in first
    assert f"opnn_scale_add.cpp:{line_of('opnn_scale_add.cpp', 'get-tiling')}" in r.stderr


def test_an_ops_nn_kernel_runs_with_its_op_host_tiling_struct() -> None:
    """The worked example of docs/emulator.md: the kernel unchanged, the struct named by the build."""
    kernel = load(
        SURFACE / "opnn_scale_add.cpp",
        "opnn_scale_add",
        "Ascend910B1",
        defines=OP_HOST_TILING,
        include_dirs=[SURFACE / "op_host"],
        opt="-O1",
    )
    n = 4 * 4 * 256
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=n).astype(np.float32), rng.normal(size=n).astype(np.float32)
    z = np.zeros(n, np.float32)
    run = kernel[4](In(x), In(y), Out(z, fill=0), workspace=1024, tiling=ScaleAddTiling(n, 256, 1.5))
    assert run.exit_code == 0 and not loud(run), loud(run)
    np.testing.assert_array_equal(z.view(np.uint32), (x * np.float32(1.5) + y).view(np.uint32))
