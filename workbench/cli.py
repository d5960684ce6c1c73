"""`workbench` command line: ops, platforms, tiling, run, record, build, emu-run, demo, app, lab.

Exit codes: 0 ok (run: passed), 1 precision failure (emu-run: the program exited non-zero), 2 invalid input,
3 kernel fault, 4 infrastructure fault (a cache, scratch or output path the machine refused: one line naming the path
and the fix), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import __version__, progress
from ._files import check_output_file
from .case import Case
from .errors import InfrastructureError, InvalidAttr, WorkbenchError
from .opspec import REQUIRED
from .platform import PLATFORMS
from .registry import OPS
from .render import plan_text, platforms_text, table

EXIT_OK, EXIT_PRECISION, EXIT_INVALID, EXIT_FAULT, EXIT_INFRASTRUCTURE = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # the shell's convention for SIGINT


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own errors: same exit code and no traceback
        self.print_usage(sys.stderr)
        print(f"workbench: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def _add_case_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("op", help="op name (see `workbench ops`)")
    p.add_argument("--dtype", required=True, help="SRC[:DST], e.g. float32:float16 (Cast) or float16 (SCE)")
    p.add_argument("--shape", required=True, help="D0,D1,... of the primary input; '' for a scalar")
    p.add_argument("--format", default="", help="ND or NCHW (default: the op's choice for the rank)")
    p.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE", help="op attribute (repeatable)")
    p.add_argument("--platform", default="", help="SoC (see `workbench platforms`); default: the op's target")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="workbench", description="Ascend C kernel workbench: tiling, UB budget, goldens.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ops = sub.add_parser("ops", help="list the ops, or one op's dtype matrix and attributes")
    ops.add_argument("op", nargs="?")
    ops.add_argument("--json", action="store_true")
    plats = sub.add_parser("platforms", help="list the SoC platforms")
    plats.add_argument("--json", action="store_true")
    _add_case_flags(sub.add_parser("tiling", help="show the host tiling decision and UB budget"))
    run = sub.add_parser("run", help="run the kernel on a backend and compare with the golden")
    record = sub.add_parser("record", help="run, then store the run (NAME.npz + NAME.json) for the replay backend")
    record.add_argument(
        "--out", required=True, metavar="PATH", help="where: PATH.json and PATH.npz (the name as given; run.v1 stays)"
    )
    record.add_argument("--force", action="store_true", help="replace a record of that name")
    for p in (run, record):
        _add_case_flags(p)
        p.add_argument(
            "--backend",
            default="emu",
            help="emu (default); npu (a device through pyACL, or WORKBENCH_ACL=emulated: the same path on the "
            "emulator, times predicted); replay (a stored record of the same run)",
        )
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--distribution", default=None, help="input distribution (see `workbench ops OP`)")
        p.add_argument("--standard", default=None, help="exact, double_thousandth, single_benchmark, mixed_tolerance")
        p.add_argument("--html", default=None, metavar="FILE", help="also write a self-contained HTML report")
        p.add_argument("--kernel", default=None, metavar="FILE", help="an edited copy of the op's kernel to run")
        p.add_argument(
            "--max-memory", default=None, help="host memory the run may use, e.g. 4G (default: half of the available)"
        )
    _add_build_parser(sub)
    _add_emu_run_parser(sub)
    demo = sub.add_parser("demo", help="the main job: every op's worked examples: tiling, kernel run, goldens")
    demo.add_argument("--backend", default="emu", help="emu (default), or none: tiling and goldens only")
    for p in (run, record, demo):
        p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    app = sub.add_parser("app", help="serve the workbench app (widgets, no code) as a page on 127.0.0.1")
    lab = sub.add_parser("lab", help="copy the notebooks into a folder and open JupyterLab there")
    lab.add_argument("--dir", default="workbench-notebooks", help="the folder (default: ./workbench-notebooks)")
    for p in (app, lab):
        p.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
        p.add_argument("--no-browser", action="store_true", help="print the URL only; do not open a browser")
    return parser


def _add_build_parser(sub: Any) -> None:
    p = sub.add_parser("build", help="build an op's kernel for the emulator (g++) or for a SoC with CANN (cmake)")
    p.add_argument("op", help="op name (see `workbench ops`)")
    p.add_argument("--target", required=True, choices=("emu", "npu"), help="emu: ascemu with g++; npu: CANN's cmake")
    p.add_argument("--soc", default=None, help="SoC (see `workbench platforms`); default: the op's target")
    p.add_argument("--dtype", default=None, help="SRC[:DST] of the kernel variant; default: the op's first example")
    p.add_argument("--out", default=None, metavar="DIR", help="npu: project and build folder (default ./npu-build/..)")
    p.add_argument("--dump", action="store_true", help="npu: keep printf/DumpTensor (ASCENDC_DUMP); off for timing")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def _add_emu_run_parser(sub: Any) -> None:
    p = sub.add_parser(
        "emu-run", help="build a single-source .asc program (kernels + host main) and run it on the emulator"
    )
    p.add_argument("program", help="the .asc or .cpp file: kernels launched with <<<>>> and a main() that calls ACL")
    p.add_argument("program_args", nargs="*", metavar="ARG", help="the program's own arguments, after --")
    p.add_argument("--platform", default="Ascend310P3", help="SoC (see `workbench platforms`); default Ascend310P3")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per launch, and for the whole run (+10 s)")
    p.add_argument(
        "-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]", help="a macro for g++ (repeatable)"
    )
    p.add_argument(
        "-I", dest="include", action="append", default=[], metavar="DIR", help="a header folder for g++ (repeatable)"
    )
    p.add_argument(
        "--json", action="store_true", help="print one JSON object: output, exit, every launch's diagnostics"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


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
    from .pipeline import plan

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


def _ops(args: argparse.Namespace) -> int:
    if args.op:
        spec = OPS[args.op]
        info: dict[str, Any] = {
            "name": spec.name,
            "summary": spec.summary,
            "inputs": [t.name for t in spec.inputs],
            "outputs": [t.name for t in spec.outputs],
            "formats": list(spec.formats),
            "platforms": list(spec.platforms),
            "distributions": list(spec.distributions),
            "attrs": [
                {"name": a.name, "type": a.type.__name__, "required": a.default is REQUIRED}
                | ({} if a.default is REQUIRED else {"default": a.default})
                for a in spec.attrs
            ],
            "dtypes": [list(d) for d in spec.dtype_matrix],
        }
        if args.json:
            print(json.dumps(info))
        else:
            print(f"{spec.name}: {spec.summary}")
            for key in ("inputs", "outputs", "formats", "platforms", "distributions"):
                print(f"  {key}: {', '.join(info[key])}")
            for a in info["attrs"]:
                need = "required" if a["required"] else f"default {a['default']}"
                print(f"  attr {a['name']} ({a['type']}, {need})")
            print(f"  dtypes ({len(spec.dtype_matrix)}): " + ", ".join(":".join(d) for d in spec.dtype_matrix))
        return EXIT_OK
    rows = [[s.name, len(s.dtype_matrix), "/".join(s.formats), ",".join(s.platforms), s.summary] for s in OPS.values()]
    if args.json:
        print(json.dumps([{"name": r[0], "dtype_combinations": r[1], "summary": r[4]} for r in rows]))
    else:
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
        from .pipeline import plan

        print(plan_text(plan(case), case.label()))
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    from .runner import run

    case = case_from_args(args)
    if args.html is not None:  # refuse before the run, not after it
        check_output_file(args.html, "--html")
    out = getattr(args, "out", None)
    if out is not None and not Path(out).parent.is_dir():
        raise WorkbenchError("--out", out, "a file path in an existing folder")
    if out is not None:  # a taken name, a folder, /proc, a read-only mount: before the run
        from .store import destination

        destination(out, force=args.force)
    result = run(
        case, args.backend, args.seed, args.distribution, args.standard, max_memory=args.max_memory, kernel=args.kernel
    )
    if args.html is not None:
        from .render.report import write_html

        write_html(result, args.html)
    if getattr(args, "out", None) is not None:
        from .store import record

        print(f"workbench: recorded {record(result, args.out, force=args.force)}", file=sys.stderr)
    code = EXIT_FAULT if result.faulted else EXIT_OK if result.passed else EXIT_PRECISION
    with _verdict_stands():
        print(json.dumps({**tiling_json(case), **result.to_json()}) if args.json else result.text())
        sys.stdout.flush()
    if result.faulted and args.json:  # the diagnostics are in the JSON; repeat the faults where a terminal user looks
        for d in result.diagnostics:
            print(f"workbench: {d}", file=sys.stderr)
    return code


def _build(args: argparse.Namespace) -> int:
    """emu: the cached g++ binary of the kernel; npu: the CANN library (CannNotFound, exit 2, without CANN)."""
    from .npu.build import build, example_case

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
    from . import resources
    from .emu import load

    built = load(resources.path(info.source), info.entry, case.platform, info.defines).built()
    state = "cached" if built.cached else f"built in {built.seconds:.1f} s"
    print(f"workbench: {info.entry} for {case.platform} on the emulator ({state})", file=sys.stderr)
    print(built.path)
    return EXIT_OK


def _emu_run(args: argparse.Namespace) -> int:
    """The program's stdout and stderr pass through; a summary of its launches follows on stderr."""
    from .emu import run_program

    run = run_program(
        args.program,
        args.platform,
        args.program_args,
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
    from .emu.build import BuildError

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
    args = build_parser().parse_args(argv)
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
        "build": _build,
        "emu-run": _emu_run,
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
