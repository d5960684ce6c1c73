"""What the kernel's loops see of a plan: tile loops, DataCopyPad parameters, Gather offsets, locate()."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from ...core.errors import InvalidInput, UnknownName
from ...core.tiling import Location, Owners, ceil_div
from .layout import C_ONE, SMALL_C, SPLIT_R


def tile_count(s: int, e: int, hw: int, u: int, segmented: bool) -> tuple[int, int]:
    """(tiles, last tile length) of the kernel loop over [s, e); RA tiles stop at image boundaries."""
    if e <= s:
        return 0, 0
    if not segmented:
        n = ceil_div(e - s, u)
        return n, e - s - (n - 1) * u
    first_end = min(e, (s // hw + 1) * hw)
    n, last = ceil_div(first_end - s, u), first_end - s
    if first_end < e:
        full, rem = divmod(e - first_end, hw)
        n += full * ceil_div(hw, u) + ceil_div(rem, u)
        last = rem or hw
    return n, last - (ceil_div(last, u) - 1) * u


def core_tiles(fields: Mapping[str, int], core: int, segmented: bool) -> Iterator[tuple[int, int]]:
    """(start, length) of each UB tile of `core`: the kernel's `while a < aEnd` loop, transcribed."""
    a, block, u, hw = fields["a"], fields["blockFactor"], fields["aUbNumFactor"], fields["hw"]
    pos, end = core * block, min(a, (core + 1) * block)
    while pos < end:
        n = min(u, end - pos, hw - pos % hw) if segmented else min(u, end - pos)
        yield pos, n
        pos += n


def copy_params(
    fields: Mapping[str, int], b: int, a0: int, rows: int, r0: int = 0, rlen: int | None = None
) -> dict[str, int]:
    """DataCopyPad parameters of one GM->UB tile load (rows/lanes from a0, classes r0..r0+rlen)."""
    r, hw = fields["r"], fields["hw"]
    rlen = r - r0 if rlen is None else rlen
    if fields["fullLoadMode"] in (C_ONE, SMALL_C):  # packed contiguous block
        return {"gmOffset": a0 * r, "blockCount": 1, "blockLen": rows * r * b, "srcStride": 0, "ubRowStride": 0}
    if fields["layoutMode"] == 1:
        n, p = divmod(a0, hw)
        return {
            "gmOffset": n * r * hw + r0 * hw + p,
            "blockCount": rlen,
            "blockLen": rows * b,
            "srcStride": (hw - rows) * b,
            "ubRowStride": fields["aUbNumFactor"] * b,
        }
    stride = fields["rAlign"] if fields["rLoopTime"] == 1 else fields["rUbNumFactor"]
    return {
        "gmOffset": a0 * r + r0,
        "blockCount": rows,
        "blockLen": rlen * b,
        "srcStride": (r - rlen) * b,
        "ubRowStride": stride * b,
    }


def small_c_offsets(c: int, lanes: int, lane_align: int) -> tuple[np.ndarray, np.ndarray]:
    """SMALL_C Gather byte offsets (§3.4): fwdOff packed -> [C, laneAlign] planes, invOff planes -> packed.

    Pad lanes j >= lanes point at byte 0 so the Gather never reads past the packed tile; they are never
    stored (DECISION-SCE-9).
    """
    j, k = np.arange(lane_align, dtype=np.uint32), np.arange(c, dtype=np.uint32)[:, None]
    fwd = np.where(j < lanes, (j * c + k) * 4, 0).astype(np.uint32)
    inv = ((k * lane_align + j[:lanes]) * 4).T.reshape(-1).astype(np.uint32)
    return fwd.reshape(-1), inv


def no_element(index: int, output: str | None) -> Location:
    raise InvalidInput("index", index, f"no elements: A == 0, {output or 'backprop'} is empty")


