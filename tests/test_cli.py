from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.view.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_ops_lists_every_op(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ops")
    assert code == 0
    for name in ("cast", "embedding_dense_grad", "softmax_cross_entropy_with_logits"):
        assert name in out


def test_ops_detail_json_has_the_full_cast_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ops", "cast", "--json")
    info = json.loads(out)
    assert code == 0 and len(info["dtypes"]) == 60 and ["bfloat16", "int64"] in info["dtypes"]


def test_platforms_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "platforms")
    assert code == 0 and "Ascend310P3" in out and "saturation" in out
    code, out, _ = run(capsys, "platforms", "--json")
    rows = {p["soc"]: p for p in json.loads(out)}
    assert rows["Ascend910B3"]["core_num"] == 40 and rows["Ascend310P3"]["data_copy_pad"] is False


def test_tiling_json_cast_worked_example_e1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tiling", "cast", "--dtype", "float32:float16", "--shape", "1000000", "--json")
    doc = json.loads(out)
    assert code == 0
    assert set(doc) >= {
        "op",
        "platform",
        "dtypes",
        "shape",
        "tiling_key",
        "tiling_name",
        "block_dim",
        "fields",
        "cores",
        "ub",
        "workspace_bytes",
        "notes",
    }
    assert (doc["tiling_key"], doc["tiling_name"], doc["block_dim"]) == (0, "DIRECT", 8)
    assert doc["fields"]["ubFormer"] == 20992 and doc["platform"] == "Ascend310P3"
    assert doc["ub"]["used"] == 251904 and set(doc["ub"]) >= {"capacity", "used", "buffers"}
    assert sum(c["count"] for c in doc["cores"]) == 1_000_000


def test_tiling_text_is_a_compact_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "tiling",
        "embedding_dense_grad",
        "--dtype",
        "float32",
        "--shape",
        "4096,512",
        "--attr",
        "num_weights=1000",
    )
    assert code == 0
    assert "rowBatchNum" in out and "122" in out and "UB used" in out


