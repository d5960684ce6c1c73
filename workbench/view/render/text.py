"""Plain-text renderings for terminals and logs: every line fits in WIDTH columns.

Tables shrink their widest columns and cut cells with an ellipsis (a table may keep its last column whole, wrapped
under itself); prose (notes, diagnostics, headers) wraps with a hanging indent.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.shown import WIDTH

if TYPE_CHECKING:
    from ...core.platform import Platform
    from ...core.tiling import TilingPlan
    from ...judge.compare import Report
    from ...running.events import KernelEvents
    from ...running.runner import Result

_MIN_CELL = 8
_MIN_WRAPPED = 24  # a wrapped last column is at least this wide (or as wide as its widest cell)


def fit(cell: str, width: int) -> str:
    """`cell` cut to `width` characters, the cut marked with an ellipsis."""
    return cell if len(cell) <= width else cell[: max(width - 1, 0)] + "…"


def wrap(text: str, indent: str = "", hang: str = "    ", width: int = WIDTH) -> list[str]:
    """One paragraph in lines of at most `width` columns: the first after `indent`, the rest indented under it
    by `hang` more."""
    rest = " " * len(indent) + hang
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=rest, break_long_words=True) or [indent]


def table(
    rows: Sequence[Sequence[object]],
    header: Sequence[str],
    indent: str = "",
    width: int = WIDTH,
    wrap_last: bool = False,
) -> str:
    """A compact left-aligned text table, its widest columns narrowed (cells cut with …) to fit `width`.
    With `wrap_last`, the last column is never cut: its cells wrap onto lines of their own under it."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    last = widths[-1]
    floors = [min(w, max(_MIN_CELL, len(h))) for w, h in zip(widths, header, strict=True)]
    if wrap_last:  # the others narrow only as far as the last column needs to keep _MIN_WRAPPED (or all it needs)
        floors[-1] = widths[-1] = min(last, max(_MIN_WRAPPED, len(header[-1])))
    over = len(indent) + sum(widths) + 2 * (len(widths) - 1) - width
    while over > 0:  # one column at a time, always the widest (the last of equals), so wide cells share the cut
        i = max((k for k in range(len(widths)) if widths[k] > floors[k]), key=lambda k: (widths[k], k), default=None)
        if i is None:
            break
        widths[i] -= 1
        over -= 1
    if wrap_last:  # then it takes whatever width is left
        widths[-1] = min(last, widths[-1] - min(over, 0))
    lines = []
    for r in cells:
        lines += _table_row(r, widths, indent, wrap_last)
    lines.insert(1, indent + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _table_row(row: Sequence[str], widths: Sequence[int], indent: str, wrap_last: bool) -> list[str]:
    if not wrap_last:
        return [indent + "  ".join(fit(c, w).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()]
    head = indent + "".join(fit(c, w).ljust(w) + "  " for c, w in zip(row[:-1], widths[:-1], strict=True))
    pieces = textwrap.wrap(row[-1], widths[-1], break_long_words=True) or [""]
    return [((head if n == 0 else " " * len(head)) + piece).rstrip() for n, piece in enumerate(pieces)]


def fmt(x: Any, digits: int = 6) -> str:
    if x is None:
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.{digits}g}"
    return str(x)


def _kib(n: int) -> str:
    return f"{n} B ({n / 1024:.1f} KiB)"


# -- tiling plans and platforms ----------------------------------------------------------------------


def _core_rows(plan: TilingPlan, limit: int) -> list[list[object]]:
    rows: list[list[object]] = []
    cores = plan.cores
    shown = cores if len(cores) <= limit else (*cores[: limit - 2], *cores[-2:])
    for i, c in enumerate(shown):
        if len(cores) > limit and i == limit - 2:
            rows.append(["...", f"({len(cores) - limit} more)", "", "", "", ""])
        rows.append([c.core, f"[{c.start}, {c.stop})", c.count, c.tiles, c.last_tile, c.tail or ""])
    return rows


def plan_text(plan: TilingPlan, case_label: str = "", max_cores: int = 10) -> str:
    head = [
        *wrap(case_label or plan.op),
        f"tiling key {plan.tiling_key} ({plan.tiling_name}), block_dim {plan.block_dim}, platform {plan.platform}",
        "",
        table([[k, v] for k, v in plan.fields.items()], ["TilingData field", "value"]),
        "",
        table(_core_rows(plan, max_cores), ["core", f"{plan.unit}s", "count", "tiles", "last tile", "tail"])
        if plan.cores
        else "no launch (nothing to compute)",
        "",
        table(
            [[b.name, b.count, b.bytes_each, b.total, b.note] for b in plan.ub_buffers],
            ["UB buffer", "count", "bytes each", "total", "note"],
        ),
        f"UB used {_kib(plan.ub_used)} of {_kib(plan.ub_capacity)} "
        f"({100 * plan.ub_fraction:.1f} %; UB {plan.ub_size} - reserve {plan.ub_reserved})",
        f"workspace {plan.workspace_bytes} B",
    ]
    if plan.notes:
        head += ["", "why:", *(line for n in plan.notes for line in wrap(n, "  - "))]
    return "\n".join(head)


def platforms_text(platforms: Sequence[Platform]) -> str:
    rows = [
        [
            p.soc,
            p.traits.arch,
            p.core_num,
            p.ub_size,
            p.ub_runtime,
            "yes" if p.has_data_copy_pad else "no",
            "yes" if p.has_bf16 else "no",
            p.overflow_mode,
            f"{p.memory_bandwidth / 1e9:g} GB/s",
        ]
        for p in platforms
    ]
    return table(
        rows, ["SoC", "arch", "GetCoreNum", "UB (ini)", "UB (runtime)", "DataCopyPad", "bf16", "overflow", "bandwidth"]
    )


# -- precision reports and run results ---------------------------------------------------------------

# location (the core, tile and offset that computed the element) is last: the text table wraps it, never cuts it
WORST_COLUMNS = ("index", "flat", "expected", "actual", "abs_err", "rel_err", "ulp", "inputs", "location")


def report_header(r: Report) -> str:
    thr = " ".join(f"{k}={fmt(v)}" for k, v in r.thresholds.items())
    shape = "x".join(map(str, r.shape)) or "scalar"
    mode = f" mode={r.mode}" if r.mode else ""
    return f"{'PASS' if r.passed else 'FAIL'} {r.name} [{r.dtype} {shape}]{mode} {r.standard} ({thr})"


def report_summary(r: Report) -> list[tuple[str, str]]:
    errs = f"max_abs_err {fmt(r.max_abs_err)}  max_rel_err {fmt(r.max_rel_err)}"
    if r.mere is not None:
        errs += f"  MERE {fmt(r.mere)}  MARE {fmt(r.mare)}"
    return [
        ("counts", f"failed {r.failed}/{r.numel}  nan_mismatch {r.nan_mismatch}  inf_mismatch {r.inf_mismatch}"),
        ("errors", errs),
        (
            "ulp",
            f"bit_exact {r.bit_exact_ratio:.4%}  max_ulp {r.max_ulp}  mean_ulp {fmt(r.mean_ulp)}  "
            f"ulp=0: {r.ulp0}  ulp=1: {r.ulp1}  ulp>1: {r.ulp_gt1}",
        ),
        ("verdict", r.verdict),
        *(("note", n) for n in r.notes),
    ]


def worst_rows(r: Report) -> list[list[str]]:
    return [
        [
            str(e.index),
            str(e.flat),
            fmt(e.expected, 9),
            fmt(e.actual, 9),
            fmt(e.abs_err),
            fmt(e.rel_err),
            fmt(e.ulp),
            ", ".join(f"{k}={fmt(v, 9)}" for k, v in e.inputs.items()),
            e.location,
        ]
        for e in r.worst
    ]


def report_text(r: Report) -> str:
    lines = [*wrap(report_header(r)), *(line for k, v in report_summary(r) for line in wrap(f"{k}: {v}", "  "))]
    if r.worst:
        lines.append(f"  worst {len(r.worst)} (failing first, then largest error):")
        lines.append(table(worst_rows(r), WORST_COLUMNS, indent="    ", wrap_last=True))
    return "\n".join(lines)


def duration(seconds: float) -> str:
    """Seconds in the unit that shows them: 10.74 s, 5.0 ms, 4.98 µs."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


def timing_label(key: str) -> str:
    """A timing's name without the unit its key carries (`build_s` -> `build`): the value shows its own unit."""
    return key.removesuffix("_s")


def timings_text(timings: Mapping[str, float], sources: Mapping[str, str]) -> str:
    """Every timing (in seconds, keys `..._s`) with its source, a run of timings of one source named once:
    "build 1.20 s (host wall); launch 5.0 ms, kernel 612 µs (emulator wall); golden 2.1 ms (host wall)"."""
    groups: list[tuple[str, list[str]]] = []
    for key, seconds in timings.items():
        if not groups or groups[-1][0] != sources[key]:
            groups.append((sources[key], []))
        groups[-1][1].append(f"{timing_label(key)} {duration(seconds)}")
    return "; ".join(f"{', '.join(times)} ({source})" for source, times in groups)


def source_excerpt(file: str, line: int, context: int = 2) -> str:
    """Lines [line - context, line + context] of a kernel source, numbered, the line itself marked with '>';
    '' when the file cannot be read (a diagnostic from a header the user does not have, or no line)."""
    if not file or line <= 0:
        return ""
    try:
        lines = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    lo, hi = max(1, line - context), min(len(lines), line + context)
    return "\n".join(f"{'>' if n == line else ' '} {n:5d} | {lines[n - 1]}" for n in range(lo, hi + 1))


def result_text(res: Result) -> str:
    head = [
        *wrap(f"{res.verdict}: {res.case.label()}"),
        *wrap(f"  {res.backend}, seed {res.seed}, {res.distribution} inputs"),
        *wrap(f"  timings: {timings_text(res.timings, res.timing_sources)}"),
        *([f"  kernel: {res.kernel} (edited copy)"] if res.kernel else []),  # a path is never cut,
        *(wrap(f"  {event_log_line(res.events)}") if res.events is not None else []),
    ]
    diags: Iterable[str] = (line for d in res.diagnostics for line in wrap(str(d), "  "))
    return "\n".join(
        [
            *head,
            *performance_lines(res),
            *(["diagnostics:", *diags] if res.diagnostics else []),
            *map(report_text, res.reports.values()),
        ]
    )


def event_log_line(events: KernelEvents) -> str:
    """What a traced run recorded, and the log's truncation note when it stopped early."""
    return f"event log: {len(events):,} events" + (f"; {events.truncation}" if events.truncated else "")


def performance_lines(res: Result) -> list[str]:
    """The kernel and built-in times, each with its source and how it was obtained, the comparisons with the
    built-in op (npu) and the op's performance criteria: a verdict only on device-measured times."""
    from ...judge.criteria import builtin_time, evaluate, kernel_time

    lines = []
    for name, t in (("kernel", kernel_time(res)), ("built-in (TBE)", builtin_time(res))):
        shown = f"{duration(t.seconds)} {t.source}" if t.seconds is not None else "—"
        lines += wrap(f"  {name} time: {shown} ({t.how})")
    if res.baseline:
        for out, r in res.baseline.builtin_vs_golden.items():
            k = res.baseline.kernel_vs_builtin[out]
            lines += wrap(f"  {out}: TBE vs golden {'PASS' if r.passed else 'FAIL'}; kernel vs TBE: {k.verdict}")
        for out, d in res.baseline.double_benchmark.items():
            ratios = ", ".join(f"{k} {v:.3g} (≤ {d.limits[k]:g})" for k, v in d.ratios.items())
            lines += wrap(f"  {out}: double benchmark {'PASS' if d.passed else 'FAIL'}: {ratios}")
    for c in evaluate(res):
        lines += wrap(f"  criterion {c.name}: {c.headline}: {c.detail}")
    return lines


# -- one-line reprs: what a notebook cell or a debugger shows for the record itself -------------------


def plan_repr(p: TilingPlan) -> str:
    return (
        f"TilingPlan({p.op} @{p.platform}: key {p.tiling_key} {p.tiling_name}, block_dim {p.block_dim}, "
        f"UB {p.ub_used}/{p.ub_capacity} B ({100 * p.ub_fraction:.1f} %), {len(p.fields)} fields, "
        f"workspace {p.workspace_bytes} B)"
    )


def platform_repr(p: Platform) -> str:
    return (
        f"Platform({p.soc}: {p.traits.arch}, GetCoreNum {p.core_num}, UB {p.ub_size} B, "
        f"{p.overflow_mode}, bf16 {'yes' if p.has_bf16 else 'no'})"
    )


def report_repr(r: Report) -> str:
    shape = "x".join(map(str, r.shape)) or "scalar"
    return (
        f"Report({r.name} [{r.dtype} {shape}]: {'PASS' if r.passed else 'FAIL'} {r.standard}, "
        f"failed {r.failed}/{r.numel}, max_abs_err {fmt(r.max_abs_err)}, max_ulp {r.max_ulp})"
    )


def result_repr(res: Result) -> str:
    outs = ", ".join(f"{k} {'PASS' if r.passed else 'FAIL'}" for k, r in res.reports.items())
    return (
        f"Result({res.verdict}: {res.case.label()} on {res.backend}, seed {res.seed}, {res.distribution}; "
        f"{outs or 'no comparison'}; {len(res.diagnostics)} diagnostics)"
    )
