"""A sweep's unit of work: a Task (plain JSON, so it travels to any worker), its content key, and the one function
every executor calls on a worker, `run_task`, which turns a Task into a flat row and never raises for the case."""

from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..core import resources
from ..core._files import cache_home
from ..core.errors import WorkbenchError
from ..planning import memory
from ..planning.registry import get_op
from .points import Point

ROW_SCHEMA = 1  # bump when a row's meaning changes: older rows in a results file are then run again


@dataclass(frozen=True)
class Task:
    """What a worker needs to run one point: the point as JSON, the backend and standard, and an edited kernel's
    file name and text (None for the shipped kernel, which every worker has). `key` names the result."""

    point: Mapping[str, Any]
    backend: str
    standard: str | None
    kernel_name: str | None
    kernel_source: str | None
    max_memory: int | None
    key: str

    @property
    def variant(self) -> tuple[Any, ...]:
        """What one build serves: tasks of one variant run best on one worker (one load of the kernel)."""
        p = self.point
        return (p["op"], tuple(p["dtypes"]), p["platform"], self.kernel_source or "")


def make_task(
    point: Point, backend: str, standard: str | None, kernel: tuple[str, str] | None, max_memory: int | None
) -> Task:
    """`kernel`: an edited kernel's (file name, source text), read once for the whole sweep (None: shipped)."""
    name, text = kernel if kernel is not None else (None, None)
    return Task(point.to_json(), backend, standard, name, text, max_memory, case_key(point, backend, standard, text))


