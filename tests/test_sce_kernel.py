"""SoftmaxCrossEntropyWithLogits kernel on the ascemu emulator (Ascend910B3, spec §3.4-§3.7, §7).

Each case runs the shipped kernel through `workbench.run(case, backend="emu")`, asserts the host took the
expected path (tiling name), that the launch is clean (exit code 0 and no diagnostic above "info": the
kernel reads no unwritten UB, pad lanes included) and that loss and backprop pass the gating standard
(DECISION-SCE-11, double thousandth). The default run covers every path in all three dtypes on small
shapes: EMPTY, C_ONE, SMALL_C, GENERIC AR (unaligned C; the row-batched R <= 64 form), SPLIT_R AR (odd
tail, row groups), GENERIC RA (lane tiles cut at image boundaries), SPLIT_R RA; plus the spec's worked
examples E1-E6 and the non-finite rows of S23-S25. `-m slow` runs the full §7 matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

import workbench as wb

OP = "softmax_cross_entropy_with_logits"
DTYPES = ("float32", "float16", "bfloat16")


def run(dtype: str, shape: tuple[int, ...], dist: str | None = None, path: str | None = None) -> wb.Result:
    case = wb.Case(OP, dtype, shape)
    res = wb.run(case, backend="emu", distribution=dist)
    if path is not None:
        assert res.plan.tiling_name == path, res.plan.notes
    noisy = [str(d) for d in res.diagnostics if d.severity != "info"]
    assert res.exit_code == 0 and not noisy, "\n".join([res.text(), *noisy])
    assert res.passed, res.text()
    return res


# (shape, distribution, expected path): small shapes, one per path and geometry corner.
QUICK = [
    ((1, 1), None, "FULL_LOAD/C_ONE"),  # S01
    ((4, 1, 7, 9), "edges", "FULL_LOAD/C_ONE"),  # S15, NaN-exact (DECISION-SCE-8)
    ((1, 2), "soft", "FULL_LOAD/SMALL_C"),  # S02
    ((2, 3), "raw", "FULL_LOAD/SMALL_C"),  # S03
    ((13, 8), "soft", "FULL_LOAD/SMALL_C"),  # S04
    ((300, 5), None, "FULL_LOAD/SMALL_C"),  # several rows per core, a tail core
    ((33, 17), "soft", "FULL_LOAD/GENERIC(AR)"),  # S07: unaligned C, NaN-poisoned pad lanes
    ((128, 10), None, "FULL_LOAD/GENERIC(AR)"),  # S05
    ((3, 7, 5, 13), "soft", "FULL_LOAD/GENERIC(RA)"),  # S17: HW = 65, lane tiles cut at images
    ((10, 0), None, "EMPTY"),  # S20
    ((2, 0, 4, 5), None, "EMPTY"),  # S20 NCHW
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "dist", "path"), QUICK, ids=[str(q[0]) for q in QUICK])
def test_paths(dtype: str, shape: tuple[int, ...], dist: str | None, path: str) -> None:
    run(dtype, shape, dist, path)


# Spec §4 worked examples: the plan fields are asserted by test_sce_tiling; here the kernel runs them.
EXAMPLES = {
    "E1": ("float32", (64, 1000), "normal", "FULL_LOAD/GENERIC(AR)"),
    "E2": ("float16", (2, 3, 4, 5), None, "FULL_LOAD/GENERIC(RA)"),
    "E3": ("float32", (8, 100000), None, "SPLIT_R(AR)"),
    "E4": ("bfloat16", (4096, 3), None, "FULL_LOAD/SMALL_C"),
    "E5": ("float16", (1000, 1001), "soft", "FULL_LOAD/GENERIC(AR)"),
    "E6": ("float32", (1, 1000, 16, 16), "soft", "SPLIT_R(RA)"),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples(name: str) -> None:
    run(*EXAMPLES[name])


def test_worked_row() -> None:
    """§2 worked row through the kernel: x = [1,2,3], y = [0,0,1] (SMALL_C) and soft labels."""
    case = wb.Case(OP, "float32", (2, 3))
    x = np.array([[1, 2, 3], [1, 2, 3]], np.float32)
    y = np.array([[0, 0, 1], [0.2, 0.3, 0.5]], np.float32)
    res = wb.run(case, backend="emu", inputs={"features": x, "labels": y})
    assert res.passed, res.text()
    np.testing.assert_allclose(res.outputs["loss"], [0.407606, 1.107606], rtol=2e-6)
    np.testing.assert_allclose(
        res.outputs["backprop"],
        [[0.09003057, 0.24472846, -0.33475906], [-0.10996943, -0.05527155, 0.16524094]],
        rtol=2e-6,
        atol=1e-7,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 9), (20000, 9), (700, 64), (70, 65)], ids=str)
def test_generic_ar_row_batching(dtype: str, shape: tuple[int, ...]) -> None:
    """GENERIC AR with R_align*4 <= 256 B runs one WholeReduce repeat per row (R <= 64): a one-row tile,
    tiles of more than 248 rows (several calls), and both sides of the R = 64 / 65 boundary."""
    run(dtype, shape, "soft", "FULL_LOAD/GENERIC(AR)")


@pytest.mark.parametrize("dtype", DTYPES)
def test_split_r_ar_odd_tail(dtype: str) -> None:
    """S11 just past the FullLoad limit: rLoopTime = 2 with an unaligned last chunk."""
    r = 4705 if dtype == "float32" else 6721
    res = run(dtype, (4, r), "soft", "SPLIT_R(AR)")
    assert res.plan.fields["rLoopTime"] == 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_split_r_ar_row_groups(dtype: str) -> None:
    """SPLIT_R AR with aTileS = perBlock rows per group and a shorter last group (aLoopTail > 0)."""
    shape = (400, 4705) if dtype == "float32" else (700, 6721)
    res = run(dtype, shape, "raw", "SPLIT_R(AR)")
    f = res.plan.fields
    assert f["aUbNumFactor"] > 1 and f["aLoopTail"] > 0 and f["rLoopTile"] % (32 // res.inputs["features"].itemsize)


@pytest.mark.parametrize("dtype", DTYPES)
def test_split_r_ra(dtype: str) -> None:
    """SPLIT_R RA with core ranges that cross images (HW = 25) and a one-plane tail chunk."""
    c = 589 if dtype == "float32" else 421
    res = run(dtype, (4, c, 5, 5), "soft", "SPLIT_R(RA)")
    assert res.plan.fields["rLoopTile"] == 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "path"),
    [((16, 6), "FULL_LOAD/SMALL_C"), ((16, 33), "FULL_LOAD/GENERIC(AR)"), ((2, 5, 3, 3), "FULL_LOAD/GENERIC(RA)")],
)
def test_non_finite_rows(dtype: str, shape: tuple[int, ...], path: str) -> None:
    """S23-S25 row patterns (NaN/+inf features, -inf logits, NaN/-inf labels): NaN positions must match."""
    run(dtype, shape, "edges", path)


def test_no_launch_for_empty_a() -> None:
    """S19: A == 0 launches nothing (§1.3 step 1)."""
    res = wb.run(wb.Case(OP, "float32", (0, 10)), backend="emu")
    assert res.plan.block_dim == 0 and res.passed


# ---------------------------------------------------------------- the full §7 matrix
SLOW = [
    ((7, 5), "soft", "FULL_LOAD/SMALL_C"),  # S04
    ((64, 1000), "normal", "FULL_LOAD/GENERIC(AR)"),  # S06 / E1
    ((1000, 1001), "soft", "FULL_LOAD/GENERIC(AR)"),  # S07 / E5
    ((100000, 2), None, "FULL_LOAD/SMALL_C"),  # S08
    ((4096, 3), None, "FULL_LOAD/SMALL_C"),  # S08 / E4
    ((65536, 128), "soft", "FULL_LOAD/GENERIC(AR)"),  # S09
    ((8, 100000), None, "SPLIT_R(AR)"),  # S12 / E3
    ((3, 65539), "raw", "SPLIT_R(AR)"),  # S13
    ((2, 3, 4, 5), None, "FULL_LOAD/GENERIC(RA)"),  # S14 / E2
    ((16, 21, 64, 64), None, "FULL_LOAD/GENERIC(RA)"),  # S16
    ((1, 1000, 16, 16), "soft", "SPLIT_R(RA)"),  # S18 / E6
    ((256, 512), "large", "FULL_LOAD/GENERIC(AR)"),  # S26
    ((64, 6), "edges", "FULL_LOAD/SMALL_C"),  # S23-S25 on SMALL_C
    ((64, 1001), "edges", "FULL_LOAD/GENERIC(AR)"),
    ((3, 9000), "edges", "SPLIT_R(AR)"),
    ((2, 7, 9, 9), "edges", "FULL_LOAD/GENERIC(RA)"),
    ((1, 700, 5, 5), "edges", "SPLIT_R(RA)"),
    ((200000, 1), "raw", "FULL_LOAD/C_ONE"),  # several C_ONE tiles per core
    ((90, 6721), "edges", "SPLIT_R(AR)"),  # 3-row groups
    ((3, 600, 40, 40), "soft", "SPLIT_R(RA)"),  # many lane tiles per core
    ((5, 589, 7, 11), "soft", "SPLIT_R(RA)"),
]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "dist", "path"), SLOW, ids=[f"{q[0]}-{q[1]}" for q in SLOW])
def test_matrix(dtype: str, shape: tuple[int, ...], dist: str | None, path: str) -> None:
    run(dtype, shape, dist, path)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", DTYPES)
def test_full_load_boundary(dtype: str) -> None:
    """S10: the largest FullLoad R still runs GENERIC."""
    r = 4704 if dtype == "float32" else 6720
    run(dtype, (4, r), "soft", "FULL_LOAD/GENERIC(AR)")
