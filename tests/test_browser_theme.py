"""The app's charts follow a dark page: `workbench app` opened with Voilà's `theme=dark`, in the system chromium.

Every chart must take the page's background and its light text colour (charts.page_theme through
panels.chart_widget), never show as a white box. Checked on the pixels of each chart's screenshot (decoded in the
page's own canvas: no image library needed) and on the computed fill of its axis labels; before and after a Run,
so that the timings and pipes charts are checked too. Screenshots go where tests/test_browser.py puts its own.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_browser import (
    RUN_S,
    STEP_S,
    Console,
    Server,
    _chart,
    _chromium,
    _say,
    _seen,
    _shot,
    browser_on,
    screenshot_folder,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Voilà 0.5 reads the theme from the page's query (`theme`, allowed by VoilaConfiguration.allow_theme_override)
DARK = "&theme=dark"
# a case that uses all 48 cores of Ascend910B1, so the pipes chart is as tall as it gets
MANY_CORES = {"op": "softmax_cross_entropy_with_logits", "platform": "Ascend910B1", "shape": "4096,1000"}

# a screenshot's pixels, read through the page's canvas: the shares of near-white pixels and of pixels of the page's
# own background colour (within a few levels)
PIXELS = """async ([b64, page]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + b64;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, img.width, img.height).data;
  let white = 0, background = 0;
  for (let i = 0; i < d.length; i += 4) {
    if ((0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2]) / 255 > 0.9) white++;
    if ([0, 1, 2].every(k => Math.abs(d[i + k] - page[k]) <= 6)) background++;
  }
  const n = d.length / 4;
  return {white: white / n, background: background / n, width: img.width, height: img.height};
}"""

# the colours a chart is drawn in: the vega-embed element's CSS colour, its SVG's background, its axis labels' fill
COLOURS = """e => {
  const embed = e.closest(".vega-embed");
  const labels = Array.from(embed.querySelectorAll(".role-axis-label text, .role-legend-label text"));
  return {
    color: getComputedStyle(embed).color,
    svgBackground: getComputedStyle(e).backgroundColor,
    labels: labels.map(t => getComputedStyle(t).fill),
  };
}"""


def _rgb(css: str) -> tuple[float, float, float]:
    match = re.match(r"rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)", css)
    assert match, css
    r, g, b = (float(x) for x in match.groups())
    return r, g, b


def _luminance(css: str) -> float:
    """The relative luminance (0 black, 1 white) of a CSS rgb()/rgba() colour."""
    r, g, b = _rgb(css)
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def _page_background(page: Page) -> str:
    """The colour the app sits on: the background of the first element around it that has one of its own."""
    css = page.evaluate(
        """() => { for (let e = document.querySelector(".wb-app"); e; e = e.parentElement) {
            const bg = getComputedStyle(e).backgroundColor;
            if (bg && bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") return bg; }
          return getComputedStyle(document.body).backgroundColor; }"""
    )
    return str(css)


def _assert_dark_chart(page: Page, css: str, folder: Path, name: str, data_area: float = 0.0) -> dict[str, Any]:
    """The chart `css` is drawn in light text on the page's dark background, not in a white box: a third of its
    pixels or more are the page's background and hardly any are white, but for `data_area`, the share its marks
    may cover in colours of their own (a heatmap is all cells, its exact ones near white)."""
    drawing = _chart(page, css)
    assert drawing.evaluate("e => e.tagName") == "svg", "the charts are drawn as SVG (currentColor needs it)"
    page.wait_for_timeout(300)  # vega finishes its first paint
    colours = drawing.evaluate(COLOURS)
    assert _luminance(colours["color"]) > 0.6, colours  # the theme's text colour reaches the chart
    assert colours["labels"] and all(_luminance(fill) > 0.6 for fill in colours["labels"]), colours
    element = page.locator(f".{css}").first
    png = element.screenshot(path=str(folder / f"{name}.png"))
    pixels = page.evaluate(PIXELS, [base64.b64encode(png).decode(), _rgb(_page_background(page))])
    assert pixels["white"] < 0.02 + data_area, (css, pixels)  # a white box is nearly all white
    assert pixels["background"] > 0.3 * (1 - data_area), (css, pixels)  # a white box has none
    return {"pixels": pixels, "colours": colours}


@pytest.fixture(scope="module")
def dark_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Page, Console]]:
    _chromium()
    server = Server(tmp_path_factory.mktemp("app-dark"))
    try:
        with browser_on(server.url + DARK) as (page, console):
            yield page, console
    finally:
        server.stop()


@pytest.fixture(scope="module")
def screenshots() -> Path:
    return screenshot_folder()


def _report(config: pytest.Config, seen: dict[str, dict[str, Any]]) -> None:
    """Each chart's share of page-background and of white pixels, in the test log."""
    shares = (
        f"{css} {s['pixels']['background']:.0%} background, {s['pixels']['white']:.1%} white" for css, s in seen.items()
    )
    _say(config, "browser test (dark): " + "; ".join(shares))


def test_the_charts_take_the_dark_pages_colours(
    dark_page: tuple[Page, Console], screenshots: Path, pytestconfig: pytest.Config
) -> None:
    page, console = dark_page
    _seen(page)  # the full app is on screen
    assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false", "Voilà did not apply theme=dark"
    assert _luminance(_page_background(page)) < 0.2
    seen = {css: _assert_dark_chart(page, css, screenshots, f"dark-{css}") for css in ("wb-cores-chart", "wb-ub-chart")}
    _report(pytestconfig, seen)
    _shot(page, screenshots, "dark-01-loaded")
    assert console.errors == [], console.errors
    assert console.external == [], console.external


def test_after_a_run_the_timings_and_pipes_charts_are_dark_too(
    dark_page: tuple[Page, Console], screenshots: Path, pytestconfig: pytest.Config
) -> None:
    page, console = dark_page
    _seen(page)
    page.locator(".wb-op select").select_option(MANY_CORES["op"])
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.wb-platform select option'), o => o.value).includes("
        f"'{MANY_CORES['platform']}')",
        timeout=STEP_S * 1000,
    )
    page.locator(".wb-platform select").select_option(MANY_CORES["platform"])
    page.locator(".wb-shape input").fill(MANY_CORES["shape"])
    page.wait_for_function(
        "() => /block_dim 48 @Ascend910B1/.test(document.querySelector('.wb-tiling')?.innerText || '')",
        timeout=STEP_S * 1000,
    )
    page.wait_for_function("() => !document.querySelector('.wb-run').disabled", timeout=STEP_S * 1000)
    page.locator(".wb-run").click()
    page.wait_for_function(
        "() => /PASS|PRECISION FAIL|KERNEL FAULT/.test(document.querySelector('.wb-summary')?.innerText || '')",
        timeout=RUN_S * 1000,
    )
    seen = {
        css: _assert_dark_chart(page, css, screenshots, f"dark-{css}")
        for css in ("wb-timings-chart", "wb-pipes-chart", "wb-ulp-chart")
    }
    seen["wb-heatmap"] = _assert_dark_chart(page, "wb-heatmap", screenshots, "dark-wb-heatmap", data_area=0.6)
    _report(pytestconfig, seen)
    pipes = page.locator(".wb-pipes-chart").first.bounding_box()
    assert pipes is not None and pipes["height"] <= 400, pipes  # 48 cores in a bounded chart
    size = page.viewport_size or {"width": 1400, "height": 1000}
    page.set_viewport_size({"width": size["width"], "height": 2000})  # the whole panel in view, none of it cut
    page.locator(".wb-timings").first.screenshot(path=str(screenshots / "dark-02-timings.png"))
    page.set_viewport_size(size)
    _shot(page, screenshots, "dark-03-run")
    assert "Traceback" not in page.locator("body").inner_text()
    assert console.errors == [], console.errors
    assert console.external == [], console.external
