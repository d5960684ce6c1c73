"""The four "ready for the device" risks of docs/device-readiness.md, each held by a test that can fail.

1. Kernel type: the 310P kernels declare KERNEL_TYPE_AICORE, SoftmaxCrossEntropyWithLogits KERNEL_TYPE_AIV_ONLY,
   and the emulator sees that declaration when the kernel runs.
2. PipeBarrier<PIPE_V>: no vector instruction of the three kernels reads what the previous one wrote without a
   barrier (V_RAW_NO_BARRIER), on cases that reach every path.
3. The EmbeddingDenseGrad GM-flag barrier: the tiling never launches more blocks than the SoC has AI Cores, the
   launcher zeroes out and the workspace (slots and counts), and a launch without that zero fill is caught.
4. EmbeddingDenseGrad writes nothing past the end of out (GM_WRITE_PAST_END), also when out has < 8 elements.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.ops.embedding_dense_grad.golden import golden as edg_golden
from workbench.running.emu import POISON, In, Out, Workspace, load
from workbench.running.launch import prepare

EDG = "embedding_dense_grad"
SCE = "softmax_cross_entropy_with_logits"
KERNEL_TYPES = {
    "kernels/cast/cast_kernel.cpp": "KERNEL_TYPE_AICORE",
    "kernels/embedding_dense_grad/embedding_dense_grad_kernel.cpp": "KERNEL_TYPE_AICORE",
    "kernels/softmax_cross_entropy_with_logits/softmax_cross_entropy_with_logits_kernel.cpp": "KERNEL_TYPE_AIV_ONLY",
}
TASK_TYPE = re.compile(r"^\s*KERNEL_TASK_TYPE(?:_DEFAULT)?\(([^)]*)\)", re.M)


def edg_case(shape: tuple[int, ...], nw: int, scale: bool = False, pad: int = -1) -> wb.Case:
    attrs = {"num_weights": nw, "padding_idx": pad, "scale_grad_by_freq": scale}
    return wb.Case(EDG, ("float32", "int32"), shape, attrs=attrs)


def edg_launch(c: wb.Case, data: dict[str, np.ndarray], ws_fill: int = 0, **options: Any) -> tuple[np.ndarray, Any]:
    """The EDG kernel launched by hand (out zeroed), with the workspace filled with `ws_fill`."""
    info = wb.OPS[EDG].kernel(c)  # type: ignore[misc]
    kernel = load(resources.path(info.source), info.entry, "Ascend310P3", info.defines)
    plan = wb.plan(c)
    out = np.empty((plan.fields["numWeights"], plan.fields["dimSize"]), np.float32)
    run = kernel[plan.block_dim](
        In(np.ascontiguousarray(data["grad"], np.float32)),
        In(np.ascontiguousarray(data["sort_indices"], np.int32)),
        Out(out, fill=0),
        workspace=Workspace(plan.workspace_bytes, fill=ws_fill),
        tiling=plan.tiling_bytes(),
        tiling_key=plan.tiling_key,
        timeout_s=60,
        **options,
    )
    return out, run


# ------------------------------------------------------------------------------------------------ 1. kernel type
@pytest.mark.parametrize("source", KERNEL_TYPES)
def test_each_kernel_declares_its_kernel_type(source: str) -> None:
    declared = TASK_TYPE.findall(resources.path(source).read_text())
    assert declared == [KERNEL_TYPES[source]], declared


@pytest.mark.parametrize(
    "case",
    [
        wb.Case("cast", ("float32", "float16"), (300,)),
        edg_case((16, 64), 10, scale=True, pad=3),
        wb.Case(SCE, "float32", (8, 100)),
    ],
    ids=["cast", EDG, SCE],
)
def test_the_emulator_runs_the_declared_kernel_type(case: wb.Case) -> None:
    res = wb.run(case, backend="emu")
    source = str(wb.OPS[case.op].kernel(case).source)  # type: ignore[misc]
    assert res.passed and res.trace["kernel_type"] == KERNEL_TYPES[source]
    assert not [d for d in res.diagnostics if d.kind == "UNSUPPORTED_KERNEL_TYPE"]


# ------------------------------------------------------------------------------------------------ 2. PIPE_V
SCE_SHAPES = [(1, 1), (13, 8), (33, 17), (64, 1000), (3, 7, 5, 13), (4, 589, 5, 5), (10, 0)]
SPLIT_R_AR = {"float32": (4, 4705), "float16": (4, 6721), "bfloat16": (4, 6721)}  # just past FullLoad
CAST_PAIRS = [
    ("float32", "float16"),
    ("int16", "float32"),
    ("float32", "bool"),
    ("int64", "bool"),
    ("float32", "int64"),
    ("bfloat16", "float32"),
    ("bfloat16", "int8"),
    ("int8", "uint8"),
    ("float16", "uint8"),
]


def v_raw(res: wb.Result) -> list[str]:
    return [str(d) for d in res.diagnostics if d.kind == "V_RAW_NO_BARRIER"]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_sce_orders_every_dependent_vector_instruction(dtype: str) -> None:
    """EMPTY, C_ONE, SMALL_C, GENERIC AR (batched and per row), GENERIC RA, SPLIT_R AR and RA."""
    paths = set()
    for shape in [*SCE_SHAPES, SPLIT_R_AR[dtype]]:
        res = wb.run(wb.Case(SCE, dtype, shape), backend="emu", distribution="soft" if 0 not in shape else None)
        assert res.passed and not v_raw(res), (shape, v_raw(res))
        paths.add(res.plan.tiling_name)
    assert len(paths) == 7, paths


@pytest.mark.parametrize("pair", CAST_PAIRS, ids="->".join)
def test_cast_orders_every_dependent_vector_instruction(pair: tuple[str, str]) -> None:
    for shape in [(5,), (70001,)]:  # scalar staging; several cores, tiles and the tail window
        res = wb.run(wb.Case("cast", pair, shape), backend="emu")
        assert res.passed and not v_raw(res), (shape, v_raw(res))


@pytest.mark.parametrize(
    ("shape", "nw", "scale"),
    [((4096, 512), 1000, False), ((16, 64), 10, True), ((1000, 7), 500, True), ((37, 2), 3, True)],
    ids=["aligned", "aligned_key1", "unaligned_key1", "tiny_key1"],
)
def test_edg_orders_every_dependent_vector_instruction(shape: tuple[int, ...], nw: int, scale: bool) -> None:
    res = wb.run(edg_case(shape, nw, scale), backend="emu")
    assert res.passed and not v_raw(res), v_raw(res)


# ------------------------------------------------------------------------------------------------ 3. the barrier
@pytest.mark.parametrize("platform", ["Ascend310P3"])
def test_edg_never_launches_more_blocks_than_ai_cores(platform: str) -> None:
    cores = wb.PLATFORMS[platform].core_num
    for n in [*range(1, 3 * cores), 1000, 65536, 10**6]:
        for scale in (False, True):
            c = wb.Case(EDG, ("float32", "int32"), (n, 24), attrs={"num_weights": 7, "scale_grad_by_freq": scale},
                        platform=platform)  # fmt: skip
            plan = wb.plan(c)
            assert plan.block_dim == plan.fields["usedCoreNum"] == min(n, cores), (n, plan.block_dim)


@pytest.mark.parametrize("scale", [False, True], ids=["key0", "key1"])
def test_edg_launcher_zeroes_out_and_workspace(scale: bool) -> None:
    c = edg_case((16, 64), 10, scale)
    launch = prepare(c, wb.plan(c), wb.make_inputs(c))
    assert launch.workspace_fill == 0
    assert [(a.name, a.fill) for a in launch.args if a.role == "output"] == [("out", 0)]


def test_a_launch_with_stale_barrier_slots_is_caught() -> None:
    """What the zero fill prevents: slots left at 1 by an earlier launch release the barrier at once, and the
    Phase-2 stores then race with other cores' Phase-1 atomics; a never-written workspace reads as uninitialised."""
    c = edg_case((16, 64), 10, True, pad=3)
    data = wb.make_inputs(c)
    _, clean = edg_launch(c, data)
    assert clean.exit_code == 0 and not {d.kind for d in clean.diagnostics} & {"GM_UNINIT_READ", "GM_WRITE_RACE"}
    _, stale = edg_launch(c, data, ws_fill=1)
    assert "GM_WRITE_RACE" in {d.kind for d in stale.diagnostics}
    _, poisoned = edg_launch(c, data, ws_fill=POISON)
    assert "GM_UNINIT_READ" in {d.kind for d in poisoned.diagnostics}