def test_tiling_sce_nchw_and_attrs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "tiling", "softmax_cross_entropy_with_logits", "--dtype", "fp16", "--shape", "2,3,4,5", "--json"
    )
    doc = json.loads(out)
    assert code == 0 and doc["format"] == "NCHW" and doc["block_dim"] == 40 and doc["fields"]["aUbNumFactor"] == 16


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tiling", "cast", "--dtype", "float16:int64", "--shape", "8"], "dtype: got 'float16:int64'"),
        (["tiling", "cast", "--dtype", "float32:float16", "--shape", "8,x"], "shape"),
        (["tiling", "nope", "--dtype", "float32", "--shape", "8"], "op: got 'nope'"),
        (["tiling", "cast", "--dtype", "float32:float16", "--shape", "8", "--platform", "Ascend910B3"], "platform"),
        (["tiling", "embedding_dense_grad", "--dtype", "float32", "--shape", "8,8"], "num_weights"),
        (
            ["tiling", "embedding_dense_grad", "--dtype", "float32", "--shape", "8,8", "--attr", "num_weights=ten"],
            "num_weights: got 'ten'",
        ),
        (["tiling", "embedding_dense_grad", "--dtype", "float32", "--shape", "8,8", "--attr", "bogus"], "--attr"),
        (["tiling", "cast"], "required"),
    ],
)
def test_invalid_input_exits_2_with_a_message_and_no_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_console_entry_point_as_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "tiling", "cast", "--dtype", "bf16:int8", "--shape", "100003", "--json"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["fields"]["ubFormer"] == 7424
    bad = subprocess.run(
        [sys.executable, "-m", "workbench", "tiling", "cast", "--dtype", "int8:bfloat16", "--shape", "4"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "bfloat16" in bad.stderr


# -- the edges found by trying the tool as a new user ---------------------------------------------------

CAST = ["cast", "--dtype", "float32:float16"]
EDG = ["embedding_dense_grad", "--dtype", "float32", "--shape", "8,8"]


@pytest.mark.parametrize(
    ("argv", "field", "detail"),
    [
        (["run", *CAST, "--shape", "99999999999999"], "shape", "Elems fits uint32_t"),
        (["run", *CAST, "--shape", "3000000000"], "memory", "--max-memory"),
        (["run", *CAST, "--shape", "100", "--seed", "-1"], "seed", "[0, 18446744073709551615]"),
        (["tiling", *CAST, "--shape", "100000000000000"], "shape", "latterElems fits uint32_t [0, 4294967295]"),
        (["tiling", *CAST, "--shape", "4,,5"], "shape", "comma-separated non-negative integers"),
        (
            ["tiling", *EDG, "--attr", "num_weights=4", "--attr", "num_weights=5"],
            "--attr",
            "'num_weights' is given twice",
        ),
        (["run", *CAST, "--shape", "100", "--backend", "gpu"], "backend", "emu, npu, replay"),
        (["run", *CAST, "--shape", "100", "--max-memory", "lots"], "max_memory", "512M"),
    ],
)
def test_bad_input_is_one_line_naming_the_field(
    capsys: pytest.CaptureFixture[str], argv: list[str], field: str, detail: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"workbench: {field}: got ") and detail in err, err


def test_platform_names_are_case_insensitive_like_dtypes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tiling", *CAST, "--shape", "1000", "--platform", "ascend310p3", "--json")
    assert code == 0 and json.loads(out)["platform"] == "Ascend310P3"


def test_required_attrs_are_shown_as_required(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ops", "embedding_dense_grad")
    assert code == 0 and "    num_weights (int, required): rows of out" in out and "default None" not in out
    code, out, _ = run(capsys, "ops", "embedding_dense_grad", "--json")
    attrs = {a["name"]: a for a in json.loads(out)["attrs"]}
    assert attrs["num_weights"] == {
        "name": "num_weights",
        "type": "int",
        "required": True,
        "doc": "rows of out, 0..INT32_MAX",
    }
    assert attrs["padding_idx"]["default"] == -1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import workbench

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"workbench {workbench.__version__}"


def test_json_keeps_the_kernel_status_apart_from_the_cli_status(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", *CAST, "--shape", "1000", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["kernel_exit_status"] == 0 and "exit_code" not in doc and doc["passed"] is True


WILD_READS = """
    AscendC::GlobalTensor<float> wild;  // planted: a pointer in no GM allocation, read on every core
    wild.SetGlobalBuffer((__gm__ float*)0x1000, 8);
    for (int i = 0; i < 25; ++i) {
        (void)wild.GetValue(0);
        (void)wild.GetValue(1);
        (void)wild.GetValue(2);
    }
"""


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_a_failing_run_piped_into_head_keeps_its_exit_code(tmp_path: Path, json_flag: list[str]) -> None:
    """`workbench run ... | head -c 10`: the verdict was reached before the reader left; only the output is cut.
    The planted faults make the output far larger than a pipe holds, so the writes after head exits fail (EPIPE)."""
    import workbench as wb

    case = wb.Case("cast", ("float32", "float16"), (1003,))
    copy = wb.copy_kernel(case, tmp_path)
    source = copy.read_text()
    entry = source.index("{", source.index('extern "C" __global__ __aicore__ void cast_kernel')) + 1
    copy.write_text(source[:entry] + WILD_READS + source[entry:])
    argv = [sys.executable, "-m", "workbench", "run", "cast", "--dtype", "float32:float16", "--shape", "1003"]
    pipeline = shlex.join([*argv, "--kernel", str(copy), "--quiet", *json_flag]) + " | head -c 10"
    full = subprocess.run(["bash", "-c", pipeline.removesuffix(" | head -c 10")], capture_output=True, text=True)
    assert full.returncode == 3 and len(full.stdout) > 1 << 16, (full.returncode, len(full.stdout))
    piped = subprocess.run(
        ["bash", "-c", pipeline + "; exit ${PIPESTATUS[0]}"], capture_output=True, text=True, cwd=tmp_path
    )
    assert piped.stdout == full.stdout[:10]
    assert piped.returncode == 3, piped.stderr[-2000:]  # the workbench's own status, not head's
    assert "Traceback" not in piped.stderr and "Exception ignored" not in piped.stderr, piped.stderr[-2000:]
