"""`workbench sweep`: a grid from a file or flags (or an msOpST case file) run as a sweep; a summary on stdout, the
rows in the results file and, with --out, in a Parquet or CSV file. Exit 1 when any case did not pass."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..core._files import check_output_file
from ..core.errors import InvalidInput

EXIT_OK, EXIT_NOT_ALL_PASSED = 0, 1
SHOWN_FAILURES = 20


def add_sweep_parser(sub: Any, command: Any) -> None:
    p = command(
        sub,
        "sweep",
        help="run many cases (a grid from a YAML/JSON file or flags, or msOpST cases): one row each, resumable",
    )
    p.add_argument(
        "grid", nargs="?", default=None, metavar="GRID", help="a .yaml/.yml/.json grid file (docs/sweeps.md)"
    )
    p.add_argument("--op", action="append", default=[], help="op name (repeatable); with the flags below, a grid")
    p.add_argument("--dtype", action="append", default=[], help="SRC[:DST] (repeatable), or all (default)")
    p.add_argument("--shape", action="append", default=[], help="D0,D1,... (repeatable; default 1024)")
    p.add_argument("--attr", action="append", default=[], metavar="NAME=V1,V2", help="attribute values (repeatable)")
    p.add_argument("--platform", action="append", default=[], help="SoC (repeatable; default: the op's target)")
    p.add_argument("--distribution", action="append", default=[], help="input distribution (repeatable)")
    p.add_argument("--seed", action="append", type=int, default=[], help="seed (repeatable; default 0)")
    p.add_argument("--msopst", default=None, metavar="FILE", help="an msOpST test-case JSON file (docs/msopst.md)")
    p.add_argument("--backend", default="emu", help="emu (default), npu or replay")
    p.add_argument("--standard", default=None, help="exact, double_thousandth, single_benchmark, mixed_tolerance")
    p.add_argument("--kernel", default=None, metavar="FILE", help="an edited copy of the op's kernel to run")
    p.add_argument("--executor", default="local", help="local (default), serial, ray, ray://HOST:10001 or ray:ADDRESS")
    p.add_argument("--workers", type=int, default=None, help="cases at once (default: one per core)")
    p.add_argument("--results", default=None, metavar="FILE", help="the JSON Lines results file (default: cache)")
    p.add_argument("--no-resume", action="store_true", help="run every case again (the results file starts over)")
    p.add_argument("--out", default=None, metavar="FILE", help="also write the rows to FILE.parquet or FILE.csv")
    p.add_argument("--max-memory", default=None, help="host memory for the whole sweep (default: half the available)")
    p.add_argument("--json", action="store_true", help="print one JSON object: counts, files, failing rows")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")


def _points(args: argparse.Namespace) -> tuple[list[Any], list[str]]:
    from ..sweeps import Grid, grid
    from ..sweeps.gridfile import read_grid_file

    points: list[Any] = []
    notes: list[str] = []
    grids: list[Grid] = []
    if args.grid is not None:
        grids.append(read_grid_file(args.grid))
    if args.op:
        grids.append(
            grid(
                args.op,
                dtypes=None if args.dtype in ([], ["all"]) else args.dtype,
                shapes=args.shape or ["1024"],
                attrs=_attrs(args.attr),
                platforms=args.platform or [""],
                distributions=args.distribution or [""],
                seeds=args.seed or [0],
            )
        )
    elif args.dtype or args.shape or args.attr:
        raise InvalidInput("--op", None, "the op(s) of the grid the --dtype/--shape/--attr flags describe")
    if args.msopst is not None:
        from ..sweeps.msopst import read_msopst

        imported = read_msopst(args.msopst, platform=args.platform[0] if len(args.platform) == 1 else "")
        points += imported.points
        notes += [f"msOpST: {u}" for u in imported.unsupported]
        notes += [f"msOpST skipped {s}" for s in imported.skipped]
    for g in grids:
        points += g.points
        notes += [f"dropped {d.values}: {d.reason}" for d in g.dropped]
    if not points:
        why = f" ({notes[0]})" if notes else ""
        raise InvalidInput(
            "sweep", "no cases", f"a GRID file, --op with its flags, or --msopst FILE with a valid case{why}"
        )
    return points, notes


def _attrs(items: list[str]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        if not sep or not name:
            raise InvalidInput("--attr", item, "NAME=V1,V2,... e.g. num_weights=100,1000")
        out[name] = [_value(v) for v in values.split(",")]
    return out


def _value(text: str) -> Any:
    try:
        return json.loads(text.lower() if text.lower() in ("true", "false") else text)
    except ValueError:
        return text


def sweep_command(args: argparse.Namespace) -> int:
    from ..sweeps import sweep

    out = Path(args.out) if args.out else None
    if out is not None:
        if out.suffix.lower() not in (".parquet", ".csv"):
            raise InvalidInput("--out", args.out, "a .parquet or .csv file name")
        check_output_file(out, "--out")
    points, notes = _points(args)
    for note in notes:
        print(f"workbench: {note}", file=sys.stderr)
    frame = sweep(
        points,
        backend=args.backend,
        standard=args.standard,
        kernel=args.kernel,
        executor=args.executor,
        workers=args.workers,
        results=args.results,
        resume=not args.no_resume,
        max_memory=args.max_memory,
        show_progress=False if args.quiet else None,
    )
    if out is not None:
        _write_frame(frame, out)
    bad = frame[frame["status"] != "pass"]
    summary = {
        "cases": len(frame),
        "counts": frame.attrs["counts"],
        "reused": frame.attrs["reused"],
        "seconds": round(frame.attrs["seconds"], 3),
        "results": frame.attrs["results"],
        "out": str(out) if out else None,
        "not_passed": [
            {k: r[k] for k in ("label", "status", "verdict", "error", "key") if k in r} for r in bad.to_dict("records")
        ],
    }
    if args.json:
        print(json.dumps(summary, default=str))
    else:
        print(_summary_text(summary))
    return EXIT_NOT_ALL_PASSED if len(bad) else EXIT_OK


def _summary_text(summary: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {s}" for s, n in summary["counts"].items() if n)
    lines = [
        f"sweep: {summary['cases']} cases: {counts} ({summary['reused']} from the results file) "
        f"in {summary['seconds']:.1f} s",
        f"results: {summary['results']}",
    ]
    if summary["out"]:
        lines.append(f"rows: {summary['out']}")
    bad = summary["not_passed"]
    for r in bad[:SHOWN_FAILURES]:
        reason = r.get("error") or r.get("verdict")
        lines.append(f"  {r['status'].upper():5} {r['label']}: {reason}")
    if len(bad) > SHOWN_FAILURES:
        lines.append(f"  ... and {len(bad) - SHOWN_FAILURES} more (all in the results file)")
    return "\n".join(lines)


def _write_frame(frame: Any, out: Path) -> None:
    """Written beside the target, then renamed over it: a reader never sees half a file."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if out.suffix.lower() == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
