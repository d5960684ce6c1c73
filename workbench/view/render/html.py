"""HTML renderings for notebooks (what the records' `_repr_html_` return).

Every card carries one small stylesheet scoped to `.wb-card`. Colours come from JupyterLab's theme variables
(with fallbacks for classic Notebook, VS Code and exported HTML), so a card reads well in light and dark themes.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.timesource import MEANING
from .text import (
    WORST_COLUMNS,
    duration,
    event_log_line,
    report_header,
    report_summary,
    source_excerpt,
    timings_text,
    worst_rows,
)

if TYPE_CHECKING:
    import pandas as pd

    from ...core.platform import Platform
    from ...core.tiling import TilingPlan
    from ...judge.compare import Report
    from ...judge.criteria import Criterion
    from ...planning.case import Case
    from ...running.emu.build import BuildError
    from ...running.runner import Result

STYLE = """<style>
.wb-card{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;
  color:var(--jp-ui-font-color1,inherit);border:1px solid var(--jp-border-color2,#8884);border-radius:4px;
  padding:6px 10px;margin:4px 0;max-width:100%;overflow-x:auto}
.wb-card h4{margin:2px 0 6px 0;font-size:14px}
.wb-card table{border-collapse:collapse;margin:4px 0;font-size:inherit;color:inherit}
.wb-card th,.wb-card td{text-align:left;padding:1px 8px 1px 0;border-bottom:1px solid var(--jp-border-color3,#8882);
  font-variant-numeric:tabular-nums;vertical-align:top;white-space:nowrap}
.wb-card td.wb-wrap{white-space:normal;min-width:16em}
.wb-card code{font-family:var(--jp-code-font-family,monospace)}
.wb-pass{color:var(--jp-success-color1,#1a7f37)} .wb-fail{color:var(--jp-error-color1,#cf222e)}
.wb-muted{color:var(--jp-ui-font-color2,#888)}
.wb-bar{height:8px;background:var(--jp-layout-color3,#8883);border-radius:2px;width:240px}
.wb-bar>div{height:8px;background:var(--jp-brand-color1,#1f6feb);border-radius:2px}
.wb-card tr.wb-changed td,.wb-card tr.wb-changed th{background:rgba(245,166,35,0.28);color:inherit}
.wb-card .wb-was{color:var(--jp-ui-font-color2,#888);text-decoration:line-through;margin-left:6px}
.wb-badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:11px;
  background:var(--jp-warn-color2,#f5c542);color:#000;margin-left:6px}
.wb-card pre{font-family:var(--jp-code-font-family,monospace);font-size:12px;margin:2px 0 6px 0;
  background:var(--jp-layout-color2,#8881);padding:4px;overflow-x:auto}
</style>"""

e = html.escape


def _card(title: str, body: Iterable[str], verdict: bool | None = None) -> str:
    cls = "" if verdict is None else (" class='wb-pass'" if verdict else " class='wb-fail'")
    return f"{STYLE}<div class='wb-card'><h4{cls}>{e(title)}</h4>{''.join(body)}</div>"


def _td(value: object) -> str:
    text = str(value)
    return f"<td class='wb-wrap'>{e(text)}</td>" if len(text) > 40 else f"<td>{e(text)}</td>"  # prose may wrap


def _rows(pairs: Iterable[tuple[str, object]]) -> str:
    return "<table>" + "".join(f"<tr><th>{e(k)}</th>{_td(v)}</tr>" for k, v in pairs) + "</table>"


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(map(_td, r)) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def case_html(c: Case) -> str:
    attrs = ", ".join(f"{k}={v}" for k, v in c.attrs.items()) or "none"
    shape = " x ".join(map(str, c.shape)) or "scalar"
    return _card(
        c.op,
        [
            _rows(
                [
                    ("dtypes", ":".join(c.dtypes)),
                    ("shape", shape),
                    ("format", c.format),
                    ("attrs", attrs),
                    ("platform", c.platform),
                ]
            )
        ],
    )


def plan_html(p: TilingPlan) -> str:
    used = min(100.0, 100 * p.ub_fraction)
    bar = f"<div class='wb-bar' title='{used:.1f} %'><div style='width:{used:.1f}%'></div></div>"
    fields = _table(["TilingData field", "value"], p.fields.items())
    cores = _table(
        ["core", f"{p.unit}s", "count", "tiles", "last tile", "tail"],
        ([c.core, f"[{c.start}, {c.stop})", c.count, c.tiles, c.last_tile, c.tail or ""] for c in p.cores[:8]),
    )
    more = f"<p class='wb-muted'>… {len(p.cores) - 8} more cores</p>" if len(p.cores) > 8 else ""
    notes = "".join(f"<li>{e(n)}</li>" for n in p.notes)
    return _card(
        f"{p.op}: tiling key {p.tiling_key} ({p.tiling_name}), block_dim {p.block_dim} @{p.platform}",
        [
            f"<p>UB {p.ub_used} of {p.ub_capacity} B ({used:.1f} %; {p.ub_size} - reserve {p.ub_reserved}), "
            f"workspace {p.workspace_bytes} B</p>{bar}",
            f"<details><summary>{len(p.fields)} TilingData fields</summary>{fields}</details>",
            f"<details><summary>{len(p.cores)} cores</summary>{cores}{more}</details>",
            f"<details><summary>why ({len(p.notes)} notes)</summary><ul>{notes}</ul></details>" if notes else "",
        ],
    )


def tiling_panel_html(p: TilingPlan, previous: TilingPlan | None = None, what_if: bool = False) -> str:
    """The workbench's tiling panel: the path and why, the UB budget, and every TilingData field, the fields whose
    value changed since `previous` (the plan shown before) highlighted with their old value."""
    old = dict(previous.fields) if previous is not None and previous.op == p.op else {}
    rows = []
    for name, value in p.fields.items():
        changed = name in old and old[name] != value
        was = f"<span class='wb-was'>{e(str(old[name]))}</span>" if changed else ""
        cls = " class='wb-changed'" if changed else ""
        rows.append(f"<tr data-field='{e(name)}'{cls}><th>{e(name)}</th><td>{e(str(value))}{was}</td></tr>")
    used = min(100.0, 100 * p.ub_fraction)
    badge = "<span class='wb-badge'>what-if</span>" if what_if else ""
    notes = "".join(f"<li>{e(n)}</li>" for n in p.notes)
    return _card(
        f"tiling key {p.tiling_key} ({p.tiling_name}), block_dim {p.block_dim} @{p.platform}",
        [
            f"<p>{badge}UB {p.ub_used} of {p.ub_capacity} B ({used:.1f} %; {p.ub_size} - reserve {p.ub_reserved}), "
            f"workspace {p.workspace_bytes} B; {len(p.cores)} cores of {p.unit}s</p>",
            f"<details open><summary>why</summary><ul>{notes}</ul></details>" if notes else "",
            f"<table class='wb-fields'><tr><th>TilingData field</th><th>value</th></tr>{''.join(rows)}</table>",
        ],
    )


def platform_html(p: Platform) -> str:
    return _card(
        p.soc,
        [
            _rows(
                [
                    ("arch", f"{p.traits.arch} (NpuArch {p.npu_arch})"),
                    ("GetCoreNum", p.core_num),
                    ("UB", f"{p.ub_size} B ini, {p.ub_runtime} B at run time"),
                    (
                        "DataCopyPad / bf16",
                        f"{'yes' if p.has_data_copy_pad else 'no'} / {'yes' if p.has_bf16 else 'no'}",
                    ),
                    ("overflow mode", p.overflow_mode),
                    ("bandwidth", f"{p.memory_bandwidth / 1e9:g} GB/s ({p.bandwidth_source})"),
                    ("source", p.source),
                ]
            )
        ],
    )


def report_html(r: Report, worst_open: bool = True) -> str:
    body = [_rows(report_summary(r))]
    if r.worst:
        body.append(
            f"<details{' open' if worst_open else ''}><summary>worst {len(r.worst)}</summary>"
            f"{_table(WORST_COLUMNS, worst_rows(r))}</details>"
        )
    return _card(report_header(r), body, r.passed)


def diagnostic_html(d: object) -> str:
    """One emulator diagnostic and the kernel source around its line (never an excerpt of the emulator's headers)."""
    from ...running.launch import is_emulator_header

    file = str(getattr(d, "file", ""))
    excerpt = "" if is_emulator_header(file) else source_excerpt(file, int(getattr(d, "line", 0) or 0))
    return f"<li><code>{e(str(d))}</code>{f'<pre>{e(excerpt)}</pre>' if excerpt else ''}</li>"


def build_error_html(err: BuildError) -> str:
    """A kernel g++ rejected: its first errors, each at the kernel's file:line with the source around it."""
    items = []
    for c in err.errors:
        via = f" <span class='wb-muted'>(reported in {e(c.origin)})</span>" if c.origin else ""
        excerpt = source_excerpt(c.file, c.line)
        pre = f"<pre>{e(excerpt)}</pre>" if excerpt else ""
        items.append(f"<li><code>{e(Path(c.file).name)}:{c.line}:{c.column}</code>: {e(c.message)}{via}{pre}</li>")
    more = len(err.all_errors) - len(err.errors)
    tail = f"<li>… and {more} more</li>" if more > 0 else ""
    body = f"<ul>{''.join(items)}{tail}</ul>" if items else f"<pre>{e(err.log.strip()[-2000:])}</pre>"
    return f"<div class='wb-build-error'><b>g++ rejected {e(str(err.value))}</b>{body}</div>"


def diagnostics_html(res: Result) -> str:
    """Every diagnostic of a run under a summary counting them by severity ("2 diagnostics: 1 error, 1 info"), open
    unless the run passed with notes (info) only: those stay folded. Empty without diagnostics."""
    if not res.diagnostics:
        return ""
    counts = Counter(d.severity for d in res.diagnostics)
    summary = f"{len(res.diagnostics)} diagnostics: " + ", ".join(f"{n} {s}" for s, n in counts.items())
    unfold = not res.passed or set(counts) != {"info"}
    items = "".join(map(diagnostic_html, res.diagnostics))
    return f"<details{' open' if unfold else ''}><summary>{e(summary)}</summary><ul>{items}</ul></details>"


def result_html(res: Result) -> str:
    body = [
        f"<p>{e(res.backend)}, seed {res.seed}, {e(res.distribution)} inputs</p>",
        f"<p class='wb-timings-line'>timings: {e(timings_text(res.timings, res.timing_sources))}</p>",
        *([f"<p class='wb-event-log'>{e(event_log_line(res.events))}</p>"] if res.events is not None else []),
        diagnostics_html(res),
        *(report_html(r).removeprefix(STYLE) for r in res.reports.values()),
    ]
    return _card(f"{res.verdict}: {res.case.label()}", body, res.passed)


def timings_html(frame: pd.DataFrame, criteria: Sequence[Criterion] = (), device: str = "") -> str:
    """The timings table (frames.timings_frame): a row per (step, source) with the time, its source (what the source
    means in the tooltip and in the legend below) and how it was obtained; the op's performance criteria as badges,
    and `device` (device_html: msprof rows and the model's calibration) when there is one."""
    rows = []
    for r in frame.itertuples(index=False):
        time = duration(float(r.seconds)) if r.available else "—"
        meaning = MEANING.get(r.source, "")
        how = "" if r.how == meaning else r.how  # the legend says what a plain source means
        rows.append(
            f"<tr data-source='{e(str(r.source))}'><th>{e(str(r.step))}</th><td>{time}</td>"
            f"<td title='{e(meaning)}'>{e(str(r.source))}</td>{_td(how)}</tr>"
        )
    legend = "".join(f"<li><b>{e(str(src))}</b>: {e(MEANING[src])}</li>" for src in dict.fromkeys(frame["source"]))
    return (
        f"{STYLE}<div class='wb-card'><h4>timings</h4><table><tr><th>step</th><th>time</th><th>source</th>"
        f"<th>how</th></tr>{''.join(rows)}</table><ul class='wb-muted wb-sources'>{legend}</ul>"
        f"{criteria_html(criteria)}{device}</div>"
    )


# a verdict is coloured; a prediction, a criterion without its times and a run not judged are neutral grey
BADGE = {"pass": "#2e7d32", "fail": "#c62828", "explain": "#ef6c00"}
NEUTRAL_BADGE = "#757575"


def criteria_html(criteria: Sequence[Criterion]) -> str:
    """The op's performance criteria as badges: pass/fail/explain only on device-measured times, otherwise a neutral
    "predicted: would …" naming the sources, "not evaluated" or "not judged"; the numbers after the badge and the
    rule in its tooltip."""
    if not criteria:
        return ""
    items = []
    for c in criteria:
        colour = BADGE[c.status] if c.verdict else NEUTRAL_BADGE
        sources = f" <i>({e(c.sources)})</i>" if c.sources else ""
        items.append(
            f"<li class='wb-criterion' data-status='{e(c.status)}' title='{e(c.rule)}'>"
            f"<span class='wb-badge' style='background:{colour};color:#fff'>{e(c.label)}</span> "
            f"<b>{e(c.name)}</b>{sources}: {e(c.detail)}</li>"
        )
    return f"<h4>performance criteria</h4><ul class='wb-criteria'>{''.join(items)}</ul>"


def device_html(result: Result) -> str:
    """The msprof task durations attached to a run (profiling.attach) and, when the run also has an emulator trace,
    the performance model fitted to the measured kernel time with its prediction error before and after."""
    from ...judge.criteria import calibrate

    parts = []
    summary = result.trace.get("msprof")
    if summary:
        rows = [
            (who, r["op_name"], r.get("task_type", ""), r["tasks"], f"{r['median_us']:.3f}", f"{r['min_us']:.3f}",
             f"{r['max_us']:.3f}")
            for who in ("kernel", "builtin")
            for r in summary[who]["rows"]
        ]  # fmt: skip
        head = "".join(f"<th>{h}</th>" for h in ("", "op name", "task type", "tasks", "median µs", "min µs", "max µs"))
        body = "".join("<tr>" + "".join(_td(v) for v in row) + "</tr>" for row in rows)
        parts.append(
            f"<h4>msprof</h4><p class='wb-muted'>{e(summary['source'])}</p><table><tr>{head}</tr>{body}</table>"
        )
    calibration = calibrate(result)
    if calibration:
        prediction, fitted, measured = calibration
        seconds = measured.seconds or 0.0  # calibrate returns measured times only
        before = (prediction.kernel_s - seconds) / seconds
        parts.append(
            "<h4>model vs measurement</h4>"
            f"<p>device-measured {duration(seconds)}; predicted {duration(prediction.kernel_s)} "
            f"(error {before:+.1%}); fitted {duration(fitted.predicted_s[0])} (error {fitted.rel_errors[0]:+.1%}): "
            f"MTE time ×{fitted.mem_scale:.3g}, vector time ×{fitted.vec_scale:.3g}, launch "
            f"{duration(fitted.launch_s)}</p><p class='wb-muted'>{e(fitted.note)}</p>"
        )
    return "".join(parts)
