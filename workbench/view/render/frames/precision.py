"""Runs -> frames for the precision panel: per-element errors, the ULP histogram, the heatmap and the split drawn over
it, the failure map and the mismatch rows."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ....core.errors import WorkbenchError
from ....judge.compare import element_errors
from .tiling import tile_size

Errors = dict[str, np.ndarray]  # compare.element_errors: ulp, abs_err, failed, ratio

if TYPE_CHECKING:
    import pandas as pd

    from ....core.tiling import CoreRange, Owners
    from ....running.runner import Result


def errors_of(result: Result, output: str) -> Errors:
    """Per-element errors of one output, judged as its report was (compare.element_errors): compute once, pass to
    ulp_frame and heatmap_frame (a 16M-element output takes about a second)."""
    report = result.reports[output]
    return element_errors(result.outputs[output], result.expected[output], report.dtype, report.standard)


def _ulp_buckets(ulp: np.ndarray, failed: np.ndarray) -> list[dict[str, Any]]:
    """0, 1, 2, then powers of two (3-4, 5-8, ...), and 'NaN' for pairs with no ULP distance (next to a NaN).

    One pass: each element's bucket (the first bucket top >= its distance, by searchsorted), then bincount.
    """
    nan = ulp < 0
    valid = ulp[~nan]
    top = int(valid.max(initial=0))
    tops = np.array([0, 1, 2, *(2**k for k in range(2, max(top - 1, 1).bit_length() + 1))], np.int64)
    idx = np.searchsorted(tops, valid)
    n = len(tops)
    counts = np.bincount(idx, minlength=n)
    fails = np.bincount(idx[failed[~nan]], minlength=n)
    rows = []
    for i in range(n):
        lo, hi = (i, i) if i <= 2 else (2 ** (i - 2) + 1, 2 ** (i - 1))
        if counts[i] or hi <= 2:
            label = str(lo) if lo == hi else f"{lo}-{hi}"
            rows.append(
                {"bucket": label, "order": i, "lo": lo, "hi": hi, "count": int(counts[i]), "failed": int(fails[i])}
            )
    if nan.any():
        rows.append(
            {"bucket": "NaN", "order": n, "lo": -1, "hi": -1, "count": int(nan.sum()), "failed": int(failed[nan].sum())}
        )
    return rows


def ulp_frame(result: Result, output: str, errors: Errors | None = None) -> pd.DataFrame:
    """The ULP-error histogram of one output, long form: a row per (bucket, passed|failed) with its element count
    `n`; `total` is the bucket's count and `label` names it once per bucket (on its top row) for the chart's text.
    `errors`: errors_of(result, output) when the caller has it already (it is the costly part)."""
    import pandas as pd

    err = errors if errors is not None else errors_of(result, output)
    rows = []
    for b in _ulp_buckets(err["ulp"], err["failed"]):
        failed = b.pop("failed")
        total = b.pop("count")
        label = f"{total:,}" + (f" ({failed:,} failed)" if failed else "")
        rows.append({**b, "judged": "passed", "n": total - failed, "total": total, "label": "" if failed else label})
        rows.append({**b, "judged": "failed", "n": failed, "total": total, "label": label if failed else ""})
    return pd.DataFrame(rows, columns=["bucket", "order", "lo", "hi", "judged", "n", "total", "label"])


MAX_CELLS = 4096  # the heatmap never sends more rows than this to the browser, whatever the output's size
RATIO_CAP = 1e6  # vega draws no inf: an element `exact` fails (it allows nothing) shows as this many times over
HEATMAP_COLUMNS = [
    "row0", "row1", "col0", "col1", "max_ratio", "level", "max_abs_err", "max_ulp", "failed", "count", "x_title",
    "y_title",
]  # fmt: skip
# the heatmap's colour classes: a cell's largest error over what the standard allows (1 = the limit)
RATIO_STEPS = (0.01, 0.1, 0.5, 1.0, 10.0)
RATIO_LEVELS = ("< 1 % of allowed", "1-10 %", "10-50 %", "50-100 %", "1-10 x over", "> 10 x over")


def ratio_level(ratio: Any) -> Any:
    """RATIO_LEVELS' name of each ratio (a ratio of exactly 1 is within the limit: failing is above it)."""
    return np.asarray(RATIO_LEVELS)[np.searchsorted(RATIO_STEPS, ratio, side="left")]


