"""The `replay` backend: serves a stored record of the very same launch (store.py), so notebooks, charts and
regression tests work with no device. The outputs, diagnostics and timings are the record's; the trace says where
and when it was made. A record is served only after store.load verified it (digest, every field, every array)."""

from __future__ import annotations

import numpy as np

from .._record_schema import Said
from ..dtypes import name_of
from ..errors import WorkbenchError
from ..launch import PreparedLaunch
from ..store import RECORDS_ENV, Record, find, folders, launch_key, unreadable
from . import Execution, no_launch


def execute(launch: PreparedLaunch) -> Execution:
    if launch.block_dim == 0:
        return no_launch(launch)
    key = launch_key(launch)
    rec = find(key)
    if rec is None:
        where = ", ".join(map(str, folders()))
        skipped = unreadable()
        raise WorkbenchError(
            "backend",
            "replay",
            f"a record of this exact launch (key {key}) in {where}: make one with `workbench record` on the same "
            f"case, seed and distribution, or add its folder to {RECORDS_ENV}"
            + (f" (skipped, unreadable: {', '.join(map(str, skipped))})" if skipped else ""),
        )
    outputs = launch.outputs
    _check_outputs(rec, outputs)
    for name, arr in outputs.items():
        np.copyto(arr, rec.outputs[name])
    timings = {k: float(v) for k, v in rec.meta["timings"].items() if k != "golden_s"}
    trace = {
        "replay": {
            "source": rec.source,
            "created": rec.meta["created"],
            "path": str(rec.path),
            "timing": rec.meta["timing"],
        }
    }
    builtin = {k: v.copy() for k, v in rec.builtin.items()} or None
    return Execution(outputs, rec.diagnostics, trace, timings, int(rec.meta["exit_code"]), builtin)


def _check_outputs(rec: Record, outputs: dict[str, np.ndarray]) -> None:
    """The record's outputs are this launch's, dtype and shape: never cast or broadcast into them."""
    for name in sorted(set(outputs) | set(rec.outputs)):
        want, got = outputs.get(name), rec.outputs.get(name)
        if want is None or got is None or got.dtype != want.dtype or got.shape != want.shape:
            shown = "nothing" if got is None else f"{name_of(got.dtype)} {list(got.shape)}"
            raise WorkbenchError(
                f"record {rec.path}: arrays.out.{name}",
                Said(shown),
                ("nothing" if want is None else f"{name_of(want.dtype)} {list(want.shape)}")
                + " (this launch's output; the record was made for another case: record this one)",
            )
