"""The access map in a real browser (`workbench app` in the system chromium, as tests/test_browser.py): a Cast run
with trace on draws every core's reads and writes; picking core 7 and its tail tile in the dropdowns lights it up
and outlines it on the tiling panel; a click on a core there picks it in the access map; the step slider at its
start shows the first access only. The panel's screenshot (build/screenshots/19-access-map.png) is
docs/images/access-map.png, copied after looking at it (docs/workbench.md#access-map)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from test_browser import PAGE_S, RUN_S, STEP_S, Console, Server, _chart, _chromium, _seen, browser_on, screenshot_folder
from test_browser_glance import _shot_part, _wait_text

if TYPE_CHECKING:
    from playwright.sync_api import Page

RANGES = ".wb-access-chart path[aria-label*='direction:']"  # the drawn ranges (their tooltips name a direction)
FADED = f"Array.from(document.querySelectorAll({RANGES!r})).filter(e => e.getAttribute('opacity') === '0.25').length"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    _chromium()
    srv = Server(tmp_path_factory.mktemp("access"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def page(server: Server) -> Iterator[tuple[Page, Console]]:
    with browser_on(server.url) as (tab, console):
        _seen(tab)
        tab.locator(".wb-tiling tr[data-field]").first.wait_for(state="visible", timeout=PAGE_S * 1000)
        yield tab, console


def _ranges(page: Page) -> list[str]:
    return list(page.evaluate(f"() => Array.from(document.querySelectorAll({RANGES!r}), e => e.ariaLabel || '')"))


def test_a_traced_run_draws_the_access_map_and_picks_a_tile(page: tuple[Page, Console]) -> None:
    tab, console = page
    tab.locator(".wb-op select").select_option("cast")
    _wait_text(tab, ".wb-tiling", "totalElements")
    tab.locator(".wb-shape input").fill("100003")
    _wait_text(tab, ".wb-tiling tr[data-field='totalElements']", "100003")
    tab.locator(".wb-trace input").check()
    tab.wait_for_function("() => !document.querySelector('.wb-run').disabled", timeout=STEP_S * 1000)
    tab.locator(".wb-run").click()
    _wait_text(tab, ".wb-summary", "PASS", RUN_S)
    tab.locator(".wb-access").wait_for(state="visible", timeout=STEP_S * 1000)
    _chart(tab, "wb-access-chart")
    tab.wait_for_function(f"() => document.querySelectorAll({RANGES!r}).length >= 18", timeout=STEP_S * 1000)
    drawn = _ranges(tab)
    assert len(drawn) == 18  # 8 cores read and write a tile each, core 7 a tail window too
    assert {f"core: {c}" for c in range(8)} <= {part.strip() for label in drawn for part in label.split(";")}
    _wait_text(tab, ".wb-access", "0 overlaps between cores")

    tab.locator(".wb-access-core select").select_option("7")
    tab.locator(".wb-access-tile select").select_option("1")
    tab.wait_for_function(  # the tiling panel's per-core chart outlines core 7's tile 1 (its tail)
        "() => Array.from(document.querySelectorAll('.wb-cores-chart path[aria-label]'),"
        " e => e.ariaLabel).some(t => t.includes('tile: 1'))",
        timeout=STEP_S * 1000,
    )
    tab.wait_for_function(f"() => {FADED} === 16", timeout=STEP_S * 1000)  # all but core 7's tail, in and out

    tab.locator(".wb-access-core select").select_option("3")  # a whole core: the picture in the docs
    tab.wait_for_function(f"() => {FADED} === 16", timeout=STEP_S * 1000)
    tab.wait_for_function(
        f"() => Array.from(document.querySelectorAll({RANGES!r}))"
        ".filter(e => e.getAttribute('opacity') === '1' || e.getAttribute('opacity') === null)"
        ".every(e => (e.ariaLabel || '').includes('core: 3'))",
        timeout=STEP_S * 1000,
    )
    tab.wait_for_timeout(500)
    _shot_part(tab, ".wb-access", screenshot_folder() / "19-access-map.png")  # docs/images/access-map.png

    # a click on core 5's bar in the tiling panel's per-core chart picks core 5 in the access map
    bar = tab.locator(".wb-cores-chart path[aria-label*='core: 5']").first
    bar.scroll_into_view_if_needed()
    bar.click()
    tab.wait_for_function(
        "() => document.querySelector('.wb-access-core select')?.selectedOptions[0]?.text === '5'",
        timeout=STEP_S * 1000,
    )

    handle = tab.locator(".wb-access-step .noUi-handle, .wb-access-step .slider-handle, .wb-access-step input").first
    handle.focus()
    tab.keyboard.press("Home")  # step 0: nothing has happened yet but the first access
    tab.wait_for_function(f"() => document.querySelectorAll({RANGES!r}).length <= 1", timeout=STEP_S * 1000)
    assert console.errors == [], console.errors
