"""EmbeddingDenseGrad host tiling (spec §3): worked examples X1-X4, §7 sweeps, hypothesis properties."""

from __future__ import annotations

import ctypes
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench.core.errors import InvalidInput, UnknownName
from workbench.core.tiling import ceil_div, even_split
from workbench.ops.embedding_dense_grad.layout import FIELDS, EmbeddingDenseGradTilingData
from workbench.ops.embedding_dense_grad.tiling import window
from workbench.planning import pipeline
from workbench.planning.case import Case

ROOT = Path(__file__).resolve().parent.parent
MiB16 = 16 * 1024 * 1024


def plan(shape, nw, **attrs):
    return pipeline.plan(Case("embedding_dense_grad", ("float32",), shape, attrs={"num_weights": nw, **attrs}))


def ub(p) -> dict[str, int]:
    return {b.name: b.total for b in p.ub_buffers}


def test_x1_main_path():
    p = plan((4096, 512), 1000)
    f = p.fields
    assert (p.tiling_key, p.tiling_name, p.block_dim) == (0, "SEGMENT_ATOMIC", 8)
    assert (f["usedCoreNum"], f["formerCoreNum"], f["formerRowNum"], f["tailRowNum"]) == (8, 0, 512, 512)
    assert [(c.start, c.count) for c in p.cores] == [(512 * i, 512) for i in range(8)]
    assert (f["isAlignedD"], f["ubProcessNum"], f["colLoopNum"], f["colTailNum"]) == (1, 512, 1, 512)
    assert f["rowBatchNum"] == 122 == (261120 - 8192 - 2048 - 288) // 2048
    assert all((c.tiles, c.last_tile) == (5, 24) for c in p.cores)  # 4 batches of 122 rows and 1 of 24
    assert ub(p) == {"idxBuf": 8192, "accBuf": 2048, "gradBuf": 122 * 2048, "cntBlk": 32, "syncBuf": 256}
    assert p.ub_used == 260384 and p.ub_capacity == 261120
    assert 249856 in p.copy_bytes and 2048 in p.copy_bytes  # one contiguous batch load; one 2048 B flush
    assert p.workspace_bytes == 16777216 and f["countsLength"] == f["p2FormerNum"] == 0
    assert any("at risk" in n for n in p.notes) is False


def test_x1_provenance_names_the_cores_that_flush_a_row():
    """Key 0 adds each row atomically from every core whose row range holds its index: with the inputs, the
    report names those cores (rows split 512 per core); without them, no core is claimed."""
    p = plan((4096, 512), 1000)
    idx = np.zeros(4096, np.int32)
    idx[[5, 600, 601, 4000]] = 7  # rows on cores 0, 1 and 7
    idx[100] = 9  # one row on core 0
    inputs = {"sort_indices": idx}
    seven = p.locate(7 * 512 + 3, inputs=inputs)
    assert (seven.core, seven.cores) == (None, (0, 1, 7)) and str(seven).startswith("cores 0, 1, 7, tile 0, offset 3")
    nine = p.locate(9 * 512, inputs=inputs)
    assert (nine.core, nine.cores) == (0, (0,)) and str(nine).startswith("core 0,")
    unseen = p.locate(11 * 512, inputs=inputs)
    assert unseen.cores == () and "never written" in unseen.detail
    assert p.locate(7 * 512).core is None and "data-dependent" in p.locate(7 * 512).detail


def test_x2_unaligned():
    p = plan((1000, 100), 500)
    f = p.fields
    assert p.tiling_name == "SEGMENT_ATOMIC_UNALIGNED" and any(
        "key 0 (unaligned D: scalar window path" in n for n in p.notes
    )
    assert (f["usedCoreNum"], f["formerCoreNum"], f["formerRowNum"], f["tailRowNum"]) == (8, 0, 125, 125)
    assert (f["isAlignedD"], f["ubProcessNum"], f["colLoopNum"], f["rowBatchNum"]) == (0, 100, 1, 1)
    assert ub(p) == {"idxBuf": 8192, "gradWin": 4 * 112, "accWin": 4 * 112, "cntBlk": 32, "syncBuf": 256}
    assert window(100, 100) == (96, 4, 104)  # grad row 1 reads elements [96, 200)
    assert window(3800, 100) == (3800, 0, 104)  # out row 38 also adds +0 to 3900..3903 (row 39)
    assert window(3700, 100)[:2] == (3696, 4)  # out row 37
    cs, _, n = window(499 * 100, 100)
    assert cs + n == 50000  # the last row ends exactly at the end of out
    cs, _, n = window(500 * 100, 100)
    assert (cs + n - 501 * 100) * 4 == 16  # num_weights 501: 16 B past the end (DECISION-EDG-7a)
    assert p.copy_bytes == (416, 512)  # windows of 104 elements; 125 indices rounded up to 128
    assert all(c.tiles == 125 for c in p.cores)
    loc = p.locate(38 * 100 + 5)
    assert (loc.core, loc.tile, loc.offset) == (None, 0, 5) and "cs 3800 off 0 len 104" in loc.detail


