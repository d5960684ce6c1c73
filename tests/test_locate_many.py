"""TilingPlan.locate_many (each op's numpy locator, which the failure map runs over every failing element) answers
exactly what locate() answers element by element."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import workbench as wb
from workbench.planning.pipeline import make_inputs

SCE = "softmax_cross_entropy_with_logits"
EDG = "embedding_dense_grad"
CASES = [
    wb.Case("cast", ("float32", "float16"), (1000,)),  # a tail window on the last core
    wb.Case("cast", ("float32", "float16"), (1_000_000,)),  # former and latter cores, several tiles
    wb.Case("cast", ("int64", "int32"), (7,)),  # scalar staging
    wb.Case("cast", ("bfloat16", "int8"), (100_003,)),
    wb.Case(SCE, ("float32",), (64, 1000)),
    wb.Case(SCE, ("float32",), (64, 9000)),  # SplitR
    wb.Case(SCE, ("float16",), (2, 3, 4, 5), "NCHW"),
    wb.Case(SCE, ("float32",), (3, 700, 7, 9), "NCHW"),  # RA tiles stop at image boundaries
    wb.Case(SCE, ("float32",), (50, 5)),  # SMALL_C
    wb.Case(EDG, ("float32", "int32"), (256, 64), attrs={"num_weights": 40, "padding_idx": 3}),
    wb.Case(EDG, ("float32", "int32"), (256, 20), attrs={"num_weights": 40, "scale_grad_by_freq": True}),
    wb.Case(EDG, ("float32", "int32"), (300, 24), attrs={"num_weights": 1000, "scale_grad_by_freq": True}),
]


def scalar(plan: wb.TilingPlan) -> wb.TilingPlan:
    return dataclasses.replace(plan, bulk_locator=None)


def as_set(owners: object) -> set[tuple[int, int, int]]:
    return set(zip(*(a.tolist() for a in owners), strict=True))  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label())
def test_locate_many_agrees_with_locate(case: wb.Case) -> None:
    plan = wb.plan(case)
    assert plan.bulk_locator is not None
    inputs = make_inputs(case, seed=3)
    for output, desc in wb.OPS[case.op].describe(case).items():
        if output not in {t.name for t in wb.OPS[case.op].outputs} or desc is None:
            continue
        n = int(np.prod(desc.shape))
        rng = np.random.default_rng(0)
        index = np.unique(np.concatenate([rng.integers(0, n, 400), [0, n - 1]]))
        for given in (inputs, None):
            fast = plan.locate_many(index, output, given)
            slow = scalar(plan).locate_many(index, output, given)
            assert as_set(fast) == as_set(slow), (output, given is None)


def test_an_index_out_of_range_is_refused_naming_it() -> None:
    plan = wb.plan(CASES[0])
    with pytest.raises(wb.WorkbenchError, match="index"):
        plan.locate_many(np.array([0, 1000]))
