"""End-to-end speed of `wb.run`, stage by stage (issue 11, deliverable 7; issue 17, deliverable 2).

  first run: the whole run within 1.5x of golden + launch, each measured alone in the same process;
  rerun:     the same case again (inputs and golden reused, reruns.py) within 1.3x of launch + compare alone;
  for
    cast     float32 -> float16, 16M elements
    sce      fp32 [8192, 1000]
    edg      fp32 grad [65536, 512], num_weights 32768
  on the emulator with a warm build cache (the first run of each case builds or loads its kernel, untimed).

What a user waits for is the whole run. Its stages come from Result.stages (runner.run's own clock):
  plan     the option checks, the tiling and the memory guard
  inputs   make_inputs (0 on a rerun)
  golden   the numpy reference (0 on a rerun)
  launch   prepare + the emu backend's execute (inputs into GM files, the child process, outputs back)
  compare  every output against its golden, worst elements annotated
  result   the built-in op baseline (device runs only) and the Result
References, each alone: wb.golden on the same inputs; prepare + execute; pipeline.verify of the outputs.
Run: python bench/bench_run.py [--repeat 5] [--case cast|sce|edg ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import workbench as wb
from workbench.planning.pipeline import verify
from workbench.running import backends, reruns
from workbench.running.launch import prepare

CASES = {
    "cast": ("cast f32->f16 16M", wb.Case("cast", ("float32", "float16"), (1 << 24,))),
    "sce": ("sce fp32 [8192,1000]", wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8192, 1000))),
    "edg": (
        "edg fp32 [65536,512] nW 32768",
        wb.Case("embedding_dense_grad", ("float32",), (65536, 512), attrs={"num_weights": 32768}),
    ),
}
STAGES = ("plan", "inputs", "golden", "launch", "compare", "result", "total")
FIRST_TARGET, RERUN_TARGET = 1.5, 1.3


def reference(case: wb.Case, result: wb.Result) -> tuple[float, float, float]:
    """Seconds for the golden alone, the launch alone (prepare + the emu backend's execute) and the compare alone."""
    t0 = time.perf_counter()
    wb.golden(case, result.inputs)
    t1 = time.perf_counter()
    ex = backends.get("emu").execute(prepare(case, wb.plan(case), result.inputs))
    t2 = time.perf_counter()
    verify(case, result.inputs, ex.outputs, result.expected, None, 10, result.plan)
    return t1 - t0, t2 - t1, time.perf_counter() - t2


def stages(result: wb.Result) -> dict[str, float]:
    s = result.stages
    return {**{k: s[f"{k}_s"] for k in STAGES if k != "launch"}, "launch": s["prepare_s"] + s["execute_s"]}


def bench(case: wb.Case, repeat: int) -> dict[str, list]:
    """Per repeat: a first run (the rerun cache emptied), a rerun, and the references, interleaved so that all see
    the same machine."""
    wb.run(case)  # builds or loads the kernel
    out: dict[str, list] = {"first": [], "rerun": [], "golden": [], "launch": [], "compare": []}
    for _ in range(repeat):
        reruns.clear()
        first = wb.run(case)
        again = wb.run(case)
        assert first.passed and again.passed, (first.verdict, again.verdict)
        out["first"].append(stages(first))
        out["rerun"].append(stages(again))
        for k, v in zip(("golden", "launch", "compare"), reference(case, first), strict=True):
            out[k].append(v)
    return out


def median_stages(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in STAGES}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--case", choices=CASES, nargs="*", default=list(CASES))
    args = ap.parse_args()
    ok = True
    print(f"wb.run stages, median of {args.repeat} (ms)")
    print(f"  first run: ratio = total / (golden + launch alone), target <= {FIRST_TARGET}")
    print(f"  rerun:     ratio = total / (launch + compare alone), target <= {RERUN_TARGET}")
    head = "".join(f"{k:>9}" for k in STAGES)
    print(f"  {'run':<6}{head}| {'golden':>7}{'launch':>8}{'compare':>8}{'ratio':>7}  case")
    for name in args.case:
        label, case = CASES[name]
        m = bench(case, args.repeat)
        golden_s, launch_s, compare_s = (statistics.median(m[k]) for k in ("golden", "launch", "compare"))
        ref = f"{golden_s * 1e3:7.1f}{launch_s * 1e3:8.1f}{compare_s * 1e3:8.1f}"
        for run, target, denominator in (
            ("first", FIRST_TARGET, golden_s + launch_s),
            ("rerun", RERUN_TARGET, launch_s + compare_s),
        ):
            med = median_stages(m[run])
            ratio = med["total"] / denominator
            ok &= ratio <= target
            cells = "".join(f"{med[k] * 1e3:9.1f}" for k in STAGES)
            print(f"  {run:<6}{cells}| {ref}{ratio:7.2f}  {label}")
    print("all targets met" if ok else "SOME TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
