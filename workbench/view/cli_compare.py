"""`workbench compare A B`: two stored runs (records, docs/records.md) compared as wb.compare_runs compares two runs.

Each record is replayed (the replay backend, its own folder searched first) on its own inputs, which gives the run
it stores, judged against a golden computed now; its work per pipe is counted by the emulator on the same kernel and
inputs (running/work.py), so the performance model predicts both; then the two runs are compared and printed as text
or JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from ..planning.case import Case
from ..running import store
from ..running.ab import compare_runs
from ..running.runner import Result, run
from ..running.work import with_counted_work

EXIT_OK = 0


def add_compare_parser(sub: Any, command: Any) -> None:
    p = command(
        sub,
        "compare",
        help="compare two stored runs (records): what differs in their cases and plans, which output elements "
        "differ and on which cores and tiles, both verdicts, and their timings with their sources",
    )
    p.add_argument("a", metavar="A", help="run A's record: A.json, A.npz or the name without an ending")
    p.add_argument("b", metavar="B", help="run B's record")
    for side in ("a", "b"):
        p.add_argument(
            f"--kernel-{side}",
            default=None,
            metavar="FILE",
            help=f"the edited kernel source {side.upper()}'s record ran (a record keeps 'edited copy', not the source)",
        )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def compare_command(args: argparse.Namespace) -> int:
    # a record keeps no emulator trace: the work it did is counted by the emulator on the same kernel and inputs, so
    # both sides get the performance model's per-pipe times (running/work.py)
    a = with_counted_work(replayed(args.a, args.kernel_a, "--kernel-a"))
    b = with_counted_work(replayed(args.b, args.kernel_b, "--kernel-b"))
    comparison = compare_runs(a, b)
    print(json.dumps(comparison.to_json(), indent=1) if args.json else comparison.text())
    return EXIT_OK


def replayed(path: str, kernel: str | None, kernel_flag: str) -> Result:
    """The run a record stores: replayed on its inputs, with the kernel it ran (the shipped one or `kernel`)."""
    rec = store.load(path)
    if rec.meta.get("kernel") != "shipped" and kernel is None:
        raise InvalidInput(
            kernel_flag, None, f"the edited kernel source {rec.path} was recorded with (the record does not keep it)"
        )
    case = Case(**rec.meta["case"])
    folder = Path(rec.path or path).parent
    with _records_first(folder):
        return run(
            case,
            backend="replay",
            seed=int(rec.meta["seed"]),
            distribution=str(rec.meta["distribution"]),
            inputs=rec.inputs,
            kernel=kernel,
        )


@contextlib.contextmanager
def _records_first(folder: Path) -> Iterator[None]:
    """The replay backend searches `folder` first while the block runs."""
    before = os.environ.get(store.RECORDS_ENV)
    os.environ[store.RECORDS_ENV] = os.pathsep.join([str(folder), *([before] if before else [])])
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(store.RECORDS_ENV, None)
        else:
            os.environ[store.RECORDS_ENV] = before