def locate(f: Mapping[str, int], sch: int, segmented: bool, index: int, output: str | None) -> Location:
    a_n, r_n, hw, u, block = f["a"], f["r"], f["hw"], f["aUbNumFactor"], f["blockFactor"]
    output = output or "backprop"
    if output not in ("loss", "backprop"):
        raise UnknownName("output", output, "loss, backprop")
    size = a_n if output == "loss" else a_n * r_n
    if not 0 <= index < size:
        raise InvalidInput("index", index, f"0..{size - 1} ({output} has {size} elements)")
    if output == "loss":
        a, r = index, -1
    elif f["layoutMode"]:
        n, rem = divmod(index, r_n * hw)
        r, p = divmod(rem, hw)
        a = n * hw + p
    else:
        a, r = divmod(index, r_n)
    core = a // block
    start, end = core * block, min(a_n, (core + 1) * block)
    seg = max(start, a // hw * hw) if segmented else start
    before, _ = tile_count(start, seg, hw, u, segmented)
    k, row = divmod(a - seg, u)
    t_start = seg + k * u
    t_len = min(u, end - t_start, (a // hw + 1) * hw - t_start) if segmented else min(u, end - t_start)
    mode, chunk = f["fullLoadMode"], f["rUbNumFactor"]
    if r < 0:
        offset = row
    elif sch == SPLIT_R:
        offset = (r % chunk) * u + row if f["layoutMode"] else row * chunk + r % chunk
    elif mode == C_ONE:
        offset = row
    elif mode == SMALL_C:
        offset = row * r_n + r
    else:
        offset = r * u + row if f["layoutMode"] else row * f["rAlign"] + r
    tail = t_len < u or (core == f["realCoreNum"] - 1 and f["tailBlockFactor"] != block)
    where = f"n={a // hw}, p={a % hw}" if f["layoutMode"] else f"n={a}"
    detail = f"{'lane' if f['layoutMode'] else 'row'} {a} ({where})"
    if r >= 0:
        detail += f", class {r}"
        if sch == SPLIT_R:
            detail += f", r chunk {r // chunk} of {f['rLoopTime']} (classes {r // chunk * chunk}..)"
    elif sch == SPLIT_R:
        detail += f", written after pass 3 of r chunk {f['rLoopTime'] - 1}"
    detail += f"; tile [{t_start}, {t_start + t_len}) of core {core} [{start}, {end})"
    return Location(core, before + k, offset, tail, detail)


def locate_many(f: Mapping[str, int], segmented: bool, index: np.ndarray, output: str | None) -> Owners:
    """locate()'s core and tile for every index at once (numpy; tests/test_locate_many.py checks they agree)."""
    a_n, r_n, hw, u, block = f["a"], f["r"], f["hw"], f["aUbNumFactor"], f["blockFactor"]
    output = output or "backprop"
    if output not in ("loss", "backprop"):
        raise UnknownName("output", output, "loss, backprop")
    size = a_n if output == "loss" else a_n * r_n
    if index.size and not (int(index.min()) >= 0 and int(index.max()) < size):
        raise InvalidInput("index", int(index.max()), f"0..{size - 1} ({output} has {size} elements)")
    if output == "loss":
        a = index
    elif f["layoutMode"]:
        a = index // (r_n * hw) * hw + index % hw
    else:
        a = index // r_n
    core = a // block
    start = core * block
    if not segmented:
        return Owners(np.arange(index.size, dtype=np.int64), core, (a - start) // u)
    # segmented RA tiles stop at image boundaries: tile_count(start, seg) tiles come before a's own image
    seg = np.maximum(start, a // hw * hw)
    first_end = np.minimum(seg, (start // hw + 1) * hw)
    before = -((start - first_end) // u)  # ceil((first_end - start) / u)
    full = np.maximum(seg - first_end, 0) // hw
    before = np.where(seg > start, before + full * ceil_div(hw, u), 0)
    return Owners(np.arange(index.size, dtype=np.int64), core, before + (a - seg) // u)
