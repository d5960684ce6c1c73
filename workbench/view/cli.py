"""`workbench` command line: ops, platforms, tiling, run, record, copy-kernel, build, emu-run, examples, demo, app,
lab (the arguments: cli_parser.py).

Exit codes: 0 ok (run: passed), 1 precision failure (emu-run: the program exited non-zero), 2 invalid input,
3 kernel fault, 4 infrastructure fault (a cache, scratch or output path the machine refused: one line naming the path
and the fix), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..core import progress
from ..core._files import check_output_file
from ..core.errors import InfrastructureError, InvalidAttr, InvalidInput, WorkbenchError
from ..core.opspec import REQUIRED, OpSpec
from ..core.platform import PLATFORMS
from ..planning.case import Case
from ..planning.registry import OPS
from .cli_compare import compare_command
from .cli_parser import build_parser, split_shape
from .cli_sweep import sweep_command
from .render import plan_text, platforms_text, table
from .render.op_text import default_platform, op_text, platform_families

EXIT_OK, EXIT_PRECISION, EXIT_INVALID, EXIT_FAULT, EXIT_INFRASTRUCTURE = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # the shell's convention for SIGINT
__all__ = ["build_parser", "case_from_args", "defines_from_args", "main", "tiling_json"]


def defines_from_args(items: Sequence[str]) -> dict[str, object]:
    """`-D NAME` and `-D NAME=VALUE`, as g++ reads them; the name itself is checked by the build (defines_of)."""
    defines: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if name in defines:
            raise WorkbenchError("-D", item, f"each macro once ({name!r} is given twice)")
        if sep and not value:  # the build spells a valueless define as plain -DNAME, which g++ reads as 1
            raise WorkbenchError("-D", item, "NAME (defined as 1) or NAME=VALUE with a value")
        defines[name] = value if sep else True
    return defines


def case_from_args(args: argparse.Namespace) -> Case:
    attrs: dict[str, str] = {}
    for item in args.attr:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InvalidAttr("--attr", item, "NAME=VALUE")
        if name.strip() in attrs:
            raise InvalidAttr("--attr", item, f"each attribute once ({name.strip()!r} is given twice)")
        attrs[name.strip()] = value.strip()
    return Case(
        op=args.op,
        dtypes=tuple(args.dtype.split(":")),
        shape=args.shape,
        format=args.format,
        attrs=attrs,
        platform=args.platform,
    )


def tiling_json(case: Case) -> dict[str, Any]:
    from ..planning.pipeline import plan

    p = plan(case).to_json()
    return {
        "op": case.op,
        "platform": case.platform,
        "dtypes": list(case.dtypes),
        "shape": list(case.shape),
        "format": case.format,
        "attrs": dict(case.attrs),
        "tiling_key": p["tiling_key"],
        "tiling_name": p["tiling_name"],
        "block_dim": p["block_dim"],
        "fields": p["fields"],
        "cores": p["cores"],
        "ub": p["ub"],
        "workspace_bytes": p["workspace_bytes"],
        "notes": p["notes"],
    }


def op_json(spec: OpSpec) -> dict[str, Any]:
    """One op as `workbench ops [OP] --json` prints it (the table leaves out the dtype matrix)."""
    return {
        "name": spec.name,
        "summary": spec.summary,
        "inputs": [t.name for t in spec.inputs],
        "outputs": [t.name for t in spec.outputs],
        "formats": list(spec.formats),
        "platforms": list(spec.target_platforms()),
        "default_platform": default_platform(spec),
        "distributions": list(spec.distributions),
        "attrs": [
            {"name": a.name, "type": a.type.__name__, "required": a.default is REQUIRED}
            | ({} if a.default is REQUIRED else {"default": a.default})
            | {"doc": a.doc}
            for a in spec.attrs
        ],
        "dtype_combinations": len(spec.dtype_matrix),
        "dtypes": [list(d) for d in spec.dtype_matrix],
    }


def _ops(args: argparse.Namespace) -> int:
    if args.op:
        spec = OPS[args.op]
        print(json.dumps(op_json(spec)) if args.json else op_text(spec))
        return EXIT_OK
    if args.json:
        print(json.dumps([{k: v for k, v in op_json(s).items() if k != "dtypes"} for s in OPS.values()]))
        return EXIT_OK
    rows = [
        [s.name, len(s.dtype_matrix), "/".join(s.formats), ", ".join(platform_families(s)), s.summary]
        for s in OPS.values()
    ]
    print(table(rows, ["op", "dtypes", "formats", "platforms", "summary"]))
    return EXIT_OK


def _platforms(args: argparse.Namespace) -> int:
    plats = list(PLATFORMS.values())
    print(json.dumps([p.summary() for p in plats]) if args.json else platforms_text(plats))
    return EXIT_OK


def _tiling(args: argparse.Namespace) -> int:
    case = case_from_args(args)
    if args.json:
        print(json.dumps(tiling_json(case)))
    else:
        from ..planning.pipeline import plan

        print(plan_text(plan(case), case.label()))
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    from ..running.runner import run

    case = case_from_args(args)
    if args.html is not None:  # refuse before the run, not after it
        check_output_file(args.html, "--html")
    if args.trace is not None:
        check_output_file(args.trace, "--trace")
    if args.kernel is not None:  # before the run, and in the command line's terms
        check_kernel_file(args)
    out = getattr(args, "out", None)
    if out is not None and not Path(out).parent.is_dir():
        raise WorkbenchError("--out", out, "a file path in an existing folder")
    if out is not None:  # a taken name, a folder, /proc, a read-only mount: before the run
        from ..running.store import destination

        destination(out, force=args.force)
    result = run(
        case,
        args.backend,
        args.seed,
        args.distribution,
        args.standard,
        max_memory=args.max_memory,
        kernel=args.kernel,
        trace=args.trace is not None or args.trace_source,
    )
    if args.trace is not None:
        _write_trace(result, args.trace)
    if args.html is not None:
        from .render.report import write_html

        write_html(result, args.html)
    if getattr(args, "out", None) is not None:
        from ..running.store import record

        print(f"workbench: recorded {record(result, args.out, force=args.force)}", file=sys.stderr)
    code = EXIT_FAULT if result.faulted else EXIT_OK if result.passed else EXIT_PRECISION
    analysed = None
    if getattr(args, "analyse", False):
        from ..running.work import analyse

        analysed = analyse(result)
    with _verdict_stands():
        if args.json:
            print(json.dumps({**tiling_json(case), **result.to_json(), **(analysed.to_json() if analysed else {})}))
        else:
            print(result.text() + (f"\n{analysed.text()}" if analysed else ""))
        if args.trace_source:  # after the verdict; with --json on stderr, so stdout stays one JSON object
            from ..running.annotated import annotate_source

            print(annotate_source(result).text(), file=sys.stderr if args.json else sys.stdout)
        sys.stdout.flush()
    if result.faulted and args.json:  # the diagnostics are in the JSON; repeat the faults where a terminal user looks
        for d in result.diagnostics:
            print(f"workbench: {d}", file=sys.stderr)
    return code


def _write_trace(result: Any, path: str) -> None:
    from ..running.events import write_chrome_trace

    if result.events is None:  # a fatal launch that could not write its log: say why, keep the verdict
        why = result.events_missing or "the launch ended before it was written"
        print(f"workbench: --trace {path}: no event log ({why})", file=sys.stderr)
        return
    print(f"workbench: trace written to {write_chrome_trace(result.events, path, '--trace')}", file=sys.stderr)


def case_flags(args: argparse.Namespace) -> list[str]:
    """The op and the flags that name the case of `args`, as they were given."""
    flags = [args.op, "--dtype", args.dtype, "--shape", args.shape]
    flags += ["--format", args.format] if args.format else []
    flags += ["--platform", args.platform] if args.platform else []
    return flags + [flag for item in args.attr for flag in ("--attr", item)]


def check_kernel_file(args: argparse.Namespace) -> None:
    if not Path(args.kernel).expanduser().is_file():
        raise InvalidInput(
            "--kernel",
            args.kernel,
            "an existing Ascend C source file; make one with "
            f"`{shlex.join(['workbench', 'copy-kernel', *case_flags(args), args.kernel])}` "
            "(in Python: wb.copy_kernel(case, path))",
        )


def _copy_kernel(args: argparse.Namespace) -> int:
    """The kernel source the case runs, copied to OUT (a new file, or into an existing folder) to edit."""
    from ..core import resources
    from ..running.runner import copy_kernel

    case = case_from_args(args)
    if case.spec.kernel is None:
        raise WorkbenchError("op", case.op, "an op with a shipped kernel")
    source = resources.path(case.spec.kernel(case).source)
    out = Path(args.out).expanduser()
    target = out / source.name if out.is_dir() else out
    if target.exists():
        raise WorkbenchError("OUT", str(target), "a file that does not exist yet (copy-kernel never replaces a file)")
    if not target.parent.is_dir():
        raise WorkbenchError("OUT", str(target), "a new file in an existing folder, or an existing folder")
    copied = copy_kernel(case, target)
    run_it = shlex.join(["workbench", "run", *case_flags(args), "--kernel", str(copied)])
    print(f"workbench: copied {source.name} of {case.label()}; edit it, then run it: {run_it}", file=sys.stderr)
    print(copied)
    return EXIT_OK


def _examples(args: argparse.Namespace) -> int:
    from .examples import copy_examples

    copied, kept = copy_examples(args.dir)
    folder = Path(args.dir).expanduser().resolve()
    kept_text = f"; {len(kept)} already there, kept as they are" if kept else ""
    print(f"workbench: copied {len(copied)} example(s) into {folder}{kept_text}", file=sys.stderr)
    for path in sorted([*copied, *kept]):
        print(path)
    return EXIT_OK


def _build(args: argparse.Namespace) -> int:
    """emu: the cached g++ binary of the kernel; npu: the CANN library (CannNotFound, exit 2, without CANN)."""
    from ..running.npu.build import build, example_case

    case = example_case(args.op, args.dtype, args.soc)
    if case.spec.kernel is None:
        raise WorkbenchError("op", args.op, "an op with a shipped kernel")
    info = case.spec.kernel(case)
    if args.target == "npu":
        out = Path(args.out) if args.out else Path("npu-build") / f"{info.entry}-{case.platform}"
        result = build(case.op, case.platform, out, dump=args.dump, kernel=info)
        print(f"workbench: {result.launch_symbol} for {result.soc} declared in {result.header}", file=sys.stderr)
        print(result.library)
        return EXIT_OK
    for flag in ("out", "dump"):
        if getattr(args, flag):
            raise WorkbenchError(f"--{flag}", getattr(args, flag), "only with --target npu (emu builds are cached)")
    from ..core import resources
    from ..running.emu import load

    built = load(resources.path(info.source), info.entry, case.platform, info.defines).built()
    state = "cached" if built.cached else f"built in {built.seconds:.1f} s"
    print(f"workbench: {info.entry} for {case.platform} on the emulator ({state})", file=sys.stderr)
    print(built.path)
    return EXIT_OK


def _emu_run(args: argparse.Namespace) -> int:
    """The program's stdout and stderr pass through; a summary of its launches follows on stderr."""
    from ..running.emu import run_program

    files, program_args = program_files(args.program)
    run = run_program(
        files,
        args.platform,
        [*program_args, *args.program_args],
        timeout_s=args.timeout,
        defines=defines_from_args(args.define),
        include_dirs=args.include,
    )
    code = EXIT_FAULT if run.faulted else EXIT_OK if run.exit_code == 0 else EXIT_PRECISION
    with _verdict_stands():
        sys.stdout.write(json.dumps(run.to_json()) + "\n" if args.json else run.stdout)
        sys.stdout.flush()
    if not args.json:
        sys.stderr.write(run.stderr)
        for line in run.summary().splitlines():
            print(f"workbench: {line}", file=sys.stderr)
    return code


