"""The mismatch table: a page of rows from frames.mismatch_frame, sortable by any column, filtered by a small query
("core=3 tile=0", "ulp>4", "tail", any text), every cell whole (long ones wrap, each has its full text as a
tooltip), the location column last and never cut, and the rows on show exported as CSV.

Rows are an HTML table each, beside a button that selects the row (an HTML widget cannot call back into Python).
"""

from __future__ import annotations

import base64
import html
import operator
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...core._files import atomic_write
from ..render.text import fmt

if TYPE_CHECKING:
    import pandas as pd

PAGE = 15
# (column, header, width in ch): fixed widths so the rows, each its own table, line up under the header
COLUMNS = (
    ("index", "index", 12),
    ("inputs", "inputs", 24),
    ("expected", "expected", 11),
    ("actual", "actual", 11),
    ("abs_err", "abs err", 9),
    ("ulp", "ULP", 6),
    ("core", "core", 6),
    ("tile", "tile", 6),
    ("offset", "offset", 8),
    ("tail", "tail", 6),
    ("location", "location (the core, tile and offset that computed it)", 0),  # 0: the rest of the row
)
SORTS = {
    "worst first": None,
    "index": "flat",
    "abs err": "abs_err",
    "rel err": "rel_err",
    "ULP": "ulp",
    "core": "core",
    "tile": "tile",
    "offset": "offset",
    "expected": "expected",
    "actual": "actual",
}
CSV_INLINE_BYTES = 4 << 20  # a CSV up to this size also gets a download link in the page (a data: URI)
TABLE_STYLE = """<style>
.wb-mm table{table-layout:fixed;border-collapse:collapse;width:100%;font-size:12px;
  font-family:var(--jp-code-font-family,'DejaVu Sans Mono',Menlo,Consolas,monospace);
  color:var(--jp-ui-font-color1,inherit)}
.wb-mm td,.wb-mm th{padding:1px 6px 1px 0;vertical-align:top;text-align:left;overflow-wrap:anywhere;
  font-variant-numeric:tabular-nums}
.wb-mm th{font-weight:600;border-bottom:1px solid var(--jp-border-color2,#8886)}
.wb-mm .wb-mm-fail{color:var(--jp-error-color1,#cf222e)}
.wb-mm-row{border-bottom:1px solid var(--jp-border-color3,#8882)}
.wb-mm-row.wb-mm-picked{background:var(--jp-warn-color3,#fff3c4)}
.wb-mm-row button{min-width:26px;width:26px;padding:0}
</style>"""
_OPS = {">=": operator.ge, "<=": operator.le, "!=": operator.ne, "=": operator.eq, ">": operator.gt, "<": operator.lt}
_TERM = re.compile(r"^(\w+)(>=|<=|!=|=|>|<)(.+)$")


def _colgroup() -> str:
    return "<colgroup>" + "".join(f"<col style='width:{n}ch'>" if n else "<col>" for _, _, n in COLUMNS) + "</colgroup>"


def _text(column: str, value: Any) -> str:
    if column in ("expected", "actual"):
        return fmt(value)
    if column == "abs_err":
        return fmt(value, 3)
    if column in ("ulp", "tile", "offset") and value < 0:
        return "-"
    if column == "tail":
        return "tail" if value else ""
    return str(value)


def row_html(row: dict[str, Any], failed: bool) -> str:
    """One row as a one-row table: every cell whole (wrapping where long) with its full text as a tooltip."""
    cells = []
    for column, _, _ in COLUMNS:
        value = row["cores"] if column == "core" and row["core"] < 0 and row["cores"] else row[column]
        text = "-" if column == "core" and value == -1 else _text(column, value)
        cls = " class='wb-mm-fail'" if failed and column in ("actual", "abs_err", "ulp") else ""
        cells.append(f"<td{cls} title='{html.escape(text, quote=True)}'>{html.escape(text)}</td>")
    return f"<table>{_colgroup()}<tr>{''.join(cells)}</tr></table>"


HEADER_HTML = (
    f"{TABLE_STYLE}<div class='wb-mm' style='margin-left:30px'><table>{_colgroup()}<tr>"
    + "".join(f"<th>{html.escape(h)}</th>" for _, h, _ in COLUMNS)
    + "</tr></table></div>"
)


def apply_filter(frame: pd.DataFrame, query: str) -> pd.DataFrame:
    """Rows matching every term of `query`: `column<op>value` (=, !=, <, <=, >, >=; numbers compare as numbers),
    the word `tail`, or any other text, found in any cell (case-insensitive). An unknown column is plain text."""
    import pandas as pd

    keep = pd.Series(True, index=frame.index)
    for term in query.split():
        m = _TERM.match(term)
        if m and m.group(1) in frame.columns:
            column, op, raw = m.groups()
            values = frame[column]
            try:
                target: Any = float(raw)
                values = pd.to_numeric(values, errors="coerce")
            except ValueError:
                target, values = raw.lower(), values.astype(str).str.lower()
            keep &= _OPS[op](values, target).fillna(False).astype(bool)
        elif term.lower() == "tail" and "tail" in frame.columns:
            keep &= frame["tail"].astype(bool)
        else:
            text = frame.astype(str).apply(lambda r: " ".join(r).lower(), axis=1)
            keep &= text.str.contains(term.lower(), regex=False)
    return frame[keep]


