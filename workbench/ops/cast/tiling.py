"""Cast host tiling (docs/ops/cast.md §4): whole-block core split, UB budget, tiles, tail window, scalar staging."""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from ...core.dtypes import itemsize
from ...core.errors import InfeasibleTiling, InvalidInput
from ...core.platform import Platform
from ...core.tiling import BLOCK_BYTES, CoreRange, Location, Owners, TilingPlan, UbBuffer, align_down, ceil_div
from .layout import CastTilingData
from .tables import PAIRS, precedence_class

if TYPE_CHECKING:
    from ...planning.case import Case

BUFFER_NUM = 2  # double-buffered in/out queues (§4.2)
UB_RESERVE = 8192  # D14: framework/API temporary UB and runtime UB < ini value
UB_ALIGN = 256  # ubFormer granule: a multiple of every BLOCK, keeps RH.HI 32-B aligned (§4.2)

# §5.4 precision windows, as notes for the pairs they concern; each note says where it is documented.
_WINDOWS = {
    ("int32", "int8"): "I32->I8 exact (contract) only for x in (-2048, 1920); the N8 chain is exact for every int32 "
    "(docs/ops/cast.md §5.4)",
    ("int32", "uint8"): "I32->U8 x in (-2048, 1920); the N8 chain wraps exactly for every int32 "
    "(docs/ops/cast.md §5.4)",
    ("int64", "float32"): "I64->F32 exact only for x in (-2^31, 2^31-1); outside: rne32(wrap32(x)) "
    "(docs/ops/cast.md §5.4)",
    ("float32", "int64"): "F32->I64 exact for f in (-2147483648, 2147483583) (T(f) does not clamp; "
    "docs/ops/cast.md §5.4)",
    ("float32", "uint8"): "F32->U8 exact for f in (-2147483648, 2147483583) (T(f) does not clamp; "
    "docs/ops/cast.md §5.4)",
    ("int64", "int16"): "I64->I16 follows the mathematical result only for x in int32 range "
    "(low word, docs/ops/cast.md D5)",
    ("int64", "float16"): "I64->F16 follows the mathematical result only for x in int32 range "
    "(low word, docs/ops/cast.md D5)",
    ("float32", "bool"): "F32->BOOL: subnormal inputs are a probe (possible FTZ; docs/ops/cast.md §5.4)",
    ("float16", "bool"): "F16->BOOL: subnormal inputs and NaN are a probe (docs/ops/cast.md D10, BOOLB fallback)",
}
_SHORT = {
    "float16": "F16",
    "float32": "F32",
    "bfloat16": "BF16",
    "int8": "I8",
    "uint8": "U8",
    "int16": "I16",
    "int64": "I64",
}
_WINDOWS |= {  # §5.4: every float -> I8/U8/I16/I64 chain goes through int32
    (src, dst): f"{_SHORT[src]}->{_SHORT[dst]} exact (contract) for |f| < 2^31: the chain goes through int32 "
    "(docs/ops/cast.md §5.4)"
    for src in ("float16", "float32", "bfloat16")
    for dst in ("int8", "uint8", "int16", "int64")
    if (src, dst) in PAIRS and (src, dst) not in _WINDOWS
}


