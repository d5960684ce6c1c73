"""The workbench as a pytest plugin: your own kernels, the workbench's cases and sweeps as tests that fail with the
workbench's own report (docs/pytest-plugin.md).

Installed with the package (entry point `pytest11: workbench`), it gives every test:

- `workbench_kernel(source, entry, platform)`: an emulator kernel (`workbench.running.emu.load`) launched msKL-style,
  `kernel[block_dim](x, y, Expect(x + y), ...)`; every `Expect` output is compared with the workbench's standards.
  A precision failure fails the test with the precision reports; a kernel fault (a non-zero exit, an error or fatal
  diagnostic, an output the kernel never wrote) fails it as a fault, with the diagnostics at the kernel's lines;
- `workbench_case(case, kernel=...)`: `wb.run`, failing with `Result.text()` unless the run passes;
- `workbench_sweep(points, ...)` (`wb.sweep`) and `check_sweep(frame)`: fail listing the points that did not pass;
- the marker `workbench(kernel=, backend=, standard=, seed=, distribution=)`: defaults for those fixtures in a test
  (or a module, with `pytestmark`);
- `--workbench-backend NAME` (the backend of cases and sweeps) and `--workbench-keep DIR` (what a failing test saw).

pytest loads this module in every run once the package is installed, so it must cost nothing to a test session that
does not use it: beyond the package's own `__init__`, it imports only pytest and the standard library at the top; the
emulator, the renderers, pandas and altair load inside the fixtures, when a test asks for them. Its hooks only declare
the options and the marker.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import numpy as np

    from ..judge.compare import Report
    from ..planning.case import Case
    from ..running.emu import Kernel, KernelRun
    from ..running.emu.launch import Arg
    from ..running.runner import Result

__all__ = ["CheckedKernel", "Expect", "KernelCheck", "check_sweep"]

POISON = -1  # workbench.running.launch.POISON, spelled here so that Expect's default needs no import of the workbench
MARKER_KEYS = ("kernel", "backend", "standard", "seed", "distribution")
SWEEP_COLUMNS = ("status", "label", "verdict", "error")
SHOWN_ROWS = 30  # a sweep's failing points listed in a failure; the rest are counted
SHOWN_PER_SITE = 3  # diagnostics of one kind at one kernel line shown in a failure; the others are counted
SHOWN_EXCERPTS = 3  # source excerpts under the diagnostics: the first distinct fault sites
SHOWN_PRINTF = 40  # lines of the kernel's printf output in a failure


# -- options and the marker: declared only, nothing else happens at start-up ----------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("workbench", "Ascend C kernel workbench (docs/pytest-plugin.md)")
    group.addoption(
        "--workbench-backend",
        default=None,
        metavar="NAME",
        help="backend the workbench_case and workbench_sweep fixtures run on: emu (default), npu or replay; a "
        "workbench marker's backend= wins. workbench_kernel always runs on the emulator",
    )
    group.addoption(
        "--workbench-keep",
        default=None,
        metavar="DIR",
        help="for each failing workbench test, keep in DIR what it saw: the failure text (.txt), a case's HTML "
        "report (.html), a kernel check's actual and expected arrays (.npz), a sweep's results file (.jsonl)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "workbench(kernel=None, backend=None, standard=None, seed=None, distribution=None): defaults for the "
        "workbench fixtures of a test (a relative kernel path is relative to the test file)",
    )


# -- your own kernel -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    """An output argument of a launch and what it must hold afterwards.

    It stands where the output array would (`kernel[8](x, y, Expect(x + y, name="z"), ...)`): the launch gets a fresh
    array of `expected`'s shape and of `dtype` (default: `expected`'s), its device memory starting as `fill` (the
    emulator's poison by default, so elements the kernel never writes can never pass), or as a copy of `initial` for
    an output the kernel updates in place. After the launch it is compared with `expected` under `standard` (default:
    the kernel check's, else the dtype's: exact for integers, double_thousandth for floats; docs/precision.md).
    `expected` may be float64 (a more precise golden) when `dtype` names the output's own dtype."""

    expected: Any
    name: str = ""
    dtype: str | None = None
    standard: str | None = None
    fill: int = POISON
    initial: Any = None


@dataclass(frozen=True)
class KernelCheck:
    """One checked launch: the emulator's KernelRun, every Expect output as the kernel left it, and its report."""

    kernel: CheckedKernel
    block_dim: int
    run: KernelRun
    outputs: dict[str, np.ndarray] = field(repr=False)
    expected: dict[str, np.ndarray] = field(repr=False)
    reports: dict[str, Report]
    unwritten: tuple[str, ...] = ()  # poisoned outputs the kernel wrote no byte of

    @property
    def faulted(self) -> bool:
        return self.run.faulted or bool(self.unwritten)

    @property
    def passed(self) -> bool:
        return not self.faulted and all(r.passed for r in self.reports.values())

    @property
    def verdict(self) -> str:
        from ..judge.compare import verdict

        return verdict(self.passed, self.faulted)

    def text(self) -> str:
        """What a failing test prints: the launch and its verdict, the diagnostics (the faults' source lines under
        them), what the kernel printed, and each output's precision report, as `workbench run` prints a Result."""
        return _check_text(self)


@dataclass(frozen=True)
class CheckedKernel:
    """A user's kernel loaded by `workbench_kernel`; `kernel[block_dim](...)` launches and checks it."""

    kernel: Kernel
    standard: str | None
    keep: Callable[[str, Mapping[str, np.ndarray]], str]

    def __getitem__(self, block_dim: int) -> Callable[..., KernelCheck]:
        __tracebackhide__ = True
        bound = self.kernel[block_dim]  # checks block_dim

        def launch(*args: Any, **kwargs: Any) -> KernelCheck:
            """The arguments of `workbench.running.emu` (arrays, In/Out, numbers, workspace=, tiling=, launch
            options), an Expect for each output to check. Fails the test unless the launch passes; returns the check."""
            __tracebackhide__ = True
            check = _launch(self, block_dim, bound, args, kwargs)
            if not check.passed:
                text = check.text()
                kept = self.keep(text, _kept_arrays(check))
                pytest.fail(text + kept)
            return check

        return launch


def _launch(
    kernel: CheckedKernel, block_dim: int, bound: Any, args: tuple[Any, ...], kw: dict[str, Any]
) -> KernelCheck:
    __tracebackhide__ = True
    from ..judge.compare import check_standard, compare
    from ..running.emu.build import BuildError

    expects: dict[int, tuple[str, Expect, np.ndarray, np.ndarray]] = {}
    launch_args: list[Any] = []
    for i, a in enumerate(args):
        if isinstance(a, Expect):
            name, expected, buffer, arg = _output(a, i)
            check_standard(a.standard)
            expects[i] = (name, a, expected, buffer)
            launch_args.append(arg)
        else:
            launch_args.append(a)
    names = [name for name, *_ in expects.values()]
    if len(set(names)) != len(names):
        from ..core.errors import InvalidInput

        raise InvalidInput("Expect.name", names, "a different name for each output")
    try:
        run = bound(*launch_args, **kw)
    except BuildError as exc:  # the user's compile errors, at their own lines, are this test's failure
        refused = f"kernel build: g++ rejected {exc.value}\n{exc.text()}"
    else:
        refused = ""
    if refused:  # failed outside the handler: the compile errors, not a chained traceback of the build
        pytest.fail(refused)
    unwritten = {d.details.get("arg") for d in run.diagnostics if d.kind == "OUTPUT_UNWRITTEN" and d.severity != "info"}
    reports = {
        name: compare(buffer, expected, _dtype_name(buffer), e.standard or kernel.standard, name=name)
        for name, e, expected, buffer in expects.values()
    }
    return KernelCheck(
        kernel,
        block_dim,
        run,
        {name: buffer for name, _, _, buffer in expects.values()},
        {name: expected for name, _, expected, _ in expects.values()},
        reports,
        # a kernel that wrote no byte of an output that started as poison did not do its job: a fault, whatever the
        # comparison says (an int32 golden of -1s would equal the poison); a start the user chose is theirs to keep
        tuple(n for i, (n, e, _, _) in expects.items() if i in unwritten and e.fill == POISON and e.initial is None),
    )


def _output(e: Expect, index: int) -> tuple[str, np.ndarray, np.ndarray, Arg]:
    """An Expect's name, its expected array, the array the launch fills and the launch argument for it."""
    import numpy as np

    from ..core.dtypes import NUMPY, canonical
    from ..core.errors import InvalidInput
    from ..running.emu import Out

    name = e.name or f"argument {index}"
    if not isinstance(e.name, str):
        raise InvalidInput("Expect.name", e.name, "a string naming the output in the report")
    expected = np.asarray(e.expected)
    if e.dtype is not None:
        dtype = NUMPY[canonical(e.dtype, "Expect.dtype")]
    elif expected.dtype in NUMPY.values():
        dtype = expected.dtype
    else:
        raise InvalidInput(
            "Expect.dtype",
            None,
            f"the output's dtype ({', '.join(NUMPY)}): the expected {name} is {expected.dtype}, which names no "
            "device dtype (Expect(golden, dtype='float32') for a float64 golden)",
        )
    if e.initial is None:
        if isinstance(e.fill, bool) or not isinstance(e.fill, int):
            raise InvalidInput("Expect.fill", e.fill, "a byte value in [0, 255], or POISON (-1, the default)")
        buffer = np.empty(expected.shape, dtype)
        return name, expected, buffer, Out(buffer, fill=e.fill)
    initial = np.asarray(e.initial)
    if initial.shape != expected.shape:
        raise InvalidInput("Expect.initial", f"shape {initial.shape}", f"the expected shape {expected.shape}")
    buffer = np.array(initial, dtype=dtype, order="C")  # a copy: the caller's array stays as it was
    return name, expected, buffer, Out(buffer)


def _dtype_name(a: np.ndarray) -> str:
    from ..core.dtypes import name_of

    return name_of(a.dtype)


def _check_text(c: KernelCheck) -> str:
    from ..core.timesource import EMULATOR_WALL, HOST_WALL
    from .render.text import report_text, timings_text, wrap

    variant, run = c.kernel.kernel.variant, c.run
    sources = ", ".join(map(str, variant.sources))
    timings = {"build_s": run.build.seconds, "launch_s": run.total_s, "run_s": run.wall_s, "kernel_s": run.kernel_s}
    timing_sources = {**dict.fromkeys(timings, EMULATOR_WALL), "build_s": HOST_WALL}  # as the emu backend labels them
    faults = [f"exit code {run.exit_code}"]
    faults += [f"output {name} was never written (it still holds the poison it started as)" for name in c.unwritten]
    head = [
        *wrap(f"{c.verdict}: {variant.entry}<<<{c.block_dim}>>> on {c.kernel.kernel.platform.soc}"),
        f"  kernel: {sources}",  # never wrapped: a path cut in two is no longer one a terminal or an editor opens
        *wrap(f"  emu, {'; '.join(faults)}"),
        *wrap(f"  timings: {timings_text(timings, timing_sources)}"),
    ]
    diags = [line for text in _folded(run.diagnostics) for line in wrap(text, "  ")]
    printed = run.stdout.splitlines()
    if len(printed) > SHOWN_PRINTF:
        printed = [*printed[:SHOWN_PRINTF], f"... and {len(printed) - SHOWN_PRINTF} more lines (KernelRun.stdout)"]
    return "\n".join(
        [
            *head,
            *(["diagnostics:", *diags, *_excerpts(run.diagnostics)] if run.diagnostics else []),
            *(["kernel printed:", *(f"  {line}" for line in printed)] if printed else []),
            *map(report_text, c.reports.values()),
        ]
    )


def _folded(diagnostics: Iterable[Any]) -> list[str]:
    """Each diagnostic as the workbench prints it, but at most SHOWN_PER_SITE of one kind at one line: a fault in a
    loop reports once per core and tile, and the rest of a site's are counted in a line of their own."""
    shown: list[str] = []
    seen: dict[tuple[str, str, str, int], int] = {}
    rest: dict[tuple[str, str, str, int], int] = {}
    cores: dict[tuple[str, str, str, int], set[int]] = {}
    for d in diagnostics:
        site = (d.kind, d.severity, d.file, d.line)
        cores.setdefault(site, set()).add(d.core)
        seen[site] = seen.get(site, 0) + 1
        if seen[site] <= SHOWN_PER_SITE:
            shown.append(str(d))
        else:
            rest[site] = rest.get(site, 0) + d.count
    for site, n in rest.items():
        kind, severity, file, line = site
        where = f"{Path(file).name}:{line}" if file else "launch"
        on = sorted(c for c in cores[site] if c >= 0)
        span = f" (cores {on[0]}-{on[-1]})" if len(on) > 1 else f" (core {on[0]})" if on else ""
        shown.append(f"... and {n} more {severity} {kind} at {where}{span}")
    return shown


def _excerpts(diagnostics: Iterable[Any]) -> list[str]:
    """The kernel's lines at the first few distinct fault sites, numbered, the faulting line marked '>'."""
    from .render.text import source_excerpt

    sites = dict.fromkeys((d.file, d.line) for d in diagnostics if d.is_fault and d.file and d.line > 0)
    lines = []
    for file, line in list(sites)[:SHOWN_EXCERPTS]:
        excerpt = source_excerpt(file, line)
        if excerpt:
            lines += [f"  at {file}:{line}", *(f"  {x}" for x in excerpt.splitlines())]
    return lines


def _kept_arrays(c: KernelCheck) -> dict[str, np.ndarray]:
    return {f"{k}.actual": v for k, v in c.outputs.items()} | {f"{k}.expected": v for k, v in c.expected.items()}


@pytest.fixture
def workbench_kernel(request: pytest.FixtureRequest) -> Callable[..., CheckedKernel]:
    """`workbench_kernel(source, entry, platform="Ascend310P3", standard=None, defines=None, include_dirs=(),
    opt="-O2")`: the kernel built for the emulator (cached by content), to launch as `kernel[block_dim](...)` with an
    `Expect` for each output. A relative path is relative to the test file's folder."""
    defaults = _marker(request)

    def load(
        source: str | Path | Iterable[str | Path],
        entry: str,
        platform: str = "Ascend310P3",
        standard: str | None = None,
        defines: Mapping[str, object] | None = None,
        include_dirs: Iterable[str | Path] = (),
        opt: str = "-O2",
    ) -> CheckedKernel:
        __tracebackhide__ = True
        from ..judge.compare import check_standard
        from ..running.emu import load as emu_load

        standard = standard if standard is not None else defaults.get("standard")
        check_standard(standard)
        sources = [source] if isinstance(source, (str, Path)) else list(source)
        kernel = emu_load(
            [_near(request, s) for s in sources],
            entry,
            platform,
            defines,
            [_near(request, d) for d in include_dirs],
            opt,
        )
        return CheckedKernel(kernel, standard, lambda text, arrays: _keep(request, text, arrays=arrays))

    return load


# -- the workbench's cases and sweeps --------------------------------------------------------------------------------


@pytest.fixture
def workbench_case(request: pytest.FixtureRequest) -> Callable[..., Result]:
    """`workbench_case(case, kernel=None, backend=None, seed=None, distribution=None, standard=None, **run_options)`:
    `wb.run(case, ...)`, failing the test with the run's report unless it passes; returns the Result. Unset options
    come from the test's workbench marker, then --workbench-backend, then wb.run's defaults."""
    defaults = _marker(request)

    def check(case: Case, kernel: str | Path | None = None, **options: Any) -> Result:
        __tracebackhide__ = True
        from ..core.errors import InvalidInput
        from ..planning.case import Case
        from ..running.runner import run

        if not isinstance(case, Case):
            raise InvalidInput("case", type(case).__name__, "a workbench Case (wb.Case(op, dtypes, shape, ...))")
        kernel = kernel if kernel is not None else defaults.get("kernel")
        for key in ("backend", "seed", "distribution", "standard"):
            if options.get(key) is None and defaults.get(key) is not None:
                options[key] = defaults[key]
        options["backend"] = options.get("backend") or _backend(request)  # None passed = not given
        result = run(case, kernel=None if kernel is None else _near(request, kernel), **options)
        if not result.passed:
            text = result.text()
            pytest.fail(text + _keep(request, text, result=result))
        return result

    return check


@pytest.fixture
def workbench_sweep(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`workbench_sweep(points_or_grid, **sweep_options)`: `wb.sweep(...)`, then `check_sweep` on its frame; returns
    the frame. backend=, kernel= and standard= default to the test's workbench marker and --workbench-backend; with
    --workbench-keep the results file goes there (a rerun then runs only what changed)."""
    defaults = _marker(request)

    def check(points: Any, **options: Any) -> Any:
        __tracebackhide__ = True
        from .. import sweeps

        for key in ("kernel", "standard"):
            if options.get(key) is None and defaults.get(key) is not None:
                options[key] = defaults[key]
        if options.get("kernel") is not None:
            options["kernel"] = _near(request, options["kernel"])
        options["backend"] = options.get("backend") or defaults.get("backend") or _backend(request)
        keep = request.config.getoption("workbench_keep")
        if keep is not None and options.get("results") is None:
            options["results"] = _keep_dir(request, keep) / f"{_stem(request)}.jsonl"
        frame = sweeps.sweep(points, **options)  # wb.sweep, looked up when called
        return check_sweep(frame)

    return check


def check_sweep(frame: Any) -> Any:
    """Fail the test listing every row of a sweep (`wb.sweep`'s DataFrame, or its rows as dicts) whose status is not
    "pass": status, label, verdict and why (the error, the fault's diagnostic kinds or the worst ULP); a sweep with
    no rows fails too (it checked nothing). Returns `frame` when every row passed."""
    __tracebackhide__ = True
    from ..core.errors import InvalidInput
    from .render.text import table

    rows = frame.to_dict("records") if hasattr(frame, "to_dict") else list(frame)
    if not rows:
        pytest.fail("sweep: no points were run, so nothing was checked (an empty grid, or every point dropped)")
    missing = [c for c in SWEEP_COLUMNS if any(c not in r for r in rows)]
    if missing:
        allowed = "a frame of wb.sweep (or its rows), with the columns " + ", ".join(SWEEP_COLUMNS)
        raise InvalidInput("sweep", f"rows without {', '.join(missing)}", allowed)
    bad = [r for r in rows if r["status"] != "pass"]
    if not bad:
        return frame
    counts: dict[str, int] = {}
    for r in bad:
        counts[str(r["status"])] = counts.get(str(r["status"]), 0) + 1
    results = getattr(frame, "attrs", {}).get("results")
    head = (
        f"sweep: {len(bad)} of {len(rows)} points did not pass ("
        + ", ".join(f"{n} {s}" for s, n in counts.items())
        + ")"
        + (f"; results in {results}" if results else "")
    )
    shown = [[r["status"], r["label"], r["verdict"], _why(r)] for r in bad[:SHOWN_ROWS]]
    more = [f"... and {len(bad) - SHOWN_ROWS} more"] if len(bad) > SHOWN_ROWS else []
    pytest.fail("\n".join([head, table(shown, ["status", "label", "verdict", "why"], wrap_last=True), *more]))


def _why(row: Mapping[str, Any]) -> str:
    """A failing row in a few words: the error, else the fault's diagnostic kinds, else the worst error seen."""
    from .render.text import fmt

    if row.get("error"):
        return str(row["error"])
    parts = []
    if row.get("exit_code"):
        parts.append(f"exit code {row['exit_code']}")
    if row.get("diag_kinds"):
        parts.append(f"diagnostics {row['diag_kinds']}")
    for key in ("failed", "max_ulp", "max_rel"):
        value = row.get(key)
        if value is not None and value == value and (key != "failed" or value):  # value == value: not NaN
            parts.append(f"{key} {fmt(value)}")  # a frame's int column holding a None is float: 12.0 -> 12
    return ", ".join(parts)


# -- shared helpers ----------------------------------------------------------------------------------------------


def _marker(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The test's workbench marker as keyword defaults (the closest one: a test's own over its module's)."""
    __tracebackhide__ = True
    marker = request.node.get_closest_marker("workbench")
    if marker is None:
        return {}
    unknown = [k for k in marker.kwargs if k not in MARKER_KEYS]
    if marker.args or unknown:
        from ..core.errors import InvalidInput

        got = [*map(repr, marker.args), *(f"{k}=" for k in unknown)]
        raise InvalidInput("workbench marker", ", ".join(got), "keyword arguments " + ", ".join(MARKER_KEYS))
    return dict(marker.kwargs)


def _backend(request: pytest.FixtureRequest) -> str:
    return request.config.getoption("workbench_backend") or "emu"


def _near(request: pytest.FixtureRequest, path: str | Path) -> Path:
    """A path as the test names it: a relative one is relative to the test file's folder, wherever pytest runs."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else request.path.parent / p


def _stem(request: pytest.FixtureRequest) -> str:
    """The test's node id as a file name: `test_add.py::test_it[8]` -> `test_add.py__test_it_8_`."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.nodeid.replace("::", "__"))[-150:]


def _keep_dir(request: pytest.FixtureRequest, keep: str) -> Path:
    """--workbench-keep's folder (relative to where pytest was started), created if needed."""
    from ..core._files import os_error

    folder = Path(keep).expanduser()
    folder = folder if folder.is_absolute() else request.config.invocation_params.dir / folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise os_error("--workbench-keep", folder, exc) from None
    return folder


def _keep(
    request: pytest.FixtureRequest,
    text: str,
    arrays: Mapping[str, np.ndarray] | None = None,
    result: Result | None = None,
) -> str:
    """With --workbench-keep DIR: the failure's text, and its arrays or HTML report, saved in DIR; the line that
    says where (appended to the failure), or "" without the option."""
    keep = request.config.getoption("workbench_keep")
    if keep is None:
        return ""
    folder = _keep_dir(request, keep)
    stem = folder / _stem(request)
    kept = [stem.with_name(stem.name + ".txt")]
    kept[0].write_text(text + "\n", encoding="utf-8")
    if arrays:
        import numpy as np

        np.savez(stem.with_name(stem.name + ".npz"), **arrays)  # type: ignore[arg-type]  # stubs: allow_pickle
        kept.append(stem.with_name(stem.name + ".npz"))
    if result is not None:
        from .render.report import write_html

        kept.append(write_html(result, stem.with_name(stem.name + ".html")))
    return "\nkept: " + ", ".join(map(str, kept))
