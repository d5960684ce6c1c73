"""Edit -> verdict: how long a user waits after saving an edited kernel (issue 17, deliverable 2).

For each case, a copy of the shipped kernel is edited (a fresh comment, so its build is cold while the emulator's
runtime object, its precompiled header and the case's inputs and golden are warm, as they are after the first run
of a session) and run with `wb.run(case, kernel=copy)`: the wall time from the call to the verdict, and the build's
part of it. Beside it, measured in the same run on the same edited file: the single translation unit the workbench
built before (the driver with the kernel force-included, the whole emulator compiled into it, no precompiled
header). Then the cold build of each shipped kernel, everything cold (a new cache folder).

  target: the edited kernel builds in <= 3 s on a 2-core machine.
Run: python bench/bench_edit.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import workbench as wb
from workbench.core import resources
from workbench.running.emu import load
from workbench.running.emu.build import PLATFORM_MACRO, Variant, build, gxx
from workbench.running.launch import prepare

CASES = {
    "cast f32->i32 300003": wb.Case("cast", ("float32", "int32"), (300_003,)),
    "sce fp32 64x1000": wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)),
}
TARGET_BUILD_S = 3.0


def edited_copy(case: wb.Case, folder: Path) -> Path:
    copy = wb.copy_kernel(case, folder / f"edited_{time.monotonic_ns()}.cpp")
    copy.write_text(f"// edited {time.time_ns()}\n" + copy.read_text())
    return copy


def variant(case: wb.Case, source: Path | None = None) -> Variant:
    """The variant the run of `case` builds (with `source` in place of the shipped kernel)."""
    launch = prepare(case, wb.plan(case), wb.make_inputs(case), source)
    return load(launch.source, launch.entry, launch.platform, launch.defines, launch.include_dirs).variant


def single_unit_seconds(v: Variant, out: Path) -> float:
    """The previous design: one g++ run compiling the driver, the kernel and the whole header-only emulator."""
    cmd = [
        gxx(),
        *v.flags(),
        f"-DASCEMU_ENTRY={v.entry}",
        "-include",
        str(v.sources[0]),
        str(resources.emu_dir() / "driver" / "main.cpp"),
        "-o",
        str(out),
    ]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"edit -> verdict, median of {args.repeat} (s); target: the edited kernel's build <= {TARGET_BUILD_S} s")
        print(f"  {'case':<22}{'verdict':>9}{'build':>8}{'single-TU build':>17}{'single-TU verdict':>19}")
        for label, case in CASES.items():
            wb.run(case)  # warm: the runtime, the header, the shipped kernel, the inputs and golden
            verdicts, builds, singles = [], [], []
            for _ in range(args.repeat):
                copy = edited_copy(case, folder)
                t0 = time.perf_counter()
                result = wb.run(case, kernel=copy)
                verdicts.append(time.perf_counter() - t0)
                builds.append(result.timings["build_s"])
                assert result.passed, result.verdict
                singles.append(single_unit_seconds(variant(case, copy), folder / "single.bin"))
            v, b, s = (statistics.median(x) for x in (verdicts, builds, singles))
            ok &= b <= TARGET_BUILD_S
            print(f"  {label:<22}{v:9.2f}{b:8.2f}{s:17.2f}{v - b + s:19.2f}")

        print("cold build of the shipped kernels (a new cache: runtime object + precompiled header + kernel), s")
        os.environ["WORKBENCH_CACHE"] = str(folder / "cold-cache")
        for label, case in CASES.items():
            v = variant(case)
            t0 = time.perf_counter()
            build(v)
            cold = time.perf_counter() - t0
            t0 = time.perf_counter()
            build(Variant(v.sources, v.entry, v.platform, (*v.defines, ("WB_BENCH_OTHER_VARIANT", "1")), opt=v.opt))
            warm_parts = time.perf_counter() - t0
            single = single_unit_seconds(v, folder / "single.bin")
            print(
                f"  {label:<22} everything cold {cold:6.2f}   another variant, shared parts warm {warm_parts:6.2f}"
                f"   single-TU {single:6.2f}   ({PLATFORM_MACRO[v.platform]})"
            )
    print("target met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
