"""The `replay` backend: serves a stored record of the very same launch (store.py), so notebooks, charts and
regression tests work with no device. The outputs, diagnostics and timings are the record's; the trace says where
and when it was made. A record is served only after store.load verified it (digest, every field, every array)."""

from __future__ import annotations

import numpy as np

from ...core.dtypes import name_of
from ...core.errors import WorkbenchError
from ...core.timesource import DEVICE, EMULATOR_WALL, HOST_WALL, PREDICTED, TimeSource
from .._record_schema import Said
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
    sources = recorded_sources(rec.source, str(rec.meta["timing"]))
    # a timing whose source the record does not tell is not served; the golden is this run's own
    timings = {k: float(v) for k, v in rec.meta["timings"].items() if k in sources}
    trace = {
        "replay": {
            "source": rec.source,
            "created": rec.meta["created"],
            "path": str(rec.path),
            "timing": rec.meta["timing"],
        }
    }
    builtin = {k: v.copy() for k, v in rec.builtin.items()} or None
    exit_code = int(rec.meta["exit_code"])
    return Execution(outputs, rec.diagnostics, trace, timings, exit_code, builtin, {k: sources[k] for k in timings})


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


def recorded_sources(made_on: str, timing: str) -> dict[str, TimeSource]:
    """The source of each timing a record can hold, from where it was made ("npu" for a device, else "emulator")
    and how its kernel was timed (the npu backend's "measured…"/"predicted…" label, else the emulator's wall)."""
    on_device = made_on == "npu" and timing.startswith("measured")
    kernel: TimeSource = DEVICE if on_device else PREDICTED if timing.startswith("predicted") else EMULATOR_WALL
    sources: dict[str, TimeSource] = {
        "build_s": HOST_WALL,
        "launch_s": HOST_WALL if on_device else EMULATOR_WALL,
        "run_s": EMULATOR_WALL,
        "kernel_s": kernel,
    }
    return {**sources, "builtin_kernel_s": DEVICE} if on_device else sources  # only a device runs the built-in op
