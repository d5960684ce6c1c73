"""The `replay` backend: serves a stored record of the very same launch (store.py), so notebooks, charts and
regression tests work with no device. The outputs, diagnostics and timings are the record's; the trace says where
and when it was made."""

from __future__ import annotations

import numpy as np

from ..errors import WorkbenchError
from ..launch import PreparedLaunch
from ..store import RECORDS_ENV, find, folders, launch_key
from . import Execution, no_launch


def execute(launch: PreparedLaunch) -> Execution:
    if launch.block_dim == 0:
        return no_launch(launch)
    key = launch_key(launch)
    rec = find(key)
    if rec is None:
        where = ", ".join(map(str, folders()))
        raise WorkbenchError(
            "backend",
            "replay",
            f"a record of this exact launch (key {key}) in {where}: make one with `workbench record` on the same "
            f"case, seed and distribution, or add its folder to {RECORDS_ENV}",
        )
    outputs = launch.outputs
    for name, arr in outputs.items():
        np.copyto(arr, rec.outputs[name])
    timings = {k: float(v) for k, v in rec.meta.get("timings", {}).items() if k != "golden_s"}
    trace = {
        "replay": {
            "source": rec.source,
            "created": rec.meta.get("created"),
            "path": str(rec.path),
            "timing": rec.meta.get("timing", ""),
        }
    }
    builtin = {k: v.copy() for k, v in rec.builtin.items()} or None
    return Execution(outputs, rec.diagnostics, trace, timings, int(rec.meta.get("exit_code", 0)), builtin)
