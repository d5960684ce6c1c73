"""The `workbench` command line's arguments: every subcommand and option, each with its help text, and the one
mistake argparse cannot name well: a shape split by the shell (`--shape 64, 1000`)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from functools import cache
from typing import Any

from .. import __version__
from ..core.errors import WorkbenchError
from .cli_compare import add_compare_parser
from .cli_sweep import add_sweep_parser
from .examples import DEFAULT_DIR as EXAMPLES_DIR

EXIT_INVALID = 2
SHAPE_COMMANDS = ("tiling", "run", "record", "copy-kernel")
_SHAPE_PIECE = re.compile(r",?[0-9][0-9,]*|,")  # what a shape's remainder looks like after the shell split it


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own errors: same exit code and no traceback
        self.print_usage(sys.stderr)
        print(f"workbench: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def split_shape(argv: Sequence[str]) -> WorkbenchError | None:
    """`--shape 64, 1000` or `--shape 64 1000`: the shell made two arguments of one shape, and argparse would
    refuse the second as an unknown argument. The error names the shape and how to write it."""
    command = next((token for token in argv if not token.startswith("-")), None)
    if command not in SHAPE_COMMANDS:
        return None
    for i, token in enumerate(argv):
        if token == "--shape" and i + 1 < len(argv):
            pieces, rest = [argv[i + 1]], argv[i + 2 :]
        elif token.startswith("--shape="):
            pieces, rest = [token.removeprefix("--shape=")], argv[i + 1 :]
        else:
            continue
        for piece in rest:
            if not _SHAPE_PIECE.fullmatch(piece):
                break
            pieces.append(piece)
        if len(pieces) > 1:
            dims = ",".join(d.strip() for piece in pieces for d in piece.split(",") if d.strip())
            return WorkbenchError("shape", " ".join(pieces), f"the shape written without spaces: --shape {dims}")
    return None


@cache  # parsing leaves a parser as it was (append actions copy their defaults): one per process is enough
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="workbench", description="Ascend C kernel workbench: tiling, UB budget, goldens.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        parser_class=_Parser,
        metavar="COMMAND",
        help="`workbench COMMAND --help` for one",
    )
    ops = _command(sub, "ops", help="list the ops, or one op's tensors, attributes, formats, platforms and dtypes")
    ops.add_argument("op", nargs="?", help="an op name: show that op in full (default: the table of every op)")
    ops.add_argument("--json", action="store_true", help="print JSON instead of text")
    plats = _command(sub, "platforms", help="list the SoC platforms")
    plats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_case_flags(_command(sub, "tiling", help="show the host tiling decision and UB budget"))
    run = _command(sub, "run", help="run the kernel on a backend and compare with the golden")
    record = _command(sub, "record", help="run, then store the run (NAME.npz + NAME.json) for the replay backend")
    record.add_argument(
        "--out", required=True, metavar="PATH", help="where: PATH.json and PATH.npz (the name as given; run.v1 stays)"
    )
    record.add_argument("--force", action="store_true", help="replace a record of that name")
    for p in (run, record):
        add_case_flags(p)
        add_run_flags(p)
    _add_copy_kernel_parser(sub)
    _add_build_parser(sub)
    _add_emu_run_parser(sub)
    add_sweep_parser(sub, _command)
    add_compare_parser(sub, _command)
    examples = _command(sub, "examples", help="copy the example kernel and programs that ship with the package")
    examples.add_argument(
        "--dir", default=EXAMPLES_DIR, help=f"the folder (default: ./{EXAMPLES_DIR}); a file already there is kept"
    )
    demo = _command(
        sub,
        "demo",
        help="a tour in the terminal: every op's worked examples, each with its tiling decision and UB budget, its "
        "kernel run on the emulator against the golden, and the golden checked against an independent reference; "
        "then it exits",
    )
    demo.add_argument("--backend", default="emu", help="emu (default), or none: tiling and goldens only")
    for p in (run, record, demo):
        p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    app = _command(sub, "app", help="serve the workbench app (widgets, no code) as a page on 127.0.0.1")
    lab = _command(sub, "lab", help="copy the notebooks into a folder and open JupyterLab there")
    lab.add_argument("--dir", default="workbench-notebooks", help="the folder (default: ./workbench-notebooks)")
    for p in (app, lab):
        p.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
        p.add_argument("--no-browser", action="store_true", help="print the URL only; do not open a browser")
    return parser


def _command(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    """A subcommand whose help shows both in `workbench --help` and at the top of `workbench NAME --help`."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, description=help)
    return parser


