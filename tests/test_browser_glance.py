"""The panels answer at a glance, in a real browser (`workbench app` in the system chromium, as tests/test_browser.py).

Tiling: SCE 64x4704 -> 64x4705 shows the path-switch banner with its rule and the neighbourhood chart; a pinned
baseline is diffed against while typing. Precision: a Cast kernel with a round-mode bug fails on every core, the
failure map shows it, clicking a cell narrows the mismatch table, the heatmap draws the core and tile boundaries,
the table filters and exports CSV; selecting a row after the controls moved on shows the run's plan under a banner.
At 1024 px the page does not scroll sideways. Screenshots go where tests/test_browser.py puts its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from planted import round_to_odd_kernel
from test_browser import (
    PAGE_S,
    RUN_S,
    STEP_S,
    Console,
    Server,
    _chart,
    _chromium,
    _fields,
    _say,
    _seen,
    _settle,
    _shot,
    _wait_changed,
    browser_on,
    screenshot_folder,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

SCE = "softmax_cross_entropy_with_logits"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    _chromium()
    srv = Server(tmp_path_factory.mktemp("glance"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def screenshots(pytestconfig: pytest.Config) -> Path:
    folder = screenshot_folder()
    _say(pytestconfig, f"browser test (at a glance): screenshots in {folder}")
    return folder


@pytest.fixture(scope="module")
def page(server: Server) -> Iterator[tuple[Page, Console]]:
    with browser_on(server.url) as (tab, console):
        _seen(tab)
        tab.locator(".wb-tiling tr[data-field]").first.wait_for(state="visible", timeout=PAGE_S * 1000)
        yield tab, console


def _text(page: Page, css: str) -> str:
    return str(page.evaluate(f"() => document.querySelector({css!r})?.innerText || ''"))


def _wait_text(page: Page, css: str, text: str, seconds: float = STEP_S) -> None:
    page.wait_for_function(
        "([css, text]) => (document.querySelector(css)?.innerText || '').includes(text)",
        arg=[css, text],
        timeout=seconds * 1000,
    )


def _shot_part(page: Page, css: str, path: Path) -> None:
    """One panel, whole: Voilà scrolls inside #rendered_cells, so the viewport is made as tall as the page first."""
    size = page.viewport_size or {"width": 1400, "height": 1000}
    tall = page.evaluate(
        "() => Math.max(...Array.from(document.querySelectorAll('#rendered_cells'), e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(tall))})
    page.wait_for_timeout(300)
    page.locator(css).screenshot(path=str(path))
    page.set_viewport_size(size)


def test_a_path_switch_shows_a_banner_and_the_neighbourhood(page: tuple[Page, Console], screenshots: Path) -> None:
    tab, console = page
    start = _settle(tab, _fields)
    tab.locator(".wb-op select").select_option(SCE)
    _wait_changed(tab, "the tiling table (op change)", _fields, start)
    shape = tab.locator(".wb-shape input")
    shape.fill("64,4704")
    _wait_text(tab, ".wb-tiling", "FULL_LOAD/GENERIC(AR)")
    _chart(tab, "wb-neighbourhood-chart")
    shape.fill("64,4705")
    _wait_text(tab, ".wb-banner", "path switch")
    banner = _text(tab, ".wb-banner")
    assert "FULL_LOAD/GENERIC(AR) → SPLIT_R(AR) at C = 4705" in banner and "A_ub = floor(188416/188500) = 0" in banner
    assert "SPLIT_R(AR)" in _text(tab, ".wb-tiling")
    _shot(tab, screenshots, "10-path-switch")
    _shot_part(tab, ".wb-tiling-panel", screenshots / "10-tiling-panel.png")

    # pin 4705, then type another C key by key: every plan is diffed against 4705, and the banner says so
    tab.locator(".wb-pin").click()
    _wait_text(tab, ".wb-banner", "baseline pinned")
    for text in ("64,1", "64,10", "64,100", "64,1000"):
        shape.fill(text)
    _wait_text(tab, ".wb-tiling tr[data-field='r']", "1000")
    assert "4705" in _text(tab, ".wb-tiling tr[data-field='r'] .wb-was")
    assert "SPLIT_R(AR) → FULL_LOAD/GENERIC(AR)" in _text(tab, ".wb-banner")
    _shot(tab, screenshots, "11-pinned-baseline")
    tab.locator(".wb-pin").click()
    _wait_text(tab, ".wb-pin", "pin as baseline")

    # what-if applies as typed; 0 cores is refused with what is allowed, never clamped to 1
    cores = tab.locator(".wb-whatif-cores input")
    cores.fill("0")
    _wait_text(tab, ".wb-status", "core_count: got 0; allowed: an integer in [1, 65535]")
    assert cores.input_value() == "0"
    cores.fill("4")
    _wait_text(tab, ".wb-tiling tr[data-field='realCoreNum']", "4")
    assert "what-if" in _text(tab, ".wb-tiling") and _text(tab, ".wb-status") == ""
    _shot(tab, screenshots, "11b-what-if-typed")
    tab.locator(".wb-app button", has_text="platform values").click()
    _wait_text(tab, ".wb-tiling tr[data-field='realCoreNum']", "32")
    assert console.errors == [], console.errors


def test_the_failure_map_narrows_the_table_and_the_run_plan_is_announced(
    page: tuple[Page, Console], screenshots: Path, tmp_path: Path
) -> None:
    tab, console = page
    copy = round_to_odd_kernel(tmp_path)
    tab.locator(".wb-op select").select_option("cast")
    _wait_text(tab, ".wb-tiling", "totalElements")
    tab.locator(".wb-shape input").fill("200000")
    _wait_text(tab, ".wb-tiling tr[data-field='totalElements']", "200000")
    tab.locator(".wb-standard select").select_option("exact")
    tab.locator(".wb-kernel input").fill(str(copy))
    tab.wait_for_function("() => !document.querySelector('.wb-run').disabled", timeout=STEP_S * 1000)
    tab.locator(".wb-run").click()
    _wait_text(tab, ".wb-summary", "PRECISION FAIL", RUN_S)
    failure_map = _chart(tab, "wb-failure-map")
    cells = tab.locator(".wb-failure-map g.mark-rect path[aria-label*='who:']")  # the cells, not the legend
    cells.first.wait_for(state="visible", timeout=STEP_S * 1000)
    assert cells.count() == 8 * 2  # 8 cores x 2 tiles, every one failing
    ticks = tab.locator(".wb-heatmap path[aria-label*='kind: tile']")
    assert ticks.count() == 8  # a tile boundary in each core's row
    _wait_text(tab, ".wb-mm-header", "every failing element of y")
    _shot(tab, screenshots, "12-precision-failure-map")

    failure_map.scroll_into_view_if_needed()
    cells.nth(3).click()
    _wait_text(tab, ".wb-mm-header", "the failing elements of core")
    header = _text(tab, ".wb-mm-header")
    core = header.split("core ", 1)[1].split(",", 1)[0]
    tab.wait_for_function(  # every row is in the chosen cell (the rows arrive just after the header)
        "t => { const r = Array.from(document.querySelectorAll('.wb-mm-row'), e => e.innerText);"
        " return r.length > 0 && r.every(x => x.includes(t)); }",
        arg=f"core {core}, tile",
        timeout=STEP_S * 1000,
    )
    _shot(tab, screenshots, "13-failure-map-cell")
    _shot_part(tab, ".wb-precision", screenshots / "13-precision-panel.png")

    # filter and export
    before = _text(tab, ".wb-mm-where")
    tab.locator(".wb-mm-filter input").fill("offset<50")
    tab.wait_for_function(
        "b => (document.querySelector('.wb-mm-where')?.innerText || '') !== b", arg=before, timeout=STEP_S * 1000
    )
    assert "(filtered)" in _text(tab, ".wb-mm-where")
    tab.locator(".wb-mm-csv").click()
    tab.locator(".wb-mm-link a[download]").wait_for(state="visible", timeout=STEP_S * 1000)

    # the controls move on, then a row is selected: the tiling panel shows the run's plan and says so
    tab.locator(".wb-shape input").fill("300000")
    _wait_text(tab, ".wb-tiling tr[data-field='totalElements']", "300000")
    tab.locator(".wb-mm-row button").first.click()
    _wait_text(tab, ".wb-banner", "showing the plan of the last run")
    assert "200000" in _text(tab, ".wb-tiling tr[data-field='totalElements']")
    assert tab.locator(".wb-tiling tr.wb-changed").count() == 0
    _shot(tab, screenshots, "14-run-plan-banner")
    tab.locator(".wb-back").click()
    _wait_text(tab, ".wb-tiling tr[data-field='totalElements']", "300000")
    assert console.errors == [], console.errors


def test_at_1024_px_the_page_does_not_scroll_sideways(page: tuple[Page, Console], screenshots: Path) -> None:
    tab, console = page
    tab.set_viewport_size({"width": 1024, "height": 768})
    tab.wait_for_timeout(800)
    wide = tab.evaluate(
        "() => Math.max(document.scrollingElement.scrollWidth,"
        " ...Array.from(document.querySelectorAll('#rendered_cells'), e => e.scrollWidth))"
    )
    assert wide <= 1024, wide
    _shot(tab, screenshots, "15-narrow-1024")
    tab.set_viewport_size({"width": 1400, "height": 1000})
    assert console.errors == [], console.errors


def test_a_sweep_fills_in_live_and_a_clicked_cell_opens_its_case(
    page: tuple[Page, Console], screenshots: Path, tmp_path: Path
) -> None:
    """The sweep section: Cast with the round-to-odd bug over three dtype pairs and three sizes on the local
    executor; the pass/fail heatmap fills in: float32 -> float16 fails, float16 -> float32 faults (the emulator
    refuses round-to-odd on a widening cast), float32 -> int8 passes (it truncates); clicking a failing cell sets the
    controls to that case and runs it."""
    tab, console = page
    copy = round_to_odd_kernel(tmp_path)
    tab.locator(".wb-op select").select_option("cast")
    _wait_text(tab, ".wb-tiling", "totalElements")
    tab.locator(".wb-standard select").select_option("exact")
    tab.locator(".wb-kernel input").fill(str(copy))
    tab.locator(".wb-sweep .jupyter-widget-Collapse-header").click()
    tab.locator(".wb-sweep-dtypes select").select_option(["float32:float16", "float16:float32", "float32:int8"])
    tab.locator(".wb-sweep-shapes input").fill("1000; 20000; 200000")
    tab.locator(".wb-sweep-run").click()
    _wait_text(tab, ".wb-sweep-progress", "done in", RUN_S)
    status = _text(tab, ".wb-sweep-status")
    assert "9 cases: 3 pass, 3 fail, 3 fault" in status, status
    cells = tab.locator(".wb-sweep-chart g.mark-rect path[aria-label*='key:']")  # the cells, not the legend
    cells.first.wait_for(state="visible", timeout=STEP_S * 1000)
    assert cells.count() == 9
    _shot_part(tab, ".wb-sweep", screenshots / "16-sweep-pass-fail.png")

    # a click in the middle of a cell lands on its text ("0/1"), which opens the cell's case as the cell does
    tab.locator(".wb-sweep-chart g.mark-text text[aria-label*='float32:float16 20000 ']").click()
    _wait_text(tab, ".wb-sweep-opened", "opened")
    _wait_text(tab, ".wb-tiling tr[data-field='totalElements']", "20000")
    _wait_text(tab, ".wb-summary", "PRECISION FAIL", RUN_S)
    assert "cast[float32:float16 20000" in _text(tab, ".wb-summary")
    _shot(tab, screenshots, "17-sweep-cell-opened")
    _shot_part(tab, ".wb-sweep", screenshots / "17-sweep-section.png")  # docs/images/sweep-views.png
    tab.locator(".wb-sweep-view select").select_option("path regions")
    _wait_text(tab, ".wb-sweep-chart", "tiling path by")
    _shot_part(tab, ".wb-sweep", screenshots / "18-sweep-path-regions.png")
    assert console.errors == [], console.errors
