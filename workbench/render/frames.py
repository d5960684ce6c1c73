"""Records -> long-form pandas frames: the one place where what a chart shows is computed.

pandas is imported inside each function, never at `import workbench`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compare import element_errors
from ..criteria import Time
from ..timesource import DEVICE, MEANING, PREDICTED, SOURCES

Errors = dict[str, np.ndarray]  # compare.element_errors: ulp, abs_err, failed

if TYPE_CHECKING:
    import pandas as pd

    from ..runner import Result
    from ..tiling import TilingPlan


def cores_frame(plan: TilingPlan) -> pd.DataFrame:
    """One row per core: its range of work in the plan's unit, tiles, and its role: "tail core" for the core that
    runs the tail (Cast's back-stepped window, or the last core of a split with less work than core 0),
    "short core" for the others with less work than core 0, "core" for the rest."""
    import pandas as pd

    first = plan.cores[0].count if plan.cores else 0
    last = len(plan.cores) - 1

    def role(c: Any) -> str:
        if c.tail or (c.core == last and c.count < first):
            return "tail core"
        return "short core" if c.count < first else "core"

    return pd.DataFrame(
        [{**c._asdict(), "unit": plan.unit, "role": role(c)} for c in plan.cores],
        columns=["core", "start", "count", "tiles", "last_tile", "tail", "unit", "role"],
    )


def ub_frame(plan: TilingPlan) -> pd.DataFrame:
    """One row per UB allocation (bytes after InitBuffer's 32 B rounding), then the reserve and what is left,
    stacked in that order against the platform's UB size."""
    import pandas as pd

    rows = [{"part": b.name, "bytes": b.total, "kind": "buffer", "note": b.note} for b in plan.ub_buffers]
    rows.append({"part": "reserve", "bytes": plan.ub_reserved, "kind": "reserve", "note": "kept back by tiling"})
    free = plan.ub_size - plan.ub_reserved - plan.ub_used
    rows.append({"part": "free", "bytes": max(free, 0), "kind": "free", "note": ""})
    frame = pd.DataFrame(rows, columns=["part", "bytes", "kind", "note"])
    frame["order"] = range(len(frame))
    frame["ub_size"] = plan.ub_size
    return frame


def selected_tile_frame(plan: TilingPlan, cores: Sequence[int], tile: int | None) -> pd.DataFrame:
    """The highlight for a selected element: per selected core, the extent [y0, y1) of its tile in the core's own
    units (the whole core when the tile is unknown). Tiles are equal but the last (CoreRange.last_tile)."""
    import pandas as pd

    rows = []
    for c in cores:
        if not 0 <= c < len(plan.cores):
            continue
        r = plan.cores[c]
        y0, y1 = 0, r.count
        if tile is not None and r.tiles > 0 and 0 <= tile < r.tiles:
            size = (r.count - r.tail - r.last_tile) // (r.tiles - 1) if r.tiles > 1 else r.count - r.tail
            y0 = tile * size
            y1 = y0 + (r.last_tile if tile == r.tiles - 1 else size)
        rows.append({"core": c, "y0": y0, "y1": y1, "tile": -1 if tile is None else tile})
    return pd.DataFrame(rows, columns=["core", "y0", "y1", "tile"])


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


def heatmap_frame(
    result: Result, output: str, max_cells: int = MAX_CELLS, errors: Errors | None = None
) -> pd.DataFrame:
    """The output's errors aggregated onto a grid of at most `max_cells` cells (aggregation happens here, in
    numpy, so the chart gets a few thousand rows for a 16M-element output).

    An output of rank >= 2 is viewed as rows (all leading dims) x its last dim; a 1-D output is wrapped row-major
    into a near-square. Each cell holds its index ranges, the max abs error, the max ULP and the failed count."""
    import pandas as pd

    err = errors if errors is not None else errors_of(result, output)
    shape = result.outputs[output].shape
    n = int(err["abs_err"].size)
    cols = max(shape[-1] if len(shape) >= 2 else math.isqrt(max(n - 1, 0)) + 1, 1)
    rows = -(-n // cols) if n else 0
    side = max(1, math.isqrt(max_cells))
    rb, cb = min(rows, side), min(cols, side)
    if rows == 0:
        columns = ["row0", "row1", "col0", "col1", "max_abs_err", "max_ulp", "failed", "count", "x_title", "y_title"]
        return pd.DataFrame(columns=columns)
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
        return op.reduceat(op.reduceat(x, r_start, axis=0), c_start, axis=1)

    abs_err = np.nan_to_num(grid(err["abs_err"].astype(np.float64), 0.0), nan=np.inf)
    ulp = grid(err["ulp"].astype(np.int64), 0)
    failed = grid(err["failed"].astype(np.int64), 0)
    valid = grid(np.ones(n, np.int64), 0)
    r0, c0 = np.meshgrid(r_start, c_start, indexing="ij")
    r1, c1 = np.meshgrid(r_edges[1:], c_edges[1:], indexing="ij")
    return pd.DataFrame(
        {
            "row0": r0.ravel(),
            "row1": r1.ravel(),
            "col0": c0.ravel(),
            "col1": c1.ravel(),
            "max_abs_err": reduce(abs_err, np.maximum).ravel(),
            "max_ulp": reduce(ulp, np.maximum).ravel(),
            "failed": reduce(failed, np.add).ravel(),
            "count": reduce(valid, np.add).ravel(),
            # what the axes are, for the chart's titles: a wrapped 1-D output has no rows or columns of its own
            "x_title": "last dim" if len(shape) >= 2 else f"flat index mod {cols}",
            "y_title": "leading dims, flattened" if len(shape) >= 2 else f"flat index // {cols}",
        }
    )


def mismatch_frame(result: Result, output: str) -> pd.DataFrame:
    """The report's worst elements (failing first, then the largest errors) with their provenance: a row per
    element with its N-d index, inputs, expected, actual, errors and the core, tile, offset and tail flag."""
    import pandas as pd

    report = result.reports[output]
    rows = []
    for e in report.worst:
        loc = result.plan.locate(e.flat, output, result.inputs)
        rows.append(
            {
                "index": ",".join(map(str, e.index)),
                "flat": e.flat,
                "inputs": ", ".join(f"{k}={v}" for k, v in e.inputs.items()),
                "expected": e.expected,
                "actual": e.actual,
                "abs_err": e.abs_err,
                "ulp": -1 if e.ulp is None else e.ulp,
                "core": -1 if loc.core is None else loc.core,
                "cores": ",".join(map(str, loc.cores or (() if loc.core is None else (loc.core,)))),
                "tile": -1 if loc.tile is None else loc.tile,
                "offset": -1 if loc.offset is None else loc.offset,
                "tail": loc.tail,
            }
        )
    columns = [
        "index",
        "flat",
        "inputs",
        "expected",
        "actual",
        "abs_err",
        "ulp",
        "core",
        "cores",
        "tile",
        "offset",
        "tail",
    ]
    return pd.DataFrame(rows, columns=columns)


# timings keys -> the step they time, in the order the table lists them
TIMING_STEPS = {
    "build_s": "build",
    "launch_s": "launch",
    "run_s": "run",
    "kernel_s": "kernel",
    "builtin_kernel_s": "built-in (TBE)",
    "golden_s": "golden",
}
NEEDS_DEVICE = "needs an NPU: the npu backend on a device, or an msprof op_summary attached with profiling.attach"


def timings_frame(result: Result) -> pd.DataFrame:
    """Long form: a row per (step, source) with seconds (NaN when not available) and how it was obtained.

    Every timing of the run is a row with its source (timesource.py). The kernel also gets the time a criterion
    judges (device-measured, else predicted), a device-measured row that says what it needs when there is none, the
    model's prediction and the memory bound ("theoretical"); the built-in (TBE) op its device time or what it
    needs."""
    import pandas as pd

    from ..criteria import builtin_time, kernel_time, theoretical_time

    replay = result.trace.get("replay")
    recorded = (
        f"; recorded on the {replay['source']} at {replay['created']}, replayed from {replay['path']}" if replay else ""
    )
    kernel = kernel_time(result)
    rows: dict[tuple[str, str], tuple[float | None, str]] = {}
    for key, seconds in result.timings.items():
        source = result.timing_sources[key]
        judged = key == "kernel_s" and source == kernel.source  # the kernel time a criterion judges says how
        how = kernel.how if judged else MEANING[source] + ("" if key == "golden_s" else recorded)
        rows[(TIMING_STEPS.get(key, key), source)] = (seconds, how)
    builtin = builtin_time(result)
    extra = [
        ("kernel", kernel),
        ("kernel", Time(None, DEVICE, NEEDS_DEVICE)),
        ("kernel", Time(None, PREDICTED, "no emulator trace to predict from")),
        ("kernel", theoretical_time(result)),
        ("built-in (TBE)", builtin if builtin.source else Time(None, DEVICE, builtin.how)),
    ]
    for step, t in extra:
        if t.source is not None:
            rows.setdefault((step, t.source), (t.seconds, t.how))
    steps = [*TIMING_STEPS.values(), *(step for step, _ in rows if step not in TIMING_STEPS.values())]
    ordered = sorted(rows.items(), key=lambda item: (steps.index(item[0][0]), SOURCES.index(item[0][1])))
    return pd.DataFrame(
        [
            {
                "step": step,
                "source": source,
                "seconds": float("nan") if seconds is None else float(seconds),
                "how": how,
                "available": seconds is not None,
            }
            for (step, source), (seconds, how) in ordered
        ],
        columns=["step", "source", "seconds", "how", "available"],
    )


def errors_of(result: Result, output: str) -> Errors:
    """Per-element errors of one output, judged as its report was (compare.element_errors): compute once, pass to
    ulp_frame and heatmap_frame (a 16M-element output takes about a second)."""
    report = result.reports[output]
    return element_errors(result.outputs[output], result.expected[output], report.dtype, report.standard)


def pipe_timeline_frame(prediction: Prediction) -> pd.DataFrame:
    """A row per busy pipe of each core (perfmodel.pipe_spans): start and end in seconds and µs, whether the core's
    pipes overlap, and the predicted kernel time (slowest core + launch) with its bottleneck on every row."""
    import pandas as pd

    from ..perfmodel import pipe_spans

    columns = ["core", "pipe", "start_s", "end_s", "overlapped"]
    frame = pd.DataFrame(pipe_spans(prediction), columns=columns)
    frame["start_us"], frame["end_us"] = frame["start_s"] * 1e6, frame["end_s"] * 1e6
    frame["kernel_us"], frame["bottleneck"] = prediction.kernel_s * 1e6, prediction.bottleneck
    return frame


if TYPE_CHECKING:
    from ..perfmodel import Prediction
