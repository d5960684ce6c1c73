"""The real-world conformance suite: its manifest, the canonical idiom list and the docs index rendered from them.

Every entry of KERNELS is one operator of our own in kernels/, written in one recognisable style of Huawei's
Ascend C code (CANN's KernelLaunch samples, the asc-devkit single-source examples, ops-nn / ops-math / cann-ops
op_kernels), with the SoCs it targets, the idioms it exercises (names from IDIOMS), and one or more cases: inputs,
a numpy reference and how they reach the kernel. test_conformance.py runs every case on every SoC of its kernel.

    python tests/conformance/suite.py            # print the index tables of docs/conformance.md
    python tests/conformance/suite.py --write    # rewrite them in docs/conformance.md
"""

from __future__ import annotations

import ctypes
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KERNEL_DIR = HERE / "kernels"
DOC = HERE.parents[1] / "docs" / "conformance.md"
P310, P910 = "Ascend310P3", "Ascend910B1"

Arrays = dict[str, np.ndarray]


# ------------------------------------------------------------------------------------------------ idioms
@dataclass(frozen=True)
class Idiom:
    """An idiom of real-world Ascend C code; every pattern must match a kernel that claims it (comments removed)."""

    name: str
    what: str
    patterns: tuple[str, ...]


def _api(name: str, what: str = "") -> Idiom:
    """A vector API idiom: a call of `name`, with or without template arguments."""
    return Idiom(name, what or f"`{name}`", (rf"\b{name}\s*(?:<[^;()]*>)?\s*\(",))


