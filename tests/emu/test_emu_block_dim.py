"""block_dim: CANN's limit (65535) is refused by the emulator and by `kernel[block_dim]`, and the emulator's memory is
linear in block_dim and small per core: a core's UB arena exists only while the core is resident, its vector clock
holds only the cores it learned of, and cores get threads only when they run (issue 17, found item 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from emu_helpers import build, conf_tiling, run

from workbench.core.errors import InvalidInput
from workbench.running.emu import load

TRIVIAL = r"""
#include "kernel_operator.h"
using namespace AscendC;

// Every core fills a UB tensor and writes its index + 1 to its own int32 of y.
extern "C" __global__ __aicore__ void trivial(GM_ADDR y) {
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t*)y + GetBlockIdx(), 1);
    TPipe pipe;
    TBuf<TPosition::VECCALC> tb;
    pipe.InitBuffer(tb, 64);
    LocalTensor<int32_t> t = tb.Get<int32_t>(8);
    Duplicate(t, (int32_t)GetBlockIdx(), 8);
    yg.SetValue(0, (int32_t)GetBlockIdx() + 1);
}
"""

# Runs argv and prints its peak resident set (KiB): the only child of this helper process is the emulator.
PEAK_RSS = "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); " + (
    "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


@pytest.fixture(scope="module")
def trivial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("block_dim")
    src = d / "trivial.cpp"
    src.write_text(TRIVIAL)
    return build(src, "trivial", "ascend310p", d)


def launch(binary: Path, work: Path, block_dim: int, mode: str = "serial") -> tuple[int, int, dict, np.ndarray]:
    """(exit code, peak RSS in KiB, report, y) of one launch of the trivial kernel."""
    n = min(block_dim, 65535)
    spec = {
        "platform": "ascend310p",
        "block_dim": block_dim,
        "mode": mode,
        "report_path": str(work / f"report_{block_dim}.json"),
        "args": [
            {"kind": "gm", "bytes": 4 * n, "role": "output", "out_file": str(work / f"y_{block_dim}.bin"), "fill": 0}
        ],
    }
    path = work / f"launch_{block_dim}_{mode}.json"
    path.write_text(json.dumps(spec))
    out = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, str(binary), "--launch", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    rc, rss = (int(v) for v in out.stdout.split())
    report = json.loads(Path(spec["report_path"]).read_text())
    y_file = work / f"y_{block_dim}.bin"
    return rc, rss, report, np.fromfile(y_file, np.int32) if y_file.exists() else np.zeros(0, np.int32)


def test_a_launch_above_cannss_limit_is_a_harness_record_naming_block_dim(trivial: Path, tmp_path: Path) -> None:
    rc, rss, report, _ = launch(trivial, tmp_path, 65536)
    assert rc == 5 and report["exit_code"] == 5
    (d,) = report["diagnostics"]
    assert d["kind"] == "HARNESS" and "block_dim 65536" in d["message"] and "1..65535" in d["message"]
    assert rss < 64 << 10  # refused before any core exists


@pytest.mark.parametrize("mode", ["serial", "ordered"])
def test_4096_cores_run_in_memory_linear_in_block_dim_and_small_per_core(
    trivial: Path, tmp_path: Path, mode: str
) -> None:
    rc1, rss1, _, y1 = launch(trivial, tmp_path, 1, mode)
    rc, rss, report, y = launch(trivial, tmp_path, 4096, mode)
    assert rc1 == rc == 0 and report["exit_code"] == 0 and report["diagnostics"] == []
    assert y1.tolist() == [1] and (y == np.arange(1, 4097)).all()
    assert len(report["trace"]["cores"]) == 4096
    # before: a 256 KiB UB arena and a 32 KiB written shadow per core for the whole launch, a vector clock of
    # block_dim entries per core and a thread per core: 1.4 GB for this launch
    assert rss < 128 << 10, f"peak RSS {rss} KiB"
    assert (rss - rss1) / 4095 < 16, f"{(rss - rss1) / 4095:.1f} KiB per core"


def test_the_largest_launch_runs(trivial: Path, tmp_path: Path) -> None:
    rc, rss, report, y = launch(trivial, tmp_path, 65535)
    assert rc == 0 and (y == np.arange(1, 65536)).all() and len(report["trace"]["cores"]) == 65535
    assert rss < 512 << 10, f"peak RSS {rss} KiB"


def test_races_between_many_cores_are_still_found(fault_bin: Path, tmp_path: Path) -> None:
    """The vector clocks keep only the cores a core learned of: a write race among 200 cores with no barrier is still
    found (fault_kernel case 7: every core writes the same 32-byte block)."""
    r = run(fault_bin, tmp_path, platform="ascend310p", block_dim=200, tiling_key=7, tiling=conf_tiling())
    races = r.of("GM_WRITE_RACE")
    assert races and {d["core"] for d in races} >= {1, 199}


def test_kernel_index_refuses_a_block_dim_above_cannss_limit(tmp_path: Path) -> None:
    src = tmp_path / "trivial.cpp"
    src.write_text(TRIVIAL)
    kernel = load(src, entry="trivial")
    for bad in (0, 65536, 10**9, True, 2.0):
        with pytest.raises(InvalidInput, match=r"block_dim: got .*allowed: an integer in 1\.\.65535") as info:
            kernel[bad]  # type: ignore[index]
        assert info.value.field == "block_dim" and info.value.value is bad
    assert kernel[65535].block_dim == 65535
