"""The EmbeddingDenseGrad kernel reads no sort_indices past the N indices it is given (D % 8 == 0 paths).

310P has no DataCopyPad, so the index tiles move whole 8-index blocks. The last tile used to be rounded up from
the row it started at, reading up to 28 B past sort_indices into the allocation slack (GM_SLACK_ACCESS and
GM_LOGICAL_OOB warnings on the worked example 16x64, num_weights=10, padding_idx=3, scale_grad_by_freq). The tile
is now stepped back to end at or before the last index (N >= 8), or read with scalar loads (N < 8); the outputs
are the same bits as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.ops.embedding_dense_grad.golden import golden as edg_golden
from workbench.running.emu import In, Out, Workspace, load

OVERREAD = {"GM_SLACK_ACCESS", "GM_LOGICAL_OOB", "GM_OOB"}


def case(shape: tuple[int, ...], nw: int, pad: int = -1, scale: bool = False) -> wb.Case:
    attrs = {"num_weights": nw, "padding_idx": pad, "scale_grad_by_freq": scale}
    return wb.Case("embedding_dense_grad", ("float32", "int32"), shape, attrs=attrs)


def test_the_worked_example_runs_without_any_warning() -> None:
    """`workbench run embedding_dense_grad --dtype float32 --shape 16,64 --attr num_weights=10 --attr padding_idx=3
    --attr scale_grad_by_freq=true --distribution default`: passes, and prints no warning."""
    result = wb.run(case((16, 64), 10, pad=3, scale=True), backend="emu", seed=0, distribution="default")
    assert result.passed
    loud = [str(d) for d in result.diagnostics if d.severity not in ("info",)]
    assert loud == [], "\n".join(loud)


@pytest.mark.parametrize(
    ("shape", "nw", "scale"),
    [
        ((16, 64), 10, True),  # the worked example: cores 5-7 read their last tile past the 16 indices before
        ((16, 64), 10, False),
        ((13, 64), 10, True),  # N % 8 != 0
        ((5, 64), 3, True),  # N < 8: no 8-index block fits in sort_indices
        ((1, 8), 2, False),
        ((100, 24), 30, True),
        ((2050, 8), 1000, False),  # 2048-index tiles: the second tile of the last core is short
        ((6000, 8), 50, True),
    ],
)
def test_no_index_tile_reads_past_sort_indices(shape: tuple[int, ...], nw: int, scale: bool) -> None:
    c = case(shape, nw, pad=min(1, nw - 1), scale=scale)
    info = wb.OPS["embedding_dense_grad"].kernel(c)  # type: ignore[misc]
    kernel = load(resources.path(info.source), info.entry, "Ascend310P3", info.defines)
    data = wb.make_inputs(c, seed=3, distribution="uniform")
    plan = wb.plan(c)
    out = np.empty((plan.fields["numWeights"], plan.fields["dimSize"]), np.float32)
    run = kernel[plan.block_dim](
        In(np.ascontiguousarray(data["grad"], np.float32)),
        In(np.ascontiguousarray(data["sort_indices"], np.int32)),
        Out(out, fill=0),
        workspace=Workspace(plan.workspace_bytes, fill=0),
        tiling=plan.tiling_bytes(),
        tiling_key=plan.tiling_key,
    )
    assert run.exit_code == 0, [str(d) for d in run.diagnostics]
    over = [str(d) for d in run.diagnostics if d.kind in OVERREAD]
    assert over == [], "\n".join(over)
    report = wb.compare(out, edg_golden(c, data)["out"], "float32", "double_thousandth")
    assert report, report.text()
