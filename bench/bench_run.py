"""End-to-end speed of `wb.run`, stage by stage (issue 11, deliverable 7).

  target: the whole run within 1.5x of golden + launch, each measured alone in the same process, for
    cast     float32 -> float16, 16M elements
    sce      fp32 [8192, 1000]
    edg      fp32 grad [65536, 512], num_weights 32768
  on the emulator with a warm build cache (the first run of each case builds or loads its kernel, untimed).

What a user waits for is the whole run. Its stages come from Result.stages (runner.run's own clock):
  plan     the option checks, the tiling and the memory guard
  inputs   make_inputs
  golden   the numpy reference, on a side thread while the kernel runs (so it overlaps the launch)
  launch   prepare + the emu backend's execute (inputs into GM files, the child process, outputs back)
  compare  every output against its golden, worst elements annotated
  result   the built-in op baseline (device runs only) and the Result
The reference golden + launch: wb.golden on the same inputs, then prepare + execute, one after the other.
Run: python bench/bench_run.py [--repeat 5] [--case cast|sce|edg ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import workbench as wb
from workbench import backends
from workbench.launch import prepare

CASES = {
    "cast": ("cast f32->f16 16M", wb.Case("cast", ("float32", "float16"), (1 << 24,))),
    "sce": ("sce fp32 [8192,1000]", wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8192, 1000))),
    "edg": (
        "edg fp32 [65536,512] nW 32768",
        wb.Case("embedding_dense_grad", ("float32",), (65536, 512), attrs={"num_weights": 32768}),
    ),
}
STAGES = ("plan", "inputs", "golden", "launch", "compare", "result", "total")
TARGET = 1.5


def reference(case: wb.Case, inputs: dict) -> tuple[float, float]:
    """Seconds for the golden alone and for the launch alone (prepare + the emu backend's execute)."""
    t0 = time.perf_counter()
    wb.golden(case, inputs)
    t1 = time.perf_counter()
    backends.get("emu").execute(prepare(case, wb.plan(case), inputs))
    return t1 - t0, time.perf_counter() - t1


def stages(result: wb.Result) -> dict[str, float]:
    s = result.stages
    return {**{k: s[f"{k}_s"] for k in STAGES if k != "launch"}, "launch": s["prepare_s"] + s["execute_s"]}


def bench(case: wb.Case, repeat: int) -> tuple[dict[str, float], float, float, float]:
    """Median stages of `repeat` runs, the median reference golden and launch (interleaved with the runs, so
    both see the same machine), and the first run's total."""
    first = wb.run(case).stages["total_s"]
    runs, goldens, launches = [], [], []
    for _ in range(repeat):
        result = wb.run(case)
        assert result.passed, result.verdict
        runs.append(stages(result))
        g, launch = reference(case, result.inputs)
        goldens.append(g)
        launches.append(launch)
    med = {k: statistics.median(r[k] for r in runs) for k in STAGES}
    return med, statistics.median(goldens), statistics.median(launches), first


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--case", choices=CASES, nargs="*", default=list(CASES))
    args = ap.parse_args()
    ok = True
    print(f"wb.run stages, median of {args.repeat} (ms); ratio = total / (golden + launch alone), target <= {TARGET}")
    print("  " + "".join(f"{k:>9}" for k in STAGES) + f"{'| golden':>10}{'launch':>8}{'ratio':>7}  case")
    for name in args.case:
        label, case = CASES[name]
        med, golden_s, launch_s, first = bench(case, args.repeat)
        ratio = med["total"] / (golden_s + launch_s)
        ok &= ratio <= TARGET
        cells = "".join(f"{med[k] * 1e3:9.1f}" for k in STAGES)
        ref = f"{golden_s * 1e3:8.1f}{launch_s * 1e3:8.1f}{ratio:7.2f}"
        print(f"  {cells}| {ref}  {label} (first run {first * 1e3:.0f} ms)")
    print("all targets met" if ok else "SOME TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