# ------------------------------------------------------------------------------------------------ 4. out's end
@pytest.mark.parametrize("mode", ["ordered", "interleave:3"])
@pytest.mark.parametrize(
    ("shape", "nw", "scale", "dist"),
    [
        ((1000, 7), 500, False, "uniform"),  # the last row's window passes out's end by 4 lanes
        ((1000, 100), 501, True, "uniform"),  # the Phase-2 unit of the last row is partial
        ((37, 2), 3, True, "uniform"),  # out has 6 elements: no 32-byte block fits
        ((200, 1), 5, False, "unsorted"),
        ((300, 5), 3, True, "unsorted"),  # 15 elements: one whole block, then an end block
    ],
    ids=["D7", "D100_key1", "tiny_key1", "tiny_unsorted", "D5_key1"],
)
def test_edg_writes_nothing_past_the_end_of_out(
    shape: tuple[int, ...], nw: int, scale: bool, dist: str, mode: str
) -> None:
    c = edg_case(shape, nw, scale)
    data = wb.make_inputs(c, seed=2, distribution=dist)
    out, run = edg_launch(c, data, mode=mode)
    assert run.exit_code == 0
    assert not [str(d) for d in run.diagnostics if d.kind in ("GM_WRITE_PAST_END", "GM_OOB", "GM_WRITE_RACE")]
    report = wb.compare(out, edg_golden(c, data)["out"], "float32", "double_thousandth")
    assert report, report.text()
