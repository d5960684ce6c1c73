"""compare_runs(a, b): two runs side by side, as one frozen RunComparison.

A and B are any two Results (runner.py): the shipped and an edited kernel, two shapes or two platforms of one op, the
emulator and a replayed record. The comparison holds what differs in the cases and the tiling plans, an element-wise
diff of the outputs (when their shapes and dtypes agree) with the differing elements located to the cores and tiles
that computed them (TilingPlan.locate_many, as the precision panel locates mismatches against the golden), both
verdicts, and the timings with their sources. A difference of two times is taken only between times of one source
(timesource.py): a device-measured time minus a prediction is a row that says so, never a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import shown
from ..core.dtypes import name_of
from ..core.errors import InvalidInput, WorkbenchError
from ..core.timesource import DEVICE, PREDICTED, THEORETICAL, TimeSource
from ..judge.compare import element_errors
from ..judge.perfmodel import PIPES, Prediction, predict

if TYPE_CHECKING:
    from ..core.tiling import TilingPlan
    from .runner import Result

__all__ = [
    "Cell",
    "FieldDiff",
    "OutputDiff",
    "Placement",
    "RunComparison",
    "RunSide",
    "TimingRow",
    "compare_runs",
    "diff_fields",
]

LOCATE_CHUNK = 1 << 20  # differing elements located at a time


@dataclass(frozen=True)
class FieldDiff:
    """One field that differs: its dotted name and A's and B's values (None: the run has no such field)."""

    field: str
    a: Any
    b: Any


@dataclass(frozen=True)
class Cell:
    """How many differing elements one core computed in one tile (core -1: no core writes them; tile -1: unknown)."""

    core: int
    tile: int
    count: int


@dataclass(frozen=True)
class Placement:
    """The differing elements located with one run's plan (`by`: "A and B" when both runs have the same plan)."""

    by: str
    cells: tuple[Cell, ...]  # the most differing first

    def where(self) -> str:
        """Where the elements are: 'all in core 5, tile 3', or how they spread and where most of them are."""
        if not self.cells:
            return "nowhere"
        cores = sorted({c.core for c in self.cells})
        top = self.cells[0]
        if len(self.cells) == 1:
            return f"all in {_cell(top)}"
        if len(cores) == 1:
            tiles = ", ".join(_tile(c.tile) for c in sorted(self.cells, key=lambda c: c.tile)[:8])
            more = " …" if len(self.cells) > 8 else ""
            return f"all in {_core(top.core)}, {len(self.cells)} tiles ({tiles}{more}); most in tile {_tile(top.tile)}"
        shown_cores = ", ".join(map(str, cores[:8])) + (" …" if len(cores) > 8 else "")
        return (
            f"in {len(cores)} cores ({shown_cores}), {len(self.cells)} tiles in all; "
            f"most in {_cell(top)} ({top.count:,})"
        )


def _core(core: int) -> str:
    return "no core" if core < 0 else f"core {core}"


def _tile(tile: int) -> str:
    return "?" if tile < 0 else str(tile)


def _cell(c: Cell) -> str:
    return f"{_core(c.core)}, tile {_tile(c.tile)}"


@dataclass(frozen=True)
class OutputDiff:
    """One output of A against the same output of B, element by element (bits: NaNs of one payload agree).

    `diffed` is False when the two cannot be compared element by element; `reason` then says why."""

    name: str
    diffed: bool
    reason: str = ""
    numel: int = 0
    differing: int = 0
    max_abs: float = 0.0  # inf where one side is NaN or Inf and the other is not
    max_ulp: int | None = None  # None: no ULP distance defined (only NaN pairs differ, or nothing does)
    first: tuple[int, ...] | None = None  # the first differing element (C order)
    worst: tuple[int, ...] | None = None  # the one with the largest absolute difference (the first of equals)
    placements: tuple[Placement, ...] = ()

    def summary(self) -> str:
        if not self.diffed:
            return f"{self.name}: not diffed: {self.reason}"
        if not self.differing:
            return f"{self.name}: identical ({self.numel:,} elements)"
        where = "; ".join(
            (p.where() if len(self.placements) == 1 else f"by {p.by}'s plan {p.where()}") for p in self.placements
        )
        return f"{self.name}: {self.differing:,} of {self.numel:,} elements differ, {where}"


@dataclass(frozen=True)
class RunSide:
    """One of the two runs as the comparison shows it."""

    label: str
    what: str  # case, backend, kernel
    verdict: str
    outputs: tuple[tuple[str, str], ...]  # (output, its report against the golden in a few words)
    diagnostics: int