def test_x3_scale_phase2():
    p = plan((16, 64), 10, padding_idx=3, scale_grad_by_freq=True)
    f = p.fields
    assert (p.tiling_key, p.tiling_name) == (1, "SCALE_BY_FREQ")
    assert [(c.start, c.count) for c in p.cores] == [(2 * i, 2) for i in range(8)]
    assert (f["paddingIdx"], f["countsLength"], f["syncOffset"]) == (3, 16, 64)
    assert (f["p2FormerCoreNum"], f["p2FormerNum"], f["p2TailNum"]) == (2, 2, 1)
    assert p.workspace_bytes == 16777536 == MiB16 + 16 * 4 + 8 * 32
    owners = [p.locate(k * 64).core for k in range(10)]
    assert owners == [0, 0, 1, None, 2, 3, 4, 5, 6, 7]  # row 3 is padding: never written
    assert "padding row" in p.locate(3 * 64 + 1).detail
    idx = np.array([0, 0, 0, 1, 2, 2, 3, 3, 3, 3, 5, 7, 7, 7, 9, 9])
    pairs = [list(idx[c.start : c.stop]) for c in p.cores]
    assert pairs == [[0, 0], [0, 1], [2, 2], [3, 3], [3, 3], [5, 7], [7, 7], [9, 9]]
    flushes = [[(int(k), len(list(g))) for k, g in __import__("itertools").groupby(pr) if k != 3] for pr in pairs]
    assert flushes == [[(0, 2)], [(0, 1), (1, 1)], [(2, 2)], [], [], [(5, 1), (7, 1)], [(7, 2)], [(9, 2)]]
    assert [(7 - 7 % 8, 7 % 8), (9 - 9 % 8, 9 % 8)] == [(0, 7), (8, 1)]  # count blocks of k = 7 and k = 9


def test_x4_column_chunks():
    p = plan((4096, 8192), 1000)
    f = p.fields
    assert (f["ubProcessNum"], f["colLoopNum"], f["colTailNum"], f["rowBatchNum"]) == (4096, 2, 4096, 14)
    assert 14 == (261120 - 8192 - 16384 - 288) // 16384
    assert any("blockLen 512 blocks, srcStride 512 blocks" in n for n in p.notes)
    assert 14 * 4096 * 4 in p.copy_bytes and 16384 in p.copy_bytes
    assert p.cores[0].tiles == ceil_div(512, 14) * 2 and p.cores[0].last_tile == 512 - 36 * 14
    loc = p.locate(5 * 8192 + 4097)
    assert (loc.tile, loc.offset, loc.tail) == (1, 1, False)


def test_column_tail_and_at_risk():
    p = plan((4096, 4104), 1000)  # G03: one 4096 chunk + 8 tail
    assert (p.fields["colLoopNum"], p.fields["colTailNum"]) == (2, 8)
    assert p.locate(4100).tail and p.locate(4100).offset == 4
    p = plan((4096, 512), 100000)  # G19: out 204.8 MB > 16 MiB L2
    assert any(n.startswith("at risk") for n in p.notes)


def test_src_stride_fallback():
    assert plan((32, 524288), 4).fields["rowBatchNum"] == 4  # widest stride (524288 - 4096) / 8 = 65024 fits
    # the tail chunk (4088 wide) needs srcStride (528376 - 4088) / 8 = 65536 > 65535: one DataCopy per row
    p = plan((32, 528376), 4)
    assert p.fields["rowBatchNum"] == 1 and any("uint16" in n for n in p.notes)
    assert plan((32, 532480), 4).fields["rowBatchNum"] == 1  # D > 528,376 (§3.3)


def test_n_below_core_count_and_g16():
    p = plan((3, 64), 5)  # G10
    assert p.block_dim == 3 and [(c.start, c.count) for c in p.cores] == [(0, 1), (1, 1), (2, 1)]
    p = plan((4096, 128), 3, scale_grad_by_freq=True)  # G16: nW < usedCoreNum, idle Phase-2 cores
    assert (p.fields["p2FormerCoreNum"], p.fields["p2FormerNum"], p.fields["p2TailNum"]) == (3, 1, 0)
    assert [p.locate(k * 128).core for k in range(3)] == [0, 1, 2]


def test_g17_unaligned_phase2_units():
    p = plan((1000, 100), 501, scale_grad_by_freq=True)
    units = ceil_div(501 * 100, 8)
    assert units == 6263 and (p.fields["p2FormerCoreNum"], p.fields["p2FormerNum"], p.fields["p2TailNum"]) == (
        units % 8,
        ceil_div(units, 8),
        units // 8,
    )
    assert p.locate(50099).core == 7 and p.tiling_name == "SCALE_BY_FREQ_UNALIGNED"


def test_locate_rejects():
    p = plan((16, 64), 10)
    with pytest.raises(InvalidInput, match="index"):
        p.locate(640)
    with pytest.raises(UnknownName, match="output"):
        p.locate(0, "grad")


