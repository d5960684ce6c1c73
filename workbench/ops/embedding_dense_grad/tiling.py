"""Host tiling model of EmbeddingDenseGrad on 310P (docs/ops/embedding_dense_grad.md §3), pure and total."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import InfeasibleTiling, InvalidInput, UnknownName
from ...core.tiling import CoreRange, Location, Owners, TilingPlan, UbBuffer, align_up, ceil_div, even_split
from .layout import FIELDS, EmbeddingDenseGradTilingData

if TYPE_CHECKING:
    from ...core.platform import Platform
    from ...planning.case import Case

# §3.1 constants
UB_RESERVE = 1024  # the 310P experimental EmbeddingDenseGrad keeps 1 KiB back
COL_MAX = 4096  # fp32 elements per column chunk: ubProcessNum = min(D, 4096) (§3.3)
IDX_TILE = 2048  # int32 indices staged per UB tile, scanned with scalar GetValue (DECISION-EDG-8)
BUFFER_NUM = 1  # no double buffer: the scatter is MTE3-bound (§3.1)
CNT_BLK = 32  # one 8-lane fp32 block: the zero-masked counts atomic (DECISION-EDG-15)
SYNC_BUF = 256  # 8 soft-sync slots of 32 B, one per AI Core (§3.7)
SYS_WORKSPACE = 16 * 1024 * 1024  # §3.4
MAX_BLOCK_COUNT = 4095  # DataCopyParams.blockCount limit (docs/hardware.md#32-byte-alignment-and-data-movement)
MAX_STRIDE = 65535  # DataCopyParams.srcStride is a uint16 in 32 B blocks
LANES = 8  # fp32 elements per 32 B block

NAMES = {0: "SEGMENT_ATOMIC", 1: "SCALE_BY_FREQ"}


def window(q: int, c_len: int) -> tuple[int, int, int]:
    """The 32 B covering window of flat elements [q, q + c_len): (cs, off, len), §3.6 (unaligned D)."""
    off = q % LANES
    return q - off, off, align_up(off + c_len, LANES)


def normalize_padding(padding_idx: int, num_weights: int) -> int:
    """DECISION-EDG-2: outside [0, num_weights) means none (no PyTorch negative wrap)."""
    return padding_idx if 0 <= padding_idx < num_weights else -1


def _owner(unit: Any, former_cores: int, former: int, tail: int) -> Any:
    """The core of `unit` (an int, or an array of them) under a former/tail split (§3.2 formula, also the Phase-2
    split)."""
    in_former = unit < former_cores * former
    return np.where(in_former, unit // max(former, 1), former_cores + (unit - former_cores * former) // max(tail, 1))


def plan(case: Case, soc: Platform | None = None, reserve: int = UB_RESERVE) -> TilingPlan:
    """`soc` and `reserve` default to the case's platform and the 1 KiB reserve (pipeline.plan's what-if)."""
    shape = tuple(case.shape)
    n, d = math.prod(shape[:-1]), shape[-1]
    nw, scale = int(case.attrs["num_weights"]), bool(case.attrs["scale_grad_by_freq"])
    pad = normalize_padding(int(case.attrs["padding_idx"]), nw)
    soc = soc or case.soc
    key = 1 if scale else 0
    f: dict[str, int] = dict.fromkeys(FIELDS, 0)
    f.update(numWeights=nw, dimSize=d, gradRow=n, paddingIdx=pad, scaleGradByFreq=int(scale), idxTileNum=IDX_TILE)
    notes = [
        f"padding_idx {case.attrs['padding_idx']} -> paddingIdx {pad} "
        f"(docs/ops/embedding_dense_grad.md DECISION-EDG-2: outside [0, {nw}) = none)"
    ]
    common: dict[str, Any] = {
        "op": "embedding_dense_grad",
        "platform": case.platform,
        "tiling_key": key,
        "ub_size": soc.ub_size,
        "ub_reserved": reserve,
        "struct_type": EmbeddingDenseGradTilingData,
    }
    if n == 0 or d == 0 or nw == 0:
        what = (
            "out is empty: nothing to write, no launch"
            if nw == 0 or d == 0
            else f"N == 0: no launch; the launcher memsets out ({nw * d * 4} B) to zero"
        )
        notes.insert(0, f"empty case (docs/ops/embedding_dense_grad.md §1.2): {what}; block_dim 0, no workspace")

        def locate_empty(index: int, output: str | None, inputs: Mapping[str, Any] | None) -> Location:
            _check_index(index, output, nw * d)
            why = "no launch: out zeroed by the launcher memset (docs/ops/embedding_dense_grad.md §1.2)"
            return Location(None, None, None, False, why)

        return TilingPlan(
            tiling_name=NAMES[key],
            block_dim=0,
            fields=f,
            unit="row",
            cores=(),
            ub_buffers=(),
            workspace_bytes=0,
            notes=tuple(notes),
            locator=locate_empty,
            **common,
        )

    used = min(soc.core_num, n)  # DECISION-EDG-13: no numWeights clamp
    if used * 32 > SYNC_BUF:
        raise InfeasibleTiling("usedCoreNum", used, f"<= {SYNC_BUF // 32} (syncBuf holds one 32 B slot per core)")
    former_cores, tail_rows, former_rows = n % used, n // used, ceil_div(n, used)
    aligned = d % LANES == 0
    c_len = min(d, COL_MAX)
    col_loop = ceil_div(d, c_len)
    col_tail = d - (col_loop - 1) * c_len
    ub_avail = soc.ub_size - reserve
    idx_bytes = IDX_TILE * 4
    if aligned:
        fit = (ub_avail - idx_bytes - 4 * c_len - CNT_BLK - SYNC_BUF) // (4 * c_len)
        if fit < 1:
            raise InfeasibleTiling(
                "ub", soc.ub_size, f"room for accBuf + one {4 * c_len} B grad row after the {reserve} B reserve"
            )
        row_batch = min(former_rows, MAX_BLOCK_COUNT, fit)
        # srcStride of the widest-gap chunk (the tail chunk, narrowest) must fit the uint16 (§3.3)
        stride = (d - col_tail) // LANES
        if stride > MAX_STRIDE:
            row_batch = 1
        buffers = (
            UbBuffer("idxBuf", 1, idx_bytes, f"{IDX_TILE} int32 indices, scanned with scalar GetValue"),
            UbBuffer("accBuf", 1, 4 * c_len, "running segment sum of one column chunk"),
            UbBuffer("gradBuf", BUFFER_NUM, row_batch * 4 * c_len, f"{row_batch} rows x {c_len} fp32, one DataCopy"),
            UbBuffer("cntBlk", 1, CNT_BLK, "8-lane counts block (key 1); allocated under both keys"),
            UbBuffer("syncBuf", 1, SYNC_BUF, "soft-barrier slots of 8 cores (key 1)"),
        )
    else:
        row_batch = 1
        w = align_up(c_len + 7, LANES)
        buffers = (
            UbBuffer("idxBuf", 1, idx_bytes, f"{IDX_TILE} int32 indices, scanned with scalar GetValue"),
            UbBuffer("gradWin", 1, 4 * w, f"covering window W = align8({c_len} + 7) = {w} of one grad row"),
            UbBuffer("accWin", 1, 4 * w, "zero-masked scalar accumulator window (flushed atomically)"),
            UbBuffer("cntBlk", 1, CNT_BLK, "8-lane counts block (key 1)"),
            UbBuffer("syncBuf", 1, SYNC_BUF, "soft-barrier slots (key 1)"),
        )
    ub_total = sum(b.total for b in buffers)
    if ub_total > ub_avail:
        raise InfeasibleTiling(
            "ub", ub_total, f"<= ubAvail = {ub_avail} B (ub_size {soc.ub_size} - {reserve} B reserve)"
        )
    f.update(
        usedCoreNum=used,
        formerCoreNum=former_cores,
        formerRowNum=former_rows,
        tailRowNum=tail_rows,
        isAlignedD=int(aligned),
        ubProcessNum=c_len,
        colLoopNum=col_loop,
        colTailNum=col_tail,
        rowBatchNum=row_batch,
    )
    workspace = SYS_WORKSPACE
    p2_units = 0
    if key == 1:
        counts = align_up(nw, LANES)
        p2_units = nw if aligned else ceil_div(nw * d, LANES)
        f.update(
            countsLength=counts,
            syncOffset=4 * counts,
            p2FormerCoreNum=p2_units % used,
            p2FormerNum=ceil_div(p2_units, used),
            p2TailNum=p2_units // used,
        )
        workspace += counts * 4 + used * 32

    cores = []
    for i, (start, count) in enumerate(even_split(n, used)):
        batches = ceil_div(count, row_batch)
        cores.append(CoreRange(i, start, count, batches * col_loop, count - (batches - 1) * row_batch))
    widths = sorted({c_len, col_tail})
    copy = _copy_bytes(f, cores, widths, key, aligned)
    name = NAMES[key] + ("" if aligned else "_UNALIGNED")

    # -- notes: WHY this path ----------------------------------------------------------------------
    if key == 0:
        notes.insert(
            0,
            "key 0 SEGMENT_ATOMIC: scale_grad_by_freq=false, so each core sums its runs of equal indices "
            "and flushes one SetAtomicAdd<float> partial per run; no inter-core sync",
        )
    else:
        notes.insert(
            0,
            "key 1 SCALE_BY_FREQ: key 0 plus float counts (atomic, column chunk 0), a soft GM-flag barrier "
            "and Phase 2 plain stores of S*fl(1/c) for count >= 2 (explain-only)",
        )
    if aligned:
        notes.append(
            f"aligned D ({d} % 8 == 0): rowBatchNum = min({former_rows}, 4095, floor(({ub_avail} - 8192 - "
            f"{4 * c_len} - 288) / {4 * c_len}) = {fit}) = {row_batch}; each batch is one DataCopy of "
            f"blockCount rows x blockLen {c_len // 8} blocks, srcStride {(d - c_len) // 8} blocks"
        )
        if stride > MAX_STRIDE:
            notes.append(f"srcStride {stride} blocks > 65535 (uint16): rowBatchNum = 1, one DataCopy per row")
    else:
        cs, off, ln = window(d, c_len)
        notes.append(
            f"key {key} (unaligned D: scalar window path, docs/ops/embedding_dense_grad.md DECISION-EDG-7): "
            f"D % 8 = {d % 8}; rowBatchNum 1, "
            f"W = {align_up(c_len + 7, LANES)}; grad row 1 reads window(q={d}) = cs {cs}, off {off}, len {ln} "
            "and out rows are flushed as zero-masked atomic windows (functional, explain-only)"
        )
    notes.append(f"columns: ubProcessNum {c_len}, colLoopNum {col_loop}, colTailNum {col_tail}")
    c0 = cores[0]
    notes.append(
        f"rows: {used} cores, {former_cores} x {former_rows} + {used - former_cores} x {tail_rows} rows; core 0 "
        f"runs {ceil_div(c0.count, row_batch)} row batches ({c0.last_tile} rows in the last) x {col_loop} "
        "column chunks; a run of equal indices may straddle cores (atomics merge it)"
    )
    if key == 1:
        unit = "rows" if aligned else "8-element units"
        notes.append(
            f"Phase 2 (docs/ops/embedding_dense_grad.md DECISION-EDG-6): {p2_units} {unit} over {used} cores: "
            f"{f['p2FormerCoreNum']} x "
            f"{f['p2FormerNum']} + {used - f['p2FormerCoreNum']} x {f['p2TailNum']}"
        )
    notes.append(
        "workspace: 16 MiB system"
        + (
            f" + counts {f['countsLength']}*4 + sync {used}*32 B "
            "(zeroed by the launcher, docs/ops/embedding_dense_grad.md DECISION-EDG-5)"
            if key == 1
            else ""
        )
    )
    out_bytes = nw * d * 4
    if out_bytes > soc.l2_size:
        notes.append(
            f"at risk: out is {out_bytes} B > L2 {soc.l2_size} B, so the atomic adds read-modify-write DRAM "
            "(about 1.5 x T_theory, docs/ops/embedding_dense_grad.md §6)"
        )
    if key == 1 or not aligned:
        notes.append(
            "performance: explain-only; only key 0 with D % 8 == 0 is gated "
            "(docs/ops/embedding_dense_grad.md DECISION-EDG-12)"
        )

    starts = np.array([c.start for c in cores], np.int64)

    def holders(k: int, inputs: Mapping[str, Any] | None) -> tuple[tuple[int, ...], int]:
        """The cores whose row ranges hold index k (each flushes its partial sum of row k atomically), and how
        many rows hold it (its count)."""
        if inputs is None or "sort_indices" not in inputs:
            return (), -1
        rows = np.flatnonzero(np.asarray(inputs["sort_indices"]).reshape(-1) == k)
        return tuple(int(c) for c in np.unique(np.searchsorted(starts, rows, side="right") - 1)), int(rows.size)

    def locate(index: int, output: str | None, inputs: Mapping[str, Any] | None) -> Location:
        _check_index(index, output, nw * d)
        k, col = divmod(index, d)
        tile, offset = divmod(col, c_len)
        tail = tile == col_loop - 1 and col_tail != c_len
        where = f"out[{k}, {col}]: column chunk {tile} of {col_loop}"
        if not aligned:
            cs, off, ln = window(k * d + tile * c_len, col_tail if tile == col_loop - 1 else c_len)
            where += f", flush window cs {cs} off {off} len {ln}"
        if k == pad:
            return Location(None, tile, offset, tail, f"{where}; padding row: never written, stays 0")
        found, count = holders(k, inputs)
        if inputs is None:
            flushes = f"data-dependent: one atomic flush from each core whose rows hold index {k}"
        elif not found:
            flushes = f"no row has index {k}: never written, stays 0"
        else:
            flushes = f"one atomic flush from each of the {len(found)} core(s) whose rows hold index {k}"
        if key == 0 or 0 <= count < 2:  # key 1: Phase 2 rescales only rows with count >= 2, leaves the rest
            phase2 = f"; count {count} < 2: Phase 2 leaves it" if key == 1 else ""
            return Location(
                found[0] if len(found) == 1 else None, tile, offset, tail, f"{where}; {flushes}{phase2}", found
            )
        unit = k if aligned else index // LANES
        core = int(_owner(unit, f["p2FormerCoreNum"], f["p2FormerNum"], f["p2TailNum"]))
        return Location(
            core,
            tile,
            offset,
            tail,
            f"{where}; Phase-2 owner of {'row ' + str(k) if aligned else 'unit ' + str(unit)} "
            f"(scales when count >= 2); Phase 1: {flushes}",
            found,
        )

    def locate_many(index: np.ndarray, output: str | None, inputs: Mapping[str, Any] | None) -> Owners:
        """locate()'s cores and tile for every index at once (tests/test_locate_many.py checks they agree): the
        (index value, core) pairs of the grad rows are found once, not per element."""
        if index.size:
            _check_index(int(index.min()), output, nw * d)
            _check_index(int(index.max()), output, nw * d)
        k, tile = index // d, index % d // c_len
        if inputs is not None and "sort_indices" in inputs:
            values = np.asarray(inputs["sort_indices"]).reshape(-1).astype(np.int64)
            row_core = np.searchsorted(starts, np.arange(values.size), side="right") - 1
            pairs = np.unique(values * used + row_core)  # (index value, core) of every grad row, sorted by value
            pair_k, pair_core = pairs // used, pairs % used
            count = np.bincount(values[(values >= 0) & (values < nw)], minlength=nw)[k]
        else:
            pair_k, pair_core, count = np.zeros(0, np.int64), np.zeros(0, np.int64), np.full(k.size, -1)
        phase2 = (key == 1) & ~((count >= 0) & (count < 2)) & (k != pad)
        lo, hi = np.searchsorted(pair_k, k, "left"), np.searchsorted(pair_k, k, "right")
        held = np.where(phase2 | (k == pad), 0, hi - lo)
        rows = np.maximum(held, 1)  # an element no core writes still has its row, with core -1
        pos = np.repeat(np.arange(index.size, dtype=np.int64), rows)
        nth = np.arange(pos.size) - np.repeat(np.cumsum(rows) - rows, rows)
        # the nth holder of each element; the sentinel past the end is the -1 of an element without one
        at = np.where(np.repeat(held, rows) > 0, np.repeat(lo, rows) + nth, pair_core.size)
        core = np.append(pair_core, -1)[at]
        unit = (k if aligned else index // LANES)[pos]
        owner = _owner(unit, f["p2FormerCoreNum"], f["p2FormerNum"], f["p2TailNum"])
        return Owners(pos, np.where(phase2[pos], owner, core), tile[pos])

    return TilingPlan(
        tiling_name=name,
        block_dim=used,
        fields=f,
        unit="row",
        cores=tuple(cores),
        ub_buffers=buffers,
        workspace_bytes=workspace,
        notes=tuple(notes),
        copy_bytes=copy,
        locator=locate,
        bulk_locator=locate_many,
        **common,
    )


def _check_index(index: int, output: str | None, numel: int) -> None:
    if output not in (None, "out"):
        raise UnknownName("output", output, "out")
    if not 0 <= index < numel:
        raise InvalidInput("index", index, f"a flat index of out in [0, {numel})")


def _copy_bytes(
    f: dict[str, int], cores: list[CoreRange], widths: list[int], key: int, aligned: bool
) -> tuple[int, ...]:
    """Every distinct DataCopy length (bytes) the kernel issues; each must be a multiple of 32 on 310P (§3.1)."""
    d, n, nw, rb = f["dimSize"], f["gradRow"], f["numWeights"], f["rowBatchNum"]
    out: set[int] = set()
    # idx tiles: full tiles, then the last one rounded up to whole 8-index blocks (stepped back so that it ends
    # inside sort_indices, hence at most N rounded down to 8); with N < 8 the kernel reads indices as scalars
    whole = n // LANES * LANES
    for c in cores if whole else ():
        if c.count >= IDX_TILE:
            out.add(IDX_TILE * 4)
        if c.count % IDX_TILE:
            out.add(align_up(min(c.count % IDX_TILE, whole), LANES) * 4)
    if aligned:
        batches = {min(rb, c.count) for c in cores} | {c.last_tile for c in cores}
        out |= {b * w * 4 for b in batches for w in widths}  # grad batch loads (rb rows x w, strided)
        out |= {w * 4 for w in widths}  # atomic flush of accBuf; Phase-2 chunk in/out
    else:
        offs = {(i * d) % LANES for i in range(min(max(n, nw), LANES))}  # q mod 8 repeats every 8 rows
        out |= {window(o, w)[2] * 4 for o in offs for w in widths}  # gradWin loads and accWin atomic flushes
    if key == 1:
        out |= {CNT_BLK, 32, f["usedCoreNum"] * 32}  # counts block, own sync slot, barrier poll of all slots
        if not aligned:  # Phase 2 read-modify-write windows of <= 4096 elements over each core's 8-element units
            for units in {f["p2FormerNum"], f["p2TailNum"]} - {0}:
                elems = units * LANES
                if elems >= COL_MAX:
                    out.add(COL_MAX * 4)
                if elems % COL_MAX:
                    out.add(elems % COL_MAX * 4)
    return tuple(sorted(out))
