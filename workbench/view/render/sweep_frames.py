"""A sweep's DataFrame (one row per point, wb.sweep) -> the long-form frames its views draw (render/sweep_charts.py):
pass/fail and max ULP by two chosen axes, error over size, the tiling path over two axes, the predicted kernel time
against the memory bound over size.

Every frame names its axis values `x` and `y` (strings, ordered by `x_rank`/`y_rank`) whatever column they come
from: a column such as "plan.r" cannot be a Vega-Lite field name (the dot reads as a nested field). A row that
was refused before it ran (status "error") has no plan, errors or times: its cells say so instead of vanishing.
Every frame carries each row's `key` (what the views select) and `label`. pandas is imported inside each function.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...core.errors import InvalidInput
from ...sweeps import STATUSES
from ...sweeps.points import missing, row_attrs, row_dims

if TYPE_CHECKING:
    import pandas as pd


WORST_FIRST = ("fault", "fail", "error", "pass")  # a cell shows its worst row: a kernel crash, then a wrong answer
# the columns that say which case a row is (what a view can be laid out by), in the order the axis menus list them
IDENTITY = (
    "shape",
    "numel",
    "dtypes",
    "attrs",
    "format",
    "platform",
    "distribution",
    "seed",
    "op",
    "backend",
    "standard",
    "kernel",
)
SIZE_AXES = ("numel", "shape")  # what "size" means when a view draws over it
METRICS = ("max_ulp", "max_abs", "max_rel")
NO_VALUE = "—"  # an axis value a row does not have (a plan field of a refused case)
NO_PATH = "(no plan)"  # a refused case's path: it was never planned, or planning refused it
MEASURES = {"kernel_time_s": "kernel time", "memory_bound_s": "memory bound"}


def with_axes(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with the columns a view can also be laid out by: `dim0`, `dim1`, ... (the shape's dimensions: SCE's C
    is dim1) and `attrs.<name>` (each attribute, from the attrs JSON). A new frame; `df` is unchanged."""
    import pandas as pd

    out = df.copy()
    if "shape" in df and len(df):
        dims = [row_dims(s) for s in df["shape"]]
        for i in range(max(map(len, dims), default=0)):
            out[f"dim{i}"] = pd.array([d[i] if i < len(d) else None for d in dims], dtype="Int64")
    if "attrs" in df and len(df):
        parsed = [row_attrs(a) for a in df["attrs"]]
        for name in sorted({k for a in parsed for k in a}):
            out[f"attrs.{name}"] = [a.get(name) for a in parsed]
    return out


def axis_options(df: pd.DataFrame) -> list[str]:
    """Every column a view can be laid out by (with_axes' too): the identity columns, the shape's dimensions, each
    attribute and every plan field; those that vary across the rows first, each group in that order."""
    frame = with_axes(df)
    dims = sorted((c for c in frame.columns if c.startswith("dim") and c[3:].isdigit()), key=lambda c: int(c[3:]))
    names = [
        *(c for c in IDENTITY if c in frame),
        *dims,
        *sorted(c for c in frame.columns if c.startswith("attrs.")),
        *(c for c in frame.columns if c.startswith("plan.")),
    ]
    varying = [c for c in names if _distinct(frame[c]) > 1]
    return varying + [c for c in names if c not in varying]


def default_axes(df: pd.DataFrame) -> tuple[str, str]:
    """The two axes a view opens on: across, the size-like column that varies most (shape, numel, a dimension, an
    attribute); down, the dtypes if they vary, else the next column that does; else shape by dtypes."""
    frame = with_axes(df)
    options = axis_options(df)
    varying = [c for c in options if _distinct(frame[c]) > 1]
    sizes = [c for c in varying if c in SIZE_AXES or c.startswith(("dim", "attrs."))]
    dims = [c for c in frame.columns if c.startswith("dim") and c[3:].isdigit()]
    # a tie goes to a dimension of a multi-dimensional shape (SCE's C: dim1), then an attribute, shape, numel
    preferred = [*(dims if len(dims) > 1 else []), *(c for c in sizes if c.startswith("attrs.")), "shape", "numel"]
    rank = {c: i for i, c in enumerate(preferred)}
    best = sorted(sizes, key=lambda c: (-_distinct(frame[c]), rank.get(c, len(rank))))
    x = best[0] if best else (varying[0] if varying else "shape")
    rest = [c for c in varying if c != x and c not in SIZE_AXES and not c.startswith("dim")]
    y = "dtypes" if "dtypes" in rest or not rest else rest[0]
    return x, y


def status_counts(df: pd.DataFrame) -> dict[str, int]:
    """How many rows have each status, every status named (0 when none)."""
    seen = df["status"].value_counts().to_dict() if "status" in df else {}
    return {s: int(seen.get(s, 0)) for s in STATUSES}


