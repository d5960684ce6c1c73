"""The host truth tables of docs/ops/cast.md §3.4 (pathClassMap, middleBytesMap, roundModeMap), keyed by (src, dst).

One row per delivered pair. The scratch column lists each scratch TBuf of the chain with its bytes per
element; middleBytes is their sum (D13: constants are full-tile TBufs, no Cast writes in place).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

SHORT: Final[dict[str, str]] = {
    "F16": "float16",
    "F32": "float32",
    "BF16": "bfloat16",
    "I8": "int8",
    "U8": "uint8",
    "I16": "int16",
    "I32": "int32",
    "I64": "int64",
    "BOOL": "bool",
}
LONG: Final[dict[str, str]] = {v: k for k, v in SHORT.items()}

# AscendC::RoundMode values (docs/hardware.md#round-modes): CAST_NONE = 0, CAST_RINT, ..., CAST_ODD = 6
ROUND_MODES: Final[dict[str, int]] = {"NONE": 0, "RINT": 1, "FLOOR": 2, "CEIL": 3, "ROUND": 4, "TRUNC": 5, "ODD": 6}

CLASS_NAMES: Final[tuple[str, ...]] = (
    "DIRECT",
    "TWO_CAST",
    "DST_BOOL",
    "NARROW64",
    "WIDEN64",
    "BF16_TO_F32",
    "BF16_TO_OTHER",
    "SAMEWIDTH_8BIT",
    "NARROW8",
)

# Scratch blocks of §3.3 (name:bytes per element).
_N8 = "M32:4 I16:2 H:2"
_N8H = "M16lo:2 H:2"
_SPLIT = "M16hi:2 A:2 HA:2 HB:2 T2:4"
_W64 = "RH:8 OFF:8"
_XB = f"{_SPLIT} X:4"

# src dst key roundMode vecB | scratch | chain   (§3.4, rows 1..60 in order)
_ROWS = f"""
F16 F32 0 NONE 4 | | f16 -N-> f32
F16 I32 0 TRUNC 4 | | f16 -Z-> i32
F16 I16 1 TRUNC 8 | I:4 | f16 -Z-> i32[I] -N-> i16 (sat)
F16 I8 8 TRUNC 16 | I:4 {_N8} | f16 -Z-> i32[I]; N8(I)
F16 U8 8 TRUNC 16 | I:4 {_N8} | f16 -Z-> i32[I]; N8(I)
F16 BOOL 2 CEIL 6 | | Abs, Mins(1.0) in place; f16 -C-> u8
F32 F16 0 NONE 4 | | f32 -N-> f16
F32 I32 0 TRUNC 4 | | f32 -Z-> i32
F32 I16 1 TRUNC 8 | I:4 | f32 -Z-> i32[I] -N-> i16 (sat)
F32 I8 8 TRUNC 16 | I:4 {_N8} | f32 -Z-> i32[I]; N8(I)
F32 U8 8 TRUNC 16 | I:4 {_N8} | f32 -Z-> i32[I]; N8(I)
F32 BOOL 2 CEIL 20 | I:4 I16:2 H:2 | Abs in place; f32 -C-> i32[I]; Mins(I,1); -N-> i16[I16] -N-> f16[H] -N-> u8
F32 I64 4 TRUNC 20 | {_W64} | f32 -Z-> i32 into RH.R; W64
I32 F32 0 NONE 4 | | i32 -N-> f32 (RNE)
I32 F16 1 NONE 8 | F:4 | i32 -N-> f32[F] -N-> f16
I32 I16 0 NONE 4 | | i32 -N-> i16 (sat)
I32 I8 8 NONE 12 | {_N8} | N8(src)
I32 U8 8 NONE 12 | {_N8} | N8(src)
I32 BOOL 2 NONE 12 | I16:2 H:2 | i32 -N-> i16[I16] (sat, keeps !=0) -N-> f16[H]; BOOLH(H)
I32 I64 4 NONE 20 | {_W64} | Adds(RH.R, src, 0); W64
I8 F16 0 NONE 2 | | s8 -N-> f16
I8 F32 1 NONE 6 | H:2 | s8 -N-> f16[H] -N-> f32
I8 I32 1 TRUNC 6 | H:2 | s8 -N-> f16[H] -Z-> i32
I8 I16 1 RINT 4 | H:2 | s8 -N-> f16[H] -R-> i16
I8 U8 7 NONE 0 | | byte copy (TQueBind)
I8 BOOL 2 NONE 8 | H:2 | s8 -N-> f16[H]; BOOLH(H)
I8 I64 4 TRUNC 22 | H:2 {_W64} | s8 -N-> f16[H] -Z-> i32 into RH.R; W64
U8 F16 0 NONE 2 | | u8 -N-> f16
U8 F32 1 NONE 6 | H:2 | u8 -N-> f16[H] -N-> f32
U8 I32 1 TRUNC 6 | H:2 | u8 -N-> f16[H] -Z-> i32
U8 I8 7 NONE 0 | | byte copy (TQueBind)
U8 I16 1 RINT 4 | H:2 | u8 -N-> f16[H] -R-> i16
U8 I64 4 TRUNC 22 | H:2 {_W64} | u8 -N-> f16[H] -Z-> i32 into RH.R; W64
I16 F16 0 NONE 2 | | i16 -N-> f16 (RNE)
I16 F32 1 NONE 20 | {_SPLIT} | SPLIT(f32, N) -> dst
I16 I32 1 TRUNC 20 | {_SPLIT} | SPLIT(i32, Z) -> dst
I16 I8 8 NONE 6 | {_N8H} | N8h(src)
I16 U8 8 NONE 6 | {_N8H} | N8h(src)
I16 I64 4 TRUNC 36 | {_SPLIT} {_W64} | SPLIT(i32, Z) -> RH.R; W64
BOOL F16 0 NONE 2 | | u8 -N-> f16
BOOL F32 1 NONE 6 | H:2 | u8 -N-> f16[H] -N-> f32
BOOL I32 1 TRUNC 6 | H:2 | u8 -N-> f16[H] -Z-> i32
BOOL I8 7 NONE 0 | | byte copy (TQueBind)
BOOL U8 7 NONE 0 | | byte copy (TQueBind)
BOOL I64 4 TRUNC 22 | H:2 {_W64} | u8 -N-> f16[H] -Z-> i32 into RH.R; W64
I64 F16 3 NONE 16 | L:4 F:4 | LO32 -> [L]; i32 -N-> f32[F] -N-> f16
I64 F32 3 NONE 12 | L:4 | LO32 -> [L]; i32 -N-> f32 (RNE)
I64 I32 3 NONE 8 | | LO32 -> dst
I64 I8 3 NONE 14 | W:2 {_N8H} | LO16 -> [W]; N8h(W)
I64 U8 3 NONE 14 | W:2 {_N8H} | LO16 -> [W]; N8h(W)
I64 I16 3 NONE 12 | L:4 | LO32 -> [L]; i32 -N-> i16 (sat)
I64 BOOL 3 NONE 32 | L:4 U:4 I16:2 H:2 | LO32 -> [L], HI32 -> [U]; Or(L.u16, U.u16); -N-> i16[I16] -N-> f16[H]; BOOLH(H)
BF16 F32 5 NONE 24 | {_SPLIT} | XB(X = dst)
BF16 F16 6 NONE 28 | {_XB} | XB(X); f32 -N-> f16
BF16 I32 6 TRUNC 28 | {_XB} | XB(X); f32 -Z-> i32
BF16 I16 6 TRUNC 32 | {_XB} I:4 | XB(X); f32 -Z-> i32[I] -N-> i16 (sat)
BF16 I8 6 TRUNC 40 | {_XB} I:4 {_N8} | XB(X); f32 -Z-> i32[I]; N8(I)
BF16 U8 6 TRUNC 40 | {_XB} I:4 {_N8} | XB(X); f32 -Z-> i32[I]; N8(I)
BF16 BOOL 6 NONE 16 | M7FFF:2 T:2 H:2 | BOOLB(bits, no expansion)
BF16 I64 6 TRUNC 44 | {_XB} {_W64} | XB(X); f32 -Z-> i32 into RH.R; W64
"""


@dataclass(frozen=True)
class PairInfo:
    """One §3.4 row: the path class (= tilingKey), principal round mode, scratch TBufs, chain and vecB."""

    src: str
    dst: str
    path_class: int
    round_mode: str
    scratch: tuple[tuple[str, int], ...]
    chain: str
    vec_bytes: int

    @property
    def class_name(self) -> str:
        return CLASS_NAMES[self.path_class]

    @property
    def middle_bytes(self) -> int:
        return sum(size for _, size in self.scratch)

    @property
    def round_mode_value(self) -> int:
        return ROUND_MODES[self.round_mode]


def _parse() -> dict[tuple[str, str], PairInfo]:
    table: dict[tuple[str, str], PairInfo] = {}
    for line in _ROWS.strip().splitlines():
        head, scratch, chain = (part.strip() for part in line.split("|"))
        src, dst, key, mode, vec = head.split()
        bufs = tuple((name, int(size)) for name, size in (item.split(":") for item in scratch.split()))
        pair = (SHORT[src], SHORT[dst])
        table[pair] = PairInfo(pair[0], pair[1], int(key), mode, bufs, chain, int(vec))
    return table


PAIRS: Final[dict[tuple[str, str], PairInfo]] = _parse()
PATH_CLASS: Final[dict[tuple[str, str], int]] = {k: v.path_class for k, v in PAIRS.items()}
MIDDLE_BYTES: Final[dict[tuple[str, str], int]] = {k: v.middle_bytes for k, v in PAIRS.items()}
ROUND_MODE: Final[dict[tuple[str, str], int]] = {k: v.round_mode_value for k, v in PAIRS.items()}
SOURCES: Final[tuple[str, ...]] = tuple(dict.fromkeys(src for src, _ in PAIRS))
TARGETS: Final[dict[str, tuple[str, ...]]] = {s: tuple(d for src, d in PAIRS if src == s) for s in SOURCES}

_BIT8 = frozenset({"bool", "int8", "uint8"})


def precedence_class(src: str, dst: str) -> tuple[int, str]:
    """§3.2, D1: the first matching rule gives the class; returns (class, the rule that matched).

    The last two rules need the m200 hop table (one Cast with the required mode), so they are read from
    the table here; the tests check the first seven rules against every row.
    """
    if src == "bfloat16":
        return (5, "BF16->F32") if dst == "float32" else (6, "any other BF16 source")
    if src == "int64":
        return 3, "I64 source"
    if dst == "int64":
        return 4, "I64 target"
    if src in _BIT8 and dst in _BIT8 and dst != "bool":
        return 7, "both sides in {BOOL, I8, U8} and target != BOOL"
    if dst == "bool":
        return 2, "target BOOL"
    if dst in ("int8", "uint8"):
        return 8, "target I8/U8"
    if PAIRS[(src, dst)].path_class == 0:
        return 0, "one m200 Cast with the required mode"
    return 1, "otherwise (two or more Casts, or SPLIT for I16 sources)"
