"""Workbench(): the controls build a Case; every change re-plans (pure, sub-millisecond) and re-renders the tiling
panel; Run is explicit and fills the summary, precision, timings and analysis panels.

Nothing here computes: Case validates, pipeline.plan decides, runner.run runs, workbench.view.render renders. Errors
never escape a callback: a WorkbenchError is shown beside the control it names, anything else in the status line.
"""

from __future__ import annotations

import contextlib
import functools
import html
import importlib.metadata
import re
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...core import progress
from ...core._files import atomic_write, cache_home
from ...core.errors import WorkbenchError
from ...core.opspec import REQUIRED
from ...core.platform import PLATFORMS
from ...core.tiling import TilingPlan
from ...judge.compare import STANDARDS
from ...planning.case import Case
from ...planning.pipeline import plan
from ...planning.registry import OPS
from ...planning.worked import examples
from ...running import backends
from ...running.emu.build import BuildError
from ...running.profiling import attach
from ...running.runner import Result, run
from ..render import frames
from ..render.html import build_error_html
from ..render.report import save_chart

if TYPE_CHECKING:  # the panels import altair: loaded by Workbench.load_panels, after the controls are on show
    from .ab_panel import ABPanel
    from .access_panel import AccessPanel
    from .analysis_panel import AnalysisPanel
    from .panels import SummaryPanel, TilingPanel, TimingsPanel
    from .precision import PrecisionPanel
    from .source_panel import SourcePanel
    from .sweep_panel import SweepForm

DEFAULT = "(op default)"
SAVE_DIR = "workbench-charts"
TRACE_TIP = (
    "record the emulator's event log: the access map and the annotated source below (emulator only; slower launch)"
)
LOADING = "loading the tiling panel and the charts …"
PRELOAD_THREAD = "workbench-preload"  # the thread of kernel_startup.py, in a kernel of `workbench app`


# the spinner beside the loading line is CSS, not an emoji that a font may lack
APP_STYLE = """<style>
.wb-spinner{display:inline-block;width:10px;height:10px;margin:0 6px 0 2px;vertical-align:-1px;border-radius:50%;
  border:2px solid #c8c8c8;border-top-color:#1976d2;animation:wb-spin 0.9s linear infinite}
@keyframes wb-spin{to{transform:rotate(360deg)}}
/* the charts draw their text and lines in currentColor (charts.page_theme): the theme's text colour */
.wb-app .vega-embed{color:var(--jp-ui-font-color1,#000)}
</style>"""


def _starting_case(op: str) -> Case:
    """The op's first worked example (docs/ops/<op>.md §4): a case that shows the interesting part of the tiling."""
    return next((ex.case for ex in examples() if ex.case.op == op), None) or Case(op, OPS[op].dtype_matrix[0], (1024,))


@functools.cache
def _op_reserve(op: str) -> int:
    """The op's own UB reserve (what tiling keeps back), for the what-if reserve control's real value."""
    return plan(_starting_case(op)).ub_reserved


def _field(label: str, widget: w.Widget, css: str) -> w.Widget:
    widget.add_class(css)
    widget.description = label
    widget.style.description_width = "80px"
    return widget


