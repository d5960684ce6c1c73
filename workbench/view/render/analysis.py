"""The guided analysis (judge/analysis.py) as text and HTML: the findings that fired, each with its value next to its
threshold, the value's source and its docs anchor; then the roofline table."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .html import STYLE, _table
from .roofline import _rate, roofline_text
from .text import duration

if TYPE_CHECKING:
    from ...judge.analysis import Analysis, Finding


def _value(f: Finding) -> str:
    return f"{f.value:.0%} {f.rule.comparison} {f.threshold:.0%}"


def findings_text(findings: Sequence[Finding]) -> str:
    """One line per finding that fired: the message, value vs threshold and source, then the docs anchor."""
    fired = [f for f in findings if f.fired]
    if not fired:
        checked = ", ".join(f.rule.id for f in findings) or "none applied"
        return f"analysis: no findings (checked {checked}; docs/analysis.md#rules)"
    lines = [f"analysis: {len(fired)} finding(s) (docs/analysis.md#rules)"]
    for f in fired:
        lines.append(f"  {f.message}  [{_value(f)}, {f.source}]  {f.doc}")
    return "\n".join(lines)


def analysis_text(a: Analysis) -> str:
    return findings_text(a.findings) + "\n" + roofline_text(a.roofline)


def findings_html(findings: Sequence[Finding]) -> str:
    rows = [
        (
            "fired" if f.fired else "",
            f.message,
            _value(f),
            f.source,
            f.rule.threshold_source,
        )
        for f in findings
    ]
    table = _table(("", "finding", "value vs threshold", "source", "threshold's source"), rows)
    links = " · ".join(f"<a href='{html.escape(f.doc)}'>{html.escape(f.rule.title)}</a>" for f in findings if f.fired)
    return table + (f"<p>what to do: {links}</p>" if links else "<p class='wb-muted'>no rule fired</p>")


def roofline_html(a: Analysis) -> str:
    rl = a.roofline
    rows = [
        (
            p.pipe,
            p.time_source,
            _rate(p.achieved, p.ceiling.unit),
            f"{_rate(p.ceiling.rate, p.ceiling.unit)} ({p.ceiling.kind})",
            f"{p.utilisation:.1%}",
            f"{duration(p.busy_s)} ({p.busy_source})",
        )
        for p in rl.pipes
    ]
    table = _table(("pipe", "time source", "achieved", "ceiling", "of ceiling", "busy"), rows)
    ceilings = "".join(
        f"<li>{html.escape(c.name)}: {html.escape(_rate(c.rate, c.unit))} ({c.kind}): {html.escape(c.source)}</li>"
        for c in (rl.memory, rl.vector, rl.scalar)
    )
    note = f"<p class='wb-muted'>{html.escape(rl.note)}</p>" if rl.note else ""
    return f"{table}{note}<ul class='wb-muted'>{ceilings}</ul>"


def analysis_card(a: Analysis, figures: str = "") -> str:
    """The findings and the roofline table as one card; `figures` (e.g. the report's SVG charts) go between them."""
    return (
        f"<div class='wb-card'><h4>analysis</h4>{findings_html(a.findings)}{figures}"
        f"<h4>roofline on {html.escape(a.roofline.platform)}</h4>{roofline_html(a)}</div>"
    )


def analysis_html(a: Analysis) -> str:
    return STYLE + analysis_card(a)
