"""The A/B panel: pin a run as A, and every later run is compared with it (running/ab.py, rendered by render/ab.py).

The panel only holds the pinned run and the last comparison; compare_runs computes, comparison_html formats.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import ipywidgets as w

from ...running.ab import RunComparison, compare_runs
from ..render.ab import comparison_html

if TYPE_CHECKING:
    from ...running.runner import Result

HINT = "Pin a run as A: the next runs (an edited kernel, another shape or platform) are compared with it here."


class ABPanel:
    """`pin(result)` makes `result` run A; `update(result)` compares a later run with it (`comparison`)."""

    def __init__(self) -> None:
        self.pin_button = w.Button(description="pin run as A", icon="thumb-tack", tooltip=HINT, disabled=True)
        self.pin_button.add_class("wb-ab-pin")
        self.unpin_button = w.Button(description="unpin A", disabled=True).add_class("wb-ab-unpin")
        self.status = w.HTML(f"<small class='wb-muted'>{html.escape(HINT)}</small>").add_class("wb-ab-status")
        self.body = w.HTML().add_class("wb-ab-body")
        self.pinned: Result | None = None
        self.comparison: RunComparison | None = None
        self.unpin_button.on_click(lambda _: self.unpin())
        self.widget = w.VBox(
            [w.HTML("<b>A/B runs</b>"), w.HBox([self.pin_button, self.unpin_button, self.status]), self.body]
        ).add_class("wb-ab")

    def pin(self, result: Result) -> None:
        self.pinned, self.comparison = result, None
        self.unpin_button.disabled = False
        self.status.value = f"<small>A: {html.escape(result.case.label())} ({html.escape(result.verdict)})</small>"
        self.body.value = "<small class='wb-muted'>run again to compare with A</small>"

    def unpin(self) -> None:
        self.pinned = self.comparison = None
        self.unpin_button.disabled = True
        self.status.value = f"<small class='wb-muted'>{html.escape(HINT)}</small>"
        self.body.value = ""

    def update(self, result: Result) -> None:
        """A new run (B): compared with the pinned A, if any."""
        self.pin_button.disabled = False
        if self.pinned is None or result is self.pinned:
            return
        self.comparison = compare_runs(self.pinned, result)
        self.body.value = comparison_html(self.comparison)
