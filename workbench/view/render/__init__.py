"""Presentation: text and HTML renderings of the core records (Report, Result, TilingPlan, Platform).

Pure functions of frozen records; nothing here computes a metric. The records' own `text()` and
`_repr_html_()` delegate here, so a terminal, a notebook and the CLI show the same thing.
"""

from __future__ import annotations

from .html import report_html, result_html
from .text import WIDTH, plan_text, platforms_text, report_text, result_text, table

__all__ = [
    "WIDTH",
    "plan_text",
    "platforms_text",
    "report_html",
    "report_text",
    "result_html",
    "result_text",
    "table",
]