class MismatchTable:
    """Filter box, sort, pages of rows, CSV export. `show(frame, failed)` fills it (`failed`: whether the rows are
    failing elements); selecting a row calls `on_select(row)` with the row of the shown frame."""

    def __init__(self, on_select: Callable[[pd.Series], None]) -> None:
        self.query = w.Text(
            placeholder="filter: core=3 tile=0 ulp>4 tail, or any text", continuous_update=True
        ).add_class("wb-mm-filter")
        self.query.layout.width = "320px"
        self.sort = w.Dropdown(options=list(SORTS), description="sort", layout=w.Layout(width="170px"))
        self.sort.style.description_width = "32px"
        self.descending = w.ToggleButton(value=True, description="↓", tooltip="descending / ascending")
        self.descending.layout.width = "36px"
        self.previous = w.Button(description="◀", layout=w.Layout(width="36px"))
        self.next = w.Button(description="▶", layout=w.Layout(width="36px"))
        self.where = w.HTML().add_class("wb-mm-where")
        self.csv = w.Button(description="export CSV", tooltip="every row of the filter, all columns").add_class(
            "wb-mm-csv"
        )
        self.link = w.HTML().add_class("wb-mm-link")
        self.rows = w.VBox().add_class("wb-mm-rows")
        self.frame: pd.DataFrame | None = None  # what show() was given
        self.view: pd.DataFrame | None = None  # filtered and sorted
        self.failed = False
        self.page = 0
        self.picked: int | None = None
        self._on_select = on_select
        for control in (self.query, self.sort, self.descending):
            control.observe(lambda _: self._refresh(reset=True), "value")
        self.previous.on_click(lambda _: self._turn(-1))
        self.next.on_click(lambda _: self._turn(1))
        bar = w.HBox(
            [self.query, self.sort, self.descending, self.previous, self.next, self.where, self.csv, self.link]
        )
        bar.layout.flex_flow = "row wrap"
        bar.layout.align_items = "center"
        self.widget = w.VBox([bar, w.HTML(HEADER_HTML), self.rows]).add_class("wb-mismatches")

    def show(self, frame: pd.DataFrame, failed: bool) -> None:
        self.frame, self.failed, self.picked = frame, failed, None
        self.link.value = ""
        self._refresh(reset=True)

    def _refresh(self, reset: bool = False) -> None:
        if self.frame is None:
            return
        view = apply_filter(self.frame, self.query.value)
        column = SORTS[self.sort.value]
        if column is not None:
            view = view.sort_values(column, ascending=not self.descending.value, kind="stable")
        elif not self.descending.value:
            view = view.iloc[::-1]
        self.view = view
        if reset:
            self.page = 0
        self._draw()

    def _turn(self, step: int) -> None:
        pages = max(1, -(-len(self.view) // PAGE)) if self.view is not None else 1
        self.page = min(max(self.page + step, 0), pages - 1)
        self._draw()

    def _draw(self) -> None:
        view = self.view
        if view is None:
            return
        lo = self.page * PAGE
        shown = view.iloc[lo : lo + PAGE]
        total = len(self.frame) if self.frame is not None else 0
        filtered = f" of {total} (filtered)" if len(view) != total else ""
        self.where.value = (
            f"<small>rows {lo + 1 if len(view) else 0}–{lo + len(shown)} of {len(view)}{filtered}</small>"
        )
        self.previous.disabled, self.next.disabled = lo == 0, lo + PAGE >= len(view)
        rows = []
        for i, (label, r) in enumerate(shown.iterrows()):
            pick = w.Button(description="▸", tooltip="outline its core and tile on the per-core chart")
            pick.on_click(lambda _, label=label: self.select(label))
            cells = w.HTML(f"<div class='wb-mm'>{row_html(r.to_dict(), self.failed)}</div>")
            cells.layout.flex = "1 1 auto"
            row = w.HBox([pick, cells]).add_class("wb-mm-row")
            if label == self.picked:
                row.add_class("wb-mm-picked")
            row.add_class(f"wb-mm-row-{lo + i}")
            rows.append(row)
        self.rows.children = rows

    def select(self, label: int) -> None:
        """Select the row `label` (the shown frame's index): highlight it and call on_select."""
        if self.frame is None or label not in self.frame.index:
            return
        self.picked = label
        self._draw()
        self._on_select(self.frame.loc[label])

    def to_csv(self, path: str | Path) -> Path:
        """Every row of the filter (all columns, whatever the page), sorted as shown, written atomically."""
        if self.view is None:
            raise ValueError("no mismatch table to export: run a case first")
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        data = self.view.to_csv(index=False).encode()
        atomic_write(out, data)
        if len(data) <= CSV_INLINE_BYTES:
            uri = "data:text/csv;base64," + base64.b64encode(data).decode()
            self.link.value = f"<a download='{html.escape(out.name)}' href='{uri}'>download {html.escape(out.name)}</a>"
        else:
            self.link.value = f"<small>written to {html.escape(str(out.resolve()))}</small>"
        return out