@dataclass(frozen=True)
class TimingRow:
    """One time of both runs with its source; `delta` (B − A, seconds) only when both have it from one source."""

    what: str
    a: float | None
    a_source: TimeSource | None
    b: float | None
    b_source: TimeSource | None
    delta: float | None
    note: str = ""


@dataclass(frozen=True)
class RunComparison:
    """What `compare_runs(a, b)` found; `text()`, the notebook's HTML and `to_json()` show all of it."""

    a: RunSide
    b: RunSide
    case_diff: tuple[FieldDiff, ...]
    plan_diff: tuple[FieldDiff, ...]
    outputs: tuple[OutputDiff, ...]
    timings: tuple[TimingRow, ...]  # the runs' own timings
    model: tuple[TimingRow, ...]  # the performance model's: kernel, each pipe of the slowest core, the memory bound
    model_how: tuple[str, str]  # how A's and B's predictions were made, or why there is none
    notes: tuple[str, ...] = ()

    @property
    def identical_outputs(self) -> bool:
        return bool(self.outputs) and all(o.diffed and not o.differing for o in self.outputs)

    def __repr__(self) -> str:
        return shown.render(self, "repr")

    def text(self) -> str:
        return shown.render(self, "text")

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    def to_json(self) -> dict[str, Any]:
        def row(r: TimingRow) -> dict[str, Any]:
            return {
                "what": r.what,
                "a": None if r.a is None else {"seconds": r.a, "source": r.a_source},
                "b": None if r.b is None else {"seconds": r.b, "source": r.b_source},
                "delta_s": r.delta,
                "note": r.note,
            }

        def side(s: RunSide) -> dict[str, Any]:
            return {"label": s.label, "what": s.what, "verdict": s.verdict, "outputs": dict(s.outputs)}

        return _jsonable(
            {
                "a": side(self.a),
                "b": side(self.b),
                "case_diff": [{"field": d.field, "a": d.a, "b": d.b} for d in self.case_diff],
                "plan_diff": [{"field": d.field, "a": d.a, "b": d.b} for d in self.plan_diff],
                "outputs": [
                    {
                        **{k: getattr(o, k) for k in o.__dataclass_fields__ if k != "placements"},
                        "placements": [
                            {"by": p.by, "where": p.where(), "cells": [c.__dict__ for c in p.cells]}
                            for p in o.placements
                        ],
                    }
                    for o in self.outputs
                ],
                "timings": [row(r) for r in self.timings],
                "model": [row(r) for r in self.model],
                "model_how": list(self.model_how),
                "notes": list(self.notes),
            }
        )


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not np.isfinite(x):
        return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


# ------------------------------------------------------------------------------------------------ compare
def compare_runs(a: Result, b: Result, labels: tuple[str, str] = ("A", "B")) -> RunComparison:
    """Compare run `a` with run `b` (two Results of `wb.run`): plan and case differences, the outputs element by
    element located to cores and tiles, both verdicts, and every time with its source (deltas between like
    sources only). Pure: neither run is changed, nothing is run again."""
    from .runner import Result

    for name, r in zip(labels, (a, b), strict=True):
        if not isinstance(r, Result):
            raise InvalidInput(f"run {name}", type(r).__name__, "a Result of wb.run")
    if len(labels) != 2 or not all(isinstance(x, str) and x for x in labels) or labels[0] == labels[1]:
        raise InvalidInput("labels", labels, "two different non-empty names, e.g. ('shipped', 'edited')")
    la, lb = labels
    plan_diff = diff_fields(_plan_json(a.plan), _plan_json(b.plan))
    pa, how_a = _prediction(a)
    pb, how_b = _prediction(b)
    return RunComparison(
        a=_side(a, la),
        b=_side(b, lb),
        case_diff=_case_diff(a, b),
        plan_diff=plan_diff,
        outputs=tuple(
            _output_diff(name, a, b, la, lb, not plan_diff) for name in dict.fromkeys([*a.outputs, *b.outputs])
        ),
        timings=tuple(
            _row(
                key,
                a.timings.get(key),
                a.timing_sources.get(key),
                b.timings.get(key),
                b.timing_sources.get(key),
                labels,
            )
            for key in dict.fromkeys([*a.timings, *b.timings])
        ),
        model=_model_rows(pa, pb, labels) + _msprof_rows(a, b, labels),
        model_how=(how_a, how_b),
        notes=tuple(_input_notes(a, b, la, lb)),
    )


