"""The memory guard: its estimate bounds what a run allocates, and a run over budget is refused up front."""

from __future__ import annotations

import dataclasses
import tracemalloc

import pytest

import workbench as wb
from workbench.planning import memory
from workbench.running import runner

CASES = [
    wb.Case("cast", ("float32", "float16"), (1 << 20,)),
    wb.Case("cast", ("int64", "int32"), (1 << 20,)),
    wb.Case("embedding_dense_grad", ("float32",), (4096, 128), attrs={"num_weights": 100_000}),
    wb.Case("softmax_cross_entropy_with_logits", ("float16",), (1024, 1000)),
    wb.Case("softmax_cross_entropy_with_logits", ("float32",), (2, 64, 32, 32)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label())
def test_estimate_bounds_the_python_heap_of_a_run(case: wb.Case) -> None:
    wb.run(case, seed=1)  # build outside the measurement; another seed, so the run below is not a rerun (reruns.py)
    tracemalloc.start()
    try:
        result = wb.run(case)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    est = memory.estimate(case, result.plan)
    # GM files live on tmpfs and the emulator's cores in its own process, outside tracemalloc's view; the workspace
    # array is on the heap
    heap_bound = est.total - est.parts["GM files"] - est.parts["emulator cores"] + result.plan.workspace_bytes
    assert result.passed and peak <= heap_bound, (peak, est.parts)
    assert heap_bound < 3 * peak, "the estimate should stay close enough to refuse only what would not fit"


def test_a_run_over_budget_is_refused_before_allocating() -> None:
    case = wb.Case("cast", ("float32", "float16"), (3_000_000_000,))
    tracemalloc.start()
    try:
        with pytest.raises(memory.MemoryBudgetExceeded) as info:
            wb.run(case)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20 and info.value.field == "memory" and "--max-memory" in str(info.value)
    with pytest.raises(memory.MemoryBudgetExceeded, match=r"at most 1\.0 MiB \(the --max-memory"):
        wb.run(wb.Case("cast", ("float32", "float16"), (1 << 20,)), max_memory="1M")
    with pytest.raises(memory.MemoryBudgetExceeded):
        wb.make_inputs(case)


def test_the_emulators_cores_count_linearly_and_an_absurd_block_dim_is_refused_before_the_launch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = wb.Case("cast", ("float32", "int32"), (4096,))
    plan = wb.plan(case)
    cores = [
        memory.estimate(case, dataclasses.replace(plan, block_dim=n)).parts["emulator cores"] for n in (1, 2, 4096)
    ]
    assert cores[0] >= plan.ub_size and cores[1] == 2 * cores[0] and cores[2] == 4096 * cores[0]
    assert memory.estimate(case).parts["emulator cores"] == 0  # no plan, no launch to count

    def no_launch(*_: object) -> None:
        raise AssertionError("the run launched")

    monkeypatch.setattr(runner, "plan", lambda _case: dataclasses.replace(plan, block_dim=10_000_000))
    monkeypatch.setattr(runner, "prepare", no_launch)
    with pytest.raises(memory.MemoryBudgetExceeded, match="emulator cores"):
        wb.run(case)


@pytest.mark.parametrize(
    ("text", "size"), [("512M", 512 << 20), ("8G", 8 << 30), ("1.5GiB", 3 << 29), ("2e9", 2_000_000_000), (4096, 4096)]
)
def test_sizes_parse(text: object, size: int) -> None:
    assert memory.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "-1G", "0", "lots", "8 X", float("nan"), True])
def test_bad_sizes_name_the_field(text: object) -> None:
    with pytest.raises(wb.WorkbenchError, match="max_memory"):
        memory.parse_size(text)
