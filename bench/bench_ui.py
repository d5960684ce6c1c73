"""The workbench's tiling refresh: a control change to updated outputs in under 100 ms (issue 9).

For each op, a series of control changes (shape, dtype, what-if) is made as a user would, by setting `.value`;
each is timed from the assignment to its return, which is when the kernel-side work is done: the Case is
validated, the plan made, the tiling table rendered and the per-core and UB chart specs built (the widget
messages are queued by then). The reference, measured in the same run, is `plan()` alone on the same cases:
the ratio says how much the panel costs on top of the decision itself.

Run: python bench/bench_ui.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable

import workbench as wb
from workbench.view.ui import Workbench

BUDGET_S = 0.100
SCE, EDG = "softmax_cross_entropy_with_logits", "embedding_dense_grad"


def timed(change: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    change()
    return time.perf_counter() - t0


def changes(app: Workbench, op: str, i: int) -> list[Callable[[], None]]:
    c = app.controls
    shape = {"cast": f"{100_003 + i}", SCE: f"{64 + i},{1000 + 500 * i}", EDG: f"{4096 + i},{512 + 8 * i}"}[op]
    out: list[Callable[[], None]] = [lambda: setattr(c["shape"], "value", shape)]
    if op == "cast":
        src = app._dtype_boxes[0]
        out.append(lambda: setattr(src, "value", "bfloat16" if src.value != "bfloat16" else "float32"))
    out.append(lambda: setattr(c["ub_size"], "value", c["ub_size"].value - 4096))
    out.append(lambda: setattr(c["core_count"], "value", 1 + c["core_count"].value % 8))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    print(f"tiling refresh, {args.repeat} rounds of control changes per op; budget {BUDGET_S * 1e3:.0f} ms")
    print(f"{'op':36} {'changes':>7} {'median':>9} {'p95':>9} {'max':>9} {'plan()':>9} {'x plan':>7} {'/budget':>8}")
    worst = 0.0
    for op in ("cast", SCE, EDG):
        app = Workbench(op=op)
        timed(changes(app, op, 0)[0])  # warm: the first chart spec pays for altair's schema load
        times = [timed(ch) for i in range(args.repeat) for ch in changes(app, op, i + 1)]
        case = app.case
        assert case is not None, app.error
        plan_s = statistics.median(timed(functools.partial(wb.plan, case)) for _ in range(50))
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        med = statistics.median(times)
        worst = max(worst, p95)
        print(
            f"{op:36} {len(times):7d} {med * 1e3:7.1f}ms {p95 * 1e3:7.1f}ms {max(times) * 1e3:7.1f}ms "
            f"{plan_s * 1e3:7.3f}ms {med / plan_s:7.0f} {p95 / BUDGET_S:8.2f}"
        )
    verdict = "within" if worst < BUDGET_S else "OVER"
    print(f"worst p95 {worst * 1e3:.1f} ms: {verdict} the {BUDGET_S * 1e3:.0f} ms budget")


if __name__ == "__main__":
    main()
