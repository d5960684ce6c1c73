"""Sweep speed (issue 20, deliverable 6).

  first sweep:   a 1,000-case Cast sweep (all 60 dtype pairs x 17 sizes, cut at 1,000) on the default executor
                 (a process pool, one worker per core) within 1.2x of the sum of the same cases run one by one
                 with wb.run in one process;
  resumed sweep: the same sweep again, nothing changed (every row is in the results file): within 5 % of the first.

Both sides start from the same warm build cache (every variant is built first, untimed) and both pay each kernel's
first load in their own processes: the reference in a fresh process of its own, the sweep in its workers.
Run: python bench/bench_sweep.py [--cases 1000] [--workers N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (1, 7, 31, 100, 255, 1000, 1023, 4096, 5000, 12345, 32768, 50000, 65536, 100000, 131072, 200000, 262144)

ONE_BY_ONE = """
import sys, time, workbench as wb
from workbench.sweeps import grid
from workbench.core import progress
progress.set_enabled(False)
points = grid("cast", shapes=[(n,) for n in {sizes}]).points[:{cases}]
start = time.perf_counter()
for p in points:
    wb.run(p.case, seed=p.seed, distribution=p.distribution)
print(time.perf_counter() - start)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    from workbench.sweeps import grid, sweep

    points = grid("cast", shapes=[(n,) for n in SIZES]).points[: args.cases]
    # untimed: every variant built once, so neither side compiles
    sweep(grid("cast", shapes=[(8,)]), executor="serial", show_progress=False, resume=False)
    code = ONE_BY_ONE.format(sizes=SIZES, cases=args.cases)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    one_by_one = float(out.strip().splitlines()[-1])
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp, "results.jsonl")
        t0 = time.perf_counter()
        first = sweep(points, workers=args.workers, results=results, show_progress=False)
        first_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = sweep(points, workers=args.workers, results=results, show_progress=False)
        resumed_s = time.perf_counter() - t0
    counts = first.attrs["counts"]
    print(
        f"cases: {len(points)} ({', '.join(f'{n} {s}' for s, n in counts.items() if n)}), "
        f"executor {first.attrs['executor']}"
    )
    print(f"one by one in one process: {one_by_one:8.2f} s")
    print(f"first sweep:               {first_s:8.2f} s   ratio {first_s / one_by_one:.3f} (target <= 1.2)")
    print(
        f"resumed sweep:             {resumed_s:8.2f} s   ratio {resumed_s / first_s:.4f} of the first "
        f"(target <= 0.05; {again.attrs['reused']} rows reused, {again.attrs['ran']} run)"
    )


if __name__ == "__main__":
    main()
