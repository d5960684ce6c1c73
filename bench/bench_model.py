"""The performance model next to each op's own offline time model, on the main-path examples (issue 10).

For each case: run it on the emulator, predict its kernel time from the trace (workbench/judge/perfmodel.py, default
parameters of its SoC), and print that next to the op page's reference figure and the ratio:
  cast   F32->F16 [16,1024,1024] (310P)  T_mem = N·(sizeof src + sizeof dst)/(η·BW), η = 0.5   docs/ops/cast.md §7
  edg    4096x512 fp32, nW 1000, sorted uniform (G01 / X1) and 65536x8, nW 50000 (G02, small D)
         T_theory = input_bytes·2/(204e9·0.5), input_bytes = grad + sort_indices   docs/ops/embedding_dense_grad.md §6
  sce    fp32 FullLoad [65536,128] (S09), [64,1000] (E1) and SplitR [8,100000] (E3) on 910B3
         t = t_launch + max(B/BW_eff, B/(realCoreNum·BW_core)), B = 3·A·R·b + A·b (FullLoad) or 5·A·R·b + A·b
         (SplitR), BW_core = 32 B/cycle · 1.8 GHz, t_launch = 3 µs   docs/ops/softmax_cross_entropy_with_logits.md §6
The predicted time includes the model's 3 µs launch overhead; the cast and edg references have none.
No NPU is involved: every figure here is a model. Run: python bench/bench_model.py
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import workbench as wb
from workbench.judge import perfmodel as pm

Reference = Callable[[wb.Case, "wb.Result"], tuple[float, str]]


def cast_t_mem(case: wb.Case, result: wb.Result) -> tuple[float, str]:
    n = math.prod(case.shape)
    moved = n * (result.inputs["x"].itemsize + result.outputs["y"].itemsize)
    return moved / (0.5 * 204.8e9), "T_mem, η 0.5"


def edg_t_theory(case: wb.Case, result: wb.Result) -> tuple[float, str]:
    input_bytes = result.inputs["grad"].nbytes + result.inputs["sort_indices"].nbytes
    theory = input_bytes * 2 / (204e9 * 0.5)
    gate = 1.1 if theory >= 100e-6 else 1.3
    return theory, f"T_theory (gate {gate}x)"


def sce_bytes_model(case: wb.Case, result: wb.Result) -> tuple[float, str]:
    plan = wb.plan(case)
    split_r = plan.tiling_name.startswith("SPLIT_R")
    a, r, b = plan.fields["a"], plan.fields["r"], result.inputs["features"].itemsize
    moved = (5 if split_r else 3) * a * r * b + a * b
    bw_core = 32 * 1.8e9
    t = 3e-6 + max(moved / case.soc.memory_bandwidth, moved / (plan.fields["realCoreNum"] * bw_core))
    return t, "bytes model" + (" (SplitR)" if split_r else "")


CASES: list[tuple[str, wb.Case, str, Reference]] = [
    ("cast f32->f16 16M", wb.Case("cast", ("float32", "float16"), (16, 1024, 1024)), "default", cast_t_mem),
    (
        "edg G01 4096x512",
        wb.Case("embedding_dense_grad", ("float32",), (4096, 512), attrs={"num_weights": 1000}),
        "uniform",
        edg_t_theory,
    ),
    (
        "edg G02 65536x8",
        wb.Case("embedding_dense_grad", ("float32",), (65536, 8), attrs={"num_weights": 50000}),
        "uniform",
        edg_t_theory,
    ),
    (
        "sce S09 [65536,128]",
        wb.Case("softmax_cross_entropy_with_logits", ("float32",), (65536, 128)),
        "",
        sce_bytes_model,
    ),
    ("sce E1 [64,1000]", wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)), "", sce_bytes_model),
    ("sce E3 [8,100000]", wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8, 100000)), "", sce_bytes_model),
]


def main() -> int:
    head = f"{'case':<22}{'emu s':>7}{'cores':>6}{'predicted µs':>14}{'bound µs':>10}  {'by':<7}"
    head += f"{'reference':<22}{'µs':>9}{'ratio':>7}"
    print(head)
    print("-" * len(head))
    for label, case, dist, reference in CASES:
        t0 = time.perf_counter()
        result = wb.run(case, distribution=dist or None)
        wall = time.perf_counter() - t0
        pred = pm.predict(result.trace, case.soc)
        ref_s, ref_name = reference(case, result)
        print(
            f"{label:<22}{wall:>7.1f}{len(pred.cores):>6}{pred.kernel_s * 1e6:>14.2f}{pred.bound_s * 1e6:>10.2f}  "
            f"{pred.bottleneck:<7}{ref_name:<22}{ref_s * 1e6:>9.2f}{pred.kernel_s / ref_s:>7.2f}"
        )
    print("\nbound = every GM byte the trace moved / the chip bandwidth (η = 1); ratio = predicted / reference")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
