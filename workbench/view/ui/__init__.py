"""The Jupyter front end: `Workbench()`, one ipywidgets app (a notebook cell displays it; `workbench app` serves it).

Widgets only wire the pure core (Case, plan, run) to the renderings in workbench.view.render; importing this package
imports ipywidgets and altair, importing `workbench` does not.
"""

from __future__ import annotations

from .app import Workbench

__all__ = ["Workbench"]
