"""SoftmaxCrossEntropyWithLogits host tiling: worked examples E1-E6 (§4), S-matrix paths (§7), sweeps, properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import PLATFORMS, Case, plan
from workbench.core.errors import InfeasibleTiling, InvalidInput, UnknownName
from workbench.core.platform import Platform
from workbench.core.tiling import TilingPlan
from workbench.ops.softmax_cross_entropy_with_logits.geometry import copy_params, core_tiles, small_c_offsets
from workbench.ops.softmax_cross_entropy_with_logits.layout import (
    C_ONE,
    FIELDS,
    GENERIC,
    SPLIT_R,
    SoftmaxCrossEntropyWithLogitsTilingData,
)
from workbench.ops.softmax_cross_entropy_with_logits.tiling import UB_RESERVE, full_load_limit, plan_for

OP = "softmax_cross_entropy_with_logits"
B3 = PLATFORMS["Ascend910B3"]
ALL_DTYPES = ("float32", "float16", "bfloat16")


def sce(dtype: str, shape: tuple[int, ...], **kw: str) -> TilingPlan:
    return plan(Case(OP, dtype, shape, **kw))


def f(**kw: int) -> dict[str, int]:
    return dict(zip(FIELDS, (kw[k] for k in FIELDS), strict=True))


def raw_ub(p: TilingPlan) -> int:
    """UB by the spec's accounting (before InitBuffer's 32 B rounding)."""
    return sum(b.count * b.bytes_each for b in p.ub_buffers)


def segmented(p: TilingPlan) -> bool:
    return p.tiling_name.endswith("(RA)")


# -- worked examples (§4) -------------------------------------------------------------------------------------
def test_e1_fp32_nd_64x1000() -> None:
    p = sce("fp32", (64, 1000))
    assert dict(p.fields) == f(
        a=64,
        r=1000,
        hw=1,
        layoutMode=0,
        fullLoadMode=GENERIC,
        realCoreNum=32,
        blockFactor=2,
        tailBlockFactor=2,
        aUbNumFactor=2,
        aLoopTimes=1,
        aLoopTail=0,
        aLoopTimesT=1,
        aLoopTailT=0,
        rAlign=1000,
        rUbNumFactor=1000,
        rLoopTime=1,
        rLoopTile=1000,
        rLoopTileAlign=1000,
    )
    assert (p.tiling_key, p.tiling_name, p.block_dim, p.unit) == (0, "FULL_LOAD/GENERIC(AR)", 32, "row")
    assert raw_ub(p) == 80040 and p.ub_used <= p.ub_capacity == 188416 and p.ub_reserved == UB_RESERVE
    assert p.workspace_bytes == 16 << 20 and p.copy_bytes == ()
    core = p.cores[31]
    assert (core.start, core.count, core.tiles, core.last_tile) == (62, 2, 1, 2)
    assert core.start * 1000 * 4 == 248000 and core.start * 4 == 248  # features / loss byte offsets
    notes = " ".join(p.notes)
    assert "A_ub = floor(188416/40020) = 4" in notes and "ops-nn arch35" in notes and "SplitR" in notes
    assert "GM traffic 768256 B" in notes and "R <= 4704" in notes and "80040 B" in notes


def test_e2_fp16_nchw_2x3x4x5() -> None:
    p = sce("fp16", (2, 3, 4, 5))
    assert dict(p.fields) == f(
        a=40,
        r=3,
        hw=20,
        layoutMode=1,
        fullLoadMode=GENERIC,
        realCoreNum=40,
        blockFactor=1,
        tailBlockFactor=1,
        aUbNumFactor=16,
        aLoopTimes=0,
        aLoopTail=1,
        aLoopTimesT=0,
        aLoopTailT=1,
        rAlign=3,
        rUbNumFactor=3,
        rLoopTime=1,
        rLoopTile=3,
        rLoopTileAlign=3,
    )
    assert (p.tiling_name, p.block_dim, p.unit) == ("FULL_LOAD/GENERIC(RA)", 40, "lane")
    assert raw_ub(p) == p.ub_used == 1600
    assert "A_ub = floor(188416/100) = 1884" in " ".join(p.notes)
    cp = copy_params(p.fields, 2, 27, 1)  # core 27: a = 27 -> n = 1, p = 7
    assert cp == {"gmOffset": 67, "blockCount": 3, "blockLen": 2, "srcStride": 38, "ubRowStride": 32}
    assert [2 * (cp["gmOffset"] + r * 20) for r in range(3)] == [134, 174, 214]
    loss = p.locate(27, "loss")
    assert (loss.core, loss.tile, loss.offset, loss.tail) == (27, 0, 0, True) and 27 * 2 == 54
    for r, idx in enumerate((67, 87, 107)):  # backprop uses the features offsets
        loc = p.locate(idx, "backprop")
        assert (loc.core, loc.tile, loc.offset) == (27, 0, r * 16)


def test_e3_fp32_nd_8x100000_split_r() -> None:
    p = sce("fp32", (8, 100000))
    assert dict(p.fields) == f(
        a=8,
        r=100000,
        hw=1,
        layoutMode=0,
        fullLoadMode=0,
        realCoreNum=8,
        blockFactor=1,
        tailBlockFactor=1,
        aUbNumFactor=1,
        aLoopTimes=1,
        aLoopTail=0,
        aLoopTimesT=1,
        aLoopTailT=0,
        rAlign=100000,
        rUbNumFactor=4672,
        rLoopTime=22,
        rLoopTile=1888,
        rLoopTileAlign=1888,
    )
    assert (p.tiling_key, p.tiling_name, p.block_dim) == (1, "SPLIT_R(AR)", 8)
    assert raw_ub(p) == 186900 and 21 * 4672 == 98112
    notes = " ".join(p.notes)
    assert "GM traffic 16000032 B" in notes and "9600032 B single-pass" in notes and "at risk" in notes
    loc = p.locate(3 * 100000 + 98112 + 5, "backprop")
    assert (loc.core, loc.tile, loc.offset, loc.tail) == (3, 0, 5, False) and "r chunk 21 of 22" in loc.detail


def test_e4_bf16_nd_4096x3_small_c() -> None:
    p = sce("bf16", (4096, 3))
    assert dict(p.fields) == f(
        a=4096,
        r=3,
        hw=1,
        layoutMode=0,
        fullLoadMode=2,
        realCoreNum=40,
        blockFactor=103,
        tailBlockFactor=79,
        aUbNumFactor=103,
        aLoopTimes=1,
        aLoopTail=0,
        aLoopTimesT=0,
        aLoopTailT=79,
        rAlign=3,
        rUbNumFactor=3,
        rLoopTime=1,
        rLoopTile=3,
        rLoopTileAlign=3,
    )
    assert (p.tiling_key, p.tiling_name) == (0, "FULL_LOAD/SMALL_C")
    assert "P = 6Rb+2b+24R+12 = 124 B per row -> n = 1519" in " ".join(p.notes)
    assert copy_params(p.fields, 2, 0, 103)["blockLen"] == 618 and 618 % 32  # so DataCopyPad
    fwd, inv = small_c_offsets(3, 103, 112)
    assert fwd[1 * 112 + 5] == (5 * 3 + 1) * 4 == 64
    packed = np.arange(103 * 3, dtype=np.float32)
    planes = packed[fwd // 4].reshape(3, 112)
    assert planes[1, 5] == packed[5 * 3 + 1] and np.array_equal(planes.reshape(-1)[inv // 4], packed)


def test_e5_fp16_nd_1000x1001_unaligned() -> None:
    p = sce("fp16", (1000, 1001))
    assert dict(p.fields) == f(
        a=1000,
        r=1001,
        hw=1,
        layoutMode=0,
        fullLoadMode=0,
        realCoreNum=40,
        blockFactor=25,
        tailBlockFactor=25,
        aUbNumFactor=6,
        aLoopTimes=4,
        aLoopTail=1,
        aLoopTimesT=4,
        aLoopTailT=1,
        rAlign=1008,
        rUbNumFactor=1008,
        rLoopTime=1,
        rLoopTile=1001,
        rLoopTileAlign=1008,
    )
    assert "M_AR = 1008*(6b+16) = 28224 B, M_A = 2b+12 = 16 B, A_ub = floor(188416/28240) = 6" in " ".join(p.notes)
    cp = copy_params(p.fields, 2, 0, 6)
    assert (cp["blockCount"], cp["blockLen"], cp["ubRowStride"]) == (6, 2002, 2016)
    assert p.cores[0].tiles == 5 and p.cores[0].last_tile == 1
    assert p.locate(1000, "backprop").offset == 1008 - 8  # row 0 ends at 1000; pad lanes 1001..1007 follow


def test_e6_fp32_nchw_1x1000x16x16_split_r_ra() -> None:
    p = sce("fp32", (1, 1000, 16, 16))
    assert dict(p.fields) == f(
        a=256,
        r=1000,
        hw=256,
        layoutMode=1,
        fullLoadMode=0,
        realCoreNum=37,
        blockFactor=7,
        tailBlockFactor=4,
        aUbNumFactor=8,
        aLoopTimes=0,
        aLoopTail=7,
        aLoopTimesT=0,
        aLoopTailT=4,
        rAlign=1000,
        rUbNumFactor=588,
        rLoopTime=2,
        rLoopTile=412,
        rLoopTileAlign=412,
    )
    assert (p.tiling_key, p.tiling_name, p.block_dim) == (1, "SPLIT_R(RA)", 37)
    assert "A_ub = floor(188416/40020) = 4 fails A_ub >= perBlock = 8" in " ".join(p.notes)


def test_full_load_limits() -> None:
    avail = B3.ub_size - UB_RESERVE
    assert [full_load_limit("ND", d, avail) for d in ALL_DTYPES] == [4704, 6720, 6720]
    assert [full_load_limit("NCHW", d, avail) for d in ALL_DTYPES] == [588, 420, 420]
    for d, nd, nchw in (("fp32", 4704, 588), ("fp16", 6720, 420), ("bf16", 6720, 420)):
        assert sce(d, (4, nd)).fields["rLoopTime"] == 1 and sce(d, (4, nd + 1)).fields["rLoopTime"] == 2  # S10/S11
        assert sce(d, (2, nchw, 4, 4)).tiling_name == "FULL_LOAD/GENERIC(RA)"
        assert sce(d, (2, nchw + 1, 4, 4)).tiling_name == "SPLIT_R(RA)"


def test_tiling_struct_bytes() -> None:
    p = sce("fp16", (1000, 1001))
    data = p.tiling_data()
    assert isinstance(data, SoftmaxCrossEntropyWithLogitsTilingData) and len(p.tiling_bytes()) == 8 * len(FIELDS)
    assert np.frombuffer(p.tiling_bytes(), np.int64).tolist() == [p.fields[k] for k in FIELDS]


# -- the S matrix (§7 path column; every dtype) ------------------------------------------------------------------
GEN, SMALL, ONE, RA = "FULL_LOAD/GENERIC(AR)", "FULL_LOAD/SMALL_C", "FULL_LOAD/C_ONE", "FULL_LOAD/GENERIC(RA)"
PATHS = [
    ("S01", (1, 1), ONE),
    ("S02", (1, 2), SMALL),
    ("S03", (2, 3), SMALL),
    ("S04", (7, 5), SMALL),
    ("S04", (13, 8), SMALL),
    ("S05", (128, 10), GEN),
    ("S06", (64, 1000), GEN),
    ("S07", (1000, 1001), GEN),
    ("S07", (33, 17), GEN),
    ("S08", (100000, 2), SMALL),
    ("S08", (4096, 3), SMALL),
    ("S09", (65536, 128), GEN),
    ("S12", (8, 100000), "SPLIT_R(AR)"),
    ("S13", (3, 65539), "SPLIT_R(AR)"),
    ("S14", (2, 3, 4, 5), RA),
    ("S15", (4, 1, 7, 9), ONE),
    ("S16", (16, 21, 64, 64), RA),
    ("S17", (3, 7, 5, 13), RA),
    ("S18", (1, 1000, 16, 16), "SPLIT_R(RA)"),
    ("S19", (0, 10), "NO_LAUNCH"),
    ("S19", (0, 3, 4, 5), "NO_LAUNCH"),
    ("S19", (2, 3, 0, 5), "NO_LAUNCH"),
    ("S20", (10, 0), "EMPTY"),
    ("S20", (2, 0, 4, 5), "EMPTY"),
    # S23-S25 list GENERIC for [4,6], but §3.4 (evaluated in order) sends ND 2 <= C <= 8 to SMALL_C.
    ("S23", (4, 6), SMALL),
    ("S26", (256, 512), GEN),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize(("sid", "shape", "path"), PATHS, ids=[f"{s}-{'x'.join(map(str, sh))}" for s, sh, _ in PATHS])
def test_s_matrix_paths(sid: str, shape: tuple[int, ...], path: str, dtype: str) -> None:
    p = sce(dtype, shape)
    assert p.tiling_name == path
    if path == "NO_LAUNCH":
        assert p.block_dim == 0 and p.workspace_bytes == 0 and p.cores == ()
    elif path == "EMPTY":
        assert p.tiling_key == 2 and p.fields["aUbNumFactor"] >= 1
    if sid == "S08":
        assert p.fields["aLoopTimes"] >= 1 and p.cores[0].tiles >= 1
    if sid in ("S09", "S16"):
        assert p.block_dim == 40 and max(c.tiles for c in p.cores) > 1
    if sid == "S17":  # HW = 65: lane tiles are cut at image boundaries
        assert p.cores[0].tiles == sum(1 for _ in core_tiles(p.fields, 0, True))


def test_more_cores_on_910b1_and_infeasible_ub() -> None:
    assert sce("fp32", (96, 1000), platform="Ascend910B1").block_dim == 48
    tiny = Platform(**{**B3.__dict__, "ub_size": UB_RESERVE + 64})
    with pytest.raises(InfeasibleTiling, match="SplitR chunk"):
        plan_for((8, 100000), "ND", "float32", tiny)


def test_locate_rejects_bad_requests() -> None:
    p = sce("fp32", (4, 6))
    with pytest.raises(InvalidInput, match="index: got 24"):
        p.locate(24, "backprop")
    with pytest.raises(UnknownName, match="loss, backprop"):
        p.locate(0, "features")
    with pytest.raises(InvalidInput, match="A == 0"):
        sce("fp32", (0, 6)).locate(0, "loss")


# -- sweeps and properties -----------------------------------------------------------------------------------
def check_plan(p: TilingPlan) -> None:
    fl = p.fields
    a, r = fl["a"], fl["r"]
    assert p.ub_used <= p.ub_capacity
    if a == 0:
        return
    assert fl["blockFactor"] * (fl["realCoreNum"] - 1) + fl["tailBlockFactor"] == a
    assert 1 <= fl["tailBlockFactor"] <= fl["blockFactor"] and fl["realCoreNum"] <= PLATFORMS[p.platform].core_num_aiv
    assert fl["aUbNumFactor"] >= 1
    if p.tiling_name == "FULL_LOAD/GENERIC(RA)":
        assert fl["aUbNumFactor"] % (32 // (p.ub_buffers[0].bytes_each // (fl["aUbNumFactor"] * r))) == 0
    assert fl["rLoopTime"] * fl["rUbNumFactor"] >= r
    if fl["rLoopTime"] > 1:
        assert (fl["rLoopTime"] - 1) * fl["rUbNumFactor"] + fl["rLoopTile"] == r


def sweep_rs(full: bool) -> list[int]:
    return (
        list(range(1, 10001))
        if full
        else sorted({*range(1, 10001, 97), *range(1, 17), 420, 421, 588, 589, 4704, 4705, 6720, 6721})
    )


@pytest.mark.parametrize("layout", ["ND", "NCHW"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sweep_r_subsampled(dtype: str, layout: str) -> None:
    shape = (lambda r: (64, r)) if layout == "ND" else (lambda r: (2, r, 4, 8))
    for r in sweep_rs(False):
        check_plan(plan_for(shape(r), layout, dtype, B3))


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["ND", "NCHW"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sweep_r_full(dtype: str, layout: str) -> None:
    shapes = [(64, 0), (1, 0), (4096, 0)] if layout == "ND" else [(2, 0, 4, 8), (1, 0, 1, 1), (3, 0, 5, 13)]
    for r in sweep_rs(True):
        for s in shapes:
            check_plan(plan_for((*s[:1], r, *s[2:]) if layout == "NCHW" else (s[0], r), layout, dtype, B3))


def element_row(p: TilingPlan, index: int, output: str) -> tuple[int, int]:
    r_n, hw = p.fields["r"], p.fields["hw"]
    if output == "loss":
        return index, -1
    if p.fields["layoutMode"]:
        n, rem = divmod(index, r_n * hw)
        return n * hw + rem % hw, rem // hw
    return divmod(index, r_n)


nd_shapes = st.tuples(st.integers(0, 200_000), st.one_of(st.integers(0, 10), st.integers(0, 20_000)))
nchw_shapes = st.tuples(
    st.integers(0, 6), st.one_of(st.integers(0, 10), st.integers(0, 1200)), st.integers(0, 40), st.integers(0, 40)
)


@settings(max_examples=150, deadline=None)
@given(
    shape=st.one_of(nd_shapes, nchw_shapes),
    dtype=st.sampled_from(ALL_DTYPES),
    soc=st.sampled_from(["Ascend910B3", "Ascend910B1"]),
    data=st.data(),
)
def test_properties(shape: tuple[int, ...], dtype: str, soc: str, data: st.DataObject) -> None:
    p = sce(dtype, shape, platform=soc)
    check_plan(p)
    a = p.fields["a"]
    # per-core ranges cover every row/lane exactly once, in order
    assert sum(c.count for c in p.cores) == a
    assert all(c.start == (p.cores[i - 1].stop if i else 0) for i, c in enumerate(p.cores))
    assert p.copy_bytes == ()
    if a == 0:
        return
    seg = segmented(p)
    for c in (p.cores[0], p.cores[-1]):  # the tile counts equal the kernel loop's
        tiles = list(core_tiles(p.fields, c.core, seg))
        assert len(tiles) == c.tiles and tiles[-1][1] == c.last_tile and sum(n for _, n in tiles) == c.count
        assert all(n <= p.fields["aUbNumFactor"] for _, n in tiles)
    outputs = ["loss"] + (["backprop"] if p.fields["r"] else [])
    for output in outputs:
        size = a * (p.fields["r"] if output == "backprop" else 1)
        for index in {0, size - 1, data.draw(st.integers(0, size - 1))}:
            loc = p.locate(index, output)
            row, _ = element_row(p, index, output)
            core = p.cores[loc.core]
            assert core.start <= row < core.stop and loc.tile is not None and loc.tile < core.tiles
            start, n = list(core_tiles(p.fields, core.core, seg))[loc.tile]
            assert start <= row < start + n and loc.tail == (
                n < p.fields["aUbNumFactor"]
                or (core.core == len(p.cores) - 1 and core.count != p.fields["blockFactor"])
            )
            if output == "loss":
                assert loc.offset == row - start
            assert loc.offset is not None and 0 <= loc.offset < p.ub_buffers[0].bytes_each


def test_c_one_is_contiguous_vector() -> None:
    p = sce("fp16", (4, 1, 7, 9))
    assert p.fields["fullLoadMode"] == C_ONE and p.fields["hw"] == 63
    assert copy_params(p.fields, 2, 5, 7) == {
        "gmOffset": 5,
        "blockCount": 1,
        "blockLen": 14,
        "srcStride": 0,
        "ubRowStride": 0,
    }
    assert sce("fp32", (8, 4705)).fields["fullLoadMode"] == 0 and sce("fp32", (8, 4705)).tiling_key == SPLIT_R
