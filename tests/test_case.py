from __future__ import annotations

import pytest

import workbench as wb
from workbench.core.errors import InvalidAttr, InvalidDtype, InvalidFormat, InvalidShape, UnknownName, WorkbenchError


def test_spellings_are_normalised_and_defaults_filled() -> None:
    case = wb.Case("CAST", ("fp32", "half"), "16,2")
    assert (case.op, case.dtypes, case.shape, case.format, case.platform) == (
        "cast",
        ("float32", "float16"),
        (16, 2),
        "ND",
        "Ascend310P3",
    )
    edg = wb.Case("embedding_dense_grad", "f32", (8, 16), attrs={"num_weights": "10"})
    assert edg.dtypes == ("float32", "int32")
    assert dict(edg.attrs) == {"num_weights": 10, "padding_idx": -1, "scale_grad_by_freq": False}
    sce = wb.Case("softmax_cross_entropy_with_logits", "bf16", (2, 3, 4, 5))
    assert sce.format == "NCHW" and sce.platform.startswith("Ascend910B")


def test_case_is_frozen_hashable_and_replaceable() -> None:
    case = wb.Case("embedding_dense_grad", "float32", (8, 16), attrs={"num_weights": 10})
    assert hash(case) == hash(wb.Case("embedding_dense_grad", "float32", (8, 16), attrs={"num_weights": 10}))
    with pytest.raises(AttributeError):
        case.shape = (1,)  # type: ignore[misc]
    with pytest.raises(TypeError, match="read-only"):
        case.attrs["num_weights"] = 3  # type: ignore[index]
    bigger = case.replace(attrs={"num_weights": 20, "scale_grad_by_freq": True})
    assert bigger.attrs["num_weights"] == 20 and case.attrs["num_weights"] == 10
    assert wb.Case(**case.to_json()) == case


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"op": "gelu", "dtypes": "float32", "shape": (1,)}, UnknownName, "op: got 'gelu'; allowed: cast, "),
        ({"op": "cast", "dtypes": ("float32", "float128"), "shape": (1,)}, InvalidDtype, "dtype: got 'float128'"),
        ({"op": "cast", "dtypes": ("float32", "float16"), "shape": (-1,)}, InvalidShape, "non-negative"),
        (
            {"op": "cast", "dtypes": ("float32", "float16"), "shape": (4,), "format": "NCHW"},
            InvalidFormat,
            "format: got 'NCHW'; allowed: ND",
        ),
        (
            {"op": "embedding_dense_grad", "dtypes": "float32", "shape": (4, 4), "attrs": {"num_weights": 4, "pad": 1}},
            InvalidAttr,
            "attr: got 'pad'; allowed: num_weights, padding_idx, scale_grad_by_freq",
        ),
        (
            {
                "op": "embedding_dense_grad",
                "dtypes": "float32",
                "shape": (4, 4),
                "attrs": {"num_weights": 4, "scale_grad_by_freq": "maybe"},
            },
            InvalidAttr,
            "scale_grad_by_freq: got 'maybe'",
        ),
        (
            {"op": "embedding_dense_grad", "dtypes": "float32", "shape": (4, 4), "attrs": {"num_weights": 2.5}},
            InvalidAttr,
            "num_weights: got 2.5; allowed: an integer",
        ),
        (
            {"op": "cast", "dtypes": ("float32", "float16"), "shape": (4,), "platform": "Ascend910B3"},
            WorkbenchError,
            "platform: got 'Ascend910B3'; allowed: cast targets Ascend310P",
        ),
    ],
)
def test_bad_cases_name_field_value_and_allowed(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        wb.Case(**kwargs)
    assert message in str(info.value)
