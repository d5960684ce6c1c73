"""A self-contained HTML report of one run (`workbench run ... --html FILE`): the result and tiling cards, the
tiling charts as inline SVG (vl-convert, no script or network needed to view it) and the plain-text tables.
Written atomically: a reader never sees half a file.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import charts, frames
from .html import STYLE, plan_html, result_html
from .text import plan_text

if TYPE_CHECKING:
    import altair as alt

    from ..runner import Result


def svg(chart: alt.Chart | alt.LayerChart) -> str:
    """The chart rendered to SVG by vl-convert (a self-contained string)."""
    import vl_convert

    return str(vl_convert.vegalite_to_svg(chart.to_dict()))


def tiling_charts(result: Result) -> list[alt.Chart | alt.LayerChart]:
    plan = result.plan
    if not plan.cores:
        return [charts.ub_chart(frames.ub_frame(plan)).properties(width=520)]
    return [
        charts.cores_chart(frames.cores_frame(plan)).properties(width=520, height=160),
        charts.ub_chart(frames.ub_frame(plan)).properties(width=520),
    ]


def html_report(result: Result) -> str:
    title = html.escape(f"{result.verdict}: {result.case.label()}")
    figures = "".join(f"<figure>{svg(c)}</figure>" for c in tiling_charts(result))
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{title}</title>{STYLE}</head>\n<body>\n"
        f"{result_html(result)}\n{plan_html(result.plan)}\n<div class='wb-card'>{figures}</div>\n"
        f"<div class='wb-card'><pre>{html.escape(plan_text(result.plan, result.case.label()))}</pre></div>\n"
        "</body></html>\n"
    )


def write_html(result: Result, path: str | Path) -> Path:
    """Write the report to `path` through a temporary file in the same folder and a rename."""
    target = Path(path)
    page = html_report(result)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # same folder: the rename is atomic
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
