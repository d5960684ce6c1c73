"""A self-contained HTML report of one run (`workbench run ... --html FILE`): the result and tiling cards, the
tiling, precision and timings charts as inline SVG (vl-convert, no script or network needed to view it) and the
tables.
Written atomically: a reader never sees half a file, and a path the machine refuses (a folder, /proc, a read-only or
full filesystem) is an InfrastructureError before the report is rendered, or when the write fails, never a partial file.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core._files import atomic_write, check_output_file
from ...core.errors import InvalidInput
from . import charts, frames
from .html import STYLE, device_html, plan_html, result_html, timings_html
from .text import plan_text

if TYPE_CHECKING:
    import altair as alt

    from ...running.runner import Result


def svg(chart: alt.Chart | alt.LayerChart) -> str:
    """The chart rendered to SVG by vl-convert (a self-contained string)."""
    import vl_convert

    return str(vl_convert.vegalite_to_svg(chart.to_dict()))


def save_chart(chart: Any, path: str | Path, scale: float = 2.0) -> Path:
    """Write `chart` (any altair top-level chart) as SVG or PNG, by the suffix (PNG at `scale` x, for slides),
    rendered offline by vl-convert, atomically."""
    import vl_convert

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise InvalidInput("path", str(path), "a file name ending in .svg or .png")
    if not target.parent.is_dir():
        raise InvalidInput("path", str(path), "a file in an existing folder")
    spec = chart.to_dict()
    data = (
        vl_convert.vegalite_to_svg(spec).encode() if suffix == ".svg" else vl_convert.vegalite_to_png(spec, scale=scale)
    )
    atomic_write(target, data, "chart file")
    return target


def tiling_charts(result: Result) -> list[alt.Chart | alt.LayerChart]:
    plan = result.plan
    if not plan.cores:
        return [charts.ub_chart(frames.ub_frame(plan)).properties(width=520)]
    return [
        charts.cores_chart(frames.cores_frame(plan)).properties(width=520, height=160),
        charts.ub_chart(frames.ub_frame(plan)).properties(width=520),
    ]


def precision_charts(result: Result) -> list[alt.LayerChart | alt.Chart]:
    """Per output, the ULP histogram, the error heatmap relative to the standard with the core and tile boundaries,
    and the failure map when any element failed (the app's precision panel)."""
    out: list[alt.LayerChart | alt.Chart] = []
    for name in result.reports:
        if not result.reports[name].numel:
            continue
        errors = frames.errors_of(result, name)
        ulp = frames.ulp_frame(result, name, errors=errors)
        out.append(charts.ulp_histogram(ulp, title=f"{name}: ULP error").properties(width=420, height=180))
        heat = frames.heatmap_frame(result, name, errors=errors)
        lines = frames.split_lines_frame(result, name)
        title = f"{name}: error / what the standard allows"
        out.append(charts.error_heatmap(heat, lines, title=title).properties(width=420, height=220))
        if errors["failed"].any():
            failures = frames.failure_map_frame(result, name, errors)
            out.append(charts.failure_map_chart(failures, title=f"{name}: failing elements per core and tile"))
    return out


def html_report(result: Result) -> str:
    """The same records, charts and tables the app shows: result (reports, diagnostics with their source lines),
    tiling card, tiling charts, precision charts per output, timings, the guided analysis with the roofline, the
    plain-text tiling table, and the annotated source when the run has an event log (trace=True)."""
    title = html.escape(f"{result.verdict}: {result.case.label()}")
    tiling = "".join(f"<figure>{svg(c)}</figure>" for c in tiling_charts(result))
    precision = "".join(f"<figure>{svg(c)}</figure>" for c in precision_charts(result))
    from ...judge.criteria import evaluate
    from ...judge.perfmodel import predict

    timings = frames.timings_frame(result)
    timing_charts: list[alt.Chart | alt.LayerChart] = [charts.timings_chart(timings)]
    if result.trace.get("cores"):
        timing_charts.append(
            charts.pipe_timeline_chart(frames.pipe_timeline_frame(predict(result.trace, result.case.soc)))
        )
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{title}</title>{STYLE}</head>\n<body>\n"
        f"{result_html(result)}\n{plan_html(result.plan)}\n<div class='wb-card'>{tiling}</div>\n"
        + (f"<div class='wb-card'>{precision}</div>\n" if precision else "")
        + f"{timings_html(timings, evaluate(result), device_html(result))}\n"
        + f"<div class='wb-card'>{''.join(f'<figure>{svg(c)}</figure>' for c in timing_charts)}</div>\n"
        + analysis_section(result)
        + f"<div class='wb-card'><pre>{html.escape(plan_text(result.plan, result.case.label()))}</pre></div>\n"
        + source_section(result)
        + "</body></html>\n"
    )


def analysis_section(result: Result) -> str:
    """The guided analysis and the roofline (judge/analysis.py), as the app's analysis panel shows them."""
    from ...running.work import analyse
    from .analysis import analysis_card
    from .roofline import pipes_chart, roofline_chart

    a = analyse(result)
    figures = "".join(f"<figure>{svg(c)}</figure>" for c in (roofline_chart(a.roofline), pipes_chart(a.roofline)))
    return analysis_card(a, figures) + "\n"


def source_section(result: Result) -> str:
    """The annotated source (render/source.py) of a run with an event log; '' without one (counts would be empty)."""
    if result.events is None:
        return ""
    from ...running.annotated import annotate_source
    from .source import source_html

    return source_html(annotate_source(result)) + "\n"


def write_html(result: Result, path: str | Path) -> Path:
    """Write the report to `path` through a temporary file in the same folder and a rename."""
    target = check_output_file(path, "HTML report")
    atomic_write(target, html_report(result).encode("utf-8"), "HTML report")
    return target
