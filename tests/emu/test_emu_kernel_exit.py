"""A kernel that ends the process (issue 17, found item 2, the emulator's side): exit, _exit, _Exit and quick_exit
called from kernel code during a launch are the fatal record KERNEL_EXIT at the kernel's line, with the report and
outputs written and a fatal exit code, in a one-shot process and in a reused worker, header-only and with the
separately compiled runtime.  A host main that calls exit after its launches ends normally."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from emu_helpers import EXIT_CLEAN, EXIT_FATAL, INCLUDE, build, conf_tiling, marker_line, prebuilt_kernel, run

from workbench.running.emu import Kernel, worker

EXITER = r"""
#include <cstdlib>
#include <unistd.h>
#include "kernel_operator.h"
using namespace AscendC;

struct ExitTiling {
    int32_t how, p0, p1, p2;  // how: 0 return normally, 1 exit, 2 _exit, 3 _Exit, 4 quick_exit
};

// Every core writes 7 to its own int32 of out; core 1 then ends the process as `how` says.
extern "C" __global__ __aicore__ void exiter(GM_ADDR in, GM_ADDR out, GM_ADDR ws, ExitTiling t) {
    (void)in;
    (void)ws;
    GlobalTensor<int32_t> o;
    o.SetGlobalBuffer((__gm__ int32_t*)out + GetBlockIdx(), 1);
    o.SetValue(0, 7);
    if (GetBlockIdx() != 1) return;
    if (t.how == 1) exit(0);  // LINE:exit
    if (t.how == 2) _exit(0);  // LINE:_exit
    if (t.how == 3) _Exit(0);  // LINE:_Exit
    if (t.how == 4) std::quick_exit(0);  // LINE:quick_exit
}
"""

HOST_MAIN = r"""
#include <cstdio>
#include <cstdlib>
#include "exiter.cpp"
#include "tikicpulib.h"

static void said_at_exit() { std::printf("atexit handler ran\n"); }

// A CPU-twin host main: a launch, then exit(0) from the host, as a program ends.
int main(int argc, char** argv) {
    std::atexit(said_at_exit);
    uint8_t* in = (uint8_t*)AscendC::GmAlloc(64);
    uint8_t* out = (uint8_t*)ascemu::GmAlloc(64, "out", "output", 0);
    uint8_t* ws = (uint8_t*)AscendC::GmAlloc(64);
    ICPU_RUN_KF(exiter, 3, in, out, ws, ExitTiling{argc > 1 ? std::atoi(argv[1]) : 0, 0, 0, 0});
    std::printf("host: out[2] = %d\n", ((int32_t*)out)[2]);
    exit(0);
}
"""

CALLS = ["exit", "_exit", "_Exit", "quick_exit"]
MODES = ["header-only", "separate"]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("exiter") / "exiter.cpp"
    src.write_text(EXITER)
    return src


@pytest.fixture(scope="module", params=MODES)
def binary(request: pytest.FixtureRequest, source: Path) -> Path:
    return build(source, "exiter", "ascend310p", source.parent, separate=request.param == "separate")


def assert_kernel_exit(diags: list[dict], source: Path, call: str) -> None:
    (d,) = [d for d in diags if d["kind"] == "KERNEL_EXIT"]
    assert d["severity"] == "fatal" and d["core"] == 1
    assert Path(d["file"]).name == source.name and d["line"] == marker_line(source, call), d
    assert d["details"]["call"] == call and d["details"]["resolved"] is True
    assert f"{call}(0)" in d["message"]


@pytest.mark.parametrize("call", CALLS)
def test_an_exit_in_kernel_code_is_a_fatal_kernel_exit_record(binary: Path, source: Path, tmp_path: Path, call: str):
    r = run(binary, tmp_path, platform="ascend310p", block_dim=3, tiling=conf_tiling(CALLS.index(call) + 1))
    assert r.rc == EXIT_FATAL and r.report["exit_code"] == EXIT_FATAL  # before: 0, and no report
    assert_kernel_exit(r.diags, source, call)
    assert_kernel_exit(r.stderr_diags(), source, call)  # echoed as it happened, as every fatal record
    assert r.i32()[:3].tolist() == [7, 7, 0]  # the outputs were written: core 2 never ran (serial mode)


def test_a_kernel_that_returns_is_clean(binary: Path, tmp_path: Path) -> None:
    r = run(binary, tmp_path, platform="ascend310p", block_dim=3, tiling=conf_tiling(0))
    assert r.rc == EXIT_CLEAN and r.kinds() <= {"OUTPUT_UNWRITTEN"} and r.i32()[:3].tolist() == [7, 7, 7]


@pytest.mark.parametrize("mode", MODES)
def test_an_exit_in_a_reused_worker_ends_that_launch_only(source: Path, mode: str) -> None:
    kernel: Kernel = prebuilt_kernel(source, "exiter", "Ascend310P3", source.parent, separate=mode == "separate")

    def launch(how: int) -> tuple[int, list, list[int]]:
        out = np.zeros(16, np.int32)
        r = kernel[3](np.zeros(16, np.int32), out, np.zeros(16, np.uint8), tiling=conf_tiling(how))
        return r.exit_code, [d.__dict__ for d in r.diagnostics], out[:3].tolist()

    worker.stop_all()
    assert launch(0) == (EXIT_CLEAN, [], [7, 7, 7])  # a worker serves this one and the next
    for call in CALLS:
        rc, diags, out = launch(CALLS.index(call) + 1)
        assert rc == EXIT_FATAL and out == [-1, -1, -1], diags  # the launcher poisons what an unfinished launch left
        assert_kernel_exit(diags, source, call)
        assert launch(0) == (EXIT_CLEAN, [], [7, 7, 7])  # the next launch runs in a fresh worker


@pytest.mark.parametrize("how", [0, 1])
def test_a_host_main_that_calls_exit_after_its_launch_ends_normally(source: Path, tmp_path: Path, how: int) -> None:
    main = source.parent / "host_main.cpp"
    main.write_text(HOST_MAIN)
    exe = tmp_path / "host"
    cmd = ["g++", "-std=c++20", "-O1", "-g", "-pthread", "-DASCEMU_PLATFORM=ascend310p", f"-I{INCLUDE}"]
    subprocess.run([*cmd, str(main), "-o", str(exe)], check=True, capture_output=True)
    report = tmp_path / "report.json"
    env = {**os.environ, "ASCEMU_REPORT": str(report)}
    r = subprocess.run([str(exe), str(how)], capture_output=True, text=True, env=env, timeout=60)
    diags = json.loads(report.read_text())["diagnostics"]
    if how == 0:  # exit(0) from main: the C library's, with its atexit handlers and flushed stdout
        assert r.returncode == 0 and {d["kind"] for d in diags} == {"OUTPUT_UNWRITTEN"}, r.stderr  # 12 of 64 bytes
        assert r.stdout == "host: out[2] = 7\natexit handler ran\n"
    else:  # exit(0) from the kernel, inside ICPU_RUN_KF: KERNEL_EXIT, and main never goes on
        assert r.returncode == EXIT_FATAL and "host:" not in r.stdout
        assert_kernel_exit(diags, source, "exit")
