"""Fuzzing the two front doors, the CLI and the Python API, with hypothesis.

Invariants: the CLI's exit status is 0, 1, 2 or 3 and nothing escapes `main` (no traceback); a rejection
(exit 2) is one line on stderr naming the field. The API raises nothing but WorkbenchError. A few hundred
examples run by default (derandomized, so CI sees the same ones); `-m slow` runs 10,000 of each and prints
the counts.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench.judge.compare import STANDARDS
from workbench.view.cli import main

OPS = list(wb.OPS)
# Kernel variants the suite builds anyway (demo, kernel tests): a fuzzed run never waits on a cold g++ build.
BUILT = {
    "cast": ["float32:float16", "bfloat16:int8"],
    "embedding_dense_grad": ["float32"],
    "softmax_cross_entropy_with_logits": ["float32", "float16"],
}
DTYPE_NAMES = ["float32", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool", "fp16", "f32"]
WEIRD = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
HUGE = st.sampled_from([2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30, -1, -(2**63)])
# rejections name a field: ours ("field: got ...; allowed: ...") or argparse's ("error: ... argument X ...")
REJECTION = re.compile(r"^workbench: (?:error: .+|[^:\n]+: got .+; allowed: .+)$")
FUZZ_MAX_MEMORY = "256M"  # bounds how long a fuzzed valid run can take


def mostly(valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`valid` seven times in eight: enough valid cases get through to the tiling and the kernel."""
    return st.integers(0, 7).flatmap(lambda k: valid if k else invalid)


def _size(ok: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    return mostly(ok.map(str), st.one_of(HUGE.map(str), WEIRD))


@st.composite
def case_flags(draw: st.DrawFn, for_run: bool) -> list[str]:
    op = draw(mostly(st.sampled_from(OPS), st.one_of(st.sampled_from(OPS).map(str.upper), WEIRD)))
    known = wb.OPS.get(op)
    names = st.lists(st.one_of(st.sampled_from(DTYPE_NAMES), WEIRD), max_size=3).map(":".join)
    if known is None:
        dtype = draw(names)
    else:
        matrix = BUILT[known.name] if for_run else [":".join(d) for d in known.dtype_matrix]
        dtype = draw(mostly(st.sampled_from(matrix), names))
    dim = st.integers(1, 64) if for_run else st.integers(0, 5000)
    dims = st.lists(mostly(dim, HUGE), min_size=1, max_size=4 if known and known.name != "embedding_dense_grad" else 2)
    shape = draw(mostly(dims.map(lambda d: ",".join(map(str, d))), st.one_of(WEIRD, st.just("4,,5"))))
    argv = [op, "--dtype", dtype, "--shape", shape]
    attr_names = [a.name for a in known.attrs] if known and known.attrs else ["num_weights"]
    if known is not None and known.name == "embedding_dense_grad" and draw(mostly(st.just(True), st.just(False))):
        argv += ["--attr", f"num_weights={draw(_size(st.integers(1, 100)))}"]
    for _ in range(draw(st.integers(0, 2))):
        name = draw(mostly(st.sampled_from(attr_names), WEIRD))
        value = draw(mostly(_size(st.integers(-5, 200)), st.sampled_from(["true", "false", "1.5", ""])))
        argv += ["--attr", draw(mostly(st.just(f"{name}={value}"), st.sampled_from([name, f"={value}"])))]
    if draw(st.booleans()):
        argv += [
            "--format",
            draw(mostly(st.sampled_from(["ND", "nchw", "NCHW", ""]), st.one_of(st.just("NHWC"), WEIRD))),
        ]
    if draw(st.booleans()):
        plats = ["Ascend310P3", "ascend310p", "Ascend910B2", "ASCEND910B3", "Ascend910"]
        argv += ["--platform", draw(mostly(st.sampled_from(plats), WEIRD))]
    return argv


@st.composite
def cli_argv(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(["ops", "platforms", "tiling", "tiling", "run", "bogus"]))
    argv: list[str] = [command]
    if command == "ops":
        argv += draw(st.lists(st.one_of(st.sampled_from(OPS), WEIRD), max_size=1))
    elif command in ("tiling", "run"):
        argv += draw(case_flags(command == "run"))
    if command == "run":
        if draw(st.booleans()):
            argv += ["--seed", draw(_size(st.integers(0, 2**64)))]
        if draw(st.booleans()):
            dists = ["default", "uniform", "normal", "edges", "zipf", "large", "exhaustive"]
            argv += ["--distribution", draw(mostly(st.sampled_from(dists), WEIRD))]
        if draw(st.booleans()):
            argv += ["--standard", draw(mostly(st.sampled_from(list(STANDARDS)), WEIRD))]
        if draw(st.booleans()):
            argv += ["--backend", draw(mostly(st.just("emu"), st.sampled_from(["npu", "EMU", ""])))]
        argv += ["--quiet", "--max-memory", FUZZ_MAX_MEMORY]
    if draw(st.booleans()):
        argv.append("--json")
    return argv


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own exits (usage errors: 2)
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def check_cli(argv: list[str], tally: Counter[str]) -> None:
    code, out, err = cli(argv)
    assert code in (0, 1, 2, 3), (argv, code, err)
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    if code == 2:
        last = err.strip().split("\n")[-1]  # a rejection is one line; it may quote any character
        assert REJECTION.match(last), (argv, err)
    tally[f"{argv[0]} exit {code}"] += 1


# -- the API ---------------------------------------------------------------------------------------

ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.floats(allow_nan=True),
    WEIRD,
    st.binary(max_size=4),
    st.lists(st.integers(-3, 10**20), max_size=4),
    st.dictionaries(WEIRD, st.integers(), max_size=2),
    st.builds(np.int64, st.integers(-(2**63), 2**63 - 1)),
)


