"""The app's annotated-source panel: after a run, the kernel's source with each line's diagnostics and, for a run with
the trace box ticked, its API calls, bytes and predicted µs (running/annotated.py, rendered by render/source.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as w

from ...running.annotated import annotate_source
from ..render.source import source_html

if TYPE_CHECKING:
    from ...running.annotated import AnnotatedSource
    from ...running.runner import Result


class SourcePanel:
    """Hidden until a run; `source` is the annotated source shown (None before a run)."""

    def __init__(self) -> None:
        self.source: AnnotatedSource | None = None
        self.view = w.HTML()
        self.widget = w.VBox([self.view]).add_class("wb-source")
        self.widget.layout.display = "none"

    def update(self, result: Result) -> None:
        self.source = annotate_source(result)
        # a long kernel scrolls inside the panel rather than stretching the page (a notebook or report shows it whole)
        self.view.value = (
            f"<div class='wb-src-scroll' style='max-height:70vh;overflow-y:auto'>{source_html(self.source)}</div>"
        )
        self.widget.layout.display = ""