IDIOMS: tuple[Idiom, ...] = (
    # the kernel entry
    Idiom("extern-c-aicore", '`extern "C" __global__ __aicore__` entry', (r'extern\s+"C"\s+__global__\s+__aicore__',)),
    Idiom("vector-qualifier", "`__global__ __vector__` entry", (r"__global__\s+__vector__|__vector__\s+__global__",)),
    Idiom(
        "kernel-type",
        "`KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_*)`",
        (r"KERNEL_TASK_TYPE_DEFAULT\(\s*KERNEL_TYPE_\w+\s*\)",),
    ),
    Idiom(
        "template-entry",
        "kernel entry template with several template arguments",
        (r"template\s*<[^<>]*,[^<>]*>\s*(?:__global__|__vector__)",),
    ),
    Idiom(
        "output-last-no-tiling",
        "GM_ADDR parameters ending with the output, no workspace or tiling",
        (r"(?:__aicore__|__vector__)\s+void\s+\w+\((?:(?!workspace|tiling)[^)])*\)\s*\{",),
    ),
    Idiom(
        "workspace-tiling",
        "`GM_ADDR workspace, GM_ADDR tiling` read with `GET_TILING_DATA`",
        (r"GM_ADDR\s+workspace\s*,\s*GM_ADDR\s+tiling\s*\)", r"\bGET_TILING_DATA(?:_WITH_STRUCT)?\s*\("),
    ),
    Idiom(
        "kernel-tiling-h",
        '`#include "kernel_tiling/kernel_tiling.h"`',
        (r'#include\s+"kernel_tiling/kernel_tiling\.h"',),
    ),
    Idiom("get-tiling-data-with-struct", "`GET_TILING_DATA_WITH_STRUCT`", (r"\bGET_TILING_DATA_WITH_STRUCT\s*\(",)),
    Idiom("tiling-key", "dispatch on `TILING_KEY_IS`", (r"\bTILING_KEY_IS\s*\(",)),
    Idiom(
        "tiling-by-value",
        "a tiling struct passed by value",
        (r"__global__\s+__aicore__\s+void\s+\w+\([^)]*,\s*\w*Tiling\w*\s+\w+\s*\)",),
    ),
    # whole programs
    Idiom(
        "acl-host-main",
        "host `main()` with ACL: aclrtSetDevice, streams, aclrtMalloc / Memcpy / Free, synchronize",
        (
            r"\baclrtSetDevice\(",
            r"\baclrtCreateStream\(",
            r"\baclrtMalloc\(",
            r"\baclrtMemcpy\(",
            r"\baclrtSynchronizeStream\(",
            r"\baclrtFree\(",
        ),
    ),
    Idiom("acl-init", "`aclInit` / `aclFinalize`", (r"\baclInit\(", r"\baclFinalize\(")),
    Idiom(
        "chevron-launch",
        "`kernel<<<blockDim, nullptr, stream>>>(...)`",
        (r"<<<\s*\w+\s*,\s*(?:nullptr|0)\s*,\s*\w+\s*>>>",),
    ),
    Idiom(
        "cpu-twin-main",
        "CANN CPU-twin main: `tikicpulib.h`, `GmAlloc`, `ICPU_RUN_KF`",
        (r'#include\s+"tikicpulib\.h"', r"\bGmAlloc\(", r"\bICPU_RUN_KF\("),
    ),
    Idiom(
        "cpu-debug-launch-h",
        '`#include "cpu_debug_launch.h"` under `ASCENDC_CPU_DEBUG`',
        (r'#ifdef\s+ASCENDC_CPU_DEBUG\s*\n\s*#include\s+"cpu_debug_launch\.h"',),
    ),
    # structure
    Idiom(
        "init-process-class",
        "kernel class with Init / Process / CopyIn / Compute / CopyOut",
        tuple(rf"\b{m}\s*\(" for m in ("Init", "Process", "CopyIn", "Compute", "CopyOut")),
    ),
    Idiom(
        "tque-double-buffer",
        "TPipe + `TQue<VECIN>` / `TQue<VECOUT>` with BUFFER_NUM = 2",
        (r"BUFFER_NUM\s*=\s*2\b", r"TQue<[^>]*VECIN", r"TQue<[^>]*VECOUT"),
    ),
    Idiom("tbuf-veccalc", "`TBuf<VECCALC>` scratch", (r"TBuf<\s*(?:AscendC::)?TPosition::VECCALC\s*>",)),
    Idiom("tbufpool", "`TBufPool` with `InitBufPool`", (r"\bTBufPool<", r"\bInitBufPool\(")),
    Idiom(
        "local-mem-allocator",
        "`LocalMemAllocator<Hardware::UB>` static tensors",
        (r"LocalMemAllocator<\s*(?:AscendC::)?Hardware::UB\s*>",),
    ),
    Idiom(
        "local-tensor-by-address",
        "`LocalTensor(TPosition, addr, tileSize)`",
        (r"LocalTensor<\w+>\s+\w+\(\s*(?:AscendC::)?TPosition::\w+\s*,",),
    ),
    Idiom("get-tpipe-ptr", "`GetTPipePtr()`", (r"\bGetTPipePtr\(\)",)),
    Idiom("init-soc-state", "`InitSocState()`", (r"\bInitSocState\(\)",)),
    Idiom("block-idx-api", "`GetBlockIdx()` / `GetBlockNum()`", (r"\bGetBlockIdx\(\)", r"\bGetBlockNum\(\)")),
    Idiom("block-idx-variable", "the `block_idx` variable", (r"\bblock_idx\b",)),
    Idiom(
        "tail-datacopypad",
        "unaligned tail with `DataCopyPad` and `DataCopyExtParams`",
        (r"\bDataCopyPad\s*\(", r"\bDataCopyExtParams\b"),
    ),
    Idiom(
        "flags-fetched",
        "`SetFlag` / `WaitFlag<HardEvent>` on an event from `FetchEventID`",
        (r"\bFetchEventID\(", r"\bSetFlag<\s*(?:AscendC::)?HardEvent::\w+\s*>", r"\bWaitFlag<"),
    ),
    Idiom(
        "flags-literal",
        "`SetFlag` / `WaitFlag<HardEvent>(EVENT_ID0)` with no TPipe",
        (
            r"\A(?![\s\S]*\bTPipe\b)",  # no TPipe anywhere in the code
            r"\bSetFlag<\s*(?:AscendC::)?HardEvent::\w+\s*>\(\s*EVENT_ID0\s*\)",
            r"\bWaitFlag<[^>]*>\(\s*EVENT_ID0\s*\)",
        ),
    ),
    Idiom(
        "flags-literal-tpipe",
        "`SetFlag` / `WaitFlag<HardEvent>(EVENT_ID0)` beside a TPipe's queues",
        (r"\bTPipe\b", r"\bSetFlag<\s*(?:AscendC::)?HardEvent::\w+\s*>\(\s*EVENT_ID0\s*\)"),
    ),
    Idiom("pipe-barrier-v", "`PipeBarrier<PIPE_V>()`", (r"\bPipeBarrier<PIPE_V>\(\)",)),
    Idiom("sync-all", "hard `SyncAll()` between cores", (r"\bSyncAll\(\)",)),
    Idiom("atomic-add", "`SetAtomicAdd<T>()`", (r"\bSetAtomicAdd<\w+>\(\)",)),
    Idiom(
        "atomic-max-min",
        "`SetAtomicMax<T>()` / `SetAtomicMin<T>()`",
        (r"\bSetAtomicMax<\w+>\(\)", r"\bSetAtomicMin<\w+>\(\)"),
    ),
    Idiom("atomic-type", "`SetAtomicType<T>()`", (r"\bSetAtomicType<\w+>\(\)",)),
    Idiom("disable-dma-atomic", "`DisableDmaAtomic()`", (r"\bDisableDmaAtomic\(\)",)),
    Idiom("init-global-memory", "`InitGlobalMemory` zeroing GM before a `SyncAll`", (r"\bInitGlobalMemory\s*\(",)),
    Idiom("cce-aicore-guard", "a body guarded by `#if __CCE_AICORE__ == 220`", (r"#if\s+__CCE_AICORE__\s*==\s*220",)),
    Idiom("div-ceil", "`DivCeil`", (r"\bDivCeil\s*\(",)),
    Idiom(
        "kernel-mode",
        "`SetKernelMode(KernelMode::AIV_MODE)` in a CPU-twin main",
        (r"\bSetKernelMode\(\s*KernelMode::",),
    ),
    Idiom(
        "user-workspace",
        "`GetUserWorkspace` after `SetSysWorkspace`",
        (r"\bSetSysWorkspace\(", r"\bGetUserWorkspace\("),
    ),
    # vector APIs
    *(_api(name) for name in ("Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins")),
    *(_api(name) for name in ("Exp", "Ln", "Abs", "Sqrt", "Relu", "LeakyRelu", "Axpy")),
    Idiom("Cast", "`Cast` with a `RoundMode`", (r"\bCast\s*\([^;]*RoundMode::\w+",)),
    *(_api(name) for name in ("Duplicate", "Compare", "Select", "GatherMask", "Gather", "Brcb")),
    *(_api(name) for name in ("ReduceSum", "ReduceMax", "ReduceMin")),
    Idiom(
        "WholeReduce", "`WholeReduceSum` / `WholeReduceMax`", (r"\bWholeReduce(?:Sum|Max|Min)\s*(?:<[^;()]*>)?\s*\(",)
    ),
    Idiom(
        "BlockReduce", "`BlockReduceSum` / `BlockReduceMax`", (r"\bBlockReduce(?:Sum|Max|Min)\s*(?:<[^;()]*>)?\s*\(",)
    ),
    *(_api(name) for name in ("PairReduceSum", "ReduceRepeat", "Copy", "Transpose", "Scatter")),
    *(_api(name) for name in ("FusedMulAdd", "MulAddDst")),
    Idiom("mask-bits", "mask form with a bit mask `uint64_t mask[2]`", (r"\buint64_t\s+\w+\[2\]\s*=",)),
    Idiom(
        "mask-counter",
        "counter mode: `SetMaskCount`, `SetVectorMask`, `SetMaskNorm`",
        (r"\bSetMaskCount\(\)", r"\bSetVectorMask<", r"\bSetMaskNorm\(\)"),
    ),
    Idiom(
        "reduce-counter",
        "`ReduceRepeat` in counter mode over a length that is not a whole number of repeats",
        (r"\bSetMaskCount\(\)", r"\bReduceRepeat<[^;()]*,\s*false\s*>\s*\(\s*\w+\s*,\s*\w+\s*,\s*MASK_PLACEHOLDER"),
    ),
    Idiom(
        "gather-mask-counter",
        "`GatherMask` in counter mode (reduceMode true, mask = the element count)",
        (r"\bGatherMask\s*\([^;]*,\s*true\s*,",),
    ),
    Idiom(
        "repeat-params",
        "`BinaryRepeatParams` / `UnaryRepeatParams`",
        (r"\b(?:Binary|Unary)RepeatParams\b",),
    ),
    Idiom("assert", "`ASSERT` / `ascendc_assert`", (r"\b(?:ASSERT|ascendc_assert)\s*\(",)),
    Idiom(
        "assert-without-semicolon",
        "`ASSERT` glued to the assignment before it, no `;` between (CANN's device build expands ASSERT to nothing)",
        (r"(?<![=!<>])=(?!=)[^;{}()]*\w\s+ASSERT\s*\(",),
    ),
    Idiom(
        "tiling-key-dtype",
        "`TILING_KEY_IS(DT_FLOAT16)`: ge::DataType codes as tiling keys",
        (r"\bTILING_KEY_IS\s*\(\s*DT_[A-Z0-9_]+\s*\)",),
    ),
    Idiom(
        "unqualified-tiling-struct",
        "the op_host tiling class (declared in `namespace optiling`) named unqualified, neither declared nor included",
        (
            r'\A(?![\s\S]*\b(?:struct|class)\s+\w+TilingData\b)(?![\s\S]*#include\s*"(?!kernel_operator\.h")[^"]*")',
            r"(?<![:\w])[A-Z]\w*TilingData\b",
        ),
    ),
    Idiom("printf", "`AscendC::printf`", (r"\bAscendC::printf\s*\(",)),
    Idiom("float16-float32", "`float16_t` / `float32_t`", (r"\bfloat16_t\b", r"\bfloat32_t\b")),
    Idiom("half", "`half`", (r"\bhalf\b",)),
    Idiom("bfloat16", "`bfloat16_t`", (r"\bbfloat16_t\b",)),
)
IDIOM_NAMES = tuple(i.name for i in IDIOMS)