def test_layout_matches_header():
    header = (ROOT / "kernels/embedding_dense_grad/embedding_dense_grad_tiling.h").read_text()
    assert "struct EmbeddingDenseGradTilingData {" in header and "#pragma once" in header
    assert tuple(re.findall(r"^\s*int64_t (\w+);", header, re.M)) == FIELDS
    assert ctypes.sizeof(EmbeddingDenseGradTilingData) == 8 * len(FIELDS)
    p = plan((4096, 512), 1000)
    assert tuple(p.fields) == FIELDS and p.tiling_data().rowBatchNum == 122 and len(p.tiling_bytes()) == 160


# -- §7 tiling-only sweeps and properties -------------------------------------------------------------------
def check_plan(p, n: int, d: int, nw: int, scale: bool) -> None:
    f = p.fields
    assert [(c.start, c.count) for c in p.cores] == even_split(n, f["usedCoreNum"])  # partition of [0, N)
    assert sum(c.count for c in p.cores) == n and all(c.count > 0 for c in p.cores)
    assert p.block_dim == len(p.cores) == min(8, n)
    assert p.ub_used <= p.ub_capacity == 261120
    assert f["colLoopNum"] * f["ubProcessNum"] >= d > (f["colLoopNum"] - 1) * f["ubProcessNum"]
    assert 0 < f["colTailNum"] <= f["ubProcessNum"] <= 4096
    assert 1 <= f["rowBatchNum"] <= 4095 and (f["isAlignedD"] or f["rowBatchNum"] == 1)
    ws = MiB16 + (math.ceil(nw / 8) * 8 * 4 + f["usedCoreNum"] * 32 if scale else 0)
    assert p.workspace_bytes == ws
    assert p.copy_bytes and all(b % 32 == 0 and b > 0 for b in p.copy_bytes)
    for c in p.cores:
        batches = ceil_div(c.count, f["rowBatchNum"])
        assert c.tiles == batches * f["colLoopNum"] and 0 < c.last_tile <= f["rowBatchNum"]


@pytest.mark.parametrize("scale", [False, True])
def test_sweep(scale):
    for n in [*range(1, 21), 4095, 4096, 4097]:
        for d in [*range(1, 21), *range(4095, 4106), 8192]:
            check_plan(plan((n, d), 1000, scale_grad_by_freq=scale), n, d, 1000, scale)


@st.composite
def shapes(draw):
    lead = draw(st.lists(st.integers(1, 40), min_size=1, max_size=3))
    d = draw(st.one_of(st.integers(1, 64), st.integers(4090, 12300), st.sampled_from([8, 512, 100, 528376])))
    nw = draw(st.integers(1, 10**6))
    return (*lead, d), nw, draw(st.integers(-3, nw + 3)), draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(shapes(), st.data())
def test_properties(params, data):
    shape, nw, pad, scale = params
    p = plan(shape, nw, padding_idx=pad, scale_grad_by_freq=scale)
    n, d = math.prod(shape[:-1]), shape[-1]
    check_plan(p, n, d, nw, scale)
    f = p.fields
    assert f["paddingIdx"] == (pad if 0 <= pad < nw else -1)
    e = data.draw(st.integers(0, nw * d - 1))
    loc = p.locate(e)
    k, col = divmod(e, d)
    assert loc.tile * f["ubProcessNum"] + loc.offset == col and loc.tail == (
        loc.tile == f["colLoopNum"] - 1 and f["colTailNum"] != f["ubProcessNum"]
    )
    if k == f["paddingIdx"] or not scale:
        assert loc.core is None
    else:  # the Phase-2 owner is the core whose split range holds the row (aligned) or 8-element unit
        units = nw if f["isAlignedD"] else ceil_div(nw * d, 8)
        unit = k if f["isAlignedD"] else e // 8
        start, count = even_split(units, f["usedCoreNum"])[loc.core]
        assert start <= unit < start + count


def test_locate_under_scale_grad_by_freq_names_phase_2_only_for_rows_it_rescales() -> None:
    case = wb.Case(
        "embedding_dense_grad", ("float32", "int32"), (16, 64), attrs={"num_weights": 10, "scale_grad_by_freq": True}
    )
    plan = wb.plan(case)
    idx = np.array([0, 1, 2, 2, 3, 3, 3, 5, 5, 6, 6, 6, 6, 7, 8, 9], np.int32)  # 8 cores x 2 rows
    inputs = {**wb.make_inputs(case), "sort_indices": idx}
    once = plan.locate(1 * 64, "out", inputs)  # count 1: only its Phase-1 flush writes it (core 0, rows 0-1)
    assert once.core == 0 and once.cores == (0,) and "Phase 2 leaves it" in once.detail
    never = plan.locate(4 * 64, "out", inputs)  # count 0: nobody writes it
    assert never.core is None and never.cores == () and "never written" in never.detail
    scaled = plan.locate(6 * 64, "out", inputs)  # count 4 over cores 4, 5, 6: Phase 2 rescales it
    assert scaled.cores == (4, 5, 6) and "Phase-2 owner" in scaled.detail and scaled.core is not None
