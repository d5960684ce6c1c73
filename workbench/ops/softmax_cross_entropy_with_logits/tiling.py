"""Host tiling model of SoftmaxCrossEntropyWithLogits on 910B (docs/ops/softmax_cross_entropy_with_logits.md §3).

Fold, core split, path, UB plan.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ...core.dtypes import itemsize
from ...core.errors import InfeasibleTiling
from ...core.platform import Platform
from ...core.tiling import BLOCK_BYTES, CoreRange, TilingPlan, UbBuffer, align_down, align_up, ceil_div
from .geometry import locate, locate_many, no_element, tile_count
from .layout import C_ONE, EMPTY, FIELDS, FULL_LOAD, GENERIC, SMALL_C, SPLIT_R, SoftmaxCrossEntropyWithLogitsTilingData

if TYPE_CHECKING:
    from ...planning.case import Case

OP = "softmax_cross_entropy_with_logits"
UB_RESERVE = 8192  # DECISION-SCE-4: reduce-API tmp (< 4 KiB) plus alignment slack
BUFFER_NUM = 2  # double-buffered queues (§3.1)
SYS_WORKSPACE = 16 << 20  # system workspace only, the ops-nn arch35 constant (§3.1)
EMPTY_TILE = 4096  # EMPTY path: zeros written per tile (§3.4 order 0)
SMALL_C_MAX = 8


def fold(shape: tuple[int, ...], layout: str) -> tuple[int, int, int]:
    """(A, R, HW) of §3.2: ND [N,C] -> (N, C, 1); NCHW [N,C,H,W] -> (N*H*W, C, H*W)."""
    if layout == "NCHW":
        n, c, h, w = shape
        return n * h * w, c, h * w
    n, c = shape
    return n, c, 1


def core_split(a: int, core_num: int) -> tuple[int, int, int]:
    """(realCoreNum, blockFactor, tailBlockFactor), the §3.3 formula verbatim."""
    use = min(a, core_num)
    block = ceil_div(a, use)
    real = ceil_div(a, block)
    return real, block, a - block * (real - 1)


def m_ar(length: int, b: int) -> int:
    return length * (BUFFER_NUM * 3 * b + 4 * 4)  # DECISION-SCE-6: 3 queues x2 + T0..T3 fp32


def m_a(b: int) -> int:
    return BUFFER_NUM * b + 3 * 4  # loss-out queue x2 + rowMax/rowSum/rowLoss fp32


def full_load_limit(layout: str, dtype: str, ub_avail: int) -> int:
    """Largest R (ND) or C (NCHW) that still runs FullLoad GENERIC (§3.4: 4704/6720 ND, 588/420 NCHW)."""
    b = itemsize(dtype)
    pb = BLOCK_BYTES // b
    if layout == "NCHW":  # RA needs A_ub >= perBlock lanes (DECISION-SCE-7)
        return (ub_avail // pb - m_a(b)) // m_ar(1, b)
    return align_down((ub_avail - m_a(b)) // m_ar(1, b), pb)  # ND needs one R_align row (A_ub >= 1)


def _bufs(rows: int, length: int, b: int, what: str) -> list[UbBuffer]:
    """The DECISION-SCE-6 inventory for `rows` rows/lanes of `length` (R_align, C or a chunk) elements."""
    tile, tile32 = rows * length * b, rows * length * 4
    return [
        UbBuffer("features-in", BUFFER_NUM, tile, f"TQue VECIN, {what}"),
        UbBuffer("labels-in", BUFFER_NUM, tile, f"TQue VECIN, {what}"),
        UbBuffer("backprop-out", BUFFER_NUM, tile, f"TQue VECOUT, {what}"),
        UbBuffer("T0", 1, tile32, "fp32 z = x - m, then y*(log s - z)"),
        UbBuffer("T1", 1, tile32, "fp32 e = exp(z), then p = e/s"),
        UbBuffer("T2", 1, tile32, "fp32 y (labels cast)"),
        UbBuffer("T3", 1, tile32, "fp32 broadcast of m / s / log s"),
        UbBuffer("loss-out", BUFFER_NUM, rows * b, "TQue VECOUT"),
        UbBuffer("rowMax", 1, rows * 4, "fp32"),
        UbBuffer("rowSum", 1, rows * 4, "fp32"),
        UbBuffer("rowLoss", 1, rows * 4, "fp32"),
    ]


def _select(
    r: int, hw: int, ra: bool, b: int, block: int, ub_avail: int
) -> tuple[int, int, dict[str, int], list[UbBuffer], list[str]]:
    """Path selection §3.4 in order -> (schId, fullLoadMode, r-fields, UB buffers, why-notes)."""
    pb = BLOCK_BYTES // b
    r_align = r if ra else align_up(r, pb)
    full = {
        "aUbNumFactor": 0,
        "rAlign": r_align,
        "rUbNumFactor": r_align,
        "rLoopTime": 1,
        "rLoopTile": r,
        "rLoopTileAlign": r_align,
    }
    if r == 0:  # DECISION-SCE-3: loss = 0, the sum over an empty class set
        n = min(block, EMPTY_TILE)
        f = {**full, "aUbNumFactor": n, "rAlign": 0, "rUbNumFactor": 0, "rLoopTime": 0, "rLoopTileAlign": 0}
        bufs = [UbBuffer("zeros", 1, n * b, "Duplicate(0) once, DataCopyPad to loss per tile")]
        why = "C == 0 with A > 0: EMPTY writes loss = 0 (docs/ops/softmax_cross_entropy_with_logits.md DECISION-SCE-3)"
        why += "; backprop is empty"
        return EMPTY, 0, f, bufs, [why]
    if r == 1:  # DECISION-SCE-8: z = x - x keeps NaN/inf exact; data is a contiguous [A] vector
        per = BUFFER_NUM * 4 * b + 3 * 4
        n = min(block, align_down(ub_avail // per, pb))
        bufs = [
            UbBuffer(q, BUFFER_NUM, n * b, "TQue") for q in ("features-in", "labels-in", "backprop-out", "loss-out")
        ]
        bufs += [UbBuffer(t, 1, n * 4, "fp32") for t in ("T0 x/z", "T1 y", "T2 backprop/loss")]
        f = {**full, "aUbNumFactor": n, "rAlign": 1, "rUbNumFactor": 1, "rLoopTileAlign": 1}
        why = f"C == 1: C_ONE, {per} B per element -> {ub_avail // per} fit; backprop = (1 + (x - x)) - y, "
        why += "loss = y * -(x - x) (docs/ops/softmax_cross_entropy_with_logits.md DECISION-SCE-8)"
        return FULL_LOAD, C_ONE, f, bufs, [why]
    if not ra and r <= SMALL_C_MAX:  # DECISION-SCE-8: packed rows Gathered into RA planes
        per = 6 * r * b + 2 * b + 24 * r + 12
        n = min(block, align_down(ub_avail // per, pb))
        lanes = align_up(n, pb)
        bufs = [
            UbBuffer(q, BUFFER_NUM, n * r * b, "TQue, packed rows (no row padding)")
            for q in ("features-in", "labels-in", "backprop-out")
        ]
        bufs += [
            UbBuffer("loss-out", BUFFER_NUM, n * b, "TQue"),
            UbBuffer("staging", 1, n * r * 4, "fp32 packed: Cast target, Gather source/target"),
            UbBuffer("X planes", 1, r * lanes * 4, "fp32 [C, laneAlign]"),
            UbBuffer("Y planes", 1, r * lanes * 4, "fp32 [C, laneAlign]"),
            UbBuffer("E planes", 1, r * lanes * 4, "fp32 [C, laneAlign]"),
            UbBuffer("fwdOff", 1, r * lanes * 4, "uint32 Gather offsets packed -> planes"),
            UbBuffer("invOff", 1, n * r * 4, "uint32 Gather offsets planes -> packed"),
        ]
        bufs += [UbBuffer(s, 1, lanes * 4, "fp32") for s in ("rowMax", "rowSum", "rowLoss")]
        f = {**full, "aUbNumFactor": n, "rAlign": r, "rUbNumFactor": r, "rLoopTileAlign": r}
        why = f"ND with 2 <= C <= 8: SMALL_C, P = 6Rb+2b+24R+12 = {per} B per row -> n = {ub_avail // per}; "
        return FULL_LOAD, SMALL_C, f, bufs, [why + f"packed DataCopyPad of {n * r * b} B per tile"]
    per_row = m_ar(r_align, b) + m_a(b)
    a_ub = ub_avail // per_row
    why = (
        f"M_AR = {r_align}*(6b+16) = {m_ar(r_align, b)} B, M_A = 2b+12 = {m_a(b)} B, "
        f"A_ub = floor({ub_avail}/{per_row}) = {a_ub}"
    )
    if not ra and a_ub >= 1:
        n = min(block, align_down(a_ub, pb) if a_ub >= pb else a_ub)
        note = " (ops-nn arch35 requires A_ub >= perBlock and would choose SplitR)" if a_ub < pb else ""
        bufs = _bufs(n, r_align, b, "[rows, R_align]")
        why += f" >= 1 -> FullLoad (docs/ops/softmax_cross_entropy_with_logits.md DECISION-SCE-7){note}"
        return FULL_LOAD, GENERIC, {**full, "aUbNumFactor": n}, bufs, [why]
    if ra and a_ub >= pb:
        n = min(align_down(a_ub, pb), align_up(min(block, hw), pb))
        why += (
            f" >= perBlock = {pb} -> FullLoad RA "
            "(RA needs whole 32 B plane rows, docs/ops/softmax_cross_entropy_with_logits.md DECISION-SCE-7)"
        )
        return FULL_LOAD, GENERIC, {**full, "aUbNumFactor": n}, _bufs(n, r, b, "[C planes, lanes]"), [why]
    # SplitR §3.5
    tile_a = pb if ra else min(pb, block)
    room = ub_avail - tile_a * m_a(b)
    r_ub = room // (tile_a * m_ar(1, b)) if ra else align_down(room // (tile_a * m_ar(1, b)), 256 // b)
    if r_ub < 1:
        raise InfeasibleTiling(
            "ub", ub_avail, f"room (after the reserve) for one SplitR chunk of {tile_a} {'lanes' if ra else 'rows'}"
        )
    times = ceil_div(r, r_ub)
    tile = r % r_ub or r_ub
    f = {"aUbNumFactor": tile_a, "rAlign": r_align, "rUbNumFactor": r_ub, "rLoopTime": times, "rLoopTile": tile}
    f["rLoopTileAlign"] = tile if ra else align_up(tile, pb)
    need = f"A_ub >= perBlock = {pb}" if ra else "A_ub >= 1"
    return (
        SPLIT_R,
        0,
        f,
        _bufs(tile_a, r_ub, b, "[aTileS, rUbNumFactor] chunk"),
        [
            f"{why} fails {need} -> SplitR: aTileS = {tile_a}, rUbNumFactor = {r_ub}, rLoopTime = {times}, "
            f"rLoopTile = {tile}"
        ],
    )


def plan(case: Case, soc: Platform | None = None, reserve: int = UB_RESERVE) -> TilingPlan:
    """`soc` and `reserve` default to the case's platform and DECISION-SCE-4's (pipeline.plan's what-if)."""
    return plan_for(tuple(case.shape), case.format, case.dtypes[0], soc or case.soc, reserve)


def plan_for(shape: tuple[int, ...], layout: str, dtype: str, soc: Platform, reserve: int = UB_RESERVE) -> TilingPlan:
    a, r, hw = fold(shape, layout)
    ra = layout == "NCHW"
    b = itemsize(dtype)
    unit = "lane" if ra else "row"
    ub_size = soc.ub_size  # the ini value, as the worked examples use (§3.1)
    ub_avail = ub_size - reserve
    base = dict.fromkeys(FIELDS, 0) | {"a": a, "r": r, "hw": hw, "layoutMode": int(ra)}

    def make(**kw: Any) -> TilingPlan:
        return TilingPlan(
            op=OP,
            platform=soc.soc,
            unit=unit,
            ub_size=ub_size,
            ub_reserved=reserve,
            struct_type=SoftmaxCrossEntropyWithLogitsTilingData,
            **kw,
        )

    if a == 0:  # §1.3 step 1: empty executor, workspace 0, no launch
        return make(
            tiling_key=0,
            tiling_name="NO_LAUNCH",
            block_dim=0,
            fields=base,
            cores=(),
            ub_buffers=(),
            workspace_bytes=0,
            notes=("A == 0: every output is empty; no launch",),
            locator=lambda i, o, _: no_element(i, o),
        )
    real, block, tail = core_split(a, soc.core_num_aiv)  # GetCoreNumAiv (§3.1)
    sch, mode, rf, bufs, why = _select(r, hw, ra, b, block, ub_avail)
    u = rf["aUbNumFactor"]
    if u < 1:  # only with a UB far below 910B's (C_ONE/SMALL_C need one perBlock-aligned group)
        raise InfeasibleTiling("ub_size", ub_size, f"room for one {unit} group of {layout} {dtype} C = {r}")
    f = base | {"fullLoadMode": mode, "realCoreNum": real, "blockFactor": block, "tailBlockFactor": tail} | rf
    f |= {"aLoopTimes": block // u, "aLoopTail": block % u, "aLoopTimesT": tail // u, "aLoopTailT": tail % u}
    segmented = ra and sch != EMPTY and mode == GENERIC
    cores, seen = [], {}  # tile counts repeat across cores: by count alone, or by image phase when segmented
    for i in range(real):
        start, count = i * block, block if i < real - 1 else tail
        phase = (start % hw if segmented else 0, count)
        if phase not in seen:
            seen[phase] = tile_count(start, start + count, hw, u, segmented)
        cores.append(CoreRange(i, start, count, *seen[phase]))
    name = {EMPTY: "EMPTY", SPLIT_R: f"SPLIT_R({'RA' if ra else 'AR'})"}.get(
        sch, f"FULL_LOAD/{('GENERIC(RA)' if ra else 'GENERIC(AR)', 'C_ONE', 'SMALL_C')[mode]}"
    )
    key = sch | 0 << 8 | 0 << 16 | 0 << 24  # (schId, featuresBrc, labelsBrc, db): no broadcast, db reserved
    plan = make(
        tiling_key=key,
        tiling_name=name,
        block_dim=real,
        fields=f,
        cores=tuple(cores),
        ub_buffers=tuple(bufs),
        workspace_bytes=SYS_WORKSPACE,
        notes=tuple(_notes(f, sch, b, layout, dtype, soc, ub_avail, bufs, why)),
        locator=lambda i, o, _: locate(f, sch, segmented, i, o),
        bulk_locator=lambda i, o, _: locate_many(f, segmented, i, o),
    )
    if plan.ub_used > plan.ub_capacity:
        raise InfeasibleTiling("ub", plan.ub_used, f"<= {plan.ub_capacity} B (ub_size - {reserve} B reserve)")
    return plan


def _notes(
    f: Mapping[str, int],
    sch: int,
    b: int,
    layout: str,
    dtype: str,
    soc: Platform,
    ub_avail: int,
    bufs: list[UbBuffer],
    why: list[str],
) -> Iterator[str]:
    a, r = f["a"], f["r"]
    yield (
        f"{layout} folds to A = {a} x R = {r} (HW = {f['hw']}, {'RA' if f['layoutMode'] else 'AR'}); "
        f"blockFactor {f['blockFactor']} on {f['realCoreNum']} of {soc.core_num_aiv} cores "
        f"(tail {f['tailBlockFactor']}; docs/ops/softmax_cross_entropy_with_logits.md §3.3)"
    )
    yield from why
    yield (
        f"FullLoad limit for {layout} {dtype}: {'C' if layout == 'NCHW' else 'R'} <= "
        f"{full_load_limit(layout, dtype, ub_avail)} at ubAvail {ub_avail}"
    )
    raw, used = sum(x.count * x.bytes_each for x in bufs), sum(x.total for x in bufs)
    yield (
        f"UB {raw} B by the accounting of docs/ops/softmax_cross_entropy_with_logits.md §3.4 "
        f"({used} B after InitBuffer's 32 B rounding) of {ub_avail} "
        f"(ub_size {soc.ub_size} ini - {soc.ub_size - ub_avail} reserve); "
        f"the runtime GetCoreMemSize(UB) = {soc.ub_runtime} "
        f"leaves {soc.ub_runtime - used} B for the reduce tmp and slack"
    )
    passes = {EMPTY: 0, SPLIT_R: 5}.get(sch, 3)
    traffic = passes * a * r * b + a * b
    yield f"GM traffic {traffic} B ({passes} passes of A*R*b + the loss A*b)"
    if sch == SPLIT_R:
        yield (
            f"at risk (docs/ops/softmax_cross_entropy_with_logits.md §6): SplitR moves 5/3 of FullLoad's traffic "
            f"({3 * a * r * b + a * b} B single-pass) "
            f"and splits only A over {f['realCoreNum']} cores"
        )
    yield "copy_bytes empty: every GM<->UB move on 910B is a byte-exact DataCopyPad, no plain DataCopy"