def add_case_flags(p: argparse.ArgumentParser, json_flag: bool = True) -> None:
    p.add_argument("op", help="op name (see `workbench ops`)")
    p.add_argument("--dtype", required=True, help="SRC[:DST], e.g. float32:float16 (Cast) or float16 (SCE)")
    p.add_argument("--shape", required=True, help="D0,D1,... of the primary input, without spaces; '' for a scalar")
    p.add_argument("--format", default="", help="ND or NCHW (default: the op's choice for the rank)")
    p.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE", help="op attribute (repeatable)")
    p.add_argument("--platform", default="", help="SoC (see `workbench platforms`); default: the op's target")
    if json_flag:
        p.add_argument("--json", action="store_true", help="print one JSON object")


def add_run_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        default="emu",
        help="emu (default); npu (a device through pyACL, or WORKBENCH_ACL=emulated: the same path on the "
        "emulator, times predicted); replay (a stored record of the same run)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    p.add_argument("--distribution", default=None, help="input distribution (see `workbench ops OP`)")
    p.add_argument("--standard", default=None, help="exact, double_thousandth, single_benchmark, mixed_tolerance")
    p.add_argument("--html", default=None, metavar="FILE", help="also write a self-contained HTML report")
    p.add_argument(
        "--trace",
        default=None,
        metavar="FILE",
        help="record the emulator's event log (emu backend) and write its per-core pipe timeline as Chrome "
        "trace-event JSON, which Perfetto and chrome://tracing open (times predicted by the performance model)",
    )
    p.add_argument(
        "--analyse",
        action="store_true",
        help="also show the guided analysis and the roofline (docs/analysis.md); with --json: their keys",
    )
    p.add_argument(
        "--trace-source",
        action="store_true",
        help="record the emulator's event log and print the kernel source annotated per line: diagnostics, API "
        "calls, bytes moved and predicted µs (performance model), hot lines marked; --html then has it too",
    )
    p.add_argument(
        "--kernel",
        default=None,
        metavar="FILE",
        help="an edited copy of the op's kernel to run (make one with `workbench copy-kernel`)",
    )
    p.add_argument(
        "--max-memory", default=None, help="host memory the run may use, e.g. 4G (default: half of the available)"
    )


def _add_copy_kernel_parser(sub: Any) -> None:
    p = _command(
        sub,
        "copy-kernel",
        help="copy the kernel source a case runs, to edit and run with `workbench run ... --kernel FILE`",
    )
    add_case_flags(p, json_flag=False)
    p.add_argument("out", metavar="OUT", help="the new file (e.g. my_cast.cpp), or an existing folder to put it in")


def _add_build_parser(sub: Any) -> None:
    p = _command(sub, "build", help="build an op's kernel for the emulator (g++) or for a SoC with CANN (cmake)")
    p.add_argument("op", help="op name (see `workbench ops`)")
    p.add_argument("--target", required=True, choices=("emu", "npu"), help="emu: ascemu with g++; npu: CANN's cmake")
    p.add_argument("--soc", default=None, help="SoC (see `workbench platforms`); default: the op's target")
    p.add_argument("--dtype", default=None, help="SRC[:DST] of the kernel variant; default: the op's first example")
    p.add_argument("--out", default=None, metavar="DIR", help="npu: project and build folder (default ./npu-build/..)")
    p.add_argument("--dump", action="store_true", help="npu: keep printf/DumpTensor (ASCENDC_DUMP); off for timing")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def _add_emu_run_parser(sub: Any) -> None:
    p = _command(
        sub, "emu-run", help="build a program (a .asc file, or a CPU-twin main.cpp and its kernel files) and run it"
    )
    p.add_argument(
        "program",
        nargs="+",
        metavar="FILE",
        help="the program's source files (.asc, .cpp, .cc, .cxx), built and linked together: kernels launched with "
        "<<<>>> or ICPU_RUN_KF and one main(); the program's own arguments go after --",
    )
    p.set_defaults(program_args=[])
    p.add_argument("--platform", default="Ascend310P3", help="SoC (see `workbench platforms`); default Ascend310P3")
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per launch, and for the whole run (+10 s); default: each launch's watchdog scales with its GM "
        "and blocks (docs/emulator.md, Time-outs)",
    )
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
