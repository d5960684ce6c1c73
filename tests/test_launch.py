"""The prepared launch: one backend-neutral description of a kernel run, built once per run from the op's spec."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.running import backends
from workbench.running.launch import POISON, Diagnostic, prepare

CASES = [
    wb.Case("cast", ("float32", "float16"), (1003,)),
    wb.Case("embedding_dense_grad", ("float32", "int32"), (64, 24), attrs={"num_weights": 10}),
    wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8, 100)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.op)
def test_prepare_fixes_args_roles_fills_workspace_and_tiling(case: wb.Case) -> None:
    plan, inputs = wb.plan(case), wb.make_inputs(case)
    launch = prepare(case, plan, inputs)
    spec, info = case.spec, case.spec.kernel(case)  # type: ignore[misc]
    assert [a.name for a in launch.args] == list(info.args)  # the kernel's parameter order
    for a in launch.args:
        if a.role == "input":
            assert np.array_equal(a.array, inputs[a.name]) and not a.array.flags.writeable and a.fill is None
        else:
            desc = spec.describe(case)[a.name]
            assert a.role == "output" and a.array.shape == desc.shape and a.fill == info.output_fill  # type: ignore[union-attr]
    assert set(launch.outputs) == {t.name for t in spec.outputs}
    assert launch.tiling == plan.tiling_bytes() and launch.tiling_key == plan.tiling_key
    assert (launch.block_dim, launch.workspace_bytes) == (plan.block_dim, plan.workspace_bytes)
    assert launch.source == resources.path(info.source) and launch.include_dirs == () and not launch.edited


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.op)
def test_outputs_start_as_poison_on_the_host_too(case: wb.Case) -> None:
    """Whatever memory the allocation held (zeros, a previous run's values), an output no completed launch wrote
    back holds the poison byte: NaN for floats, -1 for signed integers, never a golden."""
    launch = prepare(case, wb.plan(case), wb.make_inputs(case))
    for name, out in launch.outputs.items():
        assert out.size and (out.reshape(-1).view(np.uint8) == 0xFF).all(), name


def test_an_edited_copy_keeps_the_shipped_folder_on_the_include_path(tmp_path: Path) -> None:
    case = CASES[0]
    copy = wb.copy_kernel(case, tmp_path)
    launch = prepare(case, wb.plan(case), wb.make_inputs(case), copy)
    assert launch.edited and launch.source == copy and launch.include_dirs == (resources.path("kernels/cast"),)


def test_no_launch_leaves_zeroed_outputs_on_every_backend() -> None:
    # N == 0 rows of grad but 5 embedding rows: no launch, and out (5 x 8) is what the launcher memsets, zeros
    case = wb.Case("embedding_dense_grad", ("float32", "int32"), (0, 8), attrs={"num_weights": 5})
    for name in backends.names():
        launch = prepare(case, wb.plan(case), wb.make_inputs(case))
        assert launch.block_dim == 0
        launch.outputs["out"].fill(7)  # whatever the allocation held
        ex = backends.get(name).execute(launch)
        assert ex.exit_code == 0 and ex.diagnostics == () and set(ex.outputs) == {"out"}
        assert ex.outputs["out"].shape == (5, 8) and not ex.outputs["out"].any()


def test_one_diagnostic_type_reads_the_emulator_json_and_judges_faults() -> None:
    d = Diagnostic.from_json(
        {"kind": "UB_TENSOR_OVERRUN", "severity": "error", "core": 3, "file": "/k/a.cpp", "line": 7}
    )
    assert d.is_fault and str(d).startswith("a.cpp:7: error UB_TENSOR_OVERRUN [core 3]")
    assert not Diagnostic.from_json({"kind": "OUTPUT_UNWRITTEN", "severity": "info"}).is_fault
    from workbench.running.emu import POISON as EMU_POISON
    from workbench.running.emu import Diagnostic as EmuDiagnostic

    assert EmuDiagnostic is Diagnostic and EMU_POISON == POISON  # the emulator reports in the same type
