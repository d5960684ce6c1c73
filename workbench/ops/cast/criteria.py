"""Cast's performance criteria (docs/ops/cast.md §7): P1 ≥ 95 % of TBE on all-core cases, P2 BF16 input ≥ 90 % of
the float32 input's speed, P3 the small-shape rule (inside P1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.timesource import PROXY
from ...judge.criteria import Criterion, Time, judge, kernel_time, min_traffic, versus_tbe

if TYPE_CHECKING:
    from ...running.runner import Result

ETA = 0.5  # the utilisation docs/ops/cast.md §7 and docs/ops/embedding_dense_grad.md §6 use
P1 = "P1: T ≤ T_TBE / 0.95 when every core is used; T_TBE < 10 µs: a gap ≤ 3 µs passes (P3), more explains"
P2 = "P2: T(bfloat16→X) ≤ T(float32→X) / 0.90 on the same shape (X = float32: against float16→float32, D19)"


def tbe_proxy(result: Result) -> Time:
    """Offline, TBE is taken to run at its memory time N·(sSrc + sDst) / (η·BW) (docs/ops/cast.md §7), plus the
    launch overhead the model charges the kernel, so a small shape compares like with like."""
    from ...judge.perfmodel import params_for

    soc = result.case.soc
    launch = params_for(soc).launch_s
    moved = min_traffic(result)
    seconds = launch + moved / (ETA * soc.memory_bandwidth)
    how = (
        f"TBE proxy: {launch * 1e6:g} µs launch + {moved} B / ({ETA} × {soc.memory_bandwidth / 1e9:g} GB/s), the "
        "offline stand-in of docs/ops/cast.md §7"
    )
    return Time(seconds, PROXY, how)


def criteria(result: Result, t: Time, tbe: Time, reference: Result | None) -> list[Criterion]:
    tbe = tbe if tbe.seconds is not None else tbe_proxy(result)
    used, cores = result.plan.block_dim, result.case.soc.core_num
    out = [
        versus_tbe("P1 ≥ 95 % of TBE", t, tbe, 0.95, P1)
        if used == cores
        else Criterion(
            "P1 ≥ 95 % of TBE", P1, "not evaluated", f"{used} of {cores} cores used: P1 gates all-core cases"
        )
    ]
    src, dst = result.case.dtypes
    if src == "bfloat16":
        out.append(_p2(result, t, reference, "float16" if dst == "float32" else "float32"))
    return out


def _p2(result: Result, t: Time, reference: Result | None, wanted: str) -> Criterion:
    name = "P2 bfloat16 ≥ 90 % of float32 input"
    case = result.case
    if reference is None or reference.case.dtypes != (wanted, case.dtypes[1]) or reference.case.shape != case.shape:
        need = f"the {wanted}→{case.dtypes[1]} run on shape {list(case.shape)} as reference"
        return Criterion(name, P2, "not evaluated", need)
    if not reference.passed:
        return Criterion(name, P2, "not evaluated", f"a reference run that passed (it is {reference.verdict})")
    ref = kernel_time(reference)
    if t.seconds is None or ref.seconds is None or ref.source != t.source:
        return Criterion(
            name, P2, "not evaluated", "both times from the same source (both device-measured or both predicted)"
        )
    limit = ref.seconds / 0.90
    detail = (
        f"bfloat16 {t.seconds * 1e6:.3g} µs ({t.source}) vs {wanted} {ref.seconds * 1e6:.3g} µs ({ref.source}): "
        f"limit {limit * 1e6:.3g} µs"
    )
    outcome = "pass" if t.seconds <= limit else "fail"
    return judge(name, P2, outcome, detail, ("bfloat16 kernel", t), (f"{wanted} kernel", ref))
