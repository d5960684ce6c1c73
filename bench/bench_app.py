"""`workbench app` first paint: seconds from the page request to the controls on screen, and to the full app.

The page is loaded in Debian's chromium (Playwright, `executable_path`; no browser is downloaded). A script in the
page records, against the navigation's own clock (`performance.now()`), when each of these first became visible:

- controls: the op dropdown (the first cell's widgets);
- loading: the line saying what is still loading (this design only);
- ready: the full app, as tests/test_browser.py waits for it: the tiling table, the per-core and UB charts drawn,
  and the Run button enabled.

Each round starts a fresh `workbench app` and loads the page three times, each page with a kernel of its own as
every user gets: "cold" is the first page of a just-started server (requested as soon as the URL is printed),
"warm" a page requested `--settle` seconds after the previous one was ready (the server has started its spare
kernel for the next page by then), "at once" a page requested right after that one was ready (no spare kernel
is ready yet: the page waits for a kernel to start, as every page did before). The previous design is measured in
the same rounds, interleaved, from a git revision of this repository (default `main`, extracted with `git archive`
into a temporary folder and served from there); `--baseline ''` skips it.

Run: python bench/bench_app.py [--runs 3] [--baseline main] [--settle 10] [--screenshots DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BUDGET_S = 3.0
STATES = ("cold", "warm", "at once")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_browser import CHROMIUM_ARGS, PAGE_S, RECORDER  # noqa: E402 - what "on screen" means there


@dataclass(frozen=True)
class Load:
    """One page load: seconds from navigation start to each mark (None: never seen)."""

    controls: float | None
    loading: float | None
    ready: float | None


def chromium() -> str:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("bench_app: no system chromium (apt-get install chromium)")


@contextlib.contextmanager
def serving(source: Path, cwd: Path) -> Iterator[str]:
    """`workbench app` from the package under `source`, until the block ends; yields the page URL."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "app", "--no-browser"],  # on a free port of its choosing
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # printed once the server answers
        if not url.startswith("http://"):
            raise SystemExit(f"bench_app: `workbench app` from {source} printed no URL (exit {proc.wait()})")
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)  # as Ctrl-C (serve.py), also where a background job ignores SIGINT
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def load(browser: Any, url: str, shots: Path | None = None) -> Load:
    """Open the page in a new tab, wait for the full app, read the marks, close the tab (its kernel stops).
    With `shots`, screenshot the loading state (if still on screen) and the loaded one into that folder."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(RECORDER)
    try:
        page.goto(url, wait_until="commit", timeout=PAGE_S * 1000)
        if shots is not None:
            page.wait_for_function("() => 'controls' in window.__wbSeen", timeout=PAGE_S * 1000)
            if page.locator(".wb-loading").is_visible():
                page.screenshot(path=str(shots / "app-loading.png"))
        page.wait_for_function("() => 'ready' in window.__wbSeen", timeout=PAGE_S * 1000)
        if shots is not None:
            page.wait_for_timeout(500)  # let the charts finish their transition
            page.screenshot(path=str(shots / "app-loaded.png"))
        seen = page.evaluate("() => window.__wbSeen")
    finally:
        page.close(run_before_unload=True)
    return Load(seen.get("controls"), seen.get("loading"), seen.get("ready"))


def extract(revision: str, into: Path) -> Path | str:
    """The tree of `revision` under `into`, or why it could not be had."""
    try:
        tar = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", revision], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"git archive {revision} failed ({getattr(exc, 'stderr', b'').decode().strip() or exc})"
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return into


def fmt(values: list[float | None]) -> str:
    seen = [v for v in values if v is not None]
    if not seen:
        return "-"
    each = " ".join("-" if v is None else f"{v:.2f}" for v in values)
    return f"{statistics.median(seen):5.2f} s  ({each})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="rounds: a fresh server and its cold, warm, at-once pages")
    ap.add_argument("--settle", type=float, default=10.0, help="seconds between a page ready and the warm one")
    ap.add_argument("--baseline", default="main", help="git revision of the previous design ('' skips it)")
    ap.add_argument("--screenshots", type=Path, help="save the loading and the loaded state of the first page here")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        designs: dict[str, Path] = {"this checkout": REPO}
        if args.baseline:
            got = extract(args.baseline, Path(tmp) / "baseline")
            if isinstance(got, Path):
                designs[f"previous ({args.baseline})"] = got
            else:
                print(f"baseline: skipped: {got}")
        results: dict[str, dict[str, list[Load]]] = {d: {s: [] for s in STATES} for d in designs}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
            for run in range(args.runs):
                for design, source in designs.items():
                    with serving(source, Path(tmp)) as url:
                        for state in STATES:
                            if state == "warm":
                                time.sleep(args.settle)
                            got = load(browser, url)
                            results[design][state].append(got)
                            print(f"run {run + 1} {design:>18} {state}: controls {got.controls}, ready {got.ready}")
            if args.screenshots:  # on a page of its own: a screenshot takes the CPU a measured page needs
                args.screenshots.mkdir(parents=True, exist_ok=True)
                with serving(REPO, Path(tmp)) as url:
                    load(browser, url, args.screenshots)
                print(f"screenshots: {args.screenshots}/app-loading.png, app-loaded.png")
            browser.close()
    print(f"\n`workbench app` page load, seconds from the request (median of {args.runs}; each run in brackets)")
    print(f"budget: controls on screen within {BUDGET_S:.0f} s; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    for design, states in results.items():
        for state, loads in states.items():
            print(f"{design:>22} {state:>7}:  controls {fmt([x.controls for x in loads])}")
            print(f"{'':>32} full app {fmt([x.ready for x in loads])}")
            if any(x.loading is not None for x in loads):
                print(f"{'':>28} loading line {fmt([x.loading for x in loads])}")


if __name__ == "__main__":
    main()
