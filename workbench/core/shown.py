"""How records are shown (text in terminals, HTML in notebooks), without the records importing their renderers.

Case, TilingPlan, Platform, Report and Result keep their `__repr__`, `text()` and `_repr_html_` methods, which ask
this table for the renderer the view layer registered (workbench/view/shown.py, imported by `import workbench`):
the flow of imports stays one-way, from the view down to the records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

WIDTH = 120  # every plain-text line (terminal renderings, progress) fits in WIDTH columns

_RENDERERS: dict[tuple[type, str], Callable[[Any], str]] = {}


def register(cls: type, form: str, renderer: Callable[[Any], str]) -> None:
    """`renderer(obj)` shows objects of `cls` as `form`: "repr", "text", "header" or "html"."""
    _RENDERERS[(cls, form)] = renderer


def render(obj: Any, form: str) -> str:
    """`obj` shown as `form` by the renderer registered for its class; a plain fallback for repr, an error otherwise."""
    for cls in type(obj).__mro__:
        renderer = _RENDERERS.get((cls, form))
        if renderer is not None:
            return renderer(obj)
    if form == "repr":
        return object.__repr__(obj)
    raise LookupError(f"no {form} renderer for {type(obj).__name__}: `import workbench` registers them")