# ------------------------------------------------------------------------------------------------ the manifest
@dataclass(frozen=True)
class Launch:
    """How a case reaches a kernel entry (workbench.running.emu.load): a str in `args` names an input or an output
    array, anything else (a number, a ctypes struct) is passed as it is."""

    block_dim: int
    args: tuple[object, ...]
    workspace: int | None = None
    tiling: ctypes.Structure | None = None
    tiling_key: int = 0


@dataclass(frozen=True)
class Case:
    """One run: inputs from a seeded generator, the numpy reference (the expected outputs by name, with their dtype
    and shape), the launch (None for a whole program, whose main() reads input/input_<name>.bin and writes
    output/output_<name>.bin), the outputs' contents before the run (default: the emulator's 0xFF poison), the
    kernel's expected AscendC::printf records, and `xfail`: the emulator bug this case exposes (file:line, expected
    vs got), which makes it a strict xfail."""

    name: str
    inputs: Callable[[np.random.Generator], Arrays]
    reference: Callable[[Arrays], Arrays]
    launch: Callable[[Arrays], Launch] | None = None
    initial: Callable[[Arrays], Arrays] | None = None
    printf: Callable[[Arrays], tuple[tuple[int, str], ...]] | None = None
    xfail: str = ""


@dataclass(frozen=True)
class Kernel:
    """An operator in kernels/: `entry` for workbench.running.emu.load, or None for a whole program run by its main()
    (`twin`: a CANN CPU-twin main launching with ICPU_RUN_KF). Outputs must match bit for bit unless `rtol` says
    otherwise (and `tolerance` why)."""

    name: str
    file: str
    entry: str | None
    socs: tuple[str, ...]
    style: str
    idioms: tuple[str, ...]
    cases: tuple[Case, ...]
    twin: bool = False
    rtol: float = 0.0
    tolerance: str = ""
    defines: tuple[tuple[str, str], ...] = ()  # what the build is given, as CANN's operator build gives its kernels
    include_dirs: tuple[str, ...] = ()  # relative to KERNEL_DIR

    @property
    def path(self) -> Path:
        return KERNEL_DIR / self.file


