"""The annotated source (running/annotated.py) as terminal text and as a compact HTML code view.

Both show only the annotated lines (an API ran there, or a diagnostic names the line) with CONTEXT lines around
them; a gap between excerpts is one "⋯" row. Hot lines (HOT_SHARE or more of the predicted time) are marked: '>' in
text, a tinted row in HTML, where every line also has a heat bar as wide as its share of the predicted time.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .text import duration

if TYPE_CHECKING:
    from ...running.annotated import AnnotatedSource, SourceFile, SourceLine

CONTEXT = 1
HOT_SHARE = 0.10
e = html.escape


def _excerpt(f: SourceFile, context: int = CONTEXT) -> list[SourceLine | None]:
    """The annotated lines of `f` with `context` lines around each, None where lines are left out."""
    keep = sorted({n for line in f.annotated for n in range(line.number - context, line.number + context + 1)})
    keep = [n for n in keep if 1 <= n <= len(f.lines)]
    out: list[SourceLine | None] = []
    for i, n in enumerate(keep):
        if n > (keep[i - 1] + 1 if i else 1):  # lines left out before this one
            out.append(None)
        out.append(f.lines[n - 1])
    if keep and keep[-1] < len(f.lines):
        out.append(None)
    return out


def _headline(a: AnnotatedSource) -> str:
    if not a.traced:
        return f"annotated source: {a.label}: diagnostics only; {a.note}"
    hot = a.hot
    where = f", hottest {hot[0].name}:{hot[1].number} ({hot[1].share:.0%})" if hot else ""
    return (
        f"annotated source: {a.label}: {duration(a.total_us * 1e-6)} {a.time_source} "
        f"(performance model, summed over cores){where}" + (f"; {a.truncation}" if a.truncation else "")
    )


def _grouped(diagnostics: tuple[Any, ...]) -> list[tuple[Any, int, list[int]]]:
    """Diagnostics that differ only in their core, once each: (the first, how many records, their cores)."""
    groups: dict[tuple[str, str, str], tuple[Any, int, list[int]]] = {}
    for d in diagnostics:
        key = (str(getattr(d, "severity", "")), str(getattr(d, "kind", "")), str(getattr(d, "message", "")))
        first, n, cores = groups.get(key, (d, 0, []))
        core = int(getattr(d, "core", -1))
        groups[key] = (first, n + int(getattr(d, "count", 1) or 1), cores + ([core] if core >= 0 else []))
    return list(groups.values())


def _where(n: int, cores: list[int]) -> str:
    on = sorted(set(cores))
    return (f" x{n}" if n > 1 else "") + (f" on {len(on)} cores" if len(on) > 1 else f" on core {on[0]}" if on else "")


def _apis(line: SourceLine) -> str:
    return ", ".join(api if n == line.calls else f"{api} x{n}" for api, n in line.api_counts)


def source_text(a: AnnotatedSource) -> str:
    """Terminal text: per file the annotated lines with context; columns calls, bytes, predicted µs, share."""
    out = [_headline(a)]
    for d in a.launch_diagnostics:
        out.append(f"  ! {d}")
    width = max((len(line.text) for f in a.files for line in f.annotated), default=0)
    width = min(width, 72)
    for f in a.files:
        if not f.annotated and f.path != a.kernel:
            continue
        out.append(f"{f.path}{'' if f.readable else ' (not readable here)'}")
        if a.traced:
            out.append(f"    {'line':>5} {'calls':>6} {'bytes':>10} {'µs ' + a.time_source:>15} {'share':>6}  source")
        if not f.annotated:
            out.append("    (no line annotated)")
        for line in _excerpt(f):
            if line is None:
                out.append("    " + "⋯".rjust(5))
                continue
            mark = ">" if line.share >= HOT_SHARE else " "
            if a.traced:
                calls = str(line.calls) if line.calls else ""
                nbytes = f"{line.bytes:,}" if line.bytes else ""
                us = f"{line.predicted_us:.3f}" if line.predicted_us else ""
                share = f"{line.share:.1%}" if line.predicted_us else ""
                cols = f"{line.number:>5} {calls:>6} {nbytes:>10} {us:>15} {share:>6}"
            else:
                cols = f"{line.number:>5}"
            api = f"   // {_apis(line)}" if line.api_counts else ""
            out.append(f"  {mark} {cols}  {line.text[:width].ljust(width) if api else line.text[:width]}{api}")
            out.extend(
                f"          ! {d.severity} {d.kind}{_where(n, cores)}: {d.message}"
                for d, n, cores in _grouped(line.diagnostics)
            )
    return "\n".join(out)


STYLE = """<style>
.wb-src{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;
  color:var(--jp-ui-font-color1,inherit);border:1px solid var(--jp-border-color2,#8884);border-radius:4px;
  padding:6px 10px;margin:4px 0;max-width:100%;overflow-x:auto}
.wb-src h4{margin:2px 0 6px 0;font-size:14px} .wb-src h5{margin:8px 0 2px 0;font-size:13px}
.wb-src table{border-collapse:collapse;color:inherit;font-size:12px}
.wb-src table td{padding:0 6px 0 0;line-height:18px;white-space:nowrap;vertical-align:middle;
  font-variant-numeric:tabular-nums}
.wb-src td.wb-num{text-align:right;color:var(--jp-ui-font-color2,#888)}
.wb-src td.wb-code{font-family:var(--jp-code-font-family,monospace);white-space:pre}
.wb-src tr.wb-gap td{color:var(--jp-ui-font-color2,#888);text-align:center}
.wb-src tr.wb-hot td{background:rgba(245,166,35,0.22)}
.wb-src .wb-heat{display:inline-block;width:60px;height:8px;background:rgba(128,128,128,0.18);border-radius:2px}
.wb-src .wb-heat>span{display:block;height:8px;background:#e8590c;border-radius:2px}
.wb-src .wb-diag{display:inline-block;padding:0 6px;border-radius:8px;font-size:11px;margin-left:6px;
  font-family:var(--jp-ui-font-family,system-ui,sans-serif);cursor:help}
.wb-src .wb-sev-error,.wb-src .wb-sev-fatal{background:#c62828;color:#fff}
.wb-src .wb-sev-warning{background:#f5c542;color:#000} .wb-src .wb-sev-info{background:#757575;color:#fff}
.wb-src .wb-api{color:var(--jp-ui-font-color2,#888);font-family:var(--jp-ui-font-family,system-ui,sans-serif)}
.wb-src .wb-muted{color:var(--jp-ui-font-color2,#888)}
</style>"""


def _badges(diagnostics: tuple[Any, ...]) -> str:
    """A badge per kind of diagnostic (severity, kind, how many); its tooltip is the diagnostic and its cores."""
    out = []
    for d, n, cores in _grouped(diagnostics):
        sev, kind = str(getattr(d, "severity", "info")), str(getattr(d, "kind", ""))
        tip = f"{sev} {kind}{_where(n, cores)}: {getattr(d, 'message', d)}"
        count = f" x{n}" if n > 1 else ""
        out.append(f"<span class='wb-diag wb-sev-{e(sev)}' title='{e(tip)}'>{e(sev)} {e(kind)}{count}</span>")
    return "".join(out)


def _row(line: SourceLine, traced: bool) -> str:
    hot = " class='wb-hot'" if line.share >= HOT_SHARE else ""
    badges = _badges(line.diagnostics)
    apis = f" <span class='wb-api'>// {e(_apis(line))}</span>" if line.api_counts else ""
    gutter = f"<td class='wb-num'>{line.number}</td>"
    if traced:
        tip = f"{line.predicted_us:.3f} µs {line.time_source}, {line.share:.1%} of the total"
        gutter += (
            f"<td class='wb-num' title='calls over every core'>{line.calls or ''}</td>"
            f"<td class='wb-num' title='bytes moved'>{f'{line.bytes:,}' if line.bytes else ''}</td>"
            f"<td class='wb-num' title='{e(tip)}'>{f'{line.predicted_us:.2f}' if line.predicted_us else ''}</td>"
            + (  # a bar for each line whose events took modelled time; none on lines that only run for free
                f"<td title='{e(tip)}'><span class='wb-heat'><span style='width:{min(1.0, line.share) * 100:.1f}%'>"
                "</span></span></td>"
                if line.predicted_us
                else "<td></td>"
            )
        )
    return f"<tr data-line='{line.number}'{hot}>{gutter}<td class='wb-code'>{e(line.text)}{apis}{badges}</td></tr>"


def source_html(a: AnnotatedSource) -> str:
    """A compact code view: a gutter (line, calls, bytes, predicted µs, heat bar) and diagnostics as badges whose
    tooltip is the whole diagnostic; colours are translucent or carry their own text colour (both themes)."""
    cols = 6 if a.traced else 2
    head = (
        "<tr><td class='wb-num'>line</td><td class='wb-num'>calls</td><td class='wb-num'>bytes</td>"
        f"<td class='wb-num'>µs ({e(a.time_source)})</td><td>share</td><td></td></tr>"
        if a.traced
        else ""
    )
    parts = [f"{STYLE}<div class='wb-src'><h4>{e(_headline(a))}</h4>"]
    if a.launch_diagnostics:
        where = "<span class='wb-muted'>(the launch: no source line)</span>"
        parts.append(f"<p>{_badges(a.launch_diagnostics)} {where}</p>")
    for f in a.files:
        if not f.annotated and f.path != a.kernel:
            continue
        rows = "".join(
            f"<tr class='wb-gap'><td colspan='{cols}'>⋯</td></tr>" if line is None else _row(line, a.traced)
            for line in _excerpt(f)
        )
        readable = "" if f.readable else " <span class='wb-muted'>(not readable here)</span>"
        table = f"<table>{head}{rows}</table>" if rows else "<p class='wb-muted'>(no line annotated)</p>"
        parts.append(f"<h5 title='{e(f.path)}'>{e(f.name)}{readable}</h5>{table}")
    return "".join(parts) + "</div>"
