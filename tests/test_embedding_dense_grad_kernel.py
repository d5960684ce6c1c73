"""The EmbeddingDenseGrad Ascend C kernel on the ascemu P310 profile (spec embedding_dense_grad.md §3-§5, §7).

Every launch must finish clean (exit 0, no error/fatal diagnostic, and no warning beyond the spec's planned
32 B over-reads), pass the §5 gate against the float64 golden, and leave the padding row and every untouched
row exactly +0.0. The default set covers the worked examples X1-X3 and the G matrix at small sizes, both keys,
the unaligned window path, padding, out-of-range indices, interleave schedules and the §2 bit-exact claims;
`-m slow` adds X4, G03, G19, the uint16-srcStride fallback and more schedules.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.ops.embedding_dense_grad.golden import golden as edg_golden
from workbench.running.emu import In, Kernel, Out, Workspace, load

SOURCE = resources.path("kernels/embedding_dense_grad/embedding_dense_grad_kernel.cpp")
FMAX = np.finfo(np.float32).max
# The unaligned covering windows read/write <= 28 B past a tensor (DECISION-EDG-7a); idx tiles stay inside.
PLANNED = {"GM_SLACK_ACCESS", "GM_LOGICAL_OOB", "OUTPUT_UNWRITTEN"}


def _kernel() -> Kernel:
    """The shipped kernel through the same load() path as wb.run (built once, cached by content)."""
    info = wb.OPS["embedding_dense_grad"].kernel(case((8, 8), 1))  # type: ignore[misc]
    return load(resources.path(info.source), info.entry, "Ascend310P3", info.defines)


def case(shape: tuple[int, ...], nw: int, pad: int = -1, scale: bool = False) -> wb.Case:
    attrs = {"num_weights": nw, "padding_idx": pad, "scale_grad_by_freq": scale}
    return wb.Case("embedding_dense_grad", ("float32", "int32"), shape, attrs=attrs)


def inputs(c: wb.Case, dist: str | None = None, seed: int = 0, indices: Any = None) -> dict[str, np.ndarray]:
    data = wb.make_inputs(c, seed=seed, distribution=dist)
    if indices is not None:
        data["sort_indices"] = np.asarray(indices, np.int32).reshape(data["sort_indices"].shape)
    return data


def launch(c: wb.Case, data: dict[str, np.ndarray], **options: Any) -> tuple[np.ndarray, Any]:
    """One launch as the EDG launcher does it: out and the whole workspace zeroed (DECISION-EDG-4/5)."""
    plan = wb.plan(c)
    f = plan.fields
    out = np.empty((f["numWeights"], f["dimSize"]), np.float32)
    args = [
        In(np.ascontiguousarray(data["grad"], np.float32)),
        In(np.ascontiguousarray(data["sort_indices"], np.int32)),
        Out(out, fill=0),
    ]
    run = _kernel()[plan.block_dim](
        *args,
        workspace=Workspace(plan.workspace_bytes, fill=0),
        tiling=plan.tiling_bytes(),
        tiling_key=plan.tiling_key,
        timeout_s=120,
        **options,
    )
    unplanned = [str(d) for d in run.diagnostics if d.is_fault or d.kind not in PLANNED]
    assert run.exit_code == 0 and not unplanned, "\n".join([f"exit {run.exit_code}", *unplanned])
    return out, run


def untouched(c: wb.Case, data: dict[str, np.ndarray]) -> np.ndarray:
    """Rows no valid index reaches, padding row included (§2 valid(k))."""
    f = wb.plan(c).fields
    k = np.asarray(data["sort_indices"]).reshape(-1).astype(np.int64)
    valid = (k >= 0) & (k < f["numWeights"]) & (k != f["paddingIdx"])
    mask = np.ones(f["numWeights"], bool)
    mask[k[valid]] = False
    return mask


def check(c: wb.Case, data: dict[str, np.ndarray], out: np.ndarray) -> None:
    """§5: the double-thousandth gate against the float64 golden, plus exact +0.0 on untouched rows."""
    report = wb.compare(out, edg_golden(c, data)["out"], "float32", "double_thousandth")
    assert report, report.text()
    stray = out[untouched(c, data)]
    assert not stray.view(np.uint32).any(), f"{np.count_nonzero(stray.view(np.uint32))} stray lanes in zero rows"


def run_and_check(c: wb.Case, data: dict[str, np.ndarray], **options: Any) -> np.ndarray:
    out, _ = launch(c, data, **options)
    check(c, data, out)
    return out


def with_run(lo: int, hi: int, value: int = 77) -> tuple[wb.Case, dict[str, np.ndarray]]:
    """G07/G08: 4096x512, uniform sorted indices with rows [lo, hi) forced to one index."""
    c = case((4096, 512), 1000)
    data = inputs(c, "uniform", seed=1)
    k = data["sort_indices"].copy()
    k[lo:hi] = value
    data["sort_indices"] = np.sort(k)
    return c, data


X3_INDICES = [0, 0, 0, 1, 2, 2, 3, 3, 3, 3, 5, 7, 7, 7, 9, 9]

# (id, shape, num_weights, padding_idx, scale, distribution)
MATRIX = [
    ("X1", (4096, 512), 1000, -1, False, "uniform"),
    ("X2", (1000, 100), 500, -1, False, "uniform"),
    ("G02", (65536, 8), 50000, -1, False, "uniform"),  # 8192 rows per core: idx tiles reload inside a batch
    ("G03_4104", (4096, 4104), 1000, -1, False, "uniform"),  # chunks 4096 + 8, strided batch loads
    ("G05", (4096, 512), 4096, -1, False, "unique"),
    ("G06", (4096, 512), 1000, -1, False, "same"),
    ("G09", (8192, 256), 10000, -1, False, "zipf"),
    ("G10_N1", (1, 64), 5, -1, False, "uniform"),
    ("G10_N3", (3, 64), 5, -1, False, "uniform"),
    ("G11", (4096, 512), 1000, -1, False, "unsorted"),
    ("G16", (4096, 128), 3, -1, True, "uniform"),  # numWeights < usedCoreNum: idle Phase-2 cores
    ("G17", (1000, 100), 501, -1, True, "uniform"),  # unaligned Phase 2, unit window past the end
    ("G18", (64, 64), 100000, -1, False, "uniform"),
    ("G20_3d", (8, 512, 256), 1000, -1, False, "default"),
    ("G20_4d", (2, 3, 4, 64), 30, -1, False, "default"),
    ("G20_8d", (1, 1, 1, 1, 1, 2, 3, 16), 7, -1, False, "default"),
    ("scale_unsorted", (4096, 128), 300, -1, True, "unsorted"),
    ("scale_D2_nw3", (37, 2), 3, 1, True, "uniform"),
    ("scale_aligned_default", (2048, 256), 700, 5, True, "default"),
]


@pytest.mark.parametrize(("shape", "nw", "pad", "scale", "dist"), [m[1:] for m in MATRIX], ids=[m[0] for m in MATRIX])
def test_matrix(shape: tuple[int, ...], nw: int, pad: int, scale: bool, dist: str) -> None:
    c = case(shape, nw, pad, scale)
    run_and_check(c, inputs(c, dist))


@pytest.mark.parametrize("scale", [False, True], ids=["key0", "key1"])
@pytest.mark.parametrize("d", [1, 3, 7, 100, 4097])
def test_g04_unaligned_windows(d: int, scale: bool) -> None:
    """§3.6: D % 8 != 0 under either key; D < 8 windows span several rows, D = 4097 has a 1-wide tail chunk."""
    c = case((1000, d), 500, -1, scale)
    assert wb.plan(c).fields["isAlignedD"] == 0
    run_and_check(c, inputs(c, "default"))


@pytest.mark.parametrize("scale", [False, True], ids=["key0", "key1"])
@pytest.mark.parametrize("pad", [0, 50, 99, 100, -5])
def test_g12_padding(pad: int, scale: bool) -> None:
    """First / middle / last padding row, and >= nW or negative meaning none (DECISION-EDG-2)."""
    c = case((2048, 64), 100, pad, scale)
    run_and_check(c, inputs(c, "default"))


@pytest.mark.parametrize("scale", [False, True], ids=["key0", "key1"])
def test_x3(scale: bool) -> None:
    """X3: per-core pairs, padding 3 inside cross-core runs; lane 0 of k = 7 is 0.1, 0.1, 0.3 -> 0.5 -> 0.16666667."""
    c = case((16, 64), 10, 3, scale)
    data = inputs(c, indices=X3_INDICES)
    data["grad"][11:14, 0] = [0.1, 0.1, 0.3]
    out = run_and_check(c, data)
    assert out[7, 0] == np.float32(0.16666667 if scale else 0.5)
    counts = np.array([3, 1, 2, 0, 0, 1, 0, 3, 0, 2])
    g = data["grad"].astype(np.float64)
    for k in (1, 5):  # count 1: never scaled, equal to the single row
        assert np.array_equal(out[k], g[X3_INDICES.index(k)].astype(np.float32))
    assert not out[counts == 0].any() and not out[3].any()


def test_out_of_range_indices_are_skipped() -> None:
    """DECISION-EDG-3 with debug validation off: k < 0 or k >= nW contributes nothing, under both keys."""
    rng = np.random.default_rng(3)
    c0 = case((512, 24), 50)
    run_and_check(c0, inputs(c0, indices=np.sort(rng.integers(-5, 60, 512))))
    c1 = case((512, 20), 50, 7, True)  # unsorted, unaligned, scaled
    run_and_check(c1, inputs(c1, indices=rng.integers(-5, 60, 512)))


@pytest.mark.parametrize(("lo", "hi"), [(500, 531), (400, 1101)], ids=["G07_2cores", "G08_3cores"])
def test_runs_across_cores(lo: int, hi: int) -> None:
    c, data = with_run(lo, hi)
    run_and_check(c, data)


def test_g07_two_partials_are_deterministic() -> None:
    """§2: a row with <= 2 partials is bit-identical under every schedule."""
    c, data = with_run(500, 531)
    outs = [launch(c, data, mode=m)[0] for m in ("serial", "interleave:1", "interleave:2", "parallel", "ordered")]
    assert all(np.array_equal(outs[0], o) for o in outs[1:])


def test_ordered_mode_keeps_serial_atomic_order() -> None:
    """Mode ordered (the backend's) adds atomically in serial order, so rows summed from three cores and from
    unsorted, scaled input keep serial mode's bits, which a free-running schedule need not."""
    c3, data3 = with_run(400, 1101)  # G08: one row gets partials from three cores
    rng = np.random.default_rng(3)
    cu = case((3000, 20), 40, 7, True)  # unsorted and scaled: many cores add to every row
    datau = inputs(cu, indices=rng.integers(-5, 40, 3000))
    for c, data in ((c3, data3), (cu, datau)):
        serial, srun = launch(c, data, mode="serial")
        ordered, orun = launch(c, data, mode="ordered")
        assert np.array_equal(serial.view(np.uint32), ordered.view(np.uint32))
        assert not orun.faulted
        assert sorted((d.kind, d.core, d.line) for d in orun.diagnostics) == sorted(
            (d.kind, d.core, d.line) for d in srun.diagnostics
        )


@pytest.mark.parametrize("mode", ["interleave:1", "interleave:2", "parallel", "ordered"])
@pytest.mark.parametrize(
    ("shape", "nw", "pad", "dist"),
    [((16, 64), 10, 3, None), ((2048, 64), 100, 50, "default"), ((1000, 7), 500, -1, "default")],
    ids=["X3", "G12_p50", "D7"],
)
def test_key1_barrier_under_schedules(shape: tuple[int, ...], nw: int, pad: int, dist: str | None, mode: str) -> None:
    """The GM-flag barrier (§3.7) holds under interleaved and free-running cores: no race, right numbers."""
    c = case(shape, nw, pad, True)
    data = inputs(c, indices=X3_INDICES) if dist is None else inputs(c, dist)
    run_and_check(c, data, mode=mode)


def test_g14_power_of_two_counts_match_pytorch_rule_bitwise() -> None:
    """§2: with counts in {1, 2, 4, 8} the scale is exact, so sum-then-scale == PyTorch's scale-then-sum, bit for
    bit, when no run straddles cores. The spec shape (nW 512, N 4096) forces every count to 8; a second case
    mixes all four counts in 8-row blocks (runs never cross a 512-row core boundary)."""
    c = case((4096, 128), 512, -1, True)
    data = inputs(c, "normal", indices=np.repeat(np.arange(512), 8))
    out = run_and_check(c, data)
    assert np.array_equal(out, edg_golden(c, data, rule="pytorch")["out"])

    rng = np.random.default_rng(7)
    blocks = [[8], [4, 4], [4, 2, 2], [2, 2, 4], [2, 2, 2, 2], [4, 2, 1, 1], [1, 1, 2, 4]]
    counts: list[int] = []
    while sum(counts) < 4096:
        counts += blocks[rng.integers(len(blocks))]
    keys = np.sort(rng.choice(2048, len(counts), replace=False))
    c = case((4096, 128), 2048, -1, True)
    data = inputs(c, "normal", indices=np.repeat(keys, counts))
    assert set(counts) == {1, 2, 4, 8}
    assert np.array_equal(launch(c, data)[0], edg_golden(c, data, rule="pytorch")["out"])


def test_g15_all_unique_scale_equals_no_scale() -> None:
    """Every count is 1, so key 1 must not touch any row: equal to key 0 bit for bit."""
    c1, c0 = case((4096, 128), 4096, -1, True), case((4096, 128), 4096, -1, False)
    data = inputs(c1, "unique")
    assert np.array_equal(run_and_check(c1, data), launch(c0, data)[0])


def _nan_inf_case(d: int, scale: bool) -> tuple[wb.Case, dict[str, np.ndarray], np.ndarray]:
    c = case((4096, d), 300, -1, scale)
    data = inputs(c, "uniform", seed=5)
    k, g = data["sort_indices"].reshape(-1), data["grad"].reshape(-1, d)
    hit = np.flatnonzero(k == k[512])  # a run across the core 0/1 boundary
    for lane, value in enumerate((np.nan, np.inf, -np.inf)[:d]):
        g[hit, lane] = value
    return c, data, edg_golden(c, data)["out"]


@pytest.mark.parametrize("scale", [False, True], ids=["key0", "key1"])
@pytest.mark.parametrize("d", [64, 100, 5])
def test_g24_nan_inf(d: int, scale: bool) -> None:
    """G24. P310 runs in saturation mode only (ascend-facts §2.3; ascemu §4.2): a NaN lane ends as +0 and +-inf
    as +-FLT_MAX (times fl(1/c) when scaled), so the spec's "NaN/inf positions match" holds only in IEEE mode,
    checked here with the emulator's overflow_mode=inf_nan. Finite lanes pass the gate in both modes."""
    c, data, exp = _nan_inf_case(d, scale)
    bad = ~np.isfinite(exp)
    assert bad.sum() == min(d, 3)
    k = data["sort_indices"].reshape(-1)
    cnt = np.count_nonzero(k == k[512])
    factor = np.float32(1) / np.float32(cnt) if scale and cnt >= 2 else np.float32(1)
    saturated = np.where(np.isnan(exp), 0, np.sign(exp) * FMAX).astype(np.float32) * factor
    for mode, image in (("saturation", saturated), ("inf_nan", exp)):
        out, _ = launch(c, data, overflow_mode=mode)
        assert np.array_equal(out[bad], image[bad], equal_nan=True), (mode, out[bad], image[bad])
        report = wb.compare(np.where(bad, 0, out), np.where(bad, 0, exp), "float32", "double_thousandth")
        assert report, report.text()


def test_x1_trace_matches_the_plan() -> None:
    """X1: UB = 260,384 B; per core one 2048 B atomic flush per segment, 512 rows x 2 KiB + one idx tile read."""
    c = case((4096, 512), 1000)
    data = inputs(c, "uniform")
    plan = wb.plan(c)
    _, run = launch(c, data)
    k = data["sort_indices"]
    for core, rng in zip(run.trace["cores"], plan.cores, strict=True):
        segments = 1 + np.count_nonzero(np.diff(k[rng.start : rng.stop]))
        assert core["atomic"] == {"bytes": segments * 2048, "ops": segments, "dtype": "float"}
        assert core["mte3"]["bytes"] == segments * 2048
        assert core["mte2"]["bytes"] == rng.count * 2048 + 2048  # 512 indices round to a 2048 B tile read
        assert core["ub"]["peak_bytes"] == sum(b.total for b in plan.ub_buffers) == 260384


def test_workbench_run() -> None:
    """The same kernel through workbench.run(case, backend='emu') and its own build."""
    c = case((16, 64), 10, 3, True)
    result = wb.run(c, backend="emu", inputs=inputs(c, indices=X3_INDICES))
    assert result.passed, result.text()


# ------------------------------------------------------------------------------------------------ slow
SLOW = [
    ("X4", (4096, 8192), 1000, False),  # 2 chunks of 4096, 14-row strided batches
    ("G03_4096", (4096, 4096), 1000, False),
    ("G19", (4096, 512), 100000, False),  # out 204.8 MB
    ("srcStride_uint16", (16, 528392), 40, False),  # (D - 8) / 8 > 65535: rowBatchNum 1, 130 chunks
    ("srcStride_uint16_scale", (16, 528392), 40, True),
    ("X4_scale", (4096, 8192), 1000, True),
]


@pytest.mark.slow
@pytest.mark.parametrize(("shape", "nw", "scale"), [s[1:] for s in SLOW], ids=[s[0] for s in SLOW])
def test_large(shape: tuple[int, ...], nw: int, scale: bool) -> None:
    c = case(shape, nw, -1, scale)
    run_and_check(c, inputs(c, "uniform"))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 9))