def ub_former(src: str, dst: str, ub_size: int, reserve: int = UB_RESERVE) -> int:
    """Elements per tile: floor((UB - reserve) / bytesPerElem) aligned down to 256 (§4.2)."""
    return max(align_down((ub_size - reserve) // bytes_per_elem(src, dst), UB_ALIGN), 0)


def bytes_per_elem(src: str, dst: str) -> int:
    return BUFFER_NUM * (itemsize(src) + itemsize(dst)) + PAIRS[(src, dst)].middle_bytes


def block_elems(src: str, dst: str) -> int:
    return BLOCK_BYTES // min(itemsize(src), itemsize(dst))


def _tiles(elems: int, ub: int) -> tuple[int, int]:
    if elems == 0:
        return 0, 0
    n = ceil_div(elems, ub)
    return n, elems - (n - 1) * ub


def plan(case: Case, soc: Platform | None = None, reserve: int = UB_RESERVE) -> TilingPlan:
    """`soc` and `reserve` default to the case's platform and D14's reserve; pipeline.plan's what-if passes others."""
    src, dst = case.dtypes
    info = PAIRS[(src, dst)]
    plat = soc or case.soc
    s_src, s_dst = itemsize(src), itemsize(dst)
    n = math.prod(case.shape)
    block = block_elems(src, dst)
    ub_size = plat.ub_size  # the ini value (D14 model default); the reserve absorbs a smaller runtime UB
    ub = ub_former(src, dst, ub_size, reserve)
    if ub < UB_ALIGN:
        raise InfeasibleTiling(
            "ubFormer",
            ub,
            f">= {UB_ALIGN} elements: {src}->{dst} needs {bytes_per_elem(src, dst)} B/elem "
            f"but {plat.soc} has {ub_size - reserve} B of UB after the {reserve} B reserve",
        )

    full_blocks, tail = divmod(n, block)
    staging = int(0 < n < block)
    used = 0 if n == 0 else (1 if staging else min(plat.core_num, full_blocks))
    per_core, former_num = divmod(full_blocks, used) if used else (0, 0)
    former_elems = (per_core + 1) * block if former_num else 0
    latter_elems = per_core * block
    f_tiles, f_last = _tiles(former_elems, ub)
    l_tiles, l_last = _tiles(latter_elems, ub)

    cores = []
    for c in range(used):
        aligned, tiles, last = (former_elems, f_tiles, f_last) if c < former_num else (latter_elems, l_tiles, l_last)
        start = c * former_elems if c < former_num else former_num * former_elems + (c - former_num) * latter_elems
        extra = tail if c == used - 1 else 0
        cores.append(CoreRange(c, start, aligned + extra, tiles, last, extra))

    fields = {
        "totalElements": n,
        "usedCoreNum": used,
        "blockElems": block,
        "formerNum": former_num,
        "formerElems": former_elems,
        "latterElems": latter_elems,
        "tailElems": tail,
        "ubFormer": ub,
        "formerTileNum": f_tiles,
        "formerLastTileSize": f_last,
        "latterTileNum": l_tiles,
        "latterLastTileSize": l_last,
        "roundMode": info.round_mode_value,
        "pathClass": info.path_class,
        "scalarStaging": staging,
    }

    buffers: tuple[UbBuffer, ...] = ()
    if used:
        bind = (
            " (class 7 kernel uses one TQueBind<VECIN,VECOUT>(2, ubFormer): half this budget; "
            "docs/ops/cast.md D13 keeps it uniform)"
        )
        bind = bind if info.path_class == 7 else ""
        buffers = (
            UbBuffer("inQue", BUFFER_NUM, ub * s_src, f"VECIN, {src}{bind}"),
            UbBuffer("outQue", BUFFER_NUM, ub * s_dst, f"VECOUT, {dst}{bind}"),
            *(UbBuffer(name, 1, ub * size, f"scratch TBuf, {size} B/elem") for name, size in info.scratch),
        )

    copies: set[int] = set()
    for elems, tiles, last in ((former_elems, f_tiles, f_last), (latter_elems, l_tiles, l_last)):
        if elems:  # former* is 0 when formerNum == 0, latter* when staging
            copies.update({last * s_src, last * s_dst})
            if tiles > 1:
                copies.update({ub * s_src, ub * s_dst})
    if tail and not staging:
        copies.update({block * s_src, block * s_dst})

    rule = precedence_class(src, dst)[1]
    notes = [
        f"class {info.path_class} {info.class_name}: rule '{rule}' (docs/ops/cast.md D1) is the first that matches "
        f"{src}->{dst}",
        f"chain: {info.chain}",
        f"principal round mode CAST_{info.round_mode} ({info.round_mode_value}); informational (docs/ops/cast.md D24)",
        f"bytesPerElem = 2*({s_src}+{s_dst}) + {info.middle_bytes} = {bytes_per_elem(src, dst)}; "
        f"ubFormer = floor(({ub_size}-{reserve})/{bytes_per_elem(src, dst)}) aligned to {UB_ALIGN} = {ub}",
        f"BLOCK = 32/min({s_src},{s_dst}) = {block} elements; N = {n} = {full_blocks} full blocks + {tail}",
    ]
    if (src, dst) in _WINDOWS:
        notes.append("precision window: " + _WINDOWS[(src, dst)])
    if n == 0:
        notes.append(
            "empty tensor: no launch (block_dim 0), workspace 0, output is an empty tensor (docs/ops/cast.md §1.3)"
        )
    elif staging:
        notes.append(
            f"0 < N < BLOCK: scalar staging on core 0: {n} elements via GetValue/SetValue into a zeroed "
            f"{block}-element tile, no DataCopy, results written back with SetValue + DataCacheCleanAndInvalid"
        )
    elif tail:
        notes.append(
            f"tail: core {used - 1} runs one back-stepped BLOCK window [{n - block}, {n}) after its tiles; "
            f"it rewrites {block - tail} of its own elements with identical values"
        )
    if used and used < plat.core_num:
        notes.append(f"only {used} of {plat.core_num} cores: {full_blocks} full block(s)")

    return TilingPlan(
        op="cast",
        platform=plat.soc,
        tiling_key=info.path_class,
        tiling_name=info.class_name,
        block_dim=used,
        fields=fields,
        unit="element",
        cores=tuple(cores),
        ub_buffers=buffers,
        ub_size=ub_size,
        ub_reserved=reserve,
        workspace_bytes=0,
        notes=tuple(notes),
        copy_bytes=tuple(sorted(copies)),
        struct_type=CastTilingData,
        locator=partial(locate, dict(fields)),
        bulk_locator=partial(locate_many, dict(fields)),
    )


def locate(fields: dict[str, int], index: int, output: str | None = None, inputs: object = None) -> Location:
    """Element index -> (core, tile, offset in tile, tail flag), following §4.1/§4.3."""
    n, block, tail, ub = fields["totalElements"], fields["blockElems"], fields["tailElems"], fields["ubFormer"]
    if not 0 <= index < n:
        raise InvalidInput("index", index, f"0..{n - 1}" if n else "none (empty tensor)")
    last = fields["usedCoreNum"] - 1
    if fields["scalarStaging"]:
        return Location(0, 0, index, True, f"scalar staging: element {index} of a zeroed {block}-element tile")
    if index >= n - tail:
        tiles = fields["latterTileNum"] if last >= fields["formerNum"] else fields["formerTileNum"]
        return Location(last, tiles, index - (n - block), True, f"tail window [{n - block}, {n}) after {tiles} tiles")
    former_num, former, latter = fields["formerNum"], fields["formerElems"], fields["latterElems"]
    if index < former_num * former:
        core, local = divmod(index, former)
    else:
        core, local = divmod(index - former_num * former, latter)
        core += former_num
    tile, offset = divmod(local, ub)
    return Location(core, tile, offset, False, f"element {local} of core {core}'s range")


def locate_many(fields: dict[str, int], index: np.ndarray, output: str | None = None, inputs: object = None) -> Owners:
    """locate()'s core and tile for every index at once (numpy; tests/test_locate_many.py checks they agree)."""
    n, tail = fields["totalElements"], fields["tailElems"]
    if index.size and not (int(index.min()) >= 0 and int(index.max()) < n):
        raise InvalidInput("index", int(index.max()), f"0..{n - 1}" if n else "none (empty tensor)")
    pos = np.arange(index.size, dtype=np.int64)
    if fields["scalarStaging"]:
        return Owners(pos, np.zeros_like(pos), np.zeros_like(pos))
    last = fields["usedCoreNum"] - 1
    former_num, former, latter = fields["formerNum"], fields["formerElems"], fields["latterElems"]
    in_former = index < former_num * former
    core = np.where(in_former, index // max(former, 1), former_num + (index - former_num * former) // max(latter, 1))
    local = np.where(in_former, index - core * former, index - former_num * former - (core - former_num) * latter)
    tile = local // fields["ubFormer"]
    in_tail = index >= n - tail
    tail_tiles = fields["latterTileNum"] if last >= former_num else fields["formerTileNum"]
    return Owners(pos, np.where(in_tail, last, core), np.where(in_tail, tail_tiles, tile))
