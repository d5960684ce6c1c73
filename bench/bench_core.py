"""Core speed targets, measured side by side in one run (issue 2).

  plan():  median per call < 50 µs (ratio printed against that budget)
  goldens: each within 1.5x of PyTorch's CPU implementation on the same data:
    cast     float32 -> float16, 16M elements          vs Tensor.to(torch.float16)
    sce      fp32 [8192, 1000], probability targets     vs F.cross_entropy + logits gradient (backward)
    edg      fp32 grad [65536, 512], num_weights 32768  vs aten.embedding_dense_backward

torch is a bench-only dependency: `pip install torch==2.13.0` (the CPU build on this machine).
Run: python bench/bench_core.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

import workbench as wb


def median_seconds(fn: Callable[[], object], repeat: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


PLAN_CASES = [
    wb.Case("cast", ("float32", "float16"), (1_000_000,)),
    wb.Case("cast", ("bfloat16", "int8"), (100_003,)),
    wb.Case("cast", ("int64", "int32"), (1_000_001,)),
    wb.Case("embedding_dense_grad", ("float32",), (4096, 512), attrs={"num_weights": 1000}),
    wb.Case(
        "embedding_dense_grad",
        ("float32",),
        (16, 64),
        attrs={"num_weights": 10, "padding_idx": 3, "scale_grad_by_freq": True},
    ),
    wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000)),
    wb.Case("softmax_cross_entropy_with_logits", ("float16",), (2, 3, 4, 5)),
    wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8, 100_000)),
]


def bench_plan(repeat: int) -> list[tuple[str, float]]:
    rows = []
    for case in PLAN_CASES:
        n = 2000
        per_call = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(n):
                wb.plan(case)
            per_call.append((time.perf_counter() - t0) / n)
        rows.append((case.label(), statistics.median(per_call)))
    return rows


def bench_goldens(repeat: int) -> list[tuple[str, float, float]]:
    import torch
    import torch.nn.functional as F

    rows = []
    cast = wb.Case("cast", ("float32", "float16"), (1 << 24,))
    x = wb.make_inputs(cast, seed=0)
    xt = torch.from_numpy(x["x"])
    rows.append(
        (
            "cast f32->f16 16M",
            median_seconds(lambda: wb.golden(cast, x), repeat),
            median_seconds(lambda: xt.to(torch.float16), repeat),
        )
    )

    sce = wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8192, 1000))
    s_in = wb.make_inputs(sce, seed=0, distribution="soft")
    feats, labels = torch.from_numpy(s_in["features"]), torch.from_numpy(s_in["labels"])

    def torch_sce() -> None:
        f = feats.detach().requires_grad_()
        loss = F.cross_entropy(f, labels, reduction="none")
        loss.sum().backward()

    rows.append(
        (
            "sce fp32 [8192,1000]",
            median_seconds(lambda: wb.golden(sce, s_in), repeat),
            median_seconds(torch_sce, repeat),
        )
    )

    edg = wb.Case("embedding_dense_grad", ("float32",), (65536, 512), attrs={"num_weights": 32768})
    e_in = wb.make_inputs(edg, seed=0, distribution="uniform")
    grad, idx = torch.from_numpy(e_in["grad"]), torch.from_numpy(e_in["sort_indices"].astype(np.int64))
    rows.append(
        (
            "edg fp32 [65536,512] nW 32768",
            median_seconds(lambda: wb.golden(edg, e_in), repeat),
            median_seconds(lambda: torch.ops.aten.embedding_dense_backward(grad, idx, 32768, -1, False), repeat),
        )
    )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    ok = True
    print("plan() per call (target < 50 µs)")
    for label, sec in bench_plan(args.repeat):
        us = sec * 1e6
        ok &= us < 50
        print(f"  {us:7.2f} µs  ratio {us / 50:5.2f} of budget  {label}")
    try:
        import torch
    except ImportError:
        print("goldens: torch is not installed; `pip install torch==2.13.0` (CPU build) to compare", file=sys.stderr)
        return 1
    print(
        f"goldens vs PyTorch {torch.__version__} CPU ({torch.get_num_threads()} threads), median of {args.repeat}"
        " (target ratio <= 1.5)"
    )
    for label, ours, ref in bench_goldens(args.repeat):
        ratio = ours / ref
        ok &= ratio <= 1.5
        print(f"  golden {ours * 1e3:8.2f} ms  torch {ref * 1e3:8.2f} ms  ratio {ratio:5.2f}  {label}")
    print("all targets met" if ok else "SOME TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