def counts_text(df: pd.DataFrame) -> str:
    """ "12 cases: 10 pass, 1 fail, 1 error" (the statuses present only); "" for no rows."""
    counts = status_counts(df)
    return f"{len(df)} cases: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n) if len(df) else ""


def size_axis(df: pd.DataFrame, x: str) -> str:
    """The size the views over size draw along: `x` when it is numeric (numel, a dimension, a numeric attribute or
    plan field), else numel."""
    import pandas as pd

    frame = with_axes(df)
    numeric = x in frame and x != "seed" and pd.api.types.is_numeric_dtype(frame[x]) and frame[x].notna().any()
    return x if numeric else "numel"


# the columns every cell frame has: the axis values and their order, the rows in the cell by status, the worst
# status, the largest errors, and the row a click opens (the worst one) with its label
CELL_COLUMNS = [
    "x",
    "y",
    "x_rank",
    "y_rank",
    "n",
    *STATUSES,
    "worst",
    "counts",
    "text",
    "max_ulp",
    "max_abs",
    "max_rel",
    "ulp_text",
    "key",
    "label",
]


def cell_frame(df: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """A row per (x, y) value pair present: how many rows it holds by status, its worst status (WORST_FIRST), its
    largest ULP, absolute and relative errors (NaN when no row of it compared anything: every one was refused),
    `text` "passing/all", and the key and label of its worst row (the largest ULP among those): what opens on a
    click. For the pass/fail and max-ULP heatmaps. Whole-frame operations, no loop over cells: the panel redraws
    it while a sweep of thousands of rows runs."""
    import pandas as pd

    frame = _laid_out(df, x, y)
    if frame.empty:
        return pd.DataFrame(columns=CELL_COLUMNS)
    for metric in METRICS:
        frame[metric] = pd.to_numeric(_column(frame, metric), errors="coerce")
    frame["_worst"] = frame["status"].map({s: i for i, s in enumerate(WORST_FIRST)}).fillna(len(WORST_FIRST))
    frame["_ulp"] = frame["max_ulp"].fillna(-1.0)
    cells = frame.groupby(["x", "y"], sort=False)
    out = cells.agg(
        x_rank=("x_rank", "first"), y_rank=("y_rank", "first"), n=("status", "size"), **{m: (m, "max") for m in METRICS}
    )
    counts = pd.crosstab([frame["x"], frame["y"]], frame["status"]).reindex(columns=list(STATUSES), fill_value=0)
    out = out.join(counts)
    worst = frame.sort_values(["_worst", "_ulp"], ascending=[True, False], kind="stable").drop_duplicates(["x", "y"])
    out = out.join(worst.set_index(["x", "y"])[["status", "key", "label"]].rename(columns={"status": "worst"}))
    out = out.reset_index()
    out["counts"] = [
        ", ".join(f"{n} {s}" for s, n in zip(STATUSES, c, strict=True) if n) for c in out[list(STATUSES)].values
    ]
    out["text"] = out["pass"].astype(str) + "/" + out["n"].astype(str)
    out["ulp_text"] = [NO_VALUE if math.isnan(u) else f"{u:,.0f}" for u in out["max_ulp"]]
    out[["key", "label", "worst"]] = out[["key", "label", "worst"]].astype(str)
    return out[CELL_COLUMNS].sort_values(["y_rank", "x_rank"], ignore_index=True)


ERROR_COLUMNS = ["size", "value", "plotted", "exact", "series", "status", "key", "label", "metric", "scale"]


def error_frame(df: pd.DataFrame, metric: str = "max_ulp", series: str = "dtypes", size: str = "numel") -> pd.DataFrame:
    """A row per case that compared anything: its size (`size`, a numeric column: numel or a dimension), its error
    `metric` (max_ulp, max_abs or max_rel: the worst over its outputs), its `series` value (a line each) and status.

    Both axes are drawn on log scales: `plotted` is the value where it is drawn, `scale` says how. ULPs are on a
    symlog scale (0, an exact result, is drawn at 0); an absolute or relative error of 0 (`exact`) is drawn a decade
    below the smallest non-zero one, where a log scale can show it. Empty cases (size 0) have no place on a log
    size axis and are left out; so are refused cases, which compared nothing."""
    import pandas as pd

    if metric not in METRICS:
        raise InvalidInput("metric", metric, ", ".join(METRICS))
    frame = with_axes(df)
    if frame.empty or size not in frame:
        return pd.DataFrame(columns=ERROR_COLUMNS)
    sizes = pd.to_numeric(frame[size], errors="coerce")
    values = pd.to_numeric(_column(frame, metric), errors="coerce")
    keep = (sizes > 0) & values.notna()
    out = pd.DataFrame(
        {
            "size": sizes[keep].astype(float),
            "value": values[keep].astype(float),
            "series": _labels(frame[series])[keep] if series in frame else "",
            "status": frame["status"][keep],
            "key": frame["key"][keep],
            "label": frame["label"][keep],
        }
    )
    out["exact"] = out["value"] == 0
    if metric == "max_ulp":
        out["plotted"], out["scale"] = out["value"], "symlog"
    else:
        positive = out["value"][out["value"] > 0]
        floor = float(positive.min()) / 10 if len(positive) else 1e-12
        out["plotted"], out["scale"] = out["value"].where(out["value"] > 0, floor), "log"
    out["metric"] = metric
    return out.sort_values(["series", "size"], ignore_index=True)[ERROR_COLUMNS]


PATH_COLUMNS = ["x", "y", "x_rank", "y_rank", "n", "path", "tiling_key", "paths", "before", "switch", "key", "label"]


def path_frame(df: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """A row per (x, y) value pair present: the tiling path its cases took (the most common, `paths` naming every
    one when they differ: a cell holding several seeds or shapes), the tiling key, `before`: the path of the last
    planned cell before it along x, and `switch`: True where the path differs from that one (where SPLIT_R
    begins). The key and label of the cell's first case with that path: what opens on a click. A refused case has
    NO_PATH (and is no switch)."""
    import pandas as pd

    frame = _laid_out(df, x, y)
    if frame.empty:
        return pd.DataFrame(columns=PATH_COLUMNS)
    path = _column(frame, "path")
    frame["path"] = path.where(path.notna() & (path.astype(str) != ""), NO_PATH).astype(str)
    frame["tiling_key"] = _labels(_column(frame, "tiling_key"))
    by_path = frame.groupby(["x", "y", "path"], sort=False).size().rename("count").reset_index()
    by_path = by_path.sort_values("count", ascending=False, kind="stable")  # ties: the path seen first
    paths = by_path.groupby(["x", "y"], sort=False)["path"].agg(" | ".join).rename("paths")
    top = by_path.drop_duplicates(["x", "y"])[["x", "y", "path"]]
    first = frame.merge(top, on=["x", "y", "path"]).drop_duplicates(["x", "y"])
    out = first.join(frame.groupby(["x", "y"]).size().rename("n"), on=["x", "y"]).join(paths, on=["x", "y"])
    out = out.sort_values(["y_rank", "x_rank"], ignore_index=True)
    # the path of the last planned cell before along x: a refused cell between two is no change of path
    planned = out["path"].where(out["path"] != NO_PATH)
    out["before"] = planned.groupby(out["y"], sort=False).transform(lambda s: s.ffill().shift())
    out["switch"] = planned.notna() & out["before"].notna() & (out["before"] != out["path"])
    out[["key", "label"]] = out[["key", "label"]].astype(str)
    return out[PATH_COLUMNS]


SWITCH_COLUMNS = ["y", "before", "after", "at", "text"]


def path_switches(cells: pd.DataFrame, x: str) -> pd.DataFrame:
    """Where the path changes along x in path_frame's `cells`, a row per change and y value, with its sentence:
    "float32: FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at dim1 = 4705" (a sweep is a sample: the change happened between
    the planned value before and this one)."""
    import pandas as pd

    rows = [
        {
            "y": r.y,
            "before": r.before,
            "after": r.path,
            "at": r.x,
            "text": f"{r.y}: {r.before} → {r.path} at {x} = {r.x}",
        }
        for r in cells[cells["switch"]].itertuples()
    ]
    return pd.DataFrame(rows, columns=SWITCH_COLUMNS)


TIME_COLUMNS = ["size", "seconds", "measure", "source", "line", "series", "bound_share", "status", "key", "label"]


def time_frame(df: pd.DataFrame, series: str = "dtypes", size: str = "numel") -> pd.DataFrame:
    """Long form, two rows per case that ran: its kernel time and its memory bound (bytes moved over the platform's
    bandwidth) over its size, each with the source of the number (the sweep's `*_source` columns: "predicted",
    "theoretical", or "device-measured" where an NPU measured it) and `line` "kernel time · predicted", which names
    both. `bound_share` is the bound over the kernel time (1: the kernel runs at the memory bound). Times that are
    missing or zero (an empty case launches nothing) and sizes of 0 have no place on log axes and are left out."""
    import pandas as pd

    frame = with_axes(df)
    if frame.empty or size not in frame:
        return pd.DataFrame(columns=TIME_COLUMNS)
    sizes = pd.to_numeric(frame[size], errors="coerce")
    kernel = pd.to_numeric(_column(frame, "kernel_time_s"), errors="coerce")
    bound = pd.to_numeric(_column(frame, "memory_bound_s"), errors="coerce")
    share = (bound / kernel).where(kernel > 0)
    parts = []
    for column, measure in MEASURES.items():
        seconds = pd.to_numeric(_column(frame, column), errors="coerce")
        source = _column(frame, column.removesuffix("_s") + "_source").fillna("").astype(str)
        keep = (sizes > 0) & (seconds > 0)
        parts.append(
            pd.DataFrame(
                {
                    "size": sizes[keep].astype(float),
                    "seconds": seconds[keep].astype(float),
                    "measure": measure,
                    "source": source[keep],
                    "line": measure + " · " + source[keep].where(source[keep] != "", "unknown source"),
                    "series": _labels(frame[series])[keep] if series in frame else "",
                    "bound_share": share[keep],
                    "status": frame["status"][keep],
                    "key": frame["key"][keep],
                    "label": frame["label"][keep],
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["measure", "series", "size"], ignore_index=True)[TIME_COLUMNS]


def time_sources(frame: pd.DataFrame) -> dict[str, str]:
    """time_frame's measures -> how their numbers were obtained ("predicted", "theoretical"; several joined by
    " / " when the sweep mixes them, e.g. device-measured on some rows), for the chart's title."""
    return {
        measure: " / ".join(sorted({s for s in frame["source"][frame["measure"] == measure] if s})) or "unknown"
        for measure in MEASURES.values()
        if (frame["measure"] == measure).any()
    }


def row_of(df: pd.DataFrame, key: str) -> dict[str, Any] | None:
    """The row of `df` with `key` as a dict (the last, if a key repeats), or None."""
    hits = df[df["key"] == key] if "key" in df else df.iloc[0:0]
    return None if hits.empty else {k: _plain(v) for k, v in hits.iloc[-1].to_dict().items()}


# -- helpers ----------------------------------------------------------------------------------------------------
def _laid_out(df: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    """with_axes(df) with `x`, `y` (the axis values as text) and their ranks (the axis order) added."""
    frame = with_axes(df)
    for name, column in (("x", x), ("y", y)):
        if column not in frame:
            raise InvalidInput(name, column, ", ".join(axis_options(df)) or "a column of the sweep")
    if frame.empty:
        return frame
    frame = frame.assign(x=_labels(frame[x]), y=_labels(frame[y]))
    frame["x_rank"], frame["y_rank"] = _ranks(frame, x, "x"), _ranks(frame, y, "y")
    return frame


def _ranks(frame: pd.DataFrame, column: str, label: str) -> pd.Series:
    """Each row's place along an axis: numbers in numeric order, shapes by element count, anything else
    alphabetically; a missing value last."""
    import pandas as pd

    values = frame[column]
    numeric = pd.to_numeric(values, errors="coerce")
    if column == "shape":
        order = sorted(set(frame[label]), key=lambda s: (math.prod(row_dims(s)) if s != NO_VALUE else math.inf, s))
    elif numeric.notna().sum() == values.notna().sum() and values.notna().any():
        pairs = sorted({(v, t) for v, t in zip(numeric, frame[label], strict=True)}, key=lambda p: _nan_last(p[0]))
        order = list(dict.fromkeys(t for _, t in pairs))
    else:  # alphabetical: rows arrive in any order from a pool, and the cells should not move as they do
        seen = set(frame[label])
        order = sorted(seen - {NO_VALUE}) + ([NO_VALUE] if NO_VALUE in seen else [])
    rank = {t: i for i, t in enumerate(order)}
    return frame[label].map(rank).astype(int)


def _nan_last(v: float) -> tuple[bool, float]:
    return (math.isnan(v), 0.0 if math.isnan(v) else v)


def _labels(values: pd.Series) -> pd.Series:
    return values.map(lambda v: NO_VALUE if missing(v) else _text(v))


def _text(v: Any) -> str:
    """An axis value as text: 4705.0 (a plan field of a frame with refused rows, hence floats) as "4705"."""
    if missing(v):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _distinct(values: pd.Series) -> int:
    return int(values.map(lambda v: NO_VALUE if missing(v) else str(v)).nunique())


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    """A column, or NaN throughout when no row has it (a sweep whose every case was refused has no max_ulp)."""
    import pandas as pd

    return frame[name] if name in frame else pd.Series(float("nan"), index=frame.index, dtype=float)


def _plain(v: Any) -> Any:
    """A pandas/numpy scalar as the Python value it holds (a row handed to callbacks reads like run_task's row)."""
    item = getattr(v, "item", None)
    return item() if callable(item) and getattr(v, "ndim", 1) == 0 else v
