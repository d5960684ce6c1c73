"""The command line's output reads well for people: one op's view, the op table's JSON, timings with their units,
whole mismatch locations, a shape the shell split, the help of every option, copy-kernel and examples."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.view.cli import build_parser, main

CAST = ["cast", "--dtype", "float32:float16"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (--help: 0)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# -- 1. `workbench ops OP` -------------------------------------------------------------------------------------------


def test_one_op_is_a_readable_view_in_user_terms(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ops", "cast")
    lines = out.splitlines()
    assert code == 0 and len(lines) > 15 and max(map(len, lines)) <= 100, max(map(len, lines))
    for internal in ("dst_type", "Case.dtypes", "check()", "not a user attr", "BF16", "self:"):
        assert internal not in out, internal
    flat = " ".join(out.split())
    assert "the destination dtype, the second dtype of --dtype src:dst" in flat
    assert "inputs: x any rank 0..8" in flat and "outputs: y the shape of x" in flat
    assert "formats (--format): ND" in flat and "platforms (--platform): Ascend310P3" in flat
    assert "dtypes (--dtype src:dst): 60 combinations; per src dtype, the dst dtypes:" in flat
    # the matrix grouped: one line per source dtype, its destinations after it
    assert "    bfloat16  float32, float16, int32, int16, int8, uint8, bool, int64" in lines
    assert "    uint8     float16, float32, int32, int8, int16, int64" in lines


def test_one_op_shows_each_attribute_with_its_doc_and_every_platform(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ops", "embedding_dense_grad")
    flat = " ".join(out.split())
    assert code == 0 and "attributes (--attr NAME=VALUE, repeatable):" in flat
    assert "padding_idx (int, default -1): row kept at zero" in flat
    assert "scale_grad_by_freq (bool, default False): scale row k by 1/count_k" in flat
    assert "--dtype float32 means --dtype float32:int32" in flat
    code, out, _ = run(capsys, "ops", "softmax_cross_entropy_with_logits")
    flat = " ".join(out.split())
    assert "Ascend910B1, Ascend910B2, Ascend910B3, Ascend910B4; without --platform: Ascend910B3" in flat
    assert "formats (--format): ND, NCHW; without --format: NCHW for rank 4, ND otherwise" in flat
    assert "dtypes (--dtype; the dtype of features and labels): float32, float16, bfloat16" in flat


# -- 2. `workbench ops --json` ---------------------------------------------------------------------------------------


def test_the_op_table_json_has_platforms_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ops", "--json")
    ops = {o["name"]: o for o in json.loads(out)}
    assert code == 0 and set(ops) == set(wb.OPS)
    sce = ops["softmax_cross_entropy_with_logits"]
    assert sce["formats"] == ["ND", "NCHW"] and sce["default_platform"] == "Ascend910B3"
    assert sce["platforms"] == ["Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"]
    assert ops["cast"]["platforms"] == ["Ascend310P3"] and ops["cast"]["dtype_combinations"] == 60
    assert "dtypes" not in ops["cast"]  # the table leaves the matrix to `workbench ops cast --json`
    code, out, _ = run(capsys, "ops", "cast", "--json")
    assert json.loads(out)["platforms"] == ["Ascend310P3"] and len(json.loads(out)["dtypes"]) == 60


# -- 3. timings ------------------------------------------------------------------------------------------------------


def test_a_timing_in_seconds_is_never_printed_in_another_unit_under_a_seconds_name() -> None:
    from workbench.view.render.text import timings_text

    timings = {"build_s": 9.1866, "launch_s": 0.0037, "kernel_s": 4.98e-6}
    sources = {"build_s": "host wall", "launch_s": "emulator wall", "kernel_s": "predicted"}
    text = timings_text(timings, sources)
    assert not re.search(r"_s [0-9.]+ (ms|µs)", text), text
    assert text == "build 9.19 s (host wall); launch 3.7 ms (emulator wall); kernel 4.98 µs (predicted)"


# -- 4. the worst-mismatch table -------------------------------------------------------------------------------------


def test_the_worst_table_shows_every_location_whole() -> None:
    case = wb.Case("softmax_cross_entropy_with_logits", ("float32",), (64, 1000))
    plan = wb.plan(case)
    expected = np.zeros((64, 1000), np.float32)
    actual = expected.copy()
    actual[61, 629] = actual[5, 29] = 1.0
    report = wb.compare(actual, expected, "float32", name="backprop", locate=plan.locate)
    text = report.text()
    assert max(map(len, text.splitlines())) <= 120
    flat = " ".join(text.split())
    failing = [e for e in report.worst if e.abs_err]
    assert len(failing) == 2 and all(len(e.location) > 60 for e in failing), [e.location for e in failing]
    for e in report.worst:
        assert " ".join(e.location.split()) in flat, e.location


# -- 5. a shape the shell split --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "shown"),
    [(["64,", "1000"], "64, 1000"), (["64", "1000"], "64 1000"), (["64", ",1000"], "64 ,1000")],
)
@pytest.mark.parametrize("command", ["tiling", "run"])
def test_a_shape_split_by_the_shell_is_one_line_naming_the_shape(
    capsys: pytest.CaptureFixture[str], command: str, shape: list[str], shown: str
) -> None:
    code, out, err = run(capsys, command, "softmax_cross_entropy_with_logits", "--dtype", "float32", "--shape", *shape)
    assert code == 2 and out == "" and "usage" not in err
    assert err == f"workbench: shape: got '{shown}'; allowed: the shape written without spaces: --shape 64,1000\n"


def test_other_unknown_arguments_still_get_argparse_s_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tiling", *CAST, "--shape", "64", "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err


# -- 6 and 8. help ---------------------------------------------------------------------------------------------------


def _parsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(parser.prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _parsers(sub)
    return found


def test_every_option_of_every_command_has_help() -> None:
    parsers = _parsers(build_parser())
    assert len(parsers) > 10
    missing = [
        f"{prog}: {action.option_strings or action.dest}"
        for prog, parser in parsers
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not (action.help or "").strip()
    ]
    assert not missing, missing
    for prog, parser in parsers[1:]:
        assert (parser.description or "").strip(), f"`{prog} --help` says nothing about what it does"


def test_demo_help_says_what_the_demo_does(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "main job" not in flat
    assert "a tour in the terminal: every op's worked examples" in flat and "emulator" in flat


# -- 7. copy-kernel --------------------------------------------------------------------------------------------------


def test_copy_kernel_copies_what_the_case_runs_and_never_replaces_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "my_cast.cpp"
    code, out, err = run(capsys, "copy-kernel", *CAST, "--shape", "1003", str(target))
    assert code == 0 and out == f"{target}\n"
    assert target.read_bytes() == resources.path("kernels/cast/cast_kernel.cpp").read_bytes()
    assert f"workbench run cast --dtype float32:float16 --shape 1003 --kernel {target}" in err
    code, out, err = run(capsys, "copy-kernel", *CAST, "--shape", "1003", str(target))
    assert code == 2 and out == "" and err.startswith("workbench: OUT: got ") and "never replaces" in err
    code, out, _ = run(capsys, "copy-kernel", *CAST, "--shape", "1003", str(tmp_path))  # a folder: its own name
    assert code == 0 and out == f"{tmp_path / 'cast_kernel.cpp'}\n"
    code, _, err = run(capsys, "copy-kernel", *CAST, "--shape", "1003", str(tmp_path / "no" / "k.cpp"))
    assert code == 2 and "an existing folder" in err


def test_a_missing_kernel_file_points_at_copy_kernel(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "mine.cpp")
    case = ["embedding_dense_grad", "--dtype", "float32", "--shape", "8,8", "--attr", "num_weights=4"]
    code, out, err = run(capsys, "run", *case, "--kernel", missing)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"workbench: --kernel: got '{missing}'")
    assert f"`workbench copy-kernel {' '.join(case)} {missing}`" in err and "wb.copy_kernel(case, path)" in err


# -- 10. the shipped examples ----------------------------------------------------------------------------------------


def test_examples_copies_the_shipped_programs_and_keeps_the_user_s_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "ex"
    code, out, err = run(capsys, "examples", "--dir", str(folder))
    assert code == 0 and {Path(p).name for p in out.split()} >= {"add.asc", "add_custom.cpp"}
    assert (folder / "add.asc").read_bytes() == (resources.examples_dir() / "add.asc").read_bytes()
    (folder / "add.asc").write_text("// mine\n")
    code, out, err = run(capsys, "examples", "--dir", str(folder))
    assert code == 0 and (folder / "add.asc").read_text() == "// mine\n" and "kept" in err
    (tmp_path / "file").write_text("")
    code, _, err = run(capsys, "examples", "--dir", str(tmp_path / "file"))
    assert code == 2 and err.startswith("workbench: --dir: got ")
