"""Cast contract (cast.md §1-§3): SPEC fields, the 60-pair matrix, the §3.4 truth tables, validation (T13)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.core.dtypes import GE_ENUM
from workbench.core.errors import InvalidAttr, InvalidDtype, InvalidFormat, InvalidShape, NullTensor
from workbench.core.opspec import TensorDesc
from workbench.ops.cast import SPEC
from workbench.ops.cast.layout import CastTilingData
from workbench.ops.cast.tables import CLASS_NAMES, PAIRS, ROUND_MODES, SHORT, precedence_class
from workbench.ops.cast.tiling import block_elems, bytes_per_elem, ub_former
from workbench.planning.case import Case

# cast.md §3.4, copied verbatim: # | pair | key | chain | roundMode | mid | bpe | ubFormer* | BLOCK | moved | vecB
TABLE_34 = """
| 1 | F16→F32 | 0 | f16 -N-> f32 | NONE | 0 | 12 | 20992 | 16 | 6 | 4 |
| 2 | F16→I32 | 0 | f16 -Z-> i32 | TRUNC | 0 | 12 | 20992 | 16 | 6 | 4 |
| 3 | F16→I16 | 1 | f16 -Z-> i32[I] -N-> i16 (sat) | TRUNC | 4 | 12 | 20992 | 16 | 4 | 8 |
| 4 | F16→I8 | 8 | f16 -Z-> i32[I]; N8(I) | TRUNC | 12 | 18 | 14080 | 32 | 3 | 16 |
| 5 | F16→U8 | 8 | f16 -Z-> i32[I]; N8(I) | TRUNC | 12 | 18 | 14080 | 32 | 3 | 16 |
| 6 | F16→BOOL | 2 | Abs, Mins(1.0) in place; f16 -C-> u8 | CEIL | 0 | 6 | 42240 | 32 | 3 | 6 |
| 7 | F32→F16 | 0 | f32 -N-> f16 | NONE | 0 | 12 | 20992 | 16 | 6 | 4 |
| 8 | F32→I32 | 0 | f32 -Z-> i32 | TRUNC | 0 | 16 | 15872 | 8 | 8 | 4 |
| 9 | F32→I16 | 1 | f32 -Z-> i32[I] -N-> i16 (sat) | TRUNC | 4 | 16 | 15872 | 16 | 6 | 8 |
| 10 | F32→I8 | 8 | f32 -Z-> i32[I]; N8(I) | TRUNC | 12 | 22 | 11520 | 32 | 5 | 16 |
| 11 | F32→U8 | 8 | f32 -Z-> i32[I]; N8(I) | TRUNC | 12 | 22 | 11520 | 32 | 5 | 16 |
| 12 | F32→BOOL | 2 | Abs in place; f32 -C-> i32[I]; Mins(I,1); -N-> i16[I16] -N-> f16[H] -N-> u8 | CEIL | 8 | 18 | 14080 | 32 | 5 | 20 |
| 13 | F32→I64 | 4 | f32 -Z-> i32 into RH.R; W64 | TRUNC | 16 | 40 | 6144 | 8 | 12 | 20 |
| 14 | I32→F32 | 0 | i32 -N-> f32 (RNE) | NONE | 0 | 16 | 15872 | 8 | 8 | 4 |
| 15 | I32→F16 | 1 | i32 -N-> f32[F] -N-> f16 | NONE | 4 | 16 | 15872 | 16 | 6 | 8 |
| 16 | I32→I16 | 0 | i32 -N-> i16 (sat) | NONE | 0 | 12 | 20992 | 16 | 6 | 4 |
| 17 | I32→I8 | 8 | N8(src) | NONE | 8 | 18 | 14080 | 32 | 5 | 12 |
| 18 | I32→U8 | 8 | N8(src) | NONE | 8 | 18 | 14080 | 32 | 5 | 12 |
| 19 | I32→BOOL | 2 | i32 -N-> i16[I16] (sat, keeps !=0) -N-> f16[H]; BOOLH(H) | NONE | 4 | 14 | 17920 | 32 | 5 | 12 |
| 20 | I32→I64 | 4 | Adds(RH.R, src, 0); W64 | NONE | 16 | 40 | 6144 | 8 | 12 | 20 |
| 21 | I8→F16 | 0 | s8 -N-> f16 | NONE | 0 | 6 | 42240 | 32 | 3 | 2 |
| 22 | I8→F32 | 1 | s8 -N-> f16[H] -N-> f32 | NONE | 2 | 12 | 20992 | 32 | 5 | 6 |
| 23 | I8→I32 | 1 | s8 -N-> f16[H] -Z-> i32 | TRUNC | 2 | 12 | 20992 | 32 | 5 | 6 |
| 24 | I8→I16 | 1 | s8 -N-> f16[H] -R-> i16 | RINT | 2 | 8 | 31744 | 32 | 3 | 4 |
| 25 | I8→U8 | 7 | byte copy (TQueBind) | NONE | 0 | 4 | 63488 | 32 | 2 | 0 |
| 26 | I8→BOOL | 2 | s8 -N-> f16[H]; BOOLH(H) | NONE | 2 | 6 | 42240 | 32 | 2 | 8 |
| 27 | I8→I64 | 4 | s8 -N-> f16[H] -Z-> i32 into RH.R; W64 | TRUNC | 18 | 36 | 6912 | 32 | 9 | 22 |
| 28 | U8→F16 | 0 | u8 -N-> f16 | NONE | 0 | 6 | 42240 | 32 | 3 | 2 |
| 29 | U8→F32 | 1 | u8 -N-> f16[H] -N-> f32 | NONE | 2 | 12 | 20992 | 32 | 5 | 6 |
| 30 | U8→I32 | 1 | u8 -N-> f16[H] -Z-> i32 | TRUNC | 2 | 12 | 20992 | 32 | 5 | 6 |
| 31 | U8→I8 | 7 | byte copy (TQueBind) | NONE | 0 | 4 | 63488 | 32 | 2 | 0 |
| 32 | U8→I16 | 1 | u8 -N-> f16[H] -R-> i16 | RINT | 2 | 8 | 31744 | 32 | 3 | 4 |
| 33 | U8→I64 | 4 | u8 -N-> f16[H] -Z-> i32 into RH.R; W64 | TRUNC | 18 | 36 | 6912 | 32 | 9 | 22 |
| 34 | I16→F16 | 0 | i16 -N-> f16 (RNE) | NONE | 0 | 8 | 31744 | 16 | 4 | 2 |
| 35 | I16→F32 | 1 | SPLIT(f32, N) -> dst | NONE | 12 | 24 | 10496 | 16 | 6 | 20 |
| 36 | I16→I32 | 1 | SPLIT(i32, Z) -> dst | TRUNC | 12 | 24 | 10496 | 16 | 6 | 20 |
| 37 | I16→I8 | 8 | N8h(src) | NONE | 4 | 10 | 25344 | 32 | 3 | 6 |
| 38 | I16→U8 | 8 | N8h(src) | NONE | 4 | 10 | 25344 | 32 | 3 | 6 |
| 39 | I16→I64 | 4 | SPLIT(i32, Z) -> RH.R; W64 | TRUNC | 28 | 48 | 5120 | 16 | 10 | 36 |
| 40 | BOOL→F16 | 0 | u8 -N-> f16 | NONE | 0 | 6 | 42240 | 32 | 3 | 2 |
| 41 | BOOL→F32 | 1 | u8 -N-> f16[H] -N-> f32 | NONE | 2 | 12 | 20992 | 32 | 5 | 6 |
| 42 | BOOL→I32 | 1 | u8 -N-> f16[H] -Z-> i32 | TRUNC | 2 | 12 | 20992 | 32 | 5 | 6 |
| 43 | BOOL→I8 | 7 | byte copy (TQueBind) | NONE | 0 | 4 | 63488 | 32 | 2 | 0 |
| 44 | BOOL→U8 | 7 | byte copy (TQueBind) | NONE | 0 | 4 | 63488 | 32 | 2 | 0 |
| 45 | BOOL→I64 | 4 | u8 -N-> f16[H] -Z-> i32 into RH.R; W64 | TRUNC | 18 | 36 | 6912 | 32 | 9 | 22 |
| 46 | I64→F16 | 3 | LO32 -> [L]; i32 -N-> f32[F] -N-> f16 | NONE | 8 | 28 | 8960 | 16 | 10 | 16 |
| 47 | I64→F32 | 3 | LO32 -> [L]; i32 -N-> f32 (RNE) | NONE | 4 | 28 | 8960 | 8 | 12 | 12 |
| 48 | I64→I32 | 3 | LO32 -> dst | NONE | 0 | 24 | 10496 | 8 | 12 | 8 |
| 49 | I64→I8 | 3 | LO16 -> [W]; N8h(W) | NONE | 6 | 24 | 10496 | 32 | 9 | 14 |
| 50 | I64→U8 | 3 | LO16 -> [W]; N8h(W) | NONE | 6 | 24 | 10496 | 32 | 9 | 14 |
| 51 | I64→I16 | 3 | LO32 -> [L]; i32 -N-> i16 (sat) | NONE | 4 | 24 | 10496 | 16 | 10 | 12 |
| 52 | I64→BOOL | 3 | LO32 -> [L], HI32 -> [U]; Or(L.u16, U.u16); -N-> i16[I16] -N-> f16[H]; BOOLH(H) | NONE | 12 | 30 | 8448 | 32 | 9 | 32 |
| 53 | BF16→F32 | 5 | XB(X = dst) | NONE | 12 | 24 | 10496 | 16 | 6 | 24 |
| 54 | BF16→F16 | 6 | XB(X); f32 -N-> f16 | NONE | 16 | 24 | 10496 | 16 | 4 | 28 |
| 55 | BF16→I32 | 6 | XB(X); f32 -Z-> i32 | TRUNC | 16 | 28 | 8960 | 16 | 6 | 28 |
| 56 | BF16→I16 | 6 | XB(X); f32 -Z-> i32[I] -N-> i16 (sat) | TRUNC | 20 | 28 | 8960 | 16 | 4 | 32 |
| 57 | BF16→I8 | 6 | XB(X); f32 -Z-> i32[I]; N8(I) | TRUNC | 28 | 34 | 7424 | 32 | 3 | 40 |
| 58 | BF16→U8 | 6 | XB(X); f32 -Z-> i32[I]; N8(I) | TRUNC | 28 | 34 | 7424 | 32 | 3 | 40 |
| 59 | BF16→BOOL | 6 | BOOLB(bits, no expansion) | NONE | 6 | 12 | 20992 | 32 | 3 | 16 |
| 60 | BF16→I64 | 6 | XB(X); f32 -Z-> i32 into RH.R; W64 | TRUNC | 32 | 52 | 4864 | 16 | 10 | 44 |
"""  # noqa: E501


def _rows() -> list[tuple[str, ...]]:
    out = []
    for line in TABLE_34.strip().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        out.append(tuple(cells))
    return out


ROWS = _rows()


def _pair(text: str) -> tuple[str, str]:
    src, dst = text.split("→")
    return SHORT[src], SHORT[dst]


def test_matrix_is_the_60_delivered_pairs():
    assert len(ROWS) == 60 and len(SPEC.dtype_matrix) == 60
    assert [_pair(r[1]) for r in ROWS] == list(SPEC.dtype_matrix)
    by_target: dict[str, int] = {}
    for _, dst in SPEC.dtype_matrix:
        by_target[dst] = by_target.get(dst, 0) + 1
    assert by_target == {
        "float16": 8,
        "float32": 8,
        "int32": 8,
        "int16": 7,
        "int8": 8,
        "uint8": 8,
        "bool": 6,
        "int64": 7,
    }
    assert all(src != dst and dst != "bfloat16" for src, dst in SPEC.dtype_matrix)
    for pair in [("float16", "int64"), ("uint8", "bool"), ("int16", "bool"), ("bool", "int16")]:
        assert pair not in SPEC.dtype_matrix


@pytest.mark.parametrize("row", ROWS, ids=[r[1] for r in ROWS])
def test_truth_tables_match_section_3_4(row):
    _, pair, key, chain, mode, mid, bpe, ubf, block, moved, vec = row
    src, dst = _pair(pair)
    info = PAIRS[(src, dst)]
    assert info.path_class == int(key) and info.class_name == CLASS_NAMES[int(key)]
    assert info.chain == chain.replace("\\|", "|")
    assert info.round_mode == mode and info.round_mode_value == ROUND_MODES[mode]
    assert info.middle_bytes == int(mid) == sum(size for _, size in info.scratch)
    assert bytes_per_elem(src, dst) == int(bpe)
    assert ub_former(src, dst, 262144) == int(ubf)  # UB 262144, reserve 8192 (§4.2, D14)
    assert block_elems(src, dst) == int(block)
    assert int(moved) == int(bpe) - int(mid) - (int(bpe) - int(mid)) // 2
    assert info.vec_bytes == int(vec)


def test_class_counts_and_d1_precedence():
    counts = [sum(1 for i in PAIRS.values() if i.path_class == k) for k in range(9)]
    assert counts == [10, 13, 4, 7, 6, 1, 7, 4, 8]  # §3.2 "Pairs" column
    for (src, dst), info in PAIRS.items():
        assert precedence_class(src, dst)[0] == info.path_class, (src, dst)
    assert PAIRS[("bfloat16", "int64")].path_class == 6  # shares the BF16 prologue, not WIDEN64
    assert PAIRS[("int8", "bool")].path_class == 2  # -5 -> 1: not a byte copy
    assert {PAIRS[("int64", d)].path_class for d in ("bool", "int8", "uint8")} == {3}


def test_named_scratch_buffers():
    assert PAIRS[("float16", "int8")].scratch == (("I", 4), ("M32", 4), ("I16", 2), ("H", 2))
    assert PAIRS[("int16", "float32")].scratch == (("M16hi", 2), ("A", 2), ("HA", 2), ("HB", 2), ("T2", 4))
    assert PAIRS[("float32", "int64")].scratch == (("RH", 8), ("OFF", 8))


def test_spec_fields():
    assert SPEC.name == "cast" and [t.name for t in SPEC.inputs] == ["x"] and [t.name for t in SPEC.outputs] == ["y"]
    assert SPEC.attrs == () and "destination dtype" in SPEC.summary  # aclnnCast's dst_type is Case.dtypes[1]
    assert SPEC.formats == ("ND",) and "Ascend310P" in SPEC.platforms
    assert SPEC.distributions[0] == "default" and {"uniform", "normal", "edges", "exhaustive"} <= set(
        SPEC.distributions
    )
    assert SPEC.tiling_struct is CastTilingData and SPEC.tiling_header == "kernels/cast/cast_tiling.h"
    header = (Path(__file__).resolve().parent.parent / SPEC.tiling_header).read_text()
    assert re.search(r"struct\s+CastTilingData\s*\{", header)
    assert re.findall(r"uint(?:32|64)_t\s+(\w+);", header) == [name for name, _ in CastTilingData._fields_]


def test_standard():
    assert SPEC.standard("y", "float16") == SPEC.standard("y", "float32") == "single_benchmark"
    for dt in ("bool", "int8", "uint8", "int16", "int32", "int64"):
        assert SPEC.standard("y", dt) == "exact"


def _check(src, dst, shape=(4,), out_shape=None, attrs=None, fmt="ND"):
    x = TensorDesc(src, shape, fmt)
    y = TensorDesc(dst, shape if out_shape is None else out_shape, "ND")
    SPEC.check({"x": x, "y": y}, attrs or {})


def test_valid_calls_pass():
    _check("float32", "float16", attrs={"dst_type": GE_ENUM["float16"]})
    _check("bfloat16", "int64", shape=())
    _check("int8", "bool", shape=(1,) * 8)
    _check("int64", "int32", shape=(3, 0, 5))


@pytest.mark.parametrize(("dst_type", "out"), [(GE_ENUM["int32"], "float16"), (0, "float16"), ("int8", "uint8")])
def test_dst_type_must_equal_out_dtype(dst_type, out):
    with pytest.raises(InvalidAttr, match=r"dst_type: got .*allowed: \d+ \(" + out + r"\): dst_type must equal out"):
        _check("float32", out, attrs={"dst_type": dst_type})


def test_dst_type_unknown_enum():
    with pytest.raises(InvalidAttr, match=r"dst_type: got 5; allowed: a ge::DataType enum"):
        _check("float32", "float16", attrs={"dst_type": 5})


@pytest.mark.parametrize(
    ("src", "dst", "allowed"),
    [
        ("uint8", "bool", "uint8 -> float16, float32, int32, int8, int16, int64"),
        ("int16", "bool", "int16 -> float16, float32, int32, int8, uint8, int64"),
        ("bool", "int16", "bool -> float16, float32, int32, int8, uint8, int64"),
        ("float16", "int64", "float16 -> float32, int32, int16, int8, uint8, bool"),
        ("int8", "int8", r"int8 -> .*identity pairs are an aclnn-level copy"),
    ],
)
def test_undelivered_pairs_rejected(src, dst, allowed):
    with pytest.raises(InvalidDtype, match=f"dtype: got '{src}:{dst}'; allowed: {allowed}"):
        _check(src, dst)
    with pytest.raises(InvalidDtype, match=f"dtype: got '{src}:{dst}'; allowed: {allowed}"):
        Case("cast", (src, dst), (4,))


@pytest.mark.parametrize("src", ["float32", "int32", "bool"])
def test_bf16_output_rejected(src):
    with pytest.raises(InvalidDtype, match=r"out.dtype: got 'bfloat16'; allowed: .*BF16 output is never delivered"):
        _check(src, "bfloat16")
    with pytest.raises(InvalidDtype, match=r"BF16 is a source only"):
        Case("cast", (src, "bfloat16"), (4,))


def test_identity_via_case():
    with pytest.raises(InvalidDtype, match=r"got 'float32:float32'; allowed: float32 -> .*D20"):
        Case("cast", ("float32", "float32"), (4,))


def test_single_dtype_is_not_enough():
    with pytest.raises(InvalidDtype, match=r"dtype: got 'float16'; allowed: 60 combinations"):
        Case("cast", ("float16",), (4,))


def test_shape_mismatch_and_rank():
    with pytest.raises(InvalidShape, match=r"out.shape: got \(4, 1\); allowed: \(4,\) \(out.shape == self.shape\)"):
        _check("float16", "float32", out_shape=(4, 1))
    with pytest.raises(InvalidShape, match=r"self.rank: got 9; allowed: 0..8"):
        _check("float16", "float32", shape=(1,) * 9)
    with pytest.raises(InvalidShape, match=r"self.rank: got 9"):
        Case("cast", ("float16", "float32"), (1,) * 9)


def test_null_and_format():
    with pytest.raises(NullTensor, match=r"self: got None.*\[aclnn 161001\]"):
        SPEC.check({"x": None, "y": TensorDesc("float32", (4,))}, {})
    with pytest.raises(NullTensor, match=r"out: got None"):
        SPEC.check({"x": TensorDesc("float16", (4,)), "y": None}, {})
    with pytest.raises(InvalidFormat, match=r"self.format: got 'NC1HWC0'; allowed: ND"):
        _check("float16", "float32", fmt="NC1HWC0")


def test_order_dst_type_before_pair_before_shape():
    # the first failing rule raises (§1 order): dst_type, then pair, then shape
    with pytest.raises(InvalidAttr):
        _check("float16", "int64", out_shape=(5,), attrs={"dst_type": 0})
    with pytest.raises(InvalidDtype):
        _check("float16", "int64", out_shape=(5,))