class Workbench:
    """The workbench app: display it in a notebook cell (`Workbench()`), or serve it with `workbench app`.

    `case` (or `op`) picks the starting case. Attributes for notebooks and tests: `controls` (name -> widget),
    `case`, `plan` (the plan shown, a what-if plan when a what-if control differs from the platform), `result`
    (the last run), `refresh_s` (seconds the last control change took to re-plan and re-render), `error`.

    `panels=False` builds the controls only (ipywidgets and the workbench core, no altair or pandas) with a line
    saying what is still loading; `load_panels()` then adds the tiling panel, the charts and Run. `workbench app`
    does this in two cells, so the page shows the controls within seconds while the charts load.
    """

    tiling: TilingPanel  # these four exist once load_panels() has run
    summary: SummaryPanel
    precision: PrecisionPanel
    timings: TimingsPanel
    analysis: AnalysisPanel  # findings and roofline (ui/analysis_panel.py)
    source: SourcePanel  # the annotated source (ui/source_panel.py)
    access: AccessPanel  # the access map of a run with trace on (ui/access_panel.py)
    sweep: SweepForm  # the sweep section (ui/sweep_panel.py), between the controls and the panels
    ab: ABPanel  # a pinned run A and the last run compared with it (ui/ab_panel.py)

    def __init__(self, case: Case | None = None, op: str | None = None, panels: bool = True) -> None:
        start = case or _starting_case(op or next(iter(OPS)))
        self.case: Case | None = None
        self.plan: TilingPlan | None = None
        self.result: Result | None = None
        self.error = ""
        self.refresh_s = 0.0
        self._thread: threading.Thread | None = None
        self._busy = 0  # > 0 while the controls are being set programmatically: one refresh at the end

        c: dict[str, w.Widget] = {
            "op": _field("op", w.Dropdown(options=list(OPS)), "wb-op"),
            "dtype": w.HBox().add_class("wb-dtype"),
            "shape": _field("shape", w.Text(continuous_update=True, placeholder="e.g. 4096,512"), "wb-shape"),
            "format": _field("format", w.Dropdown(), "wb-format"),
            "attrs": w.VBox().add_class("wb-attrs"),
            "platform": _field("platform", w.Dropdown(), "wb-platform"),
            "backend": _field("backend", w.Dropdown(options=list(backends.names())), "wb-backend"),
            "seed": _field("seed", w.BoundedIntText(min=0, max=2**63 - 1), "wb-seed"),
            "distribution": _field("inputs", w.Dropdown(), "wb-distribution"),
            "standard": _field("standard", w.Dropdown(options=[DEFAULT, *STANDARDS]), "wb-standard"),
            "trace": _field("trace", w.Checkbox(indent=False, tooltip=TRACE_TIP), "wb-trace"),
            "kernel": _field(
                "kernel", w.Text(placeholder="an edited copy (copy_kernel); empty = shipped"), "wb-kernel"
            ),
            # plain IntText, applied as typed: a bounded box would clamp 0 to 1 silently; plan() names what is allowed
            "ub_size": _field("UB size", w.IntText(continuous_update=True), "wb-whatif-ub"),
            "ub_reserve": _field("reserve", w.IntText(continuous_update=True), "wb-whatif-reserve"),
            "core_count": _field("cores", w.IntText(continuous_update=True), "wb-whatif-cores"),
        }
        self.controls = c
        self._dtype_boxes: list[w.Dropdown] = []
        self._attr_widgets: dict[str, w.Widget] = {}
        self.shape_error = w.HTML(layout=w.Layout(max_width="380px")).add_class("wb-shape-error")
        missing = {n: why for n in backends.names() if (why := backends.unavailable(n))}
        self.backend_note = w.HTML(
            "<small>" + "; ".join(f"{n}: unavailable ({html.escape(why)})" for n, why in missing.items()) + "</small>"
        )
        self.status = w.HTML().add_class("wb-status")
        self.run_button = w.Button(description="▶ Run", button_style="primary").add_class("wb-run")
        self.reset_button = w.Button(description="platform values", tooltip="reset the what-if controls")
        self.save_button = w.Button(description="save charts", tooltip=f"PNG + SVG into {SAVE_DIR}/")
        self.save_button.add_class("wb-save")
        self.progress = w.HTML().add_class("wb-progress")
        self.loading = w.HTML(f"<span class='wb-spinner'></span>{html.escape(LOADING)}").add_class("wb-loading")
        self.panels_loaded = False

        what_if = w.VBox(
            [
                w.HTML("<b>what if</b> <small>(tiling only; Run uses the platform's values)</small>"),
                c["ub_size"],
                c["ub_reserve"],
                c["core_count"],
                self.reset_button,
            ]
        )
        case_box = w.VBox([c["op"], c["dtype"], c["shape"], self.shape_error, c["format"], c["attrs"], c["platform"]])
        run_box = w.VBox(
            [
                w.HBox([c["backend"], self.backend_note]),
                c["seed"],
                c["distribution"],
                c["standard"],
                c["trace"],
                c["kernel"],
                w.HBox([self.run_button, self.save_button, self.progress]),
            ]
        )
        self._head = [
            w.HTML(f"{APP_STYLE}<h3 style='margin:4px 0'>Ascend C kernel workbench</h3>"),
            w.HBox([case_box, what_if, run_box], layout=w.Layout(flex_flow="row wrap")),
            self.status,
        ]
        self.widget = w.VBox([*self._head, self.loading]).add_class("wb-app")

        self._load(start)
        c["op"].observe(self._guard(self._op_changed), "value")
        c["platform"].observe(self._guard(self._platform_changed), "value")
        for name in ("shape", "format", "ub_size", "ub_reserve", "core_count"):
            c[name].observe(self._guard(self.refresh), "value")
        self.run_button.on_click(lambda _: self.start_run())
        self.save_button.on_click(self._guard(lambda _=None: self.save_charts()))
        self.reset_button.on_click(self._guard(lambda _=None: self._reset_what_if()))
        if panels:
            self.load_panels()

    def load_panels(self) -> None:
        """Add the tiling panel with its charts and the run's summary, precision, timings and analysis panels (once).

        They import altair and pandas and build the offline chart bundle: seconds in a fresh kernel, which is why
        the app can show its controls first and call this next. Until then Run and save are disabled and the line
        under the controls says what is loading."""
        if self.panels_loaded:
            return
        _wait_for_preload()
        try:
            from .ab_panel import ABPanel
            from .access_panel import AccessPanel
            from .analysis_panel import AnalysisPanel
            from .panels import SummaryPanel, TilingPanel, TimingsPanel
            from .precision import PrecisionPanel
            from .source_panel import SourcePanel
            from .sweep_panel import SweepForm

            offline_charts()
            self.tiling = TilingPanel()
            self.summary = SummaryPanel()
            self.precision = PrecisionPanel(self.select_mismatch)
            self.timings = TimingsPanel()
            self.analysis = AnalysisPanel()
            self.source = SourcePanel()
            self.access = AccessPanel(self._guard(self.select_tile))
            self.sweep = SweepForm(self)
            self.ab = ABPanel()
        except Exception as exc:  # e.g. altair missing: say so where the panels would be, then fail the cell
            self.loading.value = _error_html("the panels did not load", "".join(traceback.format_exception_only(exc)))
            raise
        self.timings.msprof_button.on_click(self._guard(lambda _=None: self._import_clicked()))
        self.tiling.back.on_click(self._guard(lambda _=None: self.refresh()))
        self.tiling.cores.observe(self._guard(self._core_clicked), "_vl_selections")
        self.precision.mismatches.csv.on_click(self._guard(lambda _=None: self.export_mismatches()))
        self.ab.pin_button.on_click(self._guard(lambda _=None: self.pin_run()))
        self.panels_loaded = True
        self.refresh()
        self.widget.children = [
            *self._head,
            self.sweep.widget,
            self.tiling.widget,
            self.summary.widget,
            self.precision.widget,
            self.timings.widget,
            self.ab.widget,
            self.analysis.widget,
            self.source.widget,
            self.access.widget,
        ]

    # -- display -------------------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    # -- controls <-> Case ---------------------------------------------------------------------------
    def _guard(self, fn: Callable[..., object]) -> Callable[..., None]:
        """A callback that never raises into the widget machinery (a traceback there is lost or kills the cell)."""

        def call(*args: Any) -> None:
            if self._busy:
                return
            try:
                fn(*args)
            except Exception as exc:  # any bug must surface in the app, not vanish in the kernel log
                self.status.value = _error_html("internal error", "".join(traceback.format_exception_only(exc)))

        return call

    def _load(self, case: Case) -> None:
        """Set every control from `case` (its op's choices first), then refresh once."""
        self._busy += 1
        try:
            self.controls["op"].value = case.op
            self._op_options(case)
        finally:
            self._busy -= 1
        self.refresh()

    def _op_options(self, case: Case) -> None:
        spec, c = OPS[case.op], self.controls
        self._dtype_boxes = []
        for i in range(len(spec.dtype_matrix[0])):
            box = w.Dropdown(description="dtype" if i == 0 else "→", layout=w.Layout(width="190px" if i else "270px"))
            box.style.description_width = "80px" if i == 0 else "20px"
            box.observe(self._guard(lambda _, i=i: self._dtype_changed(i)), "value")
            self._dtype_boxes.append(box)
        c["dtype"].children = self._dtype_boxes
        self._set_dtypes(case.dtypes)
        c["shape"].value = ",".join(map(str, case.shape))
        c["format"].options = [DEFAULT, *spec.formats]
        c["format"].value = DEFAULT if case.format == spec.default_format(case.shape) else case.format
        self._attr_widgets = {}
        for a in spec.attrs:
            value = case.attrs.get(a.name, None if a.default is REQUIRED else a.default)
            widget = (
                w.Checkbox(value=bool(value), indent=False)
                if a.type is bool
                else w.Text(value="" if value is None else str(value), continuous_update=True)
            )
            widget.description, widget.tooltip = a.name, a.doc
            widget.style.description_width = "130px"
            widget.add_class(f"wb-attr-{a.name}")
            widget.observe(self._guard(self.refresh), "value")
            self._attr_widgets[a.name] = widget
        c["attrs"].children = list(self._attr_widgets.values())
        c["platform"].options = list(spec.target_platforms())
        c["platform"].value = case.platform
        c["distribution"].options = list(spec.distributions)
        c["distribution"].value = spec.distributions[0]  # ipywidgets keeps None after new options
        self._reset_what_if(refresh=False)

    def _set_dtypes(self, dtypes: tuple[str, ...]) -> None:
        """Each dtype box offers only what completes a valid combination with the boxes before it."""
        matrix = OPS[self.controls["op"].value].dtype_matrix
        self._busy += 1
        try:
            for i, box in enumerate(self._dtype_boxes):
                allowed = list(dict.fromkeys(d[i] for d in matrix if d[:i] == dtypes[:i]))
                box.options = allowed
                box.value = dtypes[i] if dtypes[i] in allowed else allowed[0]
                dtypes = (*dtypes[:i], box.value, *dtypes[i + 1 :])
        finally:
            self._busy -= 1

    def _dtype_changed(self, i: int) -> None:
        self._set_dtypes(tuple(b.value for b in self._dtype_boxes))
        self.refresh()

    def _op_changed(self, _: Any = None) -> None:
        self._load(_starting_case(self.controls["op"].value))

    def _platform_changed(self, _: Any = None) -> None:
        self._reset_what_if()

    def _reset_what_if(self, refresh: bool = True) -> None:
        """The what-if controls back to the platform's UB, the op's reserve and GetCoreNum."""
        c = self.controls
        soc = PLATFORMS[c["platform"].value]
        self._busy += 1
        try:
            c["ub_size"].value = soc.ub_size
            c["core_count"].value = soc.core_num
            c["ub_reserve"].value = _op_reserve(c["op"].value)
        finally:
            self._busy -= 1
        if refresh:
            self.refresh()

    def open_row(self, row: Mapping[str, Any], run: bool = True) -> None:
        """Open a sweep's row (a clicked cell or point of the sweep views) in the panels: every control set to its
        case, seed, inputs, backend and standard (the shipped kernel when it ran one), then Run, as the button."""
        from ...sweeps.points import Point

        point = Point.from_row(row)
        c = self.controls
        other_op = point.case.op != c["op"].value
        self._load(point.case)
        if other_op and self.panels_loaded:
            self.sweep.follow()  # its op observer ran mid-load, before the controls had the case's dtypes and shape
        self._busy += 1
        try:
            c["seed"].value = point.seed
            c["distribution"].value = point.distribution
            if row.get("backend") in c["backend"].options:
                c["backend"].value = row["backend"]
            standard = row.get("standard")
            c["standard"].value = standard if isinstance(standard, str) and standard else DEFAULT
            if row.get("kernel", "shipped") == "shipped":
                c["kernel"].value = ""
        finally:
            self._busy -= 1
        if run and self.case is not None:
            self.start_run()

    def current_case(self) -> Case:
        """The Case the controls describe (raises the WorkbenchError naming the field that is wrong)."""
        c = self.controls
        attrs = {
            name: widget.value
            for name, widget in self._attr_widgets.items()
            if not (isinstance(widget.value, str) and widget.value.strip() == "")
        }
        fmt = c["format"].value
        return Case(
            c["op"].value,
            tuple(b.value for b in self._dtype_boxes),
            c["shape"].value,
            "" if fmt == DEFAULT else fmt,
            attrs,
            c["platform"].value,
        )

    def what_if(self) -> dict[str, int]:
        """The what-if controls that differ from the platform and the op: {} means the real plan."""
        c = self.controls
        soc = PLATFORMS[c["platform"].value]
        real = {"ub_size": soc.ub_size, "ub_reserve": _op_reserve(c["op"].value), "core_count": soc.core_num}
        return {k: int(c[k].value) for k, v in real.items() if int(c[k].value) != v}

    # -- refresh: Case -> plan -> tiling panel ----------------------------------------------------------
    def refresh(self, _: Any = None) -> None:
        """Re-plan from the controls and re-render the tiling panel (the <100 ms path: bench/bench_ui.py)."""
        t0 = time.perf_counter()
        self.shape_error.value = ""
        try:
            case = self.current_case()
            what_if = self.what_if()
            tiling = plan(case, **what_if)
        except WorkbenchError as err:
            self.case = self.plan = None
            self.error = str(err)
            beside_shape = err.field.startswith("shape")  # shown once: beside the field it names, else above the panel
            self.shape_error.value = _error_html("", str(err)) if beside_shape else ""
            self.status.value = "" if beside_shape else _error_html("", str(err))
            if self.panels_loaded:
                self.tiling.show_error("fix the shape above" if beside_shape else "see the error above")
            self.run_button.disabled = True
        else:
            self.case, self.plan, self.error = case, tiling, ""
            self.status.value = ""
            if self.panels_loaded:
                self.tiling.update(case, tiling, what_if)
            running = self._thread is not None and self._thread.is_alive()
            self.run_button.disabled = running or not self.panels_loaded
        self.save_button.disabled = not self.panels_loaded
        self.refresh_s = time.perf_counter() - t0

    # -- run ---------------------------------------------------------------------------------------
    def start_run(self) -> None:
        """What the Run button does: run in a thread, so the notebook stays responsive and progress shows."""
        if self._thread is not None and self._thread.is_alive():
            return
        self.run_button.disabled = True
        self._thread = threading.Thread(target=self._guard(self.run), name="workbench-run", daemon=True)
        self._thread.start()

    def run(self) -> Result | None:
        """Run the current case with the run controls; show the summary, precision, timings and analysis panels."""
        self.load_panels()
        c = self.controls
        case = self.case
        if case is None:
            self.status.value = _error_html("nothing to run", self.error)
            return None
        self.run_button.disabled = True
        started = time.perf_counter()

        def stage(what: str, begin: bool) -> None:
            self.progress.value = (
                f"<span class='wb-muted'>⏳ {html.escape(what)} …</span>" if begin else f"✓ {html.escape(what)}"
            )

        try:
            standard = None if c["standard"].value == DEFAULT else c["standard"].value
            with progress.listening(stage):
                self.progress.value = "⏳ preparing inputs and golden …"
                result = run(
                    case,
                    backend=c["backend"].value,
                    seed=int(c["seed"].value),
                    distribution=c["distribution"].value,
                    standard=standard,
                    kernel=c["kernel"].value.strip() or None,
                    trace=bool(c["trace"].value),
                )
        except BuildError as err:  # the user's edited kernel: its errors at its lines, with the source
            self.progress.value = ""
            self.error = str(err)
            self.status.value = build_error_html(err)
            return None
        except WorkbenchError as err:
            self.progress.value = ""
            self.status.value = _error_html("run refused", str(err))
            return None
        finally:
            self.run_button.disabled = self.case is None
        self.result = result
        self.progress.value = f"{result.verdict} in {time.perf_counter() - started:.1f} s"
        self.status.value = ""
        self.summary.update(result)
        self.precision.update(result)
        self.timings.update(result)
        self.ab.update(result)
        self.analysis.update(result)
        self.source.update(result)
        self.access.update(result)
        return result

    def pin_run(self) -> None:
        """Pin the last run as A: each later run is compared with it in the A/B panel (the "pin run as A" button)."""
        if self.result is None:
            raise WorkbenchError("A/B", "pin", "a run to pin: press Run first")
        self.ab.pin(self.result)

    def import_msprof(self, source: str | Path) -> Result:
        """Attach an msprof op_summary of the same case (a CSV or a PROF_* folder) to the last run: the timings
        panel then shows the device times from it and the performance model fitted to them."""
        if self.result is None:
            raise WorkbenchError("msprof", str(source), "a run to attach it to: press Run first")
        self.result = attach(self.result, source)
        self.timings.update(self.result)
        self.analysis.update(self.result)
        self.status.value = ""
        return self.result

    def _import_clicked(self) -> None:
        try:
            self.import_msprof(self.timings.msprof_path.value.strip())
        except WorkbenchError as err:
            self.status.value = _error_html("msprof import refused", str(err))

    def save_charts(self, folder: str | Path = SAVE_DIR) -> list[Path]:
        """Every chart on show as PNG (2x, for slides) and SVG, rendered offline by vl-convert, into `folder`
        (created if missing); the status line lists the files."""
        self.load_panels()
        shown = {
            "cores": self.tiling.cores,
            "ub": self.tiling.ub,
            **(
                {"neighbourhood": self.tiling.neighbourhood}
                if self.tiling.neighbourhood.layout.display != "none"
                else {}
            ),
            **(
                {"ulp": self.precision.ulp, "heatmap": self.precision.heatmap, "failures": self.precision.failures}
                if self.result
                else {}
            ),
            **({"timings": self.timings.chart} if self.result else {}),
            **({"pipes": self.timings.pipes} if self.result and self.timings.pipes.layout.display != "none" else {}),
            **({"access": self.access.chart} if self.result and self.access.map is not None else {}),
        }
        label = _file_stem(self.case.label() if self.case else "no-case")
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        paths = [
            save_chart(chart, out / f"{label}-{name}.{ext}")
            for name, widget in shown.items()
            if (chart := widget.chart) is not None
            for ext in ("png", "svg")
        ]
        self.status.value = f"saved {len(paths)} files into <code>{html.escape(str(out.resolve()))}</code>"
        return paths

    def select_mismatch(self, output: str, row: int) -> None:
        """Outline the core(s) and tile of mismatch `row` of `output` (a row of the precision panel's table) on the
        per-core chart; when the controls have moved on since the run, the tiling panel shows the run's plan and
        says so."""
        frame = self.precision.frame
        if self.result is None or frame is None or not 0 <= row < len(frame):
            return
        r = frame.iloc[row]
        cores = [int(x) for x in str(r["cores"]).split(",") if x]
        tile = None if int(r["tile"]) < 0 else int(r["tile"])
        self._show_selected(cores, tile)
        self.access.select(cores[0] if len(cores) == 1 else None, tile)

    def select_tile(self, core: int | None, tile: int | None) -> None:
        """Light up `core`'s `tile` (None: the whole core; core None: nothing) on the tiling panel's per-core chart
        and in the access map (what picking a core and tile in the access map does)."""
        if self.result is None:
            return
        self._show_selected([] if core is None else [core], tile)
        self.access.select(core, tile)

    def _core_clicked(self, change: Mapping[str, Any]) -> None:
        """A click on a core of the tiling panel's per-core chart (its selection, as vega-embed reports it) picks that
        core in the access map. An empty selection is ignored: redrawing the chart clears it."""
        from .panels import CORE_PICK

        signal = (change["new"].get(CORE_PICK) or {}).get("value") or {}
        points = signal.get("vlPoint", {}).get("or", [])
        if points and "core" in points[0]:
            self.select_tile(int(points[0]["core"]), None)

    def _show_selected(self, cores: list[int], tile: int | None) -> None:
        assert self.result is not None
        selected = frames.selected_tile_frame(self.result.plan, cores, tile)
        if self.plan != self.result.plan:
            self.tiling.show_run_plan(self.result, selected)
        else:
            self.tiling.show_cores(selected)

    def export_mismatches(self, folder: str | Path = SAVE_DIR) -> Path:
        """The precision panel's mismatch table (its filter and sort, every row) as CSV into `folder`."""
        if self.result is None:
            raise WorkbenchError("export", "mismatch table", "a run to export: press Run first")
        name = _file_stem(f"{self.result.case.label()}-{self.precision.output.value}-mismatches")
        path = self.precision.export_csv(Path(folder) / f"{name}.csv")
        self.status.value = f"saved <code>{html.escape(str(path.resolve()))}</code>"
        return path


