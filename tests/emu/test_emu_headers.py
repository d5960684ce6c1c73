"""What a kernel includes: kernel_operator.h is the kernel-side Ascend C API only, never the machinery that runs
a kernel (ascemu/launch.h, serve.h, driver.h); the driver (kernels/emu/driver/main.cpp) includes that itself.

Checked with `g++ -fsyntax-only -H`, which lists every header a translation unit opens.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from emu_helpers import DRIVER, INCLUDE, KERNEL_CONF, KERNEL_FAULT, REPO

MACHINERY = ("launch.h", "serve.h", "driver.h")
PLATFORMS = ("ascend310p", "ascend910b")

# A small kernel that uses the common API families (tensors, pipe and queues, DataCopy, vector, reduce, sync,
# system, printf, macros) through kernel_operator.h alone.
TINY = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct TinyTiling {
    uint32_t n;
};

extern "C" __global__ __aicore__ void tiny(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, TinyTiling t) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * t.n, t.n);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * t.n, t.n);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qin;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(qin, 1, t.n * sizeof(float));
    pipe.InitBuffer(tmp, t.n * sizeof(float));
    LocalTensor<float> a = qin.AllocTensor<float>();
    DataCopy(a, xg, t.n);
    qin.EnQue(a);
    LocalTensor<float> b = qin.DeQue<float>();
    LocalTensor<float> w = tmp.Get<float>();
    Adds(b, b, 1.0f, (int32_t)t.n);
    ReduceSum(w, b, w, (int32_t)t.n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, b, t.n);
    qin.FreeTensor(b);
    ascemu::DeclareSyncRegion(workspace, 32);
    if (GetBlockNum() > 64) AscendC::printf("unreachable %d\n", (int)GetBlockIdx());
}
"""


def included_headers(cmd: list[str]) -> list[str]:
    """The headers `cmd` (a g++ -fsyntax-only -H compile) opens; asserts the compile succeeds."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return [m.group(1) for m in re.finditer(r"^\.+ (\S+)$", r.stderr, re.M)]


def syntax_only(source: Path, platform: str, *extra: str) -> list[str]:
    return included_headers(
        [
            "g++",
            "-std=c++20",
            "-fsyntax-only",
            "-H",
            f"-DASCEMU_PLATFORM={platform}",
            f"-I{INCLUDE}",
            f"-I{source.parent}",
            *extra,
            str(source),
        ]
    )


def machinery_in(headers: list[str]) -> list[str]:
    return [h for h in headers if Path(h).parent.name == "ascemu" and Path(h).name in MACHINERY]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_kernel_operator_h_brings_the_api_but_no_launch_machinery(tmp_path: Path, platform: str) -> None:
    src = tmp_path / "tiny.cpp"
    src.write_text(TINY)
    headers = syntax_only(src, platform)
    names = {(Path(h).parent.name, Path(h).name) for h in headers}
    assert ("include", "kernel_operator.h") in names  # the listing is real: the API headers are in it
    for api in ("tensor.h", "pipe.h", "datacopy.h", "vector.h", "reduce.h", "sync.h", "system.h", "macros.h"):
        assert ("ascemu", api) in names, f"kernel_operator.h no longer brings ascemu/{api}"
    assert machinery_in(headers) == [], f"kernel_operator.h pulls in {machinery_in(headers)}"


@pytest.mark.parametrize(
    ("source", "extra"),
    [
        (REPO / "kernels" / "cast" / "cast_kernel.cpp", ["-DDTYPE_X=float", "-DDTYPE_Y=half"]),
        (REPO / "kernels" / "embedding_dense_grad" / "embedding_dense_grad_kernel.cpp", []),
        (REPO / "kernels" / "softmax_cross_entropy_with_logits" / "softmax_cross_entropy_with_logits_kernel.cpp", []),
        (KERNEL_CONF, []),
        (KERNEL_FAULT, []),
    ],
    ids=["cast", "embedding_dense_grad", "softmax_cross_entropy_with_logits", "conf_kernel", "fault_kernel"],
)
def test_every_kernel_compiles_against_the_api_alone(source: Path, extra: list[str]) -> None:
    platform = "ascend910b" if "softmax" in source.name else "ascend310p"
    headers = syntax_only(source, platform, *extra)
    assert any(Path(h).name == "kernel_operator.h" for h in headers)
    assert machinery_in(headers) == []


def test_the_driver_includes_the_machinery_itself(tmp_path: Path) -> None:
    """main.cpp, compiled as the backend does (the kernel force-included first), opens launch/serve/driver.h."""
    src = tmp_path / "tiny.cpp"
    src.write_text(TINY)
    headers = included_headers(
        [
            "g++",
            "-std=c++20",
            "-fsyntax-only",
            "-H",
            "-DASCEMU_PLATFORM=ascend310p",
            f"-I{INCLUDE}",
            "-DASCEMU_ENTRY=tiny",
            "-include",
            str(src),
            str(DRIVER),
        ]
    )
    assert sorted(Path(h).name for h in machinery_in(headers)) == sorted(MACHINERY)


def test_cpu_twin_host_mains_get_the_shims_from_tikicpulib_h(tmp_path: Path) -> None:
    src = tmp_path / "twin.cpp"
    src.write_text(
        TINY
        + r"""
#include "tikicpulib.h"
// KernelMode is global and in CANN's order (the SetKernelMode page): MIX_MODE = 0, AIC_MODE, AIV_MODE.
static_assert((int)KernelMode::MIX_MODE == 0 && (int)KernelMode::AIC_MODE == 1 && (int)KernelMode::AIV_MODE == 2);
int main() {
#ifdef ASCENDC_CPU_DEBUG  // as CANN's KernelLaunch mains write it
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
#endif
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(64);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(64);
    uint8_t* ws = (uint8_t*)ascemu::GmAlloc(64, "ws", "workspace", 0);
    ICPU_SET_TILING_KEY(0);
    ICPU_RUN_KF(tiny, 1, x, y, ws, TinyTiling{8});
    AscendC::GmFree(x);
    AscendC::GmFree(y);
    ascemu::GmFree(ws);
    return 0;
}
"""
    )
    headers = syntax_only(src, "ascend310p")
    assert any(Path(h).name == "launch.h" for h in machinery_in(headers))