@st.composite
def api_call(draw: st.DrawFn) -> tuple[str, Callable[[], object]]:
    op = draw(mostly(st.sampled_from(OPS), ANY))
    known = wb.OPS.get(op) if isinstance(op, str) else None
    matrix = [list(d) for d in known.dtype_matrix] if known is not None else [["float32"]]
    dtypes = draw(mostly(st.sampled_from(matrix), ANY))
    shape = draw(mostly(st.lists(mostly(st.integers(1, 64), HUGE), min_size=1, max_size=2), ANY))
    nw = st.fixed_dictionaries({"num_weights": mostly(st.integers(1, 100), ANY)})
    attrs = draw(mostly(nw if known is not None and known.name == "embedding_dense_grad" else st.just({}), ANY))
    platform = draw(mostly(st.just(""), ANY))
    fmt = draw(mostly(st.just(""), ANY))
    what = draw(st.sampled_from(["case", "plan", "inputs", "golden", "compare"]))
    names = st.sampled_from(["x", "features", "labels", "grad", "sort_indices", "y"])
    arrays = st.builds(np.zeros, st.integers(0, 6), st.sampled_from([np.float32, np.float16, np.int32, np.int64]))
    given_inputs = draw(mostly(st.none(), st.one_of(ANY, st.dictionaries(names, arrays, max_size=3))))
    draw_dtype = draw(st.booleans())
    seed = draw(mostly(st.integers(0, 2**64 - 1), ANY))
    dist, std = draw(mostly(st.none(), ANY)), draw(mostly(st.sampled_from([None, *STANDARDS]), ANY))

    def call() -> object:
        case = wb.Case(op, dtypes, shape, fmt, attrs, platform)
        if what == "plan":
            return wb.plan(case)
        if what == "inputs":
            return wb.make_inputs(case, seed, dist, max_memory=FUZZ_MAX_MEMORY)
        if what == "golden":
            data = wb.make_inputs(case, max_memory=FUZZ_MAX_MEMORY) if given_inputs is None else given_inputs
            return wb.golden(case, data)
        a = np.zeros(3, np.float32)
        return wb.compare(a, a, case.dtypes[-1] if draw_dtype else "float32", std)

    return what, call


def check_api(call: tuple[str, Callable[[], object]], tally: Counter[str]) -> None:
    what, fn = call
    try:
        fn()
        tally[f"{what} accepted"] += 1
    except wb.WorkbenchError as exc:
        assert exc.field and str(exc).startswith(f"{exc.field}: got "), str(exc)
        tally[f"{what} rejected"] += 1


def _fuzz(strategy: st.SearchStrategy[Any], check: Callable[[Any, Counter[str]], None], n: int) -> Counter[str]:
    tally: Counter[str] = Counter()

    @settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(strategy)
    def run(example: Any) -> None:
        check(example, tally)

    run()
    return tally


def test_fuzz_cli() -> None:
    tally = _fuzz(cli_argv(), check_cli, 300)
    assert sum(tally.values()) >= 300, tally
    assert (
        tally["tiling exit 2"] and tally["tiling exit 0"] >= 10 and tally["run exit 2"] and tally["run exit 0"] >= 5
    ), tally


def test_fuzz_api() -> None:
    tally = _fuzz(api_call(), check_api, 300)
    assert sum(tally.values()) >= 300 and tally["case rejected"] and tally["plan accepted"], tally


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "strategy", "check"), [("cli", cli_argv(), check_cli), ("api", api_call(), check_api)]
)
def test_fuzz_10000(name: str, strategy: Any, check: Any, capsys: pytest.CaptureFixture[str]) -> None:
    tally = _fuzz(strategy, check, 10_000)
    with capsys.disabled():
        print(
            f"\nfuzz {name}: {sum(tally.values())} examples: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items()))
        )
    assert sum(tally.values()) >= 10_000
