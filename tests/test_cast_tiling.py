"""Cast host tiling (cast.md §4): worked examples E1-E3, T02 edges, empty/scalar staging, properties."""

from __future__ import annotations

import ctypes
import dataclasses
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.errors import InfeasibleTiling, InvalidInput
from workbench.core.tiling import TilingPlan
from workbench.ops.cast.layout import CastTilingData
from workbench.ops.cast.tables import PAIRS
from workbench.ops.cast.tiling import block_elems, plan, ub_former
from workbench.planning.case import Case

PAIR_LIST = list(PAIRS)


def _plan(src: str, dst: str, n: int | tuple[int, ...]) -> TilingPlan:
    return plan(Case("cast", (src, dst), (n,) if isinstance(n, int) else n))


def _check_plan(p: TilingPlan, n: int) -> None:
    """The §4 invariants every plan must satisfy."""
    f = p.fields
    block, ub, tail = f["blockElems"], f["ubFormer"], f["tailElems"]
    assert f["totalElements"] == n and p.block_dim == f["usedCoreNum"] == len(p.cores) <= 8
    assert ub % 256 == 0 and ub >= 256 and tail == n % block
    assert p.workspace_bytes == 0 and p.ub_used <= p.ub_capacity
    assert all(c % 32 == 0 and c > 0 for c in p.copy_bytes)
    data = p.tiling_data()
    assert isinstance(data, CastTilingData) and ctypes.sizeof(data) == 64  # 8 + 14*4, no padding
    assert {name: getattr(data, name) for name, _ in data._fields_} == dict(f)
    if n == 0:
        assert p.cores == () and p.block_dim == 0 and p.copy_bytes == ()
        return
    # the ranges (aligned blocks + the tail's new elements) cover [0, N) exactly once, in order
    covered = 0
    for c in p.cores:
        assert c.start == covered
        aligned = c.count - c.tail
        assert aligned % block == 0
        if aligned:
            assert aligned == (f["formerElems"] if c.core < f["formerNum"] else f["latterElems"])
            assert (c.tiles - 1) * ub + c.last_tile == aligned and 0 < c.last_tile <= ub and c.last_tile % block == 0
        covered += c.count
    assert covered == n
    assert all(c.tail == 0 for c in p.cores[:-1]) and p.cores[-1].tail == tail
    if f["scalarStaging"]:
        assert 0 < n < block and p.block_dim == 1 and p.copy_bytes == () and p.cores[0].tiles == 0
    else:
        last = p.cores[-1]
        assert last.start <= n - block  # the back-stepped window never leaves the last core's range
        assert f["formerNum"] == (n // block) % p.block_dim
    # locate() agrees with the ranges
    probes = {0, n - 1, n // 2, max(0, n - tail - 1), max(0, n - block)} | {c.start for c in p.cores}
    probes |= {c.stop - 1 for c in p.cores} | {min(n - 1, c.start + ub) for c in p.cores}
    for i in probes:
        loc = p.locate(i)
        core = p.cores[loc.core]
        assert core.start <= i < core.stop
        if loc.tail:
            assert loc.core == p.block_dim - 1
            assert i == (0 if f["scalarStaging"] else n - block) + loc.offset and i >= n - tail
        else:
            assert core.start + loc.tile * ub + loc.offset == i and loc.offset < ub and loc.tile < core.tiles


def test_e1_f32_to_f16_1e6():
    p = _plan("float32", "float16", 1_000_000)
    assert (p.tiling_key, p.tiling_name, p.fields["pathClass"]) == (0, "DIRECT", 0)
    assert p.fields["ubFormer"] == 20992 and 253952 // 12 == 21162 and p.ub_used == 251904
    assert p.fields["blockElems"] == 16 and 1_000_000 // 16 == 62500 and p.fields["tailElems"] == 0
    assert p.fields["formerNum"] == 4 and 62500 // 8 == 7812
    assert p.fields["formerElems"] == 125008 and p.fields["formerTileNum"] == 6
    assert p.fields["formerLastTileSize"] == 20048
    assert p.fields["latterElems"] == 124992 and p.fields["latterTileNum"] == 6
    assert p.fields["latterLastTileSize"] == 20032
    assert [c.core for c in p.cores if c.count == 125008] == [0, 1, 2, 3]
    assert [c.core for c in p.cores if c.count == 124992] == [4, 5, 6, 7]
    assert all(c.tail == 0 for c in p.cores) and 4 * 125008 + 4 * 124992 == 1_000_000
    assert p.fields["roundMode"] == 0 and p.fields["scalarStaging"] == 0
    assert p.copy_bytes == tuple(sorted({20992 * 4, 20992 * 2, 20048 * 4, 20048 * 2, 20032 * 4, 20032 * 2}))
    _check_plan(p, 1_000_000)


def test_e2_bf16_to_i8_100003():
    p = _plan("bfloat16", "int8", 100_003)
    assert (p.tiling_key, p.tiling_name) == (6, "BF16_TO_OTHER") and PAIRS[("bfloat16", "int8")].middle_bytes == 28
    assert 253952 // 34 == 7469 and p.fields["ubFormer"] == 7424 and p.ub_used == 252416
    assert p.fields["blockElems"] == 32 and 100_003 // 32 == 3125 and p.fields["tailElems"] == 3
    assert 3125 // 8 == 390 and p.fields["formerNum"] == 5
    assert (p.fields["formerElems"], p.fields["formerTileNum"], p.fields["formerLastTileSize"]) == (12512, 2, 5088)
    assert (p.fields["latterElems"], p.fields["latterTileNum"], p.fields["latterLastTileSize"]) == (12480, 2, 5056)
    assert [c.count - c.tail for c in p.cores] == [12512] * 5 + [12480] * 3
    assert p.cores[7].tail == 3 and p.cores[7].stop == 100_003
    loc = p.locate(100_002)
    assert (loc.core, loc.tail, loc.offset) == (7, True, 31) and "[99971, 100003)" in loc.detail
    assert 5 * 12512 + 3 * 12480 + 3 == 100_003
    assert p.fields["roundMode"] == 5  # CAST_TRUNC
    assert {32, 64} <= set(p.copy_bytes)  # the BLOCK window: 32 bf16 in, 32 int8 out
    _check_plan(p, 100_003)


def test_e3_i64_to_i32_1000001():
    p = _plan("int64", "int32", 1_000_001)
    assert (p.tiling_key, p.tiling_name) == (3, "NARROW64") and PAIRS[("int64", "int32")].middle_bytes == 0
    assert 253952 // 24 == 10581 and p.fields["ubFormer"] == 10496 and p.ub_used == 251904
    assert p.fields["blockElems"] == 8 and 1_000_001 // 8 == 125000 and p.fields["tailElems"] == 1
    assert p.fields["formerNum"] == 0 and 125000 // 8 == 15625
    assert (p.fields["latterElems"], p.fields["latterTileNum"], p.fields["latterLastTileSize"]) == (125000, 12, 9544)
    assert (p.fields["formerElems"], p.fields["formerTileNum"]) == (0, 0)  # "none"
    assert [c.count - c.tail for c in p.cores] == [125000] * 8 and p.cores[7].tail == 1
    assert "[999993, 1000001)" in p.locate(1_000_000).detail and 8 * 125000 + 1 == 1_000_001
    _check_plan(p, 1_000_001)


def test_ub_buffers_named_and_sized():
    p = _plan("float16", "int8", 4096)
    ub = p.fields["ubFormer"]
    assert [(b.name, b.count, b.bytes_each) for b in p.ub_buffers] == [
        ("inQue", 2, ub * 2),
        ("outQue", 2, ub * 1),
        ("I", 1, ub * 4),
        ("M32", 1, ub * 4),
        ("I16", 1, ub * 2),
        ("H", 1, ub * 2),
    ]
    assert p.ub_used == ub * 18
    byte_copy = _plan("int8", "uint8", 4096)
    assert "TQueBind" in byte_copy.ub_buffers[0].note and byte_copy.ub_used == byte_copy.fields["ubFormer"] * 4


@pytest.mark.parametrize("shape", [(0,), (3, 0, 5)])
def test_empty_no_launch(shape):
    p = _plan("float32", "int8", shape)
    assert p.block_dim == 0 and p.fields["usedCoreNum"] == 0 and p.workspace_bytes == 0 and p.cores == ()
    assert any("no launch" in note for note in p.notes)
    with pytest.raises(InvalidInput, match="index"):
        p.locate(0)


@pytest.mark.parametrize(("src", "dst", "n"), [("float32", "float16", 15), ("int8", "int64", 1), ("int16", "int8", ())])
def test_scalar_staging(src, dst, n):
    p = _plan(src, dst, n)
    size = 1 if n == () else n
    assert p.fields["scalarStaging"] == 1 and p.block_dim == 1 and p.fields["tailElems"] == size
    assert p.fields["formerNum"] == p.fields["latterElems"] == p.fields["latterTileNum"] == 0
    assert p.copy_bytes == () and any("scalar staging" in note for note in p.notes)
    loc = p.locate(size - 1)
    assert (loc.core, loc.tail, loc.offset) == (0, True, size - 1)
    _check_plan(p, size)


def test_notes_explain_the_path():
    notes = "\n".join(_plan("int32", "int8", 1000).notes)
    assert "target I8/U8" in notes and "N8(src)" in notes and "(-2048, 1920)" in notes and "CAST_NONE" in notes
    assert "tail" in notes  # 1000 = 31 blocks of 32 + 8
    assert "BF16->F32" in "\n".join(_plan("bfloat16", "float32", 64).notes)


@pytest.mark.parametrize(("src", "dst"), PAIR_LIST, ids=[f"{s}-{d}" for s, d in PAIR_LIST])
def test_t02_tiling_edges(src, dst):
    block, ub = block_elems(src, dst), ub_former(src, dst, 262144)
    for n in (
        block - 1,
        block,
        block + 1,
        8 * block - 1,
        8 * block + 1,
        ub,
        ub + block + 1,
        8 * ub - 1,
        8 * ub + block + 3,
    ):
        _check_plan(_plan(src, dst, n), n)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PAIR_LIST), st.integers(0, 3_000_000))
def test_property_large(pair, n):
    _check_plan(_plan(*pair, n), n)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PAIR_LIST), st.integers(0, 700))
def test_property_small(pair, n):
    _check_plan(_plan(*pair, n), n)


def test_infeasible_ub_raises():
    # no delivered SoC is this small; a shrunken 310P shows the message (BF16->I64 needs 52 B/elem)
    case = Case("cast", ("bfloat16", "int64"), (1024,))
    tiny = SimpleNamespace(dtypes=case.dtypes, shape=case.shape, soc=dataclasses.replace(case.soc, ub_size=16384))
    with pytest.raises(InfeasibleTiling, match=r"ubFormer: got 0; allowed: >= 256 elements: bfloat16->int64 needs 52"):
        plan(tiny)  # type: ignore[arg-type]
