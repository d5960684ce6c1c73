"""Sweeps: many cases run like `wb.run` runs one, each a row of a pandas DataFrame (sweep), in a results file that
makes an interrupted sweep resume and a rerun of an unchanged case free (results.py), on any executor
(executors.py: this process, a local process pool, a Ray cluster). A failing, faulting or refused case is a row."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import progress
from ..core._files import cache_home, os_error
from ..core.errors import InvalidInput
from ..judge.compare import check_standard
from ..planning import memory
from ..planning.case import Case
from ..running.backends import get as get_backend
from ..running.runner import kernel_path
from .executors import Executor, batches, get_executor
from .points import Dropped, Grid, Point, grid
from .results import ResultsFile, Row
from .tasks import Task, make_task

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STATUSES", "Dropped", "Executor", "Grid", "Point", "grid", "points_of", "sweep"]

STATUSES = ("pass", "fail", "fault", "error")  # error: refused before it ran (infeasible, over budget, no build)


def points_of(cases: Any) -> list[Point]:
    """A Grid, a sweep's DataFrame (its rows' cases: e.g. the rows that failed, to run again), or Points, Cases,
    case dicts (`Point.to_json()`) and sweep rows in any mix, as Points."""
    if isinstance(cases, (Grid, Point, Case)):
        cases = [cases] if not isinstance(cases, Grid) else cases.points
    elif hasattr(cases, "columns") and hasattr(cases, "to_dict"):  # a DataFrame of sweep rows
        cases = cases.to_dict("records")
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Iterable):
        raise InvalidInput("cases", cases, "a grid (wb.grid), a sweep's DataFrame, or a list of Cases or Points")
    out = []
    for i, c in enumerate(cases):
        if isinstance(c, Point):
            out.append(c)
        elif isinstance(c, Case):
            out.append(Point(c))
        elif isinstance(c, dict):
            out.append(Point.from_row(c) if "key" in c else Point.from_json(c))
        else:
            raise InvalidInput(f"cases[{i}]", c, "a Case, a Point, a case dict (op, dtypes, shape, ...) or a sweep row")
    return out


def sweep(
    cases: Any,
    *,
    backend: str = "emu",
    standard: str | None = None,
    kernel: str | Path | None = None,
    executor: Any = "local",
    workers: int | None = None,
    results: str | Path | None = None,
    resume: bool = True,
    max_memory: Any = None,
    show_progress: bool | None = None,
    on_rows: Callable[[list[Row]], None] | None = None,
) -> pd.DataFrame:
    """Run every point of `cases` (a grid, or Cases/Points) and return one row per point, in their order.

    `executor`: "local" (a process per core, or `workers`), "serial" (this process), "ray" / "ray://host:10001"
    (a Ray cluster, cluster.py) or an Executor. `results`: the JSON Lines file rows are appended to as they arrive
    (default: one per sweep in the workbench cache); with `resume` (default) every row already in it under the same
    content key (case, seed, distribution, backend, standard, kernel source, emulator and workbench code) is reused,
    not run. `max_memory` is the whole sweep's host budget, shared equally by the tasks that run at once (default:
    each worker's share of its own machine's budget, `memory.budget`). `on_rows(rows)` is
    called with each batch of new rows (views update from it). The DataFrame's `attrs` hold the results file, the
    counts by status, how many rows were reused and the seconds taken.
    """
    import pandas as pd

    start = time.perf_counter()
    points = points_of(cases)
    get_backend(backend)
    check_standard(standard)
    source = kernel_path(kernel)
    runner = get_executor(executor, workers)
    try:
        # a given budget is the whole sweep's, shared by the tasks that run at once; by default each worker takes
        # its share of its own machine's memory (tasks.run_task), which is what a cluster's nodes have
        budget = None if max_memory is None else memory.parse_size(max_memory) // max(1, runner.workers)
        edited = (source.name, source.read_text()) if source is not None else None  # one version for every task
        tasks = [make_task(p, backend, standard, edited, budget) for p in points]
        store = ResultsFile(results or _default_results(tasks), resume)
        todo = list({t.key: t for t in tasks if t.key not in store.rows}.values())
        reused = len({t.key for t in tasks}) - len(todo)
        counts: Counter[str] = Counter(store.rows[t.key]["status"] for t in tasks if t.key in store.rows)
        with ExitStack() as stack:
            bar = stack.enter_context(_Bar(len(tasks), len(tasks) - len(todo), counts, show_progress))
            if runner.workers == 1:  # in this process: the bar is the progress, not a line per case
                stack.enter_context(progress.listening(bar.stage))
            for rows in runner.rows(batches(todo, runner.workers)):
                store.append(rows)
                bar.add(rows)
                if on_rows is not None:
                    on_rows(rows)
    finally:
        runner.close()
    frame = pd.DataFrame([store.rows[t.key] for t in tasks])
    counts = Counter(frame["status"]) if len(frame) else Counter()
    frame.attrs.update(
        results=str(store.path),
        counts={s: counts.get(s, 0) for s in STATUSES},
        reused=reused,
        ran=len(todo),
        torn=store.torn,
        executor=runner.name,
        seconds=time.perf_counter() - start,
    )
    return frame


def _default_results(tasks: Sequence[Task]) -> Path:
    digest = hashlib.sha256("\n".join(sorted({t.key for t in tasks})).encode()).hexdigest()[:20]
    folder = cache_home() / "sweeps"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise os_error("sweep results folder", folder, e, "set WORKBENCH_CACHE or give results=") from None
    return folder / f"{digest}.jsonl"


class _Bar:
    """tqdm.auto's bar (a widget in notebooks, a line in terminals) with the counts by status so far."""

    def __init__(self, total: int, done: int, counts: Counter[str], show: bool | None) -> None:
        self.counts, self.total, self.done = counts, total, done
        wanted = progress.shown() if show is None else show
        self.bar: Any = None
        if wanted and total:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=done, desc="sweep", unit="case", dynamic_ncols=True)
            self._postfix()

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

    def _postfix(self) -> None:
        self.bar.set_postfix_str(" ".join(f"{s} {self.counts.get(s, 0)}" for s in STATUSES if self.counts.get(s)))

    def add(self, rows: Sequence[Row]) -> None:
        self.counts.update(r["status"] for r in rows)
        self.done += len(rows)
        if self.bar is not None:
            self.bar.update(len(rows))
            self._postfix()

    def stage(self, what: str, started: bool) -> None:
        if self.bar is not None:
            self.bar.set_description_str(what if started else "sweep")