def _side(r: Result, label: str) -> RunSide:
    kernel = f"edited kernel {r.kernel}" if r.kernel else "shipped kernel"
    what = f"{r.case.label()} · {r.backend} · {kernel} · seed {r.seed}, {r.distribution} inputs"
    if r.backend == "replay" and isinstance(r.trace.get("replay"), Mapping):
        rec = r.trace["replay"]
        what += f" · record made on {rec.get('source')} {rec.get('created')}"
    outputs = tuple(
        (name, f"{'pass' if rep.passed else 'FAIL'}: {rep.failed:,} of {rep.numel:,} failed ({rep.standard})")
        for name, rep in r.reports.items()
    )
    return RunSide(label, what, r.verdict, outputs, len(r.diagnostics))


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Nested JSON as dotted keys; a list of per-core rows keyed by its core, of named rows by their name."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        key = "core" if all("core" in v for v in value) else "name" if all("name" in v for v in value) else None
        for i, v in enumerate(value):
            tag = f"{key} {v[key]}" if key == "core" else str(v[key]) if key else str(i)
            _flat(f"{prefix}[{tag}]", {k: x for k, x in v.items() if k != key}, out)
    else:
        out[prefix] = tuple(value) if isinstance(value, list) else value


def diff_fields(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[FieldDiff, ...]:
    """Every dotted field whose value differs between two nested JSON records (in A's order, then B's new ones)."""
    fa: dict[str, Any] = {}
    fb: dict[str, Any] = {}
    _flat("", a, fa)
    _flat("", b, fb)
    return tuple(FieldDiff(k, fa.get(k), fb.get(k)) for k in dict.fromkeys([*fa, *fb]) if fa.get(k) != fb.get(k))


def _plan_json(plan: TilingPlan) -> dict[str, Any]:
    """What a plan decided, for the diff: the case's op and platform are the case diff's; the notes are prose."""
    d = plan.to_json()
    for key in ("op", "platform", "notes"):
        d.pop(key)
    d["ub"]["fraction"] = round(plan.ub_fraction, 4)
    # one row per core, after every other field: a different split changes every core, and the fields come first
    cores = d.pop("cores")
    d["cores"] = {
        f"core {c['core']}": " ".join(f"{k} {v}" for k, v in c.items() if k != "core" and (v or k != "tail"))
        for c in cores
    }
    return d


def _case_diff(a: Result, b: Result) -> tuple[FieldDiff, ...]:
    def run_json(r: Result) -> dict[str, Any]:
        return {
            **r.case.to_json(),
            "backend": r.backend,
            "kernel": r.kernel or "shipped",
            "seed": r.seed,
            "distribution": r.distribution,
        }

    return diff_fields(run_json(a), run_json(b))


def _input_notes(a: Result, b: Result, la: str, lb: str) -> Iterable[str]:
    if a.case.op != b.case.op:
        yield f"different ops ({a.case.op} vs {b.case.op}): the plans and outputs have little in common"
    same_inputs = a.inputs.keys() == b.inputs.keys() and all(
        a.inputs[k].shape == b.inputs[k].shape
        and a.inputs[k].dtype == b.inputs[k].dtype
        and np.array_equal(_words(a.inputs[k]), _words(b.inputs[k]))
        for k in a.inputs
    )
    if not same_inputs:
        yield (
            f"{la} and {lb} ran on different inputs: a difference in their outputs may come from the inputs, "
            "not the kernel"
        )


def _words(x: np.ndarray) -> np.ndarray:
    """Each element's bits as one unsigned integer, flat (every dtype of the workbench is 1, 2, 4 or 8 bytes): NaNs
    of one payload compare equal, -0 and +0 do not."""
    return np.ascontiguousarray(x).reshape(-1).view(f"u{x.dtype.itemsize}")


def _output_diff(name: str, a: Result, b: Result, la: str, lb: str, same_plan: bool) -> OutputDiff:
    xa, xb = a.outputs.get(name), b.outputs.get(name)
    if xa is None or xb is None:
        return OutputDiff(name, False, f"only {la if xb is None else lb} has this output")
    if xa.shape != xb.shape:
        return OutputDiff(name, False, f"shapes differ ({la} {list(xa.shape)}, {lb} {list(xb.shape)})")
    if xa.dtype != xb.dtype:
        return OutputDiff(name, False, f"dtypes differ ({la} {name_of(xa.dtype)}, {lb} {name_of(xb.dtype)})")
    # the elements whose bits differ (what `exact` fails), found from the bits alone; only they are judged in float64
    differ = np.flatnonzero(_words(xa) != _words(xb))
    if not differ.size:
        return OutputDiff(name, True, numel=int(xa.size))
    errors = element_errors(np.ravel(xb)[differ], np.ravel(xa)[differ], name_of(xa.dtype), "exact")
    abs_err, ulp = errors["abs_err"], errors["ulp"]
    defined = ulp[ulp >= 0]
    worst = int(differ[int(np.argmax(abs_err))])
    placements = [Placement(f"{la} and {lb}" if same_plan else la, _cells(a, name, differ))]
    if not same_plan:
        placements.append(Placement(lb, _cells(b, name, differ)))
    return OutputDiff(
        name,
        True,
        numel=int(xa.size),
        differing=int(differ.size),
        max_abs=float(abs_err.max()),
        max_ulp=int(defined.max()) if defined.size else None,
        first=_index(int(differ[0]), xa.shape),
        worst=_index(worst, xa.shape),
        placements=tuple(placements),
    )


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape))


