"""Cross-op contract: every op's plan, inputs and golden agree with its spec record and TilingData."""

from __future__ import annotations

import json

import pytest

import workbench as wb
from workbench.core.dtypes import np_dtype

CASES = [
    wb.Case("cast", ("float32", "float16"), (1000,)),
    wb.Case("cast", ("int64", "bool"), (37,)),
    wb.Case("cast", ("bfloat16", "int64"), (2, 3, 5)),
    wb.Case("embedding_dense_grad", "float32", (64, 16), attrs={"num_weights": 20, "padding_idx": 3}),
    wb.Case("embedding_dense_grad", "float32", (50, 5), attrs={"num_weights": 7, "scale_grad_by_freq": True}),
    wb.Case("softmax_cross_entropy_with_logits", "float16", (33, 17)),
    wb.Case("softmax_cross_entropy_with_logits", "bfloat16", (2, 3, 4, 5)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label())
def test_plan_fields_are_exactly_the_tilingdata_struct(case: wb.Case) -> None:
    plan = wb.plan(case)
    struct = case.spec.tiling_struct
    assert list(plan.fields) == [f for f, _ in struct._fields_]
    assert len(plan.tiling_bytes()) == __import__("ctypes").sizeof(struct)
    doc = json.loads(json.dumps(plan.to_json()))
    assert doc["block_dim"] == plan.block_dim == len(plan.cores)
    assert plan.ub_used <= plan.ub_capacity
    assert plan.notes, "a plan must say why it chose its path"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label())
def test_inputs_are_deterministic_and_seed_dependent(case: wb.Case) -> None:
    for dist in case.spec.distributions:
        a, b = wb.make_inputs(case, seed=1, distribution=dist), wb.make_inputs(case, seed=1, distribution=dist)
        assert a.keys() == b.keys()
        for name in a:
            assert a[name].tobytes() == b[name].tobytes(), (dist, name)
    first = wb.make_inputs(case, seed=1)
    other = wb.make_inputs(case, seed=2)
    assert any(first[n].tobytes() != other[n].tobytes() for n in first)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label())
def test_inputs_and_golden_match_the_described_tensors(case: wb.Case) -> None:
    tensors = case.spec.describe(case)
    inputs = wb.make_inputs(case, seed=0)
    for t in case.spec.inputs:
        assert inputs[t.name].shape == tensors[t.name].shape
        assert inputs[t.name].dtype == np_dtype(tensors[t.name].dtype)
    outputs = wb.golden(case, inputs)
    assert set(outputs) == {t.name for t in case.spec.outputs}
    for t in case.spec.outputs:
        assert outputs[t.name].shape == tensors[t.name].shape
        assert outputs[t.name].dtype == np_dtype(tensors[t.name].dtype)


def test_unknown_distribution_lists_the_allowed_ones() -> None:
    with pytest.raises(wb.WorkbenchError, match="distribution: got 'zeta'; allowed: default"):
        wb.make_inputs(CASES[0], distribution="zeta")
