"""Arrays a caller hands to run()/golden() are checked before anything runs: names, dtypes, shapes."""

from __future__ import annotations

import numpy as np
import pytest

import workbench as wb

CAST = wb.Case("cast", ("float32", "float16"), (100,))
SCE = wb.Case("softmax_cross_entropy_with_logits", ("float32",), (4, 6))
EDG = wb.Case("embedding_dense_grad", ("float32",), (2, 3, 16), attrs={"num_weights": 6})


@pytest.mark.parametrize(
    ("case", "inputs", "field"),
    [
        (CAST, {}, "inputs"),
        (CAST, {"y": np.zeros(100, np.float32)}, "inputs"),
        (CAST, {"x": np.zeros(100, np.float32), "z": np.zeros(1)}, "inputs"),
        (CAST, {"x": np.zeros(3, np.float32)}, "x.shape"),
        (CAST, {"x": np.zeros(100, np.float64)}, "x.dtype"),
        (CAST, 5, "inputs"),
        (SCE, {"features": np.zeros((6, 4), np.float32), "labels": np.zeros((4, 6), np.float32)}, "features.shape"),
        (SCE, {"features": np.zeros((4, 6), np.float32), "labels": np.zeros((4, 6), np.float16)}, "labels.dtype"),
        (EDG, {"grad": np.zeros((2, 3, 16), np.float32), "sort_indices": np.zeros(5, np.int32)}, "sort_indices.shape"),
    ],
)
def test_bad_arrays_name_the_field(case: wb.Case, inputs: object, field: str) -> None:
    for call in (lambda: wb.run(case, inputs=inputs), lambda: wb.golden(case, inputs)):  # type: ignore[arg-type]
        with pytest.raises(wb.WorkbenchError) as info:
            call()
        assert info.value.field == field, str(info.value)


def test_flattened_indices_are_accepted() -> None:
    """EmbeddingDenseGrad takes sort_indices of any shape with N elements (docs/ops/embedding_dense_grad.md §1)."""
    data = wb.make_inputs(EDG)
    flat = {**data, "sort_indices": data["sort_indices"].reshape(-1)}
    assert np.array_equal(wb.golden(EDG, flat)["out"], wb.golden(EDG, data)["out"])