def _cells(r: Result, output: str, positions: np.ndarray) -> tuple[Cell, ...]:
    """The elements at flat `positions` per (core, tile) of run r's plan, the most first: an element several cores
    write (atomic adds) counts once for each."""
    counts: dict[tuple[int, int], int] = {}
    for at in range(0, positions.size, LOCATE_CHUNK):
        block = positions[at : at + LOCATE_CHUNK]
        try:
            owners = r.plan.locate_many(block, output, r.inputs)
        except WorkbenchError:
            return ()
        keys, n = np.unique(np.stack([owners.core, owners.tile]), axis=1, return_counts=True)
        for (c, t), k in zip(keys.T.tolist(), n.tolist(), strict=True):
            counts[(c, t)] = counts.get((c, t), 0) + k
    return tuple(Cell(c, t, k) for (c, t), k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _row(
    what: str,
    a: float | None,
    sa: TimeSource | None,
    b: float | None,
    sb: TimeSource | None,
    labels: tuple[str, str],
) -> TimingRow:
    """A row of both times; B − A only between times of one source, otherwise the row says why there is none."""
    if a is None or b is None:
        return TimingRow(what, a, sa, b, sb, None, f"no {labels[0] if a is None else labels[1]} time")
    if sa != sb:
        return TimingRow(what, a, sa, b, sb, None, f"{sb} − {sa}: not subtracted, the sources differ")
    return TimingRow(what, a, sa, b, sb, b - a)


def _prediction(r: Result) -> tuple[Prediction | None, str]:
    """The performance model's prediction for run r, from its emulator trace, or None and why there is none."""
    if not r.trace.get("cores"):
        why = "a replayed record" if r.backend == "replay" else f"the {r.backend} backend"
        return None, f"no prediction: no emulator trace ({why} keeps none)"
    try:
        p = predict(r.trace, r.case.soc)
    except WorkbenchError as err:
        return None, f"no prediction: {err}"
    return p, f"{p.how} ({r.trace['work_from']})" if r.trace.get("work_from") else p.how


def _model_rows(pa: Prediction | None, pb: Prediction | None, labels: tuple[str, str]) -> tuple[TimingRow, ...]:
    if pa is None and pb is None:
        return ()

    def of(p: Prediction | None, get: Any, source: TimeSource = PREDICTED) -> tuple[float | None, TimeSource | None]:
        return (None, None) if p is None else (float(get(p)), source)

    def pipe(name: str) -> Any:
        return lambda p: p.slowest.busy[name] if p.slowest else 0.0

    rows = [_row("kernel", *of(pa, lambda p: p.kernel_s), *of(pb, lambda p: p.kernel_s), labels)]
    rows += [_row(f"{name} (slowest core)", *of(pa, pipe(name)), *of(pb, pipe(name)), labels) for name in PIPES]
    rows.append(
        _row(
            "memory bound", *of(pa, lambda p: p.bound_s, THEORETICAL), *of(pb, lambda p: p.bound_s, THEORETICAL), labels
        )
    )
    return tuple(rows)


def _msprof_rows(a: Result, b: Result, labels: tuple[str, str]) -> tuple[TimingRow, ...]:
    """Per pipe, the median busy time of the kernel's tasks in an attached msprof op_summary (profiling.attach), for
    the runs that have one: device-measured, so subtracted only against another device-measured time."""

    def pipes(r: Result) -> Mapping[str, float]:
        return ((r.trace.get("msprof") or {}).get("kernel") or {}).get("pipes_us") or {}

    ua, ub = pipes(a), pipes(b)
    rows = []
    for name in PIPES:
        if name in ua or name in ub:
            ta, tb = ua.get(name), ub.get(name)
            rows.append(
                _row(
                    f"{name} (msprof median)",
                    None if ta is None else ta * 1e-6,
                    None if ta is None else DEVICE,
                    None if tb is None else tb * 1e-6,
                    None if tb is None else DEVICE,
                    labels,
                )
            )
    return tuple(rows)