def _struct(name: str, **fields: type) -> type[ctypes.Structure]:
    """A ctypes mirror of a kernel's tiling struct (field order as in the C++ declaration)."""
    return type(name, (ctypes.Structure,), {"_fields_": list(fields.items())})


u32, f32c = ctypes.c_uint32, ctypes.c_float
SoftmaxRowsTilingData = _struct("SoftmaxRowsTilingData", numRow=u32, numCol=u32, blockFactor=u32)
ReduceSumTilingData = _struct("ReduceSumTilingData", totalLength=u32, tileLength=u32)
BiasAddClampTiling = _struct("BiasAddClampTiling", rowsPerCore=u32, width=u32, lo=f32c, hi=f32c)
IndexSelectTilingData = _struct("IndexSelectTilingData", rowsPerCore=u32, rowsPerTile=u32, numCol=u32, numIndex=u32)
ArgMaxTilingData = _struct("ArgMaxTilingData", rowsPerCore=u32)
Pool1dTilingData = _struct("Pool1dTilingData", lengthPerCore=u32)
SoftplusTilingData = _struct("SoftplusTilingData", formerNum=u32, formerLength=u32, tailLength=u32, tileLength=u32)
AddcmulTiling = _struct("AddcmulTiling", blockLength=u32, value=f32c)
LayerNormTilingData = _struct("LayerNormTilingData", rowsPerCore=u32, epsilon=f32c)
ChunkStatsTilingData = _struct("ChunkStatsTilingData", length=u32)
ScaleFloorTilingData = _struct("ScaleFloorTilingData", blockLength=u32, tileNum=u32, scale=f32c, floor=f32c)

F32 = np.float32


def _normal(
    rng: np.random.Generator, shape: int | tuple[int, ...], scale: float = 1.0, dtype: type = F32
) -> np.ndarray:
    return (rng.normal(0.0, scale, shape)).astype(dtype)


def _scale_floor(x: np.ndarray, scale: np.generic, floor: np.generic) -> np.ndarray:
    """Muls (the product rounded once to x's type: exact in float64 first) then Maxs."""
    return np.maximum((x.astype(np.float64) * np.float64(scale)).astype(x.dtype), floor)


def _rounded(values: np.ndarray) -> np.ndarray:
    """float64 results rounded once to float32: what one vector instruction computing exactly gives."""
    return np.asarray(values, np.float64).astype(F32)


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns, round to nearest, ties to even (finite inputs and infinities)."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _cast_inputs(rng: np.random.Generator) -> Arrays:
    x = (rng.normal(size=4096) * np.exp2(rng.integers(-20, 20, 4096))).astype(F32)
    ties = [1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 1.5 + 2**-8, 0.0, -0.0, np.inf, -np.inf]
    x[: len(ties)] = ties  # halfway cases round to even; zeros and infinities keep their bits
    return {"x": x}


def _softmax(x: np.ndarray) -> np.ndarray:
    e = _rounded(np.exp((x - x.max(1, keepdims=True)).astype(np.float64)))
    return e * (F32(1) / e.sum(1, keepdims=True, dtype=F32))


def _reduce_sum(a: Arrays) -> Arrays:
    total = a["x"].sum(dtype=np.float64)  # integer-valued: every order of summation is exact
    y = np.zeros(16, F32)
    y[0] = y[8] = total
    return {"y": y}


def _chunk_stats(a: Arrays) -> Arrays:
    cores = a["x"].reshape(4, 1008)  # integers: every order of summation is exact
    sums = np.stack([np.array([c[i : i + 64].sum() for i in range(0, 1008, 64)], F32) for c in cores])
    return {"sums": sums.reshape(-1), "evens": cores[:, ::2].reshape(-1)}


def _softplus(x: np.ndarray) -> np.ndarray:
    t = _rounded(np.exp(-np.abs(x).astype(np.float64))) + F32(1)
    return np.maximum(x, F32(0)) + _rounded(np.log(t.astype(np.float64)))


