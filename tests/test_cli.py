from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workbench.cli import main


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