@pytest.mark.parametrize(
    ("shape", "nw", "pad", "scale", "dist"),
    [
        ((4096, 512), 1000, -1, False, "same"),
        ((1000, 100), 501, 7, True, "default"),
        ((4096, 128), 3, -1, True, "uniform"),
        ((777, 3), 64, 5, True, "unsorted"),
        ((2048, 64), 100, 50, True, "zipf"),
    ],
    ids=["G06", "G17_pad", "G16", "D3_unsorted", "zipf_scale"],
)
def test_interleave_seeds(shape: tuple[int, ...], nw: int, pad: int, scale: bool, dist: str, seed: int) -> None:
    c = case(shape, nw, pad, scale)
    run_and_check(c, inputs(c, dist, seed=seed), mode=f"interleave:{seed}")


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["edges", "zipf", "default"])
def test_segments_match_fp32_sequential_rule(dist: str) -> None:
    """Away from core boundaries each segment is one sequential fp32 sum, so the kernel equals the fp32
    `pytorch_rule` golden bit for bit there (the edge table's cancellation defeats the float64 gate). Lanes the
    fp32 golden overflows are saturated by P310 and skipped."""
    c = case((4096, 100), 500)
    data = inputs(c, dist)
    out, _ = launch(c, data)
    exp = edg_golden(c, data, rule="pytorch")["out"]
    k = data["sort_indices"].reshape(-1)
    split = {int(k[r.start]) for r in wb.plan(c).cores[1:] if k[r.start - 1] == k[r.start]}
    rows = np.array([r not in split for r in range(500)])
    same = (out == exp) | ~np.isfinite(exp)
    assert same[rows].all(), np.argwhere(~same[rows])[:5]