def offline_charts() -> None:
    """altair's chart widget with its JavaScript (vega, vega-lite, vega-embed) bundled offline, read from a file.

    altair bundles it in every fresh kernel (JupyterChart.enable_offline): 1-2 s of CPU inside vl-convert, holding
    the GIL, so a page's kernel could answer nothing meanwhile. The bundle depends on the altair and vl-convert
    versions only, so it is kept in the workbench cache ($WORKBENCH_CACHE or ~/.cache/ascendc-workbench, charts/)
    under them; a cache that cannot be read or written is skipped. Where altair no longer has the flag this sets,
    it bundles as before."""
    import altair as alt

    chart = alt.JupyterChart
    if not isinstance(getattr(chart, "_is_offline", None), bool) or chart._is_offline:
        chart.enable_offline()
        return
    root = cache_home()
    versions = f"altair{alt.__version__}-vlconvert{importlib.metadata.version('vl-convert-python')}"
    cached = root / "charts" / f"jupyterchart-{versions}.js"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if bundle := cached.read_text(encoding="utf-8"):
            chart._esm, chart._is_offline = bundle, True
            return
    chart.enable_offline()
    with contextlib.suppress(OSError):
        cached.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(cached, str(chart._esm).encode())


def _wait_for_preload() -> None:
    """In a kernel of `workbench app`, the panels' modules are being imported in a thread (kernel_startup.py): let it
    finish, since code that looks a module up in sys.modules instead of importing it (altair does, for pandas) would
    find it half-imported. Elsewhere there is no such thread."""
    for thread in threading.enumerate():
        if thread.name == PRELOAD_THREAD:
            thread.join()


def _file_stem(text: str) -> str:
    """`text` as a file name: runs of anything but letters, digits, `_`, `.` and `-` become one `_`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def _error_html(title: str, message: str) -> str:
    head = f"<b>{html.escape(title)}</b>: " if title else ""
    return f"<span style='color:var(--jp-error-color1,#cf222e)'>{head}{html.escape(message)}</span>"
