"""SoftmaxCrossEntropyWithLogits' performance criterion (docs/ops/softmax_cross_entropy_with_logits.md §6): at least
95 % of TBE's throughput, with the small-shape rule (T_TBE < 10 µs: a gap ≤ 3 µs passes, more explains)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...core.timesource import PROXY
from ...judge.criteria import Criterion, Time, min_traffic, versus_tbe

if TYPE_CHECKING:
    from ...running.runner import Result

RULE = "T ≤ T_TBE / 0.95; T_TBE < 10 µs: a gap ≤ 3 µs passes, more explains"


def tbe_proxy(result: Result) -> Time:
    """The offline TBE model of docs/ops/softmax_cross_entropy_with_logits.md §6: single-pass traffic (every input
    read once, every output written once) on min(A, coreNum) cores, each at the model's per-core rate, the chip at
    its bandwidth, plus the launch overhead (perfmodel.params_for: ddr_rate 32 B/cycle at an assumed 1.8 GHz, 3 µs
    launch, both stated assumptions)."""
    from ...judge.perfmodel import params_for

    soc, p = result.case.soc, params_for(result.case.soc)
    moved = min_traffic(result)
    cores = min(max(1, math.prod(result.outputs["loss"].shape)), soc.core_num)
    seconds = p.launch_s + max(moved / p.bandwidth, moved / (cores * p.mte_rate))
    how = (
        f"TBE proxy: single-pass {moved} B on {cores} cores (chip {p.bandwidth / 1e9:g} GB/s, "
        f"{p.mte_rate / 1e9:g} GB/s per core) + {p.launch_s * 1e6:g} µs launch, an offline stand-in"
    )
    return Time(seconds, PROXY, how)


def criteria(result: Result, t: Time, tbe: Time, reference: Result | None) -> list[Criterion]:
    tbe = tbe if tbe.seconds is not None else tbe_proxy(result)
    return [versus_tbe("≥ 95 % of TBE", t, tbe, 0.95, RULE)]