def split_of(result: Result, output: str) -> str | None:
    """How `output` lies along the plan's core split: "flat" (a 1-D output whose elements the cores own in
    contiguous ranges), "rows" (rank >= 2, the cores own contiguous runs of its leading rows), or None (owners
    that are data-dependent, like atomic adds, or strided, like NCHW lanes): checked with the op's locator."""
    plan, shape = result.plan, result.outputs[output].shape
    cores = plan.cores
    if not cores or not shape:
        return None
    units = shape[0] if len(shape) == 1 else math.prod(shape[:-1])
    width = 1 if len(shape) == 1 else shape[-1]
    if cores[0].start != 0 or cores[-1].stop != units or any(a.stop != b.start for a, b in itertools.pairwise(cores)):
        return None
    probes = np.array([(c.start, c.stop - 1) for c in cores], np.int64).reshape(-1) * width
    try:
        owners = plan.locate_many(probes, output, result.inputs)
    except WorkbenchError:
        return None
    expected = np.repeat(np.arange(len(cores)), 2)
    if not (np.array_equal(owners.pos, np.arange(probes.size)) and np.array_equal(owners.core, expected)):
        return None
    return "flat" if len(shape) == 1 else "rows"


def heatmap_frame(
    result: Result, output: str, max_cells: int = MAX_CELLS, errors: Errors | None = None
) -> pd.DataFrame:
    """The output's errors aggregated onto at most `max_cells` cells (numpy, here: the chart gets a few thousand
    rows for a 16M-element output). Each cell holds its index ranges, `max_ratio` (the largest error over what the
    standard allows: above 1 fails), the max abs error, the max ULP and the failed count.

    A 1-D output the cores own in contiguous ranges is laid out by the split: a row per core, its elements left to
    right. Otherwise an output of rank >= 2 is rows (all leading dims) x its last dim, and any other 1-D output is
    wrapped row-major into a near-square."""
    import pandas as pd

    err = errors if errors is not None else errors_of(result, output)
    shape = result.outputs[output].shape
    n = int(err["abs_err"].size)
    if n == 0:
        return pd.DataFrame(columns=HEATMAP_COLUMNS)
    ratio = np.minimum(np.nan_to_num(err["ratio"], nan=RATIO_CAP), RATIO_CAP)
    abs_err = np.nan_to_num(err["abs_err"].astype(np.float64), nan=np.inf)
    values = {"max_ratio": ratio, "max_abs_err": abs_err, "max_ulp": err["ulp"].astype(np.int64)}
    if split_of(result, output) == "flat":
        frame = _by_split(result.plan.cores, values, err["failed"], max_cells)
    else:
        frame = _by_grid(shape, values, err["failed"], max_cells)
    frame["level"] = ratio_level(frame["max_ratio"].to_numpy())
    return frame