SOURCE_SUFFIXES = (".asc", ".cpp", ".cc", ".cxx")


def program_files(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """emu-run's words before `--`: the program's files (the first, and every next one named like a C++ source),
    then the program's own arguments (given before `--` by older command lines: `emu-run add.asc x.bin`)."""
    count = 1
    while count < len(words) and words[count].endswith(SOURCE_SUFFIXES):
        count += 1
    return list(words[:count]), list(words[count:])


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(backend=None if args.backend == "none" else args.backend)


def _app(args: argparse.Namespace) -> int:
    from .serve import app

    return app(port=args.port, open_browser=not args.no_browser)


def _lab(args: argparse.Namespace) -> int:
    from .serve import lab

    return lab(port=args.port, directory=args.dir, open_browser=not args.no_browser)


def _refused(args: argparse.Namespace, exc: WorkbenchError) -> None:
    """One line on stderr (a kernel that does not compile: its first errors at its own lines, with the source);
    with --json also the error as a JSON object on stdout, so a script always gets one."""
    from ..running.emu.build import BuildError

    if getattr(args, "json", False):
        print(json.dumps(exc.to_json()))
    if isinstance(exc, BuildError) and exc.errors:
        print(f"workbench: kernel build: g++ rejected {exc.value}", file=sys.stderr)
        for line in exc.text().splitlines():
            print(f"  {line}", file=sys.stderr)
    else:
        print(f"workbench: {exc}", file=sys.stderr)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _verdict_stands() -> Iterator[None]:
    """Printing a verdict computed already: a reader that leaves early (`workbench run ... | head -c 10`) cuts the
    output short but does not change the exit code, and Python's flush at exit must not fail again."""
    try:
        yield
    except BrokenPipeError:
        _detach_stdout()


def _detach_stdout() -> None:
    """Point stdout at /dev/null: what is still buffered for a closed pipe is dropped at exit, without a traceback."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture): nothing flushes it at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    program_args: list[str] = []  # emu-run: everything after `--` is the program's (argparse would refuse it)
    if "emu-run" in argv and "--" in argv[argv.index("emu-run") :]:
        cut = argv.index("--", argv.index("emu-run"))
        argv, program_args = argv[:cut], argv[cut + 1 :]
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # one line for a shape the shell split (`--shape 64, 1000`), else argparse's own error
        if (split := split_shape(argv)) is None:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        _refused(argparse.Namespace(json="--json" in argv), split)
        return EXIT_INVALID
    if program_args:
        args.program_args = [*args.program_args, *program_args]
    if getattr(args, "quiet", False):
        progress.set_enabled(False)
    # SIGTERM ends the command the way Ctrl-C does: the compiler's process group and the emulator's children are
    # stopped on the way out (the default action would leave them running)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)
    handler = {
        "ops": _ops,
        "platforms": _platforms,
        "tiling": _tiling,
        "run": _run,
        "record": _run,
        "copy-kernel": _copy_kernel,
        "build": _build,
        "emu-run": _emu_run,
        "sweep": sweep_command,
        "compare": compare_command,
        "examples": _examples,
        "demo": _demo,
        "app": _app,
        "lab": _lab,
    }[args.command]
    try:
        return handler(args)
    except InfrastructureError as exc:
        _refused(args, exc)
        return EXIT_INFRASTRUCTURE
    except WorkbenchError as exc:
        _refused(args, exc)
        return EXIT_INVALID
    except BrokenPipeError:  # `workbench ops | head`: nothing was judged, and the reader has what it wanted
        _detach_stdout()
        return EXIT_OK
    except KeyboardInterrupt:  # the launch layer (and serve.py) has already stopped its child processes
        print("workbench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
