"""HTML renderings for notebooks (what the records' `_repr_html_` return)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .text import WORST_COLUMNS, report_header, report_summary, timings_text, worst_rows

if TYPE_CHECKING:
    from ..compare import Report
    from ..runner import Result


def report_html(r: Report) -> str:
    e = html.escape
    color = "#1a7f37" if r.passed else "#cf222e"
    out = [f'<div><b style="color:{color}">{e(report_header(r))}</b>', "<table>"]
    out += [
        f"<tr><th style='text-align:left'>{e(k)}</th><td style='text-align:left'>{e(v)}</td></tr>"
        for k, v in report_summary(r)
    ]
    out.append("</table>")
    if r.worst:
        out.append("<table><tr>" + "".join(f"<th>{e(c)}</th>" for c in WORST_COLUMNS) + "</tr>")
        out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in worst_rows(r)]
        out.append("</table>")
    return "\n".join([*out, "</div>"])


def result_html(res: Result) -> str:
    e = html.escape
    diags = "".join(f"<li><code>{e(str(d))}</code></li>" for d in res.diagnostics)
    parts = [
        f"<h4>{e(res.verdict)}: {e(res.case.label())}</h4>",
        f"<p>{e(res.backend)}, {e(timings_text(res.timings))}</p>",
        f"<ul>{diags}</ul>" if diags else "",
        *(report_html(r) for r in res.reports.values()),
    ]
    return "".join(parts)
