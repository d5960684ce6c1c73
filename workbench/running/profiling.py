"""msprof's `op_summary_*.csv` (Operator Details) read into a pandas frame, by column name.

CANN versions and `--aic-metrics` sets differ in their columns: newer files say `Task Start Time(us)`, older ones
`Task Start Time`; `Op Name` is spelled `OP Name` in some; the metric tail (PipeUtilization, Memory, ...) varies.
Columns are matched after normalising their names (lower case, `(us)` -> `_us`, `(%)` -> `_pct`, `(GB/s)` ->
`_gbps`, other punctuation -> `_`), every column is kept, and only the op name and the task duration are required.
`Task Type` (AI_CORE, AI_VECTOR_CORE, MIX_AIC, MIX_AIV, AI_CPU) is kept as it is. "N/A" cells become NaN.
Where the files are: `PROF_*/mindstudio_profiler_output/op_summary_*.csv`, or `PROF_*/device_*/summary/` in
older CANN (`find_op_summaries`).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import InvalidInput

if TYPE_CHECKING:
    import pandas as pd

    from .runner import Result

# the normalised names of the columns every consumer relies on, and the spellings seen for them
ALIASES = {
    "op_name": ("op_name",),
    "op_type": ("op_type",),
    "task_type": ("task_type",),
    "task_start_us": ("task_start_time_us", "task_start_time"),
    "duration_us": ("task_duration_us", "task_duration"),
    "wait_us": ("task_wait_time_us", "task_wait_time"),
    "block_dim": ("block_dim",),
    "mix_block_dim": ("mix_block_dim",),
}
REQUIRED = ("op_name", "duration_us")
# the PipeUtilization metric set's busy time per pipe (vector cores first, then a coupled AI Core's), normalised
PIPE_COLUMNS = {
    "MTE2": ("aiv_mte2_time_us", "mte2_time_us", "aic_mte2_time_us"),
    "V": ("aiv_vec_time_us", "vec_time_us"),
    "MTE3": ("aiv_mte3_time_us", "mte3_time_us"),
    "S": ("aiv_scalar_time_us", "scalar_time_us", "aic_scalar_time_us"),
}
TEXT = {"op_name", "op_type", "task_type", "op_state", "input_shapes", "input_data_types", "input_formats",
        "output_shapes", "output_data_types", "output_formats", "hf32_eligible"}  # fmt: skip


def normalise(column: str) -> str:
    name = column.strip().lower()
    name = name.replace("(us)", "_us").replace("(%)", "_pct").replace("(gb/s)", "_gbps")
    return re.sub(r"[^a-z0-9]+", "_", name).strip("_")


def read_op_summary(source: str | Path) -> pd.DataFrame:
    """One row per task of an `op_summary` CSV (a path, or the CSV text itself), columns normalised; the ones
    in ALIASES get their short names (`duration_us`, `task_start_us`, ...)."""
    import pandas as pd

    path = Path(source) if not (isinstance(source, str) and "\n" in source) else None
    try:
        text = path.read_text(encoding="utf-8-sig") if path is not None else str(source)
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InvalidInput("op_summary", str(source)[:200], f"a readable msprof op_summary CSV ({exc})") from None
    frame.columns = [normalise(c) for c in frame.columns]
    renames = {}
    for short, spellings in ALIASES.items():
        found = next((s for s in spellings if s in frame.columns), None)
        if found is not None:
            renames[found] = short
    frame = frame.rename(columns=renames)
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InvalidInput(
            "op_summary",
            str(path or "text"),
            f"a CSV with an op name and a task duration column (missing {missing}; it has {list(frame.columns)[:8]}…)",
        )
    for column in frame.columns:
        if column not in TEXT:
            frame[column] = pd.to_numeric(frame[column].replace({"N/A": None, "": None}), errors="coerce")
    return frame


def find_op_summaries(folder: str | Path) -> list[Path]:
    """Every op_summary CSV under a msprof output folder (new and old layouts), oldest name first."""
    return sorted(Path(folder).rglob("op_summary*.csv"))


def kernel_durations(frame: pd.DataFrame, op: str | None = None) -> pd.DataFrame:
    """Per op name (and task type): how many tasks, and the median, min and max task duration in microseconds;
    `op` keeps the rows whose op name or op type contains it (case-insensitive)."""
    if op is not None:
        needle = op.lower()
        keep = frame["op_name"].str.lower().str.contains(needle, regex=False)
        if "op_type" in frame.columns:
            keep |= frame["op_type"].str.lower().str.contains(needle, regex=False)
        frame = frame[keep]
    keys = [k for k in ("op_name", "task_type") if k in frame.columns]
    grouped = frame.groupby(keys, sort=False)["duration_us"]
    return grouped.agg(tasks="count", median_us="median", min_us="min", max_us="max").reset_index()


def builtin_op_type(op: str) -> str:
    """The op type the built-in operator's tasks carry in op_summary (GE's CamelCase name: Cast, ...)."""
    return "".join(word.capitalize() for word in op.split("_"))


def summarise(frame: pd.DataFrame, kernel: str, builtin: str, source: str) -> dict[str, Any]:
    """The kernel's tasks (op name containing the kernel entry) and the built-in op's (op type `builtin`, other
    names) of one op_summary frame: their rows, and the median task duration of each in microseconds."""
    named = frame["op_name"].str.contains(kernel, case=False, regex=False)
    typed = frame["op_type"].str.lower() == builtin.lower() if "op_type" in frame.columns else named & False
    out: dict[str, Any] = {"source": source, "kernel_name": kernel, "builtin_type": builtin}
    for key, rows in (("kernel", frame[named]), ("builtin", frame[typed & ~named])):
        durations = rows["duration_us"].dropna()
        out[key] = {
            "tasks": len(durations),
            "median_us": float(durations.median()) if len(durations) else None,
            "rows": kernel_durations(rows).to_dict("records") if len(rows) else [],
            "pipes_us": pipe_medians(rows),
        }
    return out


def pipe_medians(rows: pd.DataFrame) -> dict[str, float]:
    """The median busy time per pipe (MTE2, V, MTE3, S) in microseconds, for the pipes the file has a column of
    (the PipeUtilization metric set); "N/A" cells do not count."""
    import pandas as pd

    out = {}
    for pipe, names in PIPE_COLUMNS.items():
        column = next((n for n in names if n in rows.columns), None)
        values = pd.to_numeric(rows[column], errors="coerce").dropna() if column else None
        if values is not None and len(values):
            out[pipe] = float(values.median())
    return out


def attach(result: Result, source: str | Path, kernel: str | None = None, builtin: str | None = None) -> Result:
    """`result` with the task durations of an msprof op_summary (a CSV, or a msprof output folder) of the same
    case attached: the timings panel then shows the kernel's and the built-in op's device times from it, and fits
    the performance model to them. `kernel` / `builtin` override the op name and op type matched."""
    from dataclasses import replace

    from ..planning.registry import get_op

    path = Path(source)
    files = find_op_summaries(path) if path.is_dir() else [path]
    if not files:
        raise InvalidInput("op_summary", str(path), "a folder holding msprof op_summary_*.csv files, or such a file")
    spec = get_op(result.case.op)
    entry = kernel or (spec.kernel(result.case).entry if spec.kernel else result.case.op)
    summary = summarise(read_op_summary(files[-1]), entry, builtin or builtin_op_type(result.case.op), str(files[-1]))
    if not summary["kernel"]["tasks"] and not summary["builtin"]["tasks"]:
        raise InvalidInput(
            "op_summary", str(files[-1]), f"tasks named like {entry!r} or of type {summary['builtin_type']!r}"
        )
    return replace(result, trace={**result.trace, "msprof": summary})