def case_key(point: Point, backend: str, standard: str | None, kernel_text: str | None) -> str:
    """The content hash naming a point's result: the case, seed and distribution, the backend and standard, the
    kernel's source (an edited copy's text, or the shipped op folder's files), the emulator's headers (emu) and
    the workbench's own Python (goldens and judges). The same key means the same row would come out again."""
    parts = {
        "schema": ROW_SCHEMA,
        "point": point.to_json(),
        "backend": backend,
        "standard": standard,
        "kernel": _digest_text(kernel_text) if kernel_text is not None else "shipped",
        "op_sources": _op_sources_digest(point),
        "emulator": _tree_digest(str(resources.emu_include_dir())) if backend == "emu" else "",
        "workbench": code_digest(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _digest_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _op_sources_digest(point: Point) -> str:
    """The shipped kernel's folder (its source, TilingData header and includes), which an edited copy includes too."""
    kernel = get_op(point.case.op).kernel
    if kernel is None:
        return ""
    return _tree_digest(str(resources.path(Path(kernel(point.case).source).parent)))


@cache
def code_digest() -> str:
    """The workbench's own Python code (goldens, judges, this layer): a change to any of it changes every key."""
    return _tree_digest(str(Path(__file__).resolve().parents[1]), ".py", skip=("_bundle",))


@cache
def _tree_digest(folder: str, suffix: str = "", skip: tuple[str, ...] = ()) -> str:
    h = hashlib.sha256()
    root = Path(folder)
    for path in sorted(p for p in root.rglob("*" + suffix) if p.is_file()):
        rel = path.relative_to(root)
        if "__pycache__" in rel.parts or rel.parts[0] in skip:
            continue
        h.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def run_task(task: Task) -> dict[str, Any]:
    """Run one task and return its row. Whatever the case does (fails, faults, is refused, breaks the build) is a
    row with a status; only an interrupt of the worker itself propagates."""
    from ..running.runner import run

    point = Point.from_json(task.point)
    base = identity(task, point)
    try:
        kernel = _kernel_file(task) if task.kernel_source is not None else None
        result = run(
            point.case,
            backend=task.backend,
            seed=point.seed,
            distribution=point.distribution,
            standard=task.standard,
            max_memory=task.max_memory if task.max_memory is not None else _machine_share(),
            kernel=kernel,
        )
    except WorkbenchError as e:
        return {**base, "status": "error", "verdict": f"ERROR: {type(e).__name__}", "error": str(e)}
    except Exception as e:  # a bug or a broken machine is this case's row, not the end of the sweep
        last = traceback.format_exception_only(type(e), e)[-1].strip()
        return {**base, "status": "error", "verdict": f"ERROR: {type(e).__name__}", "error": last}
    return {**base, **result_columns(result)}


def _machine_share() -> int:
    """This worker's share of its machine's memory budget: the default budget split over the cores, one task each."""
    return memory.budget()[0] // max(1, os.cpu_count() or 1)


def identity(task: Task, point: Point) -> dict[str, Any]:
    case = point.case
    return {
        "key": task.key,
        "label": point.label(),
        "op": case.op,
        "dtypes": ":".join(case.dtypes),
        "shape": "x".join(map(str, case.shape)) or "scalar",
        "numel": math.prod(case.shape),
        "format": case.format,
        "attrs": json.dumps(dict(case.attrs), sort_keys=True),
        "platform": case.platform,
        "seed": point.seed,
        "distribution": point.distribution,
        "backend": task.backend,
        "standard": task.standard or "",
        "kernel": task.kernel_name or "shipped",
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }


def result_columns(result: Any) -> dict[str, Any]:
    """A Result as flat columns: plan, verdict, per-output errors and ULPs, diagnostics by severity, timings with
    their sources (`<name>` seconds beside `<name>_source`)."""
    from ..judge.criteria import performance_json

    plan = result.plan
    row: dict[str, Any] = {
        "status": "pass" if result.passed else ("fault" if result.faulted else "fail"),
        "verdict": result.verdict,
        "error": "",
        "exit_code": result.exit_code,
        "tiling_key": plan.tiling_key,
        "path": plan.tiling_name,
        "block_dim": plan.block_dim,
        "ub_used": plan.ub_used,
        "ub_capacity": plan.ub_capacity,
        "ub_pct": round(100.0 * plan.ub_fraction, 3),
        "workspace_bytes": plan.workspace_bytes,
    }
    row.update({f"plan.{k}": v for k, v in plan.fields.items() if isinstance(v, (int, float, str))})
    worst = {"max_abs": 0.0, "max_rel": 0.0, "max_ulp": 0, "failed": 0}
    for name, rep in result.reports.items():
        j = rep.to_json()
        cols = {
            "passed": j["passed"],
            "standard": j["standard"],
            "failed": j["failed"],
            "max_abs": j["max_abs_err"],
            "max_rel": j["max_rel_err"],
            "max_ulp": j["max_ulp"],
            "mean_ulp": j["mean_ulp"],
            "ulp0": j["ulp0"],
            "ulp1": j["ulp1"],
            "ulp_gt1": j["ulp_gt1"],
        }
        row.update({f"{name}.{k}": v for k, v in cols.items()})
        for k in ("max_abs", "max_rel", "max_ulp"):
            if cols[k] is not None and not (isinstance(cols[k], float) and math.isnan(cols[k])):
                worst[k] = max(worst[k], cols[k])
        worst["failed"] += int(cols["failed"] or 0)
    row.update(worst if result.reports else dict.fromkeys(worst))
    severities = [getattr(d, "severity", "error") for d in result.diagnostics]
    for level in ("error", "warning", "info"):
        row[f"diag_{level}"] = severities.count(level)
    row["diag_kinds"] = ",".join(sorted({getattr(d, "kind", "?") for d in result.diagnostics}))
    for name, seconds in result.timings.items():
        row[name] = seconds
        row[f"{name}_source"] = str(result.timing_sources.get(name, ""))
    perf = performance_json(result)
    row["kernel_time_s"] = perf["kernel"]["seconds"]
    row["kernel_time_source"] = perf["kernel"]["source"] or ""
    row["memory_bound_s"] = perf["theoretical"]["seconds"]
    row["memory_bound_source"] = perf["theoretical"]["source"] or ""
    row["wall_s"] = result.stages.get("total_s", float("nan"))
    row["wall_source"] = "host wall"
    return row


def _kernel_file(task: Task) -> Path:
    """An edited kernel arrives as text and is written where this worker keeps such sources, named by content: the
    build cache keys by content too, so a worker builds each source once, whatever folder it came from."""
    assert task.kernel_source is not None and task.kernel_name is not None
    folder = cache_home() / "sweep-kernels" / _digest_text(task.kernel_source)[:24]
    target = folder / task.kernel_name
    if not target.is_file() or target.read_text() != task.kernel_source:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{task.kernel_name}.{os.getpid()}.tmp"
        tmp.write_text(task.kernel_source)
        os.replace(tmp, target)
    return target