def _by_grid(shape: tuple[int, ...], values: dict[str, np.ndarray], failed: np.ndarray, max_cells: int) -> pd.DataFrame:
    """Rows (all leading dims) x the last dim, or a 1-D output wrapped row-major into a near-square, cut into at
    most `max_cells` equal blocks."""
    import pandas as pd

    n = failed.size
    cols = max(shape[-1] if len(shape) >= 2 else math.isqrt(max(n - 1, 0)) + 1, 1)
    rows = -(-n // cols)
    side = max(1, math.isqrt(max_cells))
    rb, cb = min(rows, side), min(cols, side)
    # leftover room goes to the longer axis: a 4 x 100000 output gets 4 x 1024 cells, not 4 x 64
    if rb < side:
        cb = min(cols, max_cells // rb)
    elif cb < side:
        rb = min(rows, max_cells // cb)
    pad = rows * cols - n

    def grid(x: np.ndarray, fill: Any) -> np.ndarray:
        return np.concatenate([x, np.full(pad, fill, x.dtype)]).reshape(rows, cols) if pad else x.reshape(rows, cols)

    r_edges = np.linspace(0, rows, rb + 1).astype(np.int64)
    c_edges = np.linspace(0, cols, cb + 1).astype(np.int64)
    r_start, c_start = r_edges[:-1], c_edges[:-1]

    def reduce(x: np.ndarray, op: np.ufunc) -> np.ndarray:
        return op.reduceat(op.reduceat(grid(x, 0), r_start, axis=0), c_start, axis=1).ravel()

    r0, c0 = np.meshgrid(r_start, c_start, indexing="ij")
    r1, c1 = np.meshgrid(r_edges[1:], c_edges[1:], indexing="ij")
    return pd.DataFrame(
        {
            "row0": r0.ravel(),
            "row1": r1.ravel(),
            "col0": c0.ravel(),
            "col1": c1.ravel(),
            **{k: reduce(v, np.maximum) for k, v in values.items()},
            "failed": reduce(failed.astype(np.int64), np.add),
            "count": reduce(np.ones(n, np.int64), np.add),
            # what the axes are, for the chart's titles: a wrapped 1-D output has no rows or columns of its own
            "x_title": "last dim" if len(shape) >= 2 else f"flat index mod {cols}",
            "y_title": "leading dims, flattened" if len(shape) >= 2 else f"flat index // {cols}",
        },
        columns=HEATMAP_COLUMNS,
    )


def _by_split(
    cores: Sequence[CoreRange], values: dict[str, np.ndarray], failed: np.ndarray, max_cells: int
) -> pd.DataFrame:
    """A row per core, its contiguous range cut into equal bins (the same bin width on every core, so offsets line
    up): row0/row1 are the core, col0/col1 the offsets in it."""
    import pandas as pd

    width = max(1, -(-max(c.count for c in cores) // max(1, max_cells // len(cores))))
    busy = [c for c in cores if c.count]
    starts = [np.arange(c.start, c.stop, width) for c in busy]
    edges = np.concatenate(starts)
    ends = np.concatenate([np.minimum(s + width, c.stop) for s, c in zip(starts, busy, strict=True)])
    core = np.concatenate([np.full(s.size, c.core) for s, c in zip(starts, busy, strict=True)])
    origin = np.array([c.start for c in cores])[core]
    return pd.DataFrame(
        {
            "row0": core,
            "row1": core + 1,
            "col0": edges - origin,
            "col1": ends - origin,
            **{k: np.maximum.reduceat(v, edges) for k, v in values.items()},
            "failed": np.add.reduceat(failed.astype(np.int64), edges),
            "count": ends - edges,
            "x_title": "offset in the core's range (elements)",
            "y_title": "core",
        },
        columns=HEATMAP_COLUMNS,
    )


MAX_LINES = 2000  # tile boundaries beyond this many are left out (the core boundaries never are)


def split_lines_frame(result: Result, output: str) -> pd.DataFrame:
    """The core and tile boundaries to draw over the heatmap (heatmap_frame's coordinates): for an output laid out
    by the split, tile boundaries inside each core's row; for rows owned by cores, a line where each core's rows
    begin and where each of its tiles begins. Empty when the split does not map onto the output (split_of)."""
    import pandas as pd

    split, cores = split_of(result, output), result.plan.cores
    if split is None:
        return pd.DataFrame(columns=["x", "x2", "y", "y2", "kind", "core"])
    width = result.outputs[output].shape[-1]
    lines: list[dict[str, Any]] = []
    if split == "rows":
        lines += [{"x": 0, "x2": width, "y": c.start, "y2": c.start, "kind": "core", "core": c.core} for c in cores]
    # where each tile after the first begins in its core, and Cast's tail window
    tiles = [
        (c, x)
        for c in cores
        for x in [k * tile_size(c) for k in range(1, c.tiles)] + ([c.count - c.tail] if c.tail else [])
    ]
    if len(tiles) <= MAX_LINES:
        for c, x in tiles:
            if split == "flat":
                lines.append({"x": x, "x2": x, "y": c.core, "y2": c.core + 1, "kind": "tile", "core": c.core})
            else:
                lines.append({"x": 0, "x2": width, "y": c.start + x, "y2": c.start + x, "kind": "tile", "core": c.core})
    return pd.DataFrame(lines, columns=["x", "x2", "y", "y2", "kind", "core"])


MAP_TILES = 64  # the failure map's columns: tiles beyond this many per core are grouped
LOCATE_CHUNK = 1 << 20  # failing elements located at a time (the owners' arrays stay a few MB)


def failure_map_frame(result: Result, output: str, errors: Errors | None = None) -> pd.DataFrame:
    """Failing elements per core and tile, from every failing element (located with the op's locator): a row per
    cell of the plan's grid (each core's tiles, its tail window as one more tile), so a core without failures shows
    as 0; a row with core -1 for elements no core writes. Tiles are grouped (tile0..tile1) when a core has more than
    MAP_TILES. An element several cores write (atomic adds) counts once for each of them."""
    import pandas as pd

    err = errors if errors is not None else errors_of(result, output)
    plan = result.plan
    tiles = {c.core: c.tiles + (1 if c.tail else 0) for c in plan.cores}
    group = max(1, -(-max(tiles.values(), default=1) // MAP_TILES))
    counts: dict[tuple[int, int], int] = {}
    for _, owners in _failing_owners(result, output, err):
        cell = np.stack([owners.core, np.where(owners.tile < 0, -1, owners.tile // group)])
        keys, n = np.unique(cell, axis=1, return_counts=True)
        for (c, b), k in zip(keys.T.tolist(), n.tolist(), strict=True):
            counts[(c, b)] = counts.get((c, b), 0) + k
    cells = {(c, b) for c, t in tiles.items() for b in range(-(-t // group))} | set(counts)
    total = sum(counts.values())
    rows = []
    for c, b in sorted(cells):
        t0 = b * group
        t1 = -1 if b < 0 else min(tiles.get(c, t0 + group), t0 + group) - 1
        label = "?" if b < 0 else (str(t0) if t0 >= t1 else f"{t0}-{t1}")
        failed = counts.get((c, b), 0)
        rows.append(
            {
                "core": c,
                "tile0": -1 if b < 0 else t0,
                "tile1": t1,
                "tile": label,
                "failed": failed,
                "share": failed / total if total else 0.0,
                "who": "no core" if c < 0 else f"core {c}",
            }
        )
    return pd.DataFrame(rows, columns=["core", "tile0", "tile1", "tile", "failed", "share", "who"])


def _failing_owners(result: Result, output: str, err: Errors) -> Iterator[tuple[np.ndarray, Owners]]:
    """The failing elements' flat positions and owners (TilingPlan.locate_many), LOCATE_CHUNK at a time."""
    failing = np.flatnonzero(err["failed"])
    for at in range(0, failing.size, LOCATE_CHUNK):
        block = failing[at : at + LOCATE_CHUNK]
        yield block, result.plan.locate_many(block, output, result.inputs)


def failing_in(
    result: Result, output: str, errors: Errors, core: int | None = None, tiles: tuple[int, int] | None = None
) -> np.ndarray:
    """Flat positions of the failing elements that `core` (-1: no core) computed in tiles tiles[0]..tiles[1]
    (tiles[0] < 0: an unknown tile; None: any), in increasing order: the mismatch table's rows when a failure-map
    cell is selected."""
    if core is None and tiles is None:
        return np.flatnonzero(errors["failed"])
    chosen = [np.zeros(0, np.int64)]
    for block, owners in _failing_owners(result, output, errors):
        hit = np.ones(owners.pos.size, bool) if core is None else owners.core == core
        if tiles is not None:
            hit &= (owners.tile >= tiles[0]) & (owners.tile <= tiles[1]) if tiles[0] >= 0 else owners.tile < 0
        chosen.append(block[np.unique(owners.pos[hit])])
    return np.concatenate(chosen)


MISMATCH_COLUMNS = [
    "index", "flat", "inputs", "expected", "actual", "abs_err", "rel_err", "ulp", "core", "cores", "tile", "offset",
    "tail", "location",
]  # fmt: skip


def mismatch_frame(result: Result, output: str, positions: np.ndarray | None = None) -> pd.DataFrame:
    """A row per element with its provenance: N-d index, inputs, expected, actual, errors, core, tile, offset, tail
    flag and the whole location (Location's text, with the op's detail). `positions` (flat) picks the elements;
    None takes the report's worst (failing first, then the largest errors)."""
    import pandas as pd

    from ....judge.compare import elements
    from ....planning.pipeline import input_values

    report = result.reports[output]
    chosen = report.worst
    if positions is not None:
        shape = result.outputs[output].shape
        values = partial(input_values, result.case, result.inputs, output, shape)
        chosen = elements(
            result.outputs[output], result.expected[output], report.dtype, report.standard, positions, values
        )
    rows = []
    for e in chosen:
        loc = result.plan.locate(e.flat, output, result.inputs)
        rows.append(
            {
                "index": ",".join(map(str, e.index)),
                "flat": e.flat,
                "inputs": ", ".join(f"{k}={v}" for k, v in e.inputs.items()),
                "expected": e.expected,
                "actual": e.actual,
                "abs_err": e.abs_err,
                "rel_err": e.rel_err,
                "ulp": -1 if e.ulp is None else e.ulp,
                "core": -1 if loc.core is None else loc.core,
                "cores": ",".join(map(str, loc.cores or (() if loc.core is None else (loc.core,)))),
                "tile": -1 if loc.tile is None else loc.tile,
                "offset": -1 if loc.offset is None else loc.offset,
                "tail": loc.tail,
                "location": str(loc),
            }
        )
    return pd.DataFrame(rows, columns=MISMATCH_COLUMNS)
