"""msOpST case files (workbench/sweeps/msopst/, docs/msopst.md): the fixtures in tests/msopst/ are written from
msOpST's published field table; import expands them as msOpST does, names what it cannot honour, skips what the op
refuses and refuses what msOpST would; export writes only documented fields and round-trips."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from workbench.core.errors import InvalidInput
from workbench.sweeps.msopst import MsopstImport, read_msopst, write_msopst
from workbench.sweeps.msopst.format import CASE_FIELDS, DATA_DISTRIBUTES, INPUT_FIELDS, msopst_draws
from workbench.sweeps.points import Point, grid

FILES = Path(__file__).parent / "msopst"
DOC = Path(__file__).resolve().parents[1] / "docs" / "msopst.md"
EDG, SCE = "embedding_dense_grad", "softmax_cross_entropy_with_logits"


def labels(imported: MsopstImport) -> list[str]:
    return [p.label() for p in imported.points]


def one(lines: tuple[str, ...] | list[str], *parts: str) -> str:
    """The one line that contains every part (fails naming the lines when there is none or several)."""
    hits = [line for line in lines if all(p in line for p in parts)]
    assert len(hits) == 1, (parts, lines)
    return hits[0]


# -- import ---------------------------------------------------------------------------------------------------------
def test_cast_lists_expand_as_msopst_does() -> None:
    """Per tensor the product (format, shape, type, ...), format first; sub-case i pairs input and output i."""
    got = read_msopst(FILES / "Cast_case.json")
    first = [p for p, o in zip(got.points, got.origins, strict=True) if o.startswith("Test_Cast_001[")]
    assert [(p.case.dtypes, p.case.shape) for p in first] == [
        (("float16", "float32"), (4, 8)),
        (("float32", "float16"), (4, 8)),
        (("float16", "float32"), (2, 3, 5)),
        (("float32", "float16"), (2, 3, 5)),
    ]
    assert {p.distribution for p in first} == {"uniform"}  # [-60000, 60000] is cast's own range: nothing reported
    assert not [u for u in got.unsupported if "Test_Cast_001" in u]
    assert got.origins[:4] == tuple(f"Test_Cast_001[{i}]" for i in range(4))


def test_cast_fields_map_to_the_case() -> None:
    got = read_msopst(FILES / "Cast_case.json")
    by_origin = dict(zip(got.origins, got.points, strict=True))
    normal = by_origin["Test_Cast_002[0]"]  # scalar strings, attr dst_type int 2 = int8
    assert normal.case == wb.Case("cast", "int32:int8", (16, 16)) and normal.distribution == "normal"
    seeded = by_origin["Test_Cast_006_seed42[0]"]
    assert seeded.seed == 42 and seeded.case.shape == () and seeded.case.dtypes == ("bool", "float32")
    assert all(p.seed == 0 for o, p in by_origin.items() if "seed42" not in o)


def test_cast_unsupported_values_are_named() -> None:
    got = read_msopst(FILES / "Cast_case.json")
    vr = one(got.unsupported, "Test_Cast_003", "value_range")
    assert "input_desc[0].value_range [-5, 5]" in vr and "[-60000.0, 60000.0]" in vr and "docs/msopst.md" in vr
    laplace = one(got.unsupported, "Test_Cast_004", "laplace")
    assert "'default' is used" in laplace
    assert dict(zip(got.origins, got.points, strict=True))["Test_Cast_004[0]"].distribution == "default"
    one(got.unsupported, "Test_Cast_005", "expect 'failed'")
    one(got.unsupported, "Test_Cast_006_seed42", "error_threshold [0.001, 0.001]")
    one(got.unsupported, "Test_Cast_006_seed42", "calc_expect_func_file")


def test_refused_dtypes_are_skipped_with_the_op_reason() -> None:
    got = read_msopst(FILES / "Cast_case.json")
    reasons = {(s.case, s.index): s.reason for s in got.skipped}
    assert set(reasons) == {("Test_Cast_005", 0), ("Test_Cast_005", 1)}
    bf16, uint16 = reasons[("Test_Cast_005", 0)], reasons[("Test_Cast_005", 1)]
    assert "float32:bfloat16" in bf16 and "BF16 is a source only" in bf16
    assert "input_desc[0].type" in uint16 and "uint16" in uint16
    assert str(got.skipped[0]).startswith("case Test_Cast_005 sub-case 0: ")


def test_embedding_dense_grad_file() -> None:
    got = read_msopst(FILES / "EmbeddingDenseGrad_case.json")
    first, second = got.points
    attrs = {"num_weights": 100, "padding_idx": 3, "scale_grad_by_freq": True}
    assert first == Point(wb.Case(EDG, "float32:int32", (64, 16), attrs=attrs), 0, "normal")
    one(got.unsupported, "EmbeddingDenseGrad 'normal'", "random order")  # once per file, not per case
    assert second.case.shape == (2, 32, 16) and second.case.attrs["padding_idx"] == -1
    assert second.distribution == "default"
    assert "[2, 32]" in one(got.unsupported, "Test_EmbeddingDenseGrad_002", "input_desc[1].shape [64]")
    one(got.unsupported, "Test_EmbeddingDenseGrad_002", "data_distribute")
    (skip,) = got.skipped
    assert (skip.case, skip.index) == ("Test_EmbeddingDenseGrad_003", 0) and "float32:int32" in skip.reason


def test_softmax_cross_entropy_file_crosses_formats_and_shapes() -> None:
    """formats [ND, NCHW] x shapes [[8,5], [2,5,3,4]]: the op takes the two that agree and refuses the others."""
    got = read_msopst(FILES / "SoftmaxCrossEntropyWithLogits_case.json")
    assert labels(got)[:2] == [
        "softmax_cross_entropy_with_logits[float16 8x5 ND @Ascend910B3] seed=0 raw",
        "softmax_cross_entropy_with_logits[float16 2x5x3x4 NCHW @Ascend910B3] seed=0 raw",
    ]
    assert [(s.index, "rank" in s.reason) for s in got.skipped] == [(1, True), (2, True)]
    bf16, f32 = got.points[2:]
    assert (bf16.case.dtypes, f32.case.dtypes) == (("bfloat16",), ("float32",))
    assert bf16.distribution == f32.distribution == "default"
    assert "softmax [0, 1]" in one(got.unsupported, "Test_SoftmaxCrossEntropyWithLogits_002", "data_distribute")


def test_unknown_op_is_skipped_and_op_names_maps_it() -> None:
    got = read_msopst(FILES / "AddCustom_case.json")
    assert not got.points and [s.case for s in got.skipped] == ["Test_AddCustom_001", "Test_CastCustom_001"]
    assert "AddCustom" in got.skipped[0].reason and "op_names" in got.skipped[0].reason and got.skipped[0].index == -1
    mapped = read_msopst(FILES / "AddCustom_case.json", op_names={"CastCustom": "cast"})
    assert labels(mapped) == ["cast[float16:float32 8x64 ND @Ascend310P3] seed=0 uniform"]
    with pytest.raises(InvalidInput, match=r"op_names\['X'\]"):
        read_msopst(FILES / "AddCustom_case.json", op_names={"X": "add"})


def test_dynamic_value_and_fuzz_cases() -> None:
    got = read_msopst(FILES / "Cast_extras_case.json")
    dynamic, value = got.points
    assert dynamic.case.shape == (16, 8) and dynamic.distribution == "normal"  # typical_shape is run
    one(got.unsupported, "Test_Cast_dynamic", "input_desc[0].shape [-1, 8]", "typical_shape [16, 8]")
    one(got.unsupported, "Test_Cast_dynamic", "shape_range")
    one(got.unsupported, "Test_Cast_dynamic", "param_type", "not a msOpST input_desc field")
    assert not [u for u in got.unsupported if "ori_format" in u]  # ori_* equal to format/shape change nothing
    assert value.distribution == "default"
    for field in ("st_mode 'pt_python_train'", "run_torch_api", "input_desc[0].value [1, 2, 3, 4]", "is_const"):
        one(got.unsupported, "Test_Cast_value", field)
    (fuzz,) = got.skipped
    assert fuzz.case == "Test_Cast_fuzz" and "fuzz" in fuzz.reason


def test_platform_seed_and_text_sources() -> None:
    text = (FILES / "SoftmaxCrossEntropyWithLogits_case.json").read_text()
    got = read_msopst(text, platform="ascend910b1", seed=5)
    assert {p.case.platform for p in got.points} == {"Ascend910B1"} and {p.seed for p in got.points} == {5}
    assert read_msopst(json.loads(text)).points == read_msopst(FILES / "SoftmaxCrossEntropyWithLogits_case.json").points


# -- files msOpST would refuse ----------------------------------------------------------------------------------------
def test_bad_json_names_the_place() -> None:
    with pytest.raises(InvalidInput, match=r"bad_syntax_case\.json: got 'line 7 column 9"):
        read_msopst(FILES / "bad_syntax_case.json")


def test_missing_required_field_names_case_and_field() -> None:
    with pytest.raises(InvalidInput, match=r"case Test_Cast_001: input_desc\[0\]\.shape: got None"):
        read_msopst(FILES / "missing_shape_case.json")


def base_case() -> dict[str, Any]:
    return json.loads((FILES / "Cast_case.json").read_text())[0]


def edited(path: str, value: Any) -> list[dict[str, Any]]:
    """Cast_case.json's first case with the field at `path` ("input_desc.0.shape") set (or deleted: ...)."""
    case = copy.deepcopy(base_case())
    *parents, last = path.split(".")
    node: Any = case
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    if value is ...:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return [case]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("op", ..., r"case Test_Cast_001: op: got None"),
        ("output_desc", ..., r"case Test_Cast_001: output_desc: got None"),
        ("input_desc.0.data_distribute", ["gamma"], r"input_desc\[0\]\.data_distribute: got 'gamma'; allowed: uniform"),
        ("input_desc.0.type", ["float64"], r"input_desc\[0\]\.type: got 'float64'"),
        ("input_desc.0.value_range", [[5, -5]], r"input_desc\[0\]\.value_range"),
        ("input_desc.0.shape", [4, 0], r"input_desc\[0\]\.shape: got \[4, 0\]"),
        ("input_desc.0.shape", [[4, 8], 3], r"not a mix"),
        ("input_desc.0.shape", [-1, 8], r"input_desc\[0\]\.typical_shape: got None"),
        ("input_desc.0.format", [], r"input_desc\[0\]\.format: got \[\]"),
        ("output_desc.0.type", ["float"], r"output_desc\[0\]\.type: got \['float'\]; allowed: 2 values"),
        ("output_desc.0.format", ["ND", "ND"], r"output_desc\[0\]\.format"),
        ("input_desc.0.ori_format", ["ND"], r"input_desc\[0\]\.ori_shape: got None; allowed: given together"),
        ("expect", "maybe", r"expect: got 'maybe'; allowed: success, failed"),
        ("attr", [{"name": "dst_type", "type": "enum", "value": 1}], r"attr\[0\]\.type: got 'enum'"),
        ("attr", [{"name": "dst_type", "type": "int", "value": "1"}], r"attr\[0\]\.value: got '1'"),
        ("attr", [{"name": "dst_type", "type": "int"}], r"attr\[0\]\.value: got None"),
        ("error_threshold", [0.5, 2], r"error_threshold"),
    ],
)
def test_files_msopst_refuses_raise(path: str, value: Any, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        read_msopst(edited(path, value))


def test_structural_refusals() -> None:
    with pytest.raises(InvalidInput, match="a JSON list of msOpST case objects"):
        read_msopst({"case_name": "x"})
    with pytest.raises(InvalidInput, match=r"case #1: case_name: got None"):
        read_msopst([{"op": "Cast"}])
    with pytest.raises(InvalidInput, match="a name no other case of the file has"):
        read_msopst([base_case(), base_case()])
    with pytest.raises(InvalidInput, match="an existing msOpST case file"):
        read_msopst(FILES / "no_such_case.json")
    with pytest.raises(InvalidInput, match="a name no other attr"):
        read_msopst(edited("attr", [{"name": "a", "type": "int", "value": 1}] * 2))


def test_counts_pair_inputs_by_position() -> None:
    two_inputs = json.loads((FILES / "EmbeddingDenseGrad_case.json").read_text())[:1]
    two_inputs[0]["input_desc"][1]["value_range"] = [[0, 100], [0, 50]]
    with pytest.raises(InvalidInput, match=r"input_desc\[1\]\.value_range: got \[\(0, 100\), \(0, 50\)\]; allowed: 1"):
        read_msopst(two_inputs)


# -- export and round trip --------------------------------------------------------------------------------------------
def representable() -> list[Point]:
    """Every op with every distribution that has a msOpST form, several seeds, shapes and attributes."""
    points = list(grid("cast", shapes=[(4, 8), ()], distributions=["uniform", "normal"], seeds=[0, 3]).points)
    points += grid(
        EDG,
        shapes=[(6, 8), (2, 3, 4)],
        attrs={"num_weights": [10], "padding_idx": [-1, 2], "scale_grad_by_freq": [False, True]},
        distributions=["normal"],
    ).points
    points += grid(SCE, shapes=[(8, 5), (2, 5, 3, 4)], distributions=["raw"], seeds=[0, 9]).points
    return [p for p in points if msopst_draws(p.case, p.distribution) is not None]


def test_round_trip_of_representable_points(tmp_path: Path) -> None:
    points = representable()
    assert len(points) > 200 and {p.case.op for p in points} == {"cast", EDG, SCE}
    export = write_msopst(points, tmp_path / "all_case.json")
    assert export.unrepresentable == (
        "EmbeddingDenseGrad 'normal': input_desc[1] (indices): msOpST draws them in random order, the workbench's "
        "'normal' sorts them (any order is correct, docs/ops/embedding_dense_grad.md DECISION-EDG-1)",
    )
    back = read_msopst(tmp_path / "all_case.json")
    assert back.points == tuple(points) and not back.skipped
    assert [u for u in back.unsupported if "EmbeddingDenseGrad 'normal'" not in u] == []
    assert json.loads((tmp_path / "all_case.json").read_text()) == export.to_json()


def test_export_writes_documented_fields_only() -> None:
    point = Point(wb.Case(EDG, "float32", (6, 8), attrs={"num_weights": 10}), 4, "normal")
    (case,) = write_msopst([point]).cases
    assert set(case) <= set(CASE_FIELDS) and all(set(t) <= set(INPUT_FIELDS) for t in case["input_desc"])
    assert case == {
        "case_name": "Test_EmbeddingDenseGrad_001_seed4",
        "op": "EmbeddingDenseGrad",
        "input_desc": [
            {
                "name": "grad",
                "format": ["ND"],
                "type": ["float"],
                "shape": [6, 8],
                "data_distribute": ["normal"],
                "value_range": [[0, 1]],
            },
            {
                "name": "indices",
                "format": ["ND"],
                "type": ["int32"],
                "shape": [6],
                "data_distribute": ["uniform"],
                "value_range": [[0, 10]],
            },
        ],
        "output_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [10, 8]}],
        "attr": [
            {"name": "num_weights", "type": "int", "value": 10},
            {"name": "padding_idx", "type": "int", "value": -1},
            {"name": "scale_grad_by_freq", "type": "bool", "value": False},
        ],
    }
    cast = write_msopst(wb.Case("cast", "float32:float16", (8,))).cases[0]
    assert cast["attr"] == [{"name": "dst_type", "type": "int", "value": 1}]
    assert cast["input_desc"][0]["value_range"] == [[-60000.0, 60000.0]]


def test_unrepresentable_points_are_named() -> None:
    default = Point(wb.Case("cast", "float16:float32", (8,)))
    platform = Point(wb.Case(SCE, "float32", (4, 3), platform="Ascend910B1"), 0, "raw")
    empty = Point(wb.Case("cast", "float16:float32", (0, 8)), 0, "uniform")
    export = write_msopst([default, platform, empty])
    assert len(export.cases) == 2  # the empty shape is left out
    gaps = export.unrepresentable
    assert "written as cast's 'uniform'" in one(gaps, default.label(), "distribution 'default'")
    assert "msopst run -soc Ascend910B1" in one(gaps, platform.label(), "platform Ascend910B1")
    assert "left out" in one(gaps, empty.label(), "dimensions > 0")
    cast_json, sce_json = export.to_json()
    assert read_msopst([sce_json], platform="Ascend910B1").points == (platform,)
    assert read_msopst([cast_json]).points == (Point(default.case, 0, "uniform"),)  # the nearest msOpST form
    on_910b = read_msopst([cast_json], platform="Ascend910B1")  # a platform the op does not target: skipped
    assert not on_910b.points and "Ascend310P" in on_910b.skipped[0].reason


def test_export_of_sweep_rows_sets_expect(tmp_path: Path) -> None:
    points = representable()[:4]
    rows = [
        {
            "op": p.case.op,
            "dtypes": ":".join(p.case.dtypes),
            "shape": "x".join(map(str, p.case.shape)) or "scalar",
            "format": p.case.format,
            "attrs": json.dumps(dict(p.case.attrs)),
            "platform": p.case.platform,
            "seed": p.seed,
            "distribution": p.distribution,
            "status": status,
            "max_ulp": 3,
        }
        for p, status in zip(points, ["pass", "fail", "fault", "error"], strict=True)
    ]
    export = write_msopst(rows)
    assert [c["expect"] for c in export.cases] == ["success", "failed", "failed", "failed"]
    assert read_msopst(export.to_json()).points == tuple(points)
    pd = pytest.importorskip("pandas")
    frame = write_msopst(pd.DataFrame(rows))
    assert frame.cases == export.cases
    with pytest.raises(InvalidInput, match=r"row 0: dtypes"):
        write_msopst([{"op": "cast", "shape": "8"}])


def test_export_path_is_checked_first(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="msopst file"):
        write_msopst(representable()[:1], tmp_path / "missing" / "x_case.json")
    with pytest.raises(InvalidInput, match="points_or_rows"):
        write_msopst(42)


def test_an_imported_point_runs() -> None:
    from workbench.sweeps.tasks import make_task, run_task

    got = read_msopst(FILES / "Cast_case.json")
    point = dict(zip(got.origins, got.points, strict=True))["Test_Cast_001[0]"]
    row = run_task(make_task(point, "emu", None, None, None))
    assert row["status"] == "pass" and row["distribution"] == "uniform" and row["dtypes"] == "float16:float32"


def test_docs_name_every_field_and_distribution() -> None:
    text = DOC.read_text()
    missing = [f for f in (*CASE_FIELDS, *INPUT_FIELDS, *DATA_DISTRIBUTES) if f"`{f}`" not in text]
    assert not missing, f"docs/msopst.md does not mention {missing}"
    assert re.search(r"https://www\.hiascend\.com/\S+atlasopdev_16_0032\.html", text)
