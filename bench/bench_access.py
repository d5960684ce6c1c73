"""The access map at 16M elements in a real browser: seconds from the user's action to the chart showing its result.

Issue 22 asks that "large tensors are aggregated server side; the chart stays responsive at 16M elements". This
bench serves `workbench app` (this checkout) and drives it in Debian's chromium (Playwright, `executable_path`; no
browser is downloaded) as a user would, on a Cast float32 -> float16 of 16,000,000 elements and, in the same page
and round, on the reference: the same Cast of 100,003 elements (tests/test_browser_access_map.py's case). Timed:

1. Run with trace on -> the access map drawn, split into the run itself (Run clicked -> the progress line says
   "PASS in X s") and the rest (that line -> the chart drawn: the access map's frames, every other panel's update,
   the spec over the websocket, vega drawing it; the precision panel's heatmap, updated before the access map, is
   timed too, to show where that time goes);
2. a core picked in the core dropdown -> its ranges lit, the others faded;
3. a tile picked in the tile dropdown -> that tile's ranges lit;
4. the step slider: Home, End, then three Left arrow keys -> the chart redrawn at that step;
5. a click on a core's bar in the tiling panel's per-core chart -> the access map's core dropdown shows that core,
   and the chart has it lit.

How a time is taken, in the page, on the page's own clock: a capture listener takes the user's event's timeStamp
(the click, the select's change, the key down); a MutationObserver (and a 50 ms poll) checks the page after every
change for the expected result, and the time is that of the next animation frame after it is there (when the
browser paints it). "The chart showing the result" means: a new <svg> drawn in the access map's widget (the one
there before the action is marked old), with exactly the expected number of ranges (one path per row of the
access map's `ranges` up to the step shown) and, for a pick, exactly the expected number faded (opacity 0.25): the
expected numbers come from `result_access_map` of the same case run in this process, so a wrong drawing never
counts as a fast one; a step that never shows its result within --timeout seconds is reported as such.

Each round opens a fresh page, warms it with a traced Cast of 1,000 elements (untimed: the first run of a page
imports what every later one reuses), then times the 100,003-element case and the 16M one, each with all the steps.
The budget: each interaction (steps 2-5) on screen within 1 s at 16M, the app's own threshold for a control that
does not feel stuck (bench/bench_ui.py holds the kernel-side tiling refresh to 100 ms; a browser adds the websocket
and vega's drawing on top); the Run step's chart within 1 s of the verdict too, the run itself being the emulator's
time, not the chart's.

Run: python bench/bench_access.py [--runs 3] [--screenshots DIR] [--timeout 120]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's package, as the app it serves
sys.path.insert(0, str(REPO / "tests"))
from bench_app import chromium, serving  # noqa: E402 - `workbench app` of this checkout, the system chromium
from test_browser import CHROMIUM_ARGS, PAGE_S, RECORDER  # noqa: E402 - what "the app is ready" means there

BUDGET_S = 1.0
REFERENCE, LARGE, WARM = 100_003, 16_000_000, 1_000
RANGES = ".wb-access-chart path[aria-label*='direction:']"  # as tests/test_browser_access_map.py
PASSED = "PASS in"
ARROWS = 3
PANELS = ("summary", "precision", "timings", "ab", "analysis", "source", "access")  # updated in this order after Run

# The page side: `arm` starts watching before an action, `done` resolves with each check's seconds from the action
# (None: not seen within the timeout).
WATCH = """
window.__wbBench = (() => {
  const ranges = () => Array.from(document.querySelectorAll(RANGES));
  const fields = e => Object.fromEntries((e.ariaLabel || '').split(';').map(p => p.split(':').map(s => s.trim())));
  const svg = () => document.querySelector('.wb-access-chart svg.marks');
  const text = css => document.querySelector(css)?.innerText || '';
  const drawn = (want) => {
    const s = svg();
    if (!s || s.__wbOld) return false;
    const r = ranges();
    if (r.length !== want.count || !s.textContent.includes(want.title)) return false;
    if (want.faded === undefined) return true;
    return r.filter(e => e.getAttribute('opacity') === '0.25').length === want.faded;
  };
  let pending = null;
  const arm = ([what, checks, timeoutS]) => {
    const [event, key] = what.split(':');  // 'keydown:Enter': that key's down only
    document.querySelectorAll('svg.marks').forEach(s => { s.__wbOld = true; });
    const state = {t0: null, running: false, marks: {}};
    const passed = () => {
      const t = text('.wb-progress');
      if (!t.includes(PASSED)) state.running = true;
      return state.running && t.includes(PASSED);
    };
    const tests = {
      passed: () => passed(),
      drawn: want => drawn(want),
      core: want => document.querySelector('.wb-access-core select')?.selectedOptions[0]?.text === want,
      fresh: css => { const s = document.querySelector(`${css} svg.marks`); return !!s && !s.__wbOld; },
    };
    pending = new Promise(resolve => {
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        observer.disconnect();
        clearInterval(poll);
        document.removeEventListener(event, began, true);
        resolve({marks: state.marks, progress: text('.wb-progress')});
      };
      const began = e => { if (state.t0 === null && (!key || e.key === key)) state.t0 = e.timeStamp; };
      const check = () => {
        if (state.t0 === null) return;
        for (const [name, kind, want] of checks) {
          if (name in state.marks || !tests[kind](want)) continue;
          state.marks[name] = 'pending';
          requestAnimationFrame(painted => {
            state.marks[name] = Math.max(0, painted - state.t0) / 1000;
            if (checks.every(([n]) => typeof state.marks[n] === 'number')) finish();
          });
        }
      };
      document.addEventListener(event, began, true);
      const observer = new MutationObserver(check);
      observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
      const poll = setInterval(check, 50);
      setTimeout(finish, timeoutS * 1000);
    });
  };
  return {arm, done: () => pending, fields};
})();
""".replace("RANGES", json.dumps(RANGES)).replace("PASSED", json.dumps(PASSED))


@dataclass(frozen=True)
class Expected:
    """What the chart of one case draws (from `result_access_map` of the same case in this process)."""

    elements: int
    rows: int  # AccessMap.rows(): every row the chart draws
    ub: int
    steps: int
    spec_bytes: int  # the chart's spec as the app sends it (slider=False), JSON
    core: int  # picked in the dropdown, then its last tile
    tile: int
    clicked: int  # the core clicked on in the tiling panel
    ranges: tuple[tuple[int, int, int], ...]  # each range's (first step, core, tile)
    title: str  # the first tensor's chart title: only this case's chart has it
    kernel: dict[str, float]  # kernel-side seconds of each panel's update after a run and of each access map redraw

    def drawn(self, step: int | None = None, core: int | None = None, tile: int | None = None) -> dict[str, Any]:
        """The page check: how many ranges the chart at `step` (None: the last) draws and, with `core` (and
        `tile`) picked, how many of them are faded."""
        shown = [(c, t) for s, c, t in self.ranges if step is None or s <= step]
        want: dict[str, Any] = {"count": len(shown), "title": self.title}
        if core is not None:
            want["faded"] = len(shown) - sum(1 for c, t in shown if c == core and (tile is None or t == tile))
        return want


def expected(elements: int) -> Expected:
    """The case run in this process, through the app's own widgets (no browser): what its chart must draw, and the
    kernel-side seconds of the app's part of each step (each panel's update after a run, the access panel's redraw
    after a pick or a step), after a warm-up run of WARM elements as in the page."""
    from workbench.running.access import result_access_map
    from workbench.view.render.access_map import access_map_chart
    from workbench.view.ui import Workbench

    app = Workbench(op="cast")
    app.load_panels()
    app.controls["trace"].value = True
    kernel: dict[str, float] = {}
    for name in PANELS:
        panel = getattr(app, name)
        panel.update = functools.partial(_timed_update, panel.update, name, kernel)
    for shape in (WARM, elements):  # as the page: a small run first, then this case's first
        app.controls["shape"].value = str(shape)
        app.run()
    assert app.result is not None and app.result.verdict == "PASS", app.status.value
    amap = result_access_map(app.result)
    r = amap.ranges
    cores = sorted(set(r["core"].tolist()))
    core, clicked = cores[-1], cores[len(cores) // 2]
    tiles = sorted(set(r.loc[(r["core"] == core) & (r["tile"] >= 0), "tile"].tolist()))
    tile = tiles[-1] if tiles else None
    for what, act in (
        ("core picked", lambda: app.access.select(core, None)),
        ("tile picked", lambda: app.access.select(core, tile)),
        ("step moved", lambda: setattr(app.access.step, "value", app.access.step.value - 1)),
    ):
        t0 = time.perf_counter()
        act()
        kernel[what] = time.perf_counter() - t0
    spec = json.dumps(access_map_chart(amap, step=amap.steps - 1, slider=False).to_dict())
    return Expected(
        elements=elements,
        rows=amap.rows(),
        ub=len(amap.ub),
        steps=amap.steps,
        spec_bytes=len(spec),
        core=core,
        tile=-1 if tile is None else tile,
        clicked=clicked,
        ranges=tuple(zip(r["step"].tolist(), r["core"].tolist(), r["tile"].tolist(), strict=True)),
        title=f"{amap.tensors['tensor'][0]} ({amap.tensors['role'][0]}, {int(amap.tensors['bytes'][0]):,} B)",
        kernel=kernel,
    )


def _timed_update(update: Any, name: str, into: dict[str, float], result: Any) -> None:
    t0 = time.perf_counter()
    update(result)
    into[f"{name} panel update"] = time.perf_counter() - t0


def timed(page: Any, event: str, checks: list[tuple[str, str, Any]], action: Any, timeout: float) -> dict[str, Any]:
    """Seconds from `event` (caused by `action()`; "keydown:Enter" is that key's only) to each check first true on
    screen; None for one never seen."""
    page.evaluate("args => window.__wbBench.arm(args)", [event, checks, timeout])
    action()
    got = page.evaluate("() => window.__wbBench.done()")
    marks = {name: got["marks"].get(name) for name, _, _ in checks}
    return {k: v if isinstance(v, (int, float)) else None for k, v in marks.items()} | {"progress": got["progress"]}


def case(page: Any, e: Expected, timeout: float, shots: Path | None) -> dict[str, float | None]:
    """Every step on one case; seconds per step name."""
    out: dict[str, float | None] = {}
    page.locator(".wb-shape input").fill(str(e.elements))
    page.wait_for_function(
        "n => (document.querySelector(\".wb-tiling tr[data-field='totalElements']\")?.innerText || '').includes(n)",
        arg=str(e.elements),
        timeout=PAGE_S * 1000,
    )
    page.wait_for_function("() => !document.querySelector('.wb-run').disabled", timeout=PAGE_S * 1000)
    checks = [("passed", "passed", None), ("drawn", "drawn", e.drawn()), ("heatmap", "fresh", ".wb-heatmap")]
    got = timed(page, "click", checks, lambda: page.locator(".wb-run").click(), timeout)
    out["run: Run -> 'PASS' line"] = got["passed"]
    out["run: 'PASS' line -> precision heatmap drawn"] = (
        None if None in (got["passed"], got["heatmap"]) else got["heatmap"] - got["passed"]
    )
    out["run: 'PASS' line -> chart drawn"] = (
        None if None in (got["passed"], got["drawn"]) else got["drawn"] - got["passed"]
    )
    out["run: heatmap drawn -> chart drawn (the map's own part)"] = (
        None if None in (got["heatmap"], got["drawn"]) else got["drawn"] - got["heatmap"]
    )
    out["run: Run -> chart drawn"] = got["drawn"]
    said = got["progress"].split(PASSED)[-1].split("s")[0].strip()
    out["run: 'PASS in X s' (kernel side)"] = float(said) if said.replace(".", "", 1).isdigit() else None
    shot(page, shots, e, "1-run")

    pick = [("lit", "drawn", e.drawn(core=e.core))]
    got = timed(
        page, "change", pick, lambda: page.locator(".wb-access-core select").select_option(str(e.core)), timeout
    )
    out["core picked -> its ranges lit"] = got["lit"]
    shot(page, shots, e, "2-core")
    if e.tile >= 0:
        pick = [("lit", "drawn", e.drawn(core=e.core, tile=e.tile))]
        select = page.locator(".wb-access-tile select")
        try:
            got = timed(
                page, "change", pick, lambda: select.select_option(str(e.tile), timeout=timeout * 1000), timeout
            )
        except Exception:
            shown = page.evaluate(
                "() => Array.from(document.querySelector('.wb-access-tile select').options, o => o.text)"
            )
            raise SystemExit(
                f"bench_access: tile {e.tile} not offered after core {e.core} was picked: {shown}"
            ) from None
        out["tile picked -> its ranges lit"] = got["lit"]
        shot(page, shots, e, "3-tile")

    handle = page.locator(".wb-access-step .noUi-handle").first
    readout = page.locator(".wb-access-step .widget-readout").first
    last = e.steps - 1

    def end() -> None:  # the slider's End key moves its handle to 0 (noUiSlider in ipywidgets 8): type the step
        readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(str(last))
        page.keyboard.press("Enter")

    def key(name: str) -> Any:
        return lambda: (handle.focus(), page.keyboard.press(name))

    moves = [("Home", 0, key("Home")), ("last step typed into its box", last, end)]
    moves += [("ArrowLeft", last - k, key("ArrowLeft")) for k in range(1, ARROWS + 1)]
    arrows: list[float | None] = []
    for name, step, move in moves:
        want = [("redrawn", "drawn", e.drawn(step, e.core, None if e.tile < 0 else e.tile))]
        got = timed(page, f"keydown:{'Enter' if move is end else name}", want, move, timeout)
        shown = readout.inner_text().strip()
        if shown != str(step):  # the slider did not move as it should: the time would be of something else
            raise SystemExit(f"bench_access: step slider at {shown!r} after {name}, expected {step}")
        if name == "ArrowLeft":
            arrows.append(got["redrawn"])
        else:
            out[f"step slider: {name} -> redrawn"] = got["redrawn"]
    seen = [a for a in arrows if a is not None]
    out[f"step slider: arrow key -> redrawn (median of {ARROWS})"] = (
        statistics.median(seen) if len(seen) == len(arrows) else None
    )
    shot(page, shots, e, "4-step")

    bar = page.locator(f".wb-cores-chart path[aria-label*='core: {e.clicked};']").first
    bar.scroll_into_view_if_needed()
    clicks: list[tuple[str, str, Any]] = [
        ("follows", "core", str(e.clicked)),
        ("lit", "drawn", e.drawn(last - ARROWS, e.clicked)),
    ]
    got = timed(page, "click", clicks, bar.click, timeout)
    out["tiling panel core click -> dropdown follows"] = got["follows"]
    out["tiling panel core click -> its ranges lit"] = got["lit"]
    shot(page, shots, e, "5-clicked")
    return out


def shot(page: Any, shots: Path | None, e: Expected, name: str) -> None:
    if shots is not None:
        page.locator(".wb-access").screenshot(path=str(shots / f"access-{e.elements}-{name}.png"))


def round_(browser: Any, url: str, cases: list[Expected], timeout: float, shots: Path | None) -> list[dict]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(RECORDER)
    page.add_init_script(WATCH)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(url, wait_until="commit", timeout=PAGE_S * 1000)
        page.wait_for_function("() => 'ready' in window.__wbSeen", timeout=PAGE_S * 1000)
        page.locator(".wb-op select").select_option("cast")
        page.wait_for_function(
            "() => (document.querySelector('.wb-tiling')?.innerText || '').includes('totalElements')",
            timeout=PAGE_S * 1000,
        )
        page.locator(".wb-trace input").check()
        page.locator(".wb-shape input").fill(str(WARM))
        page.wait_for_function("() => !document.querySelector('.wb-run').disabled", timeout=PAGE_S * 1000)
        page.locator(".wb-run").click()  # the warm-up: untimed
        page.locator(".wb-access-chart svg.marks").first.wait_for(state="visible", timeout=PAGE_S * 1000)
        page.wait_for_function(
            f"() => (document.querySelector('.wb-progress')?.innerText || '').includes({PASSED!r})",
            timeout=PAGE_S * 1000,
        )
        results = [case(page, e, timeout, shots) for e in cases]
    finally:
        page.close(run_before_unload=True)
    if errors:
        print(f"page errors: {errors}")
    return results


def fmt(values: list[float | None]) -> str:
    seen = [v for v in values if v is not None]
    if not seen:
        return f"{'not seen':>17}"
    spread = f"{min(seen):.2f}-{max(seen):.2f}" if len(seen) > 1 else ""
    missed = f" +{len(values) - len(seen)} unseen" if len(seen) < len(values) else ""
    return f"{statistics.median(seen):6.2f} s {spread:>9}{missed}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="rounds: a fresh page, the 100,003 case then the 16M one")
    ap.add_argument("--screenshots", type=Path, help="the access panel after each step of the first round, here")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a step may take before it is unseen")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    t0 = time.perf_counter()
    cases = [expected(n) for n in (REFERENCE, LARGE)]
    print(f"access maps computed in this process in {time.perf_counter() - t0:.1f} s (the same cases as the page's)")
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    rounds: list[list[dict]] = []
    with (
        tempfile.TemporaryDirectory(prefix="bench-access-") as tmp,
        serving(REPO, Path(tmp)) as url,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
        for run in range(args.runs):
            got = round_(browser, url, cases, args.timeout, args.screenshots if run == 0 else None)
            rounds.append(got)
            for e, steps in zip(cases, got, strict=True):
                line = ", ".join(
                    f"{k.split(' -> ')[-1] if ' -> ' in k else k} {v:.2f}" for k, v in steps.items() if v is not None
                )
                print(f"run {run + 1} {e.elements:>10,}: {line}")
        browser.close()

    print("\naccess map in `workbench app` (chromium, headless), seconds from the action to the result on screen")
    print(f"median of {args.runs} (min-max); {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print(f"{'':54}{'rows':>10}{'ranges':>8}{'UB rows':>8}{'steps':>7}{'spec':>10}")
    for e in cases:
        print(
            f"{'Cast float32->float16 ' + f'{e.elements:,}':54}{e.rows:>10,}{len(e.ranges):>8,}{e.ub:>8,}{e.steps:>7,}"
            f"{e.spec_bytes / 1e3:>8.0f}kB"
        )
    print(f"\n{'step':56} {f'{REFERENCE:,}':>22} {f'{LARGE:,}':>22} {'ratio':>6}")
    worst: dict[str, float | None] = {}
    for name in rounds[0][1]:
        a = [r[0].get(name) for r in rounds]
        b = [r[1].get(name) for r in rounds]
        sa, sb = [x for x in a if x is not None], [x for x in b if x is not None]
        ratio = (
            f"{statistics.median(sb) / statistics.median(sa):6.1f}"
            if sa and sb and statistics.median(sa) > 0
            else "     -"
        )
        print(f"{name:56} {fmt(a):>22} {fmt(b):>22} {ratio}")
        if name.startswith(("core", "tile", "step", "tiling", "run: 'PASS' line -> chart", "run: heatmap")):
            worst[name] = statistics.median(sb) if len(sb) == len(b) else None
    small, large = cases
    print("\nkernel side (this process, the app's widgets without a browser, after a warm-up run as the page's)")
    for name in large.kernel:
        ka, kb = small.kernel.get(name), large.kernel[name]
        ratio = f"{kb / ka:6.1f}" if ka else "     -"
        print(f"{name:56} {'-' if ka is None else f'{ka:6.2f} s':>22} {kb:20.2f} s {ratio}")
    print(f"\nbudget: each step's result on screen within {BUDGET_S:.0f} s at {LARGE:,} elements (median), as a")
    print("control that does not feel stuck; the run itself (the emulator's time) is not the chart's and is left out")
    for name, value in worst.items():
        seen = "not seen" if value is None else f"{value:.2f} s"
        print(f"  {name:54} {seen:>8}  {'met' if value is not None and value <= BUDGET_S else 'NOT met'}")
    over = [k for k, v in worst.items() if v is None or v > BUDGET_S]
    print(f"verdict: {'met' if not over else 'NOT met'} ({len(worst) - len(over)} of {len(worst)} steps within budget)")
    if args.screenshots:
        print(f"screenshots: {args.screenshots}")


if __name__ == "__main__":
    main()
