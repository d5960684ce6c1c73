"""The shipped ops on the emulator: the same `workbench.emu.load` path a user's own kernel takes."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import progress, resources
from ..dtypes import np_dtype
from ..emu import In, Out, Workspace, load
from ..errors import WorkbenchError
from ..registry import get_op
from ..tiling import TilingPlan
from . import Execution

# Cores run on two threads, atomic adds in serial order (kernels/emu/README.md "ordered"): serial mode's bits for
# the shipped kernels (EDG adds atomically only before its GM-flag barrier; tests compare the two modes), in
# about half the time where cores do not add atomically.
MODE = "ordered"


def execute(case: Any, plan: TilingPlan, inputs: Mapping[str, np.ndarray], kernel: Path | None = None) -> Execution:
    """Run the op's shipped kernel, or `kernel` (an edited copy: same entry, defines and TilingData; the shipped
    kernel's folder stays on the include path, so its `<op>_tiling.h` is found)."""
    spec = get_op(case.op)
    if spec.kernel is None:
        raise WorkbenchError("backend", "emu", f"an op with a shipped kernel ({case.op} has none yet)")
    info = spec.kernel(case)
    tensors = spec.describe(case)
    outputs = {t.name: np.empty(tensors[t.name].shape, np_dtype(tensors[t.name].dtype)) for t in spec.outputs}
    if plan.block_dim == 0:  # no launch: what the launcher itself leaves in the outputs (spec "Empty" rules)
        for arr in outputs.values():
            arr.fill(0)
        return Execution(outputs, (), {}, {"build_s": 0.0, "run_s": 0.0, "kernel_s": 0.0})
    args = []
    for name in info.args:
        if name in inputs:
            ro = np.ascontiguousarray(inputs[name]).view()
            ro.flags.writeable = False
            args.append(In(ro))
        else:
            args.append(Out(outputs[name], fill=info.output_fill))
    shipped = resources.path(info.source)
    source, includes = (shipped, ()) if kernel is None else (kernel, (shipped.parent,))
    binary = load(source, info.entry, case.platform, info.defines, include_dirs=includes)
    workspace = Workspace(plan.workspace_bytes, fill=info.workspace_fill)
    built = binary.built()  # shows its own progress; the launch below finds it cached
    with progress.stage(f"running {info.entry} on {plan.block_dim} emulated cores"):
        run = binary[plan.block_dim](
            *args, workspace=workspace, tiling=plan.tiling_bytes(), tiling_key=plan.tiling_key, mode=MODE
        )
    timings = {"build_s": built.seconds, "launch_s": run.total_s, "run_s": run.wall_s, "kernel_s": run.kernel_s}
    return Execution(outputs, run.diagnostics, run.trace, timings, run.exit_code)