def _smooth_l1(x: np.ndarray, y: np.ndarray, beta: np.float32) -> np.ndarray:
    d = x - y
    a = np.abs(d)
    return np.where(a < beta, (d * d) * (F32(0.5) / beta), a + F32(-0.5) * beta)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: np.float32) -> np.ndarray:
    # integer inputs in [-4, 4]: the row sums, the centred values and their squares are exact in float32
    centred = x - x.sum(1, keepdims=True) * F32(1 / 64)
    stdev = np.sqrt((centred * centred).sum(1, keepdims=True) * F32(1 / 64) + eps)
    return _rounded(gamma.astype(np.float64) * (centred / stdev) + beta)


def _scatter(a: Arrays) -> Arrays:
    z = np.empty_like(a["x"])
    for segment in range(2):
        at = slice(segment * 128, (segment + 1) * 128)
        z[at][a["offset"][at] // 2] = a["x"][at]
    return {"z": z}


def _pool_case(name: str, key: int, window: int, pool: Callable[[np.ndarray], np.ndarray]) -> Case:
    return Case(
        name,
        # multiples of 1/8 in [-8, 8): window sums are exact, so the averages are too
        lambda rng: {"x": (rng.integers(-64, 64, 4 * 1024) / 8).astype(F32)},
        lambda a: {"y": pool(a["x"].reshape(-1, window)).astype(F32)},
        lambda a: Launch(4, ("x", "y"), 32, Pool1dTilingData(1024), key),
    )


KERNELS: tuple[Kernel, ...] = (
    Kernel(
        "add_custom",
        "add_custom.cpp",
        "add_custom",
        (P310, P910),
        "CANN KernelLaunch sample (AddCustom)",
        (
            "extern-c-aicore",
            "output-last-no-tiling",
            "init-process-class",
            "tque-double-buffer",
            "Add",
            "half",
        ),
        (
            Case(
                "half",
                lambda rng: {"x": _normal(rng, 8192, 1, np.float16), "y": _normal(rng, 8192, 4, np.float16)},
                lambda a: {"z": a["x"] + a["y"]},
                lambda a: Launch(8, ("x", "y", "z")),
            ),
        ),
    ),
    Kernel(
        "leaky_relu_custom",
        "leaky_relu_main.cpp",
        None,
        (P310,),
        "CANN KernelLaunch sample, CPU-debug build with its host main.cpp",
        (
            "extern-c-aicore",
            "workspace-tiling",
            "cpu-twin-main",
            "init-process-class",
            "tque-double-buffer",
            "block-idx-api",
            "kernel-mode",
            "LeakyRelu",
        ),
        (
            Case(
                "float",
                lambda rng: {"x": _normal(rng, 8 * 2048, 3)},
                lambda a: {"y": np.where(a["x"] >= 0, a["x"], a["x"] * F32(0.01))},
            ),
        ),
        twin=True,
    ),
    Kernel(
        "softmax_rows",
        "softmax_rows.cpp",
        "softmax_rows",
        (P910,),
        "ops-nn op_kernel",
        (
            "extern-c-aicore",
            "kernel-type",
            "workspace-tiling",
            "kernel-tiling-h",
            "tiling-key",
            "init-process-class",
            "tque-double-buffer",
            "tbuf-veccalc",
            "get-tpipe-ptr",
            "block-idx-api",
            "flags-fetched",
            "pipe-barrier-v",
            "Adds",
            "Muls",
            "Exp",
            "ReduceSum",
            "ReduceMax",
            "assert",
        ),
        (
            Case(
                "45x256",  # 45 rows on 8 cores: 6 each, the last core 3
                lambda rng: {"x": _normal(rng, (45, 256), 3)},
                lambda a: {"y": _softmax(a["x"])},
                lambda a: Launch(8, ("x", "y"), 32, SoftmaxRowsTilingData(45, 256, 6), 1),
            ),
        ),
        rtol=2e-6,
        tolerance="the row sum's order of addition is the vector unit's tree, not numpy's",
    ),
    Kernel(
        "reduce_sum",
        "reduce_sum.cpp",
        "reduce_sum",
        (P910,),
        "cann-ops multi-core reduction through the workspace",
        (
            "extern-c-aicore",
            "kernel-type",
            "workspace-tiling",
            "tbuf-veccalc",
            "block-idx-api",
            "flags-fetched",
            "pipe-barrier-v",
            "sync-all",
            "atomic-add",
            "disable-dma-atomic",
            "user-workspace",
            "init-global-memory",
            "flags-literal-tpipe",
            "Add",
            "Duplicate",
            "ReduceSum",
            "WholeReduce",
            "mask-bits",
            "printf",
        ),
        (
            Case(
                "8x2048",
                lambda rng: {"x": rng.integers(-100, 100, 8 * 2048).astype(F32)},
                _reduce_sum,
                # GetUserWorkspace is the system workspace + 16 MiB on 910B
                lambda a: Launch(8, ("x", "y"), (16 << 20) + 1024, ReduceSumTilingData(8 * 2048, 512)),
                printf=lambda a: ((0, f"reduce_sum: 8 cores, total {a['x'].sum(dtype=np.float64):f}\n"),),
            ),
        ),
    ),
    Kernel(
        "axpy_custom",
        "axpy_custom.asc",
        None,
        (P910,),
        "asc-devkit single-source example (.asc)",
        (
            "vector-qualifier",
            "template-entry",
            "output-last-no-tiling",
            "acl-host-main",
            "acl-init",
            "chevron-launch",
            "cpu-debug-launch-h",
            "local-mem-allocator",
            "init-soc-state",
            "block-idx-variable",
            "flags-literal",
            "Axpy",
        ),
        (
            Case(
                "float",
                lambda rng: {"x": _normal(rng, 8 * 2048), "y": _normal(rng, 8 * 2048)},
                lambda a: {"z": _rounded(0.75 * a["x"].astype(np.float64) + a["y"])},
            ),
        ),
    ),
    Kernel(
        "cast_round",
        "cast_round.cpp",
        "cast_round<float32_t, bfloat16_t, AscendC::RoundMode::CAST_RINT>",
        (P910,),
        "templated kernel entry",
        (
            "template-entry",
            "output-last-no-tiling",
            "init-process-class",
            "tque-double-buffer",
            "pipe-barrier-v",
            "Cast",
            "float16-float32",
            "bfloat16",
        ),
        (
            Case(
                "float32-bfloat16-rint",
                _cast_inputs,
                lambda a: {
                    "y": _bf16_bits(a["x"]),
                    "z": (_bf16_bits(a["x"]).astype(np.uint32) << 16).view(F32),
                },
                lambda a: Launch(4, ("x", "y", "z", np.uint32(1024))),
            ),
        ),
    ),
    Kernel(
        "bias_add_clamp",
        "bias_add_clamp.cpp",
        "bias_add_clamp",
        (P310, P910),
        "basic-API mask forms of CANN's vector examples",
        (
            "extern-c-aicore",
            "tiling-by-value",
            "init-process-class",
            "pipe-barrier-v",
            "Add",
            "Maxs",
            "Mins",
            "mask-bits",
            "mask-counter",
            "repeat-params",
        ),
        (
            Case(
                "96x40",
                lambda rng: {"x": _normal(rng, (96, 40)), "bias": _normal(rng, 40)},
                lambda a: {"y": np.minimum(np.maximum(a["x"] + a["bias"], F32(-1)), F32(1.5))},
                lambda a: Launch(4, ("x", "bias", "y", BiasAddClampTiling(24, 40, -1.0, 1.5))),
            ),
        ),
    ),
    Kernel(
        "index_select",
        "index_select.cpp",
        "index_select",
        (P910,),
        "operator kernel with GET_TILING_DATA_WITH_STRUCT",
        (
            "extern-c-aicore",
            "workspace-tiling",
            "get-tiling-data-with-struct",
            "init-process-class",
            "tque-double-buffer",
            "tbuf-veccalc",
            "flags-fetched",
            "pipe-barrier-v",
            "Muls",
            "Gather",
        ),
        (
            Case(
                "64x64-24",
                lambda rng: {"x": _normal(rng, (64, 64)), "index": rng.integers(0, 64, 24).astype(np.int32)},
                lambda a: {"y": a["x"][:, a["index"]]},
                lambda a: Launch(4, ("x", "index", "y"), 32, IndexSelectTilingData(16, 4, 64, 24)),
            ),
        ),
    ),
    Kernel(
        "arg_max_with_value",
        "arg_max_with_value.cpp",
        "arg_max_with_value",
        (P310, P910),
        "cann-ops kernel with a TBufPool",
        (
            "extern-c-aicore",
            "workspace-tiling",
            "init-process-class",
            "tque-double-buffer",
            "tbuf-veccalc",
            "tbufpool",
            "pipe-barrier-v",
            "GatherMask",
            "WholeReduce",
            "assert",
        ),
        (
            Case(
                "256x64",
                lambda rng: {"x": _normal(rng, (256, 64))},
                lambda a: {"values": a["x"].max(1), "indices": a["x"].argmax(1).astype(np.int32)},
                lambda a: Launch(4, ("x", "values", "indices"), 32, ArgMaxTilingData(64)),
            ),
        ),
    ),
    Kernel(
        "pool1d",
        "pool1d.cpp",
        "pool1d",
        (P310,),
        "tiling-key dispatch to a kernel class template",
        (
            "extern-c-aicore",
            "workspace-tiling",
            "tiling-key",
            "init-process-class",
            "tque-double-buffer",
            "pipe-barrier-v",
            "Muls",
            "BlockReduce",
            "PairReduceSum",
        ),
        (
            _pool_case("max8", 1, 8, lambda w: w.max(1)),
            _pool_case("avg8", 2, 8, lambda w: w.sum(1) / 8),
            _pool_case("avg2", 3, 2, lambda w: w.sum(1) / 2),
        ),
    ),
    Kernel(
        "aminmax",
        "aminmax.cpp",
        "aminmax",
        (P910,),
        "multi-core atomics of CANN's atomic examples",
        (
            "extern-c-aicore",
            "output-last-no-tiling",
            "tbuf-veccalc",
            "flags-fetched",
            "pipe-barrier-v",
            "atomic-max-min",
            "atomic-type",
            "disable-dma-atomic",
            "Max",
            "Min",
            "Cast",
            "Duplicate",
            "ReduceMax",
            "ReduceMin",
            "half",
        ),
        (
            Case(
                "8x2048",
                lambda rng: {"x": _normal(rng, 8 * 2048, 100)},
                lambda a: {
                    "y": np.repeat([a["x"].max(), a["x"].min()], 8).astype(F32),
                    "yh": np.full(16, a["x"].max(), np.float16),
                },
                lambda a: Launch(8, ("x", "y", "yh", np.uint32(2048))),
                initial=lambda a: {
                    "y": np.repeat(np.array([-np.inf, np.inf], F32), 8),
                    "yh": np.full(16, -np.inf, np.float16),
                },
            ),
        ),
    ),
    Kernel(
        "transpose16",
        "transpose16.cpp",
        "transpose16",
        (P310,),
        "free-function kernel of CANN's get_tpipe_ptr example",
        (
            "extern-c-aicore",
            "output-last-no-tiling",
            "tque-double-buffer",
            "get-tpipe-ptr",
            "block-idx-api",
            "Transpose",
            "assert",
            "half",
        ),
        (
            Case(
                "32x16x16",
                lambda rng: {"x": _normal(rng, (32, 16, 16), 1, np.float16)},
                lambda a: {"y": np.ascontiguousarray(a["x"].transpose(0, 2, 1))},
                lambda a: Launch(4, ("x", "y")),
            ),
        ),
    ),
    Kernel(
        "scatter_custom",
        "scatter_custom.asc",
        None,
        (P310,),
        "asc-devkit compatibility-guide example (.asc)",
        (
            "vector-qualifier",
            "acl-host-main",
            "chevron-launch",
            "cpu-debug-launch-h",
            "local-tensor-by-address",
            "init-soc-state",
            "flags-literal",
            "Scatter",
            "half",
        ),
        (
            Case(
                "2x128",
                lambda rng: {
                    "x": _normal(rng, 256, 1, np.float16),
                    "offset": np.concatenate([rng.permutation(128) for _ in range(2)]).astype(np.uint32) * 2,
                },
                _scatter,
            ),
        ),
    ),
    Kernel(
        "softplus",
        "softplus.cpp",
        "softplus",
        (P910,),
        "ops-nn elementwise op_kernel with a former / tail core split",
        (
            "extern-c-aicore",
            "kernel-type",
            "workspace-tiling",
            "init-process-class",
            "tque-double-buffer",
            "tbuf-veccalc",
            "tail-datacopypad",
            "pipe-barrier-v",
            "cce-aicore-guard",
            "div-ceil",
            "Add",
            "Adds",
            "Muls",
            "Exp",
            "Ln",
            "Abs",
            "Relu",
        ),
        (
            Case(
                "4099",  # 4099 = 3 cores x 1025 + 1 x 1024: no core boundary or tail is 32-byte aligned
                lambda rng: {"x": _normal(rng, 4099, 4)},
                lambda a: {"y": _softplus(a["x"])},
                lambda a: Launch(4, ("x", "y"), 32, SoftplusTilingData(3, 1025, 1024, 256)),
            ),
        ),
    ),
    Kernel(
        "chunk_stats",
        "chunk_stats.cpp",
        "chunk_stats",
        (P310, P910),
        "ops-math kernel in counter mode on a length that is not a whole number of repeats",
        (
            "extern-c-aicore",
            "tiling-by-value",
            "init-process-class",
            "div-ceil",
            "GatherMask",
            "ReduceRepeat",
            "mask-counter",
            "reduce-counter",
            "gather-mask-counter",
            "assert",
        ),
        (
            Case(
                "4x1008",  # 1008 floats a core: 15 whole repeats of 64 and one of 48
                lambda rng: {"x": rng.integers(-1000, 1000, 4 * 1008).astype(F32)},
                _chunk_stats,
                lambda a: Launch(4, ("x", "sums", "evens", ChunkStatsTilingData(1008))),
            ),
        ),
    ),
    Kernel(
        "smooth_l1_loss",
        "smooth_l1_loss.cpp",
        "smooth_l1_loss",
        (P310,),
        "KernelLaunch sample class with an attribute passed by value",
        (
            "extern-c-aicore",
            "output-last-no-tiling",
            "init-process-class",
            "tque-double-buffer",
            "tbuf-veccalc",
            "pipe-barrier-v",
            "Sub",
            "Mul",
            "Adds",
            "Muls",
            "Abs",
            "Duplicate",
            "Compare",
            "Select",
        ),
        (
            Case(
                "4096",
                lambda rng: {"x": _normal(rng, 4096, 2), "y": _normal(rng, 4096, 2)},
                lambda a: {"loss": _smooth_l1(a["x"], a["y"], F32(1.5))},
                lambda a: Launch(4, ("x", "y", "loss", np.uint32(1024), F32(1.5))),
            ),
        ),
    ),
    Kernel(
        "addcmul",
        "addcmul.cpp",
        "addcmul",
        (P910,),
        "ops-math elementwise kernel",
        (
            "extern-c-aicore",
            "tiling-by-value",
            "init-process-class",
            "tque-double-buffer",
            "pipe-barrier-v",
            "Muls",
            "Copy",
            "MulAddDst",
        ),
        (
            Case(
                "8192",
                lambda rng: {"input": _normal(rng, 8192), "t1": _normal(rng, 8192), "t2": _normal(rng, 8192)},
                lambda a: {"y": _rounded((a["t1"] * F32(0.3)).astype(np.float64) * a["t2"] + a["input"])},
                lambda a: Launch(4, ("input", "t1", "t2", "y", AddcmulTiling(2048, 0.3))),
            ),
        ),
    ),
    Kernel(
        "layer_norm",
        "layer_norm.cpp",
        "layer_norm",
        (P910,),
        "ops-nn normalisation kernel on tiles of rows",
        (
            "extern-c-aicore",
            "kernel-type",
            "workspace-tiling",
            "init-process-class",
            "tque-double-buffer",
            "tbuf-veccalc",
            "flags-fetched",
            "pipe-barrier-v",
            "Sub",
            "Mul",
            "Div",
            "Adds",
            "Muls",
            "Sqrt",
            "Brcb",
            "WholeReduce",
            "ReduceRepeat",
            "FusedMulAdd",
            "repeat-params",
        ),
        (
            Case(
                "128x64",
                lambda rng: {
                    "x": rng.integers(-4, 5, (128, 64)).astype(F32),
                    "gamma": _normal(rng, 64),
                    "beta": _normal(rng, 64),
                },
                lambda a: {"y": _layer_norm(a["x"], a["gamma"], a["beta"], F32(2**-8))},
                lambda a: Launch(4, ("x", "gamma", "beta", "y"), 32, LayerNormTilingData(32, 2**-8)),
            ),
        ),
    ),
    Kernel(
        "scale_floor",
        "scale_floor.cpp",
        "scale_floor",
        (P910,),
        "op_kernel of an msOpGen operator project",
        (
            "extern-c-aicore",
            "workspace-tiling",
            "tiling-key",
            "tiling-key-dtype",
            "unqualified-tiling-struct",
            "tque-double-buffer",
            "pipe-barrier-v",
            "Muls",
            "Maxs",
            "assert",
            "assert-without-semicolon",
            "half",
        ),
        tuple(
            Case(
                name,
                lambda rng, dtype=dtype: {"x": _normal(rng, 4 * 2 * 2 * 256, 2, dtype)},
                lambda a, dtype=dtype: {"y": _scale_floor(a["x"], dtype(1.375), dtype(-0.75))},
                lambda a, key=key: Launch(4, ("x", "y"), 32, ScaleFloorTilingData(2 * 2 * 256, 2, 1.375, -0.75), key),
            )
            for name, dtype, key in (("half DT_FLOAT16", np.float16, 1), ("float DT_FLOAT", F32, 0))
        ),
        defines=(("ASCEMU_TILING_STRUCT", "ScaleFloorTilingData"), ("ASCEMU_TILING_HEADER", '"scale_floor_tiling.h"')),
        include_dirs=("op_host",),
    ),
)


# ------------------------------------------------------------------------------------------------ checks and docs
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def code_of(path: Path) -> str:
    """The source without its comments (string literals kept), so a header comment claims nothing."""
    return _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", path.read_text())


def detected(kernel: Kernel) -> tuple[str, ...]:
    """The idioms whose patterns all match the kernel's code: what its `idioms` must list, no more and no less."""
    code = code_of(kernel.path)
    return tuple(i.name for i in IDIOMS if all(re.search(p, code) for p in i.patterns))


BEGIN, END = "<!-- conformance-index:begin -->", "<!-- conformance-index:end -->"


def index_tables() -> str:
    """The kernel table and the idiom -> kernel table of docs/conformance.md, rendered from the manifest."""
    lines = ["| kernel | file | style | SoCs | cases | compared |", "|---|---|---|---|---|---|"]
    for k in KERNELS:
        compared = f"rtol {k.rtol:g} ({k.tolerance})" if k.rtol else "bit for bit"
        cases = ", ".join(c.name for c in k.cases)
        socs = ", ".join(k.socs)
        lines.append(f"| `{k.name}` | `{k.file}` | {k.style} | {socs} | {cases} | {compared} |")
    lines += ["", "| idiom | what | kernels |", "|---|---|---|"]
    for idiom in IDIOMS:
        users = ", ".join(f"`{k.name}`" for k in KERNELS if idiom.name in k.idioms) or "**none**"
        lines.append(f"| `{idiom.name}` | {idiom.what} | {users} |")
    return "\n".join(lines)


def documented_tables(text: str) -> str:
    """What docs/conformance.md holds between the index markers."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip("\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        text = DOC.read_text()
        DOC.write_text(text[: text.index(BEGIN) + len(BEGIN)] + "\n" + index_tables() + "\n" + text[text.index(END) :])
    else:
        print(index_tables())
