"""Registers how records are shown (core/shown.py): `import workbench` imports this module, so a Case, a plan, a
platform, a report or a result prints and displays through the renderers in render/text.py and render/html.py.
The renderers are imported when first used, not here: `import workbench` stays light."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import shown
from ..core.platform import Platform
from ..core.tiling import TilingPlan
from ..judge.analysis import Analysis
from ..judge.compare import Report
from ..planning.case import Case
from ..running.ab import RunComparison
from ..running.annotated import AnnotatedSource
from ..running.runner import Result


def _text(name: str) -> Callable[[Any], str]:
    def render(obj: Any) -> str:
        from .render import text

        return str(getattr(text, name)(obj))

    return render


def _html(name: str) -> Callable[[Any], str]:
    def render(obj: Any) -> str:
        from .render import html

        return str(getattr(html, name)(obj))

    return render


def _ab(name: str) -> Callable[[Any], str]:
    def render(obj: Any) -> str:
        from .render import ab

        return str(getattr(ab, name)(obj))

    return render


def _analysis(form: str) -> Callable[[Any], str]:
    def render(obj: Any) -> str:
        from .render import analysis

        return str(getattr(analysis, f"analysis_{form}")(obj))

    return render


for cls, form, renderer in (
    (Case, "html", _html("case_html")),
    (TilingPlan, "repr", _text("plan_repr")),
    (TilingPlan, "html", _html("plan_html")),
    (Platform, "repr", _text("platform_repr")),
    (Platform, "html", _html("platform_html")),
    (Report, "repr", _text("report_repr")),
    (Report, "header", _text("report_header")),
    (Report, "text", _text("report_text")),
    (Report, "html", _html("report_html")),
    (Result, "repr", _text("result_repr")),
    (Result, "text", _text("result_text")),
    (Result, "html", _html("result_html")),
    (RunComparison, "repr", _ab("comparison_repr")),
    (RunComparison, "text", _ab("comparison_text")),
    (RunComparison, "html", _ab("comparison_html")),
    (Analysis, "text", _analysis("text")),
    (Analysis, "html", _analysis("html")),
):
    shown.register(cls, form, renderer)


def _source(name: str) -> Callable[[Any], str]:
    def render(obj: Any) -> str:
        from .render import source

        return str(getattr(source, name)(obj))

    return render


shown.register(AnnotatedSource, "repr", _source("source_text"))
shown.register(AnnotatedSource, "html", _source("source_html"))
