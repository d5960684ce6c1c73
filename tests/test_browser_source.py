"""The annotated source panel in a real browser (`workbench app` in the system chromium, as tests/test_browser.py).

A traced run of tests/planted.py's round-to-odd Cast kernel on int8 -> half (310P refuses CAST_ODD there): the panel
shows the kernel's lines with their calls, bytes and predicted µs, the DataCopy lines tinted as hot with heat bars,
and the two diagnostics as one badge each on their lines, whose tooltips name the cores. Its screenshot is
docs/images/annotated-source.png (copied from the screenshot folder after looking at it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from planted import round_to_odd_kernel
from test_browser import RUN_S, STEP_S, Console, Server, _chromium, _say, _seen, browser_on, screenshot_folder
from test_browser_glance import _shot_part, _text, _wait_text

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Iterator[tuple[Page, Console]]:
    _chromium()
    server = Server(tmp_path_factory.mktemp("source"))
    _say(pytestconfig, f"browser test (annotated source): screenshots in {screenshot_folder()}")
    try:
        with browser_on(server.url) as (tab, console):
            _seen(tab)
            tab.locator(".wb-run").wait_for(state="visible", timeout=RUN_S * 1000)
            yield tab, console
    finally:
        server.stop()


# a server of its own (~25 s on 2 cores): in the slow suite, which CI runs on two workers (.ci/run)
@pytest.mark.slow
def test_a_traced_run_shows_the_annotated_source(page: tuple[Page, Console], tmp_path: Path) -> None:
    tab, console = page
    tab.locator(".wb-op select").select_option("cast")
    dtypes = tab.locator(".wb-dtype select")
    dtypes.nth(0).select_option("int8")
    dtypes.nth(1).select_option("float16")
    tab.locator(".wb-shape input").fill("100000")
    _wait_text(tab, ".wb-tiling tr[data-field='totalElements']", "100000")
    tab.locator(".wb-kernel input").fill(str(round_to_odd_kernel(tmp_path / "cast_odd.cpp")))
    assert tab.locator(".wb-source").is_hidden()  # no panel before a run
    tab.locator(".wb-trace input").check()
    tab.wait_for_function("() => !document.querySelector('.wb-run').disabled", timeout=STEP_S * 1000)
    tab.locator(".wb-run").click()
    _wait_text(tab, ".wb-summary", "KERNEL FAULT", RUN_S)
    _wait_text(tab, ".wb-source", "annotated source:")
    head = _text(tab, ".wb-source h4")
    assert "predicted (performance model, summed over cores), hottest cast_odd.cpp:" in head, head

    # the gutter: calls, bytes, µs and a heat bar per line; the DataCopy lines are the hot ones
    hot = tab.locator(".wb-source tr.wb-hot")
    assert hot.count() == 2
    assert all("DataCopy" in hot.nth(i).inner_text() for i in range(2))
    bars = tab.locator(".wb-source .wb-heat > span")
    widths = [float(bars.nth(i).evaluate("e => e.getBoundingClientRect().width")) for i in range(bars.count())]
    # a bar on the two DataCopy lines only (the refused Cast took no modelled time), as wide as their shares: the
    # half output moves twice the int8 input's bytes
    assert len(widths) == 2 and widths[1] == pytest.approx(2 * widths[0], rel=0.05), widths

    # one badge per diagnostic kind, on its line, with the whole record in its tooltip
    error = tab.locator(".wb-source .wb-sev-error")
    assert error.count() == 1 and "UNSUPPORTED_CAST_MODE" in error.inner_text()
    assert "Cast(y, x" in error.locator("xpath=ancestor::tr").inner_text()
    assert "cores: Cast int8 -> half does not support CAST_ODD" in (error.get_attribute("title") or "")
    warning = tab.locator(".wb-source .wb-sev-warning")
    assert warning.count() == 1 and "DataCopy(yGm_" in warning.locator("xpath=ancestor::tr").inner_text()

    _shot_part(tab, ".wb-source", screenshot_folder() / "18-annotated-source.png")  # docs/images/annotated-source.png
    wide = tab.evaluate("() => document.querySelector('.wb-src').scrollWidth")
    assert wide <= 1400, wide  # the code view fits the page at the browser test's width
    assert console.errors == [], console.errors
