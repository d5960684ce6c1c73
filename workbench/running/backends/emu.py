"""The shipped ops on the emulator: the same `workbench.running.emu.load` path a user's own kernel takes."""

from __future__ import annotations

from typing import Any

from ...core import progress
from ...core.timesource import EMULATOR_WALL, HOST_WALL, TimeSource
from ..emu import In, Out, Workspace, load
from ..launch import PreparedLaunch
from . import Execution, no_launch

# Cores run on two threads, atomic adds in serial order (kernels/emu/README.md "ordered"): serial mode's bits for
# the shipped kernels (EDG adds atomically only before its GM-flag barrier; tests compare the two modes), in
# about half the time where cores do not add atomically.
MODE = "ordered"


def execute(launch: PreparedLaunch) -> Execution:
    """Build the launch's kernel source with g++ against ascemu (cached) and run it on emulated cores."""
    if launch.block_dim == 0:
        return no_launch(launch)
    args = [In(a.array) if a.role == "input" else Out(a.array, fill=a.fill) for a in launch.args]
    binary = load(launch.source, launch.entry, launch.platform, launch.defines, include_dirs=launch.include_dirs)
    workspace = Workspace(launch.workspace_bytes, fill=launch.workspace_fill)
    built = binary.built()  # shows its own progress; the launch below finds it cached
    with progress.stage(f"running {launch.entry} on {launch.block_dim} emulated cores"):
        traced: dict[str, Any] = {"trace": True} if launch.trace else {}
        if launch.trace and launch.max_events is not None:
            traced["max_events"] = launch.max_events
        run = binary[launch.block_dim](
            *args, workspace=workspace, tiling=launch.tiling, tiling_key=launch.tiling_key, mode=MODE, **traced
        )
    timings = {"build_s": built.seconds, "launch_s": run.total_s, "run_s": run.wall_s, "kernel_s": run.kernel_s}
    sources: dict[str, TimeSource] = {**dict.fromkeys(timings, EMULATOR_WALL), "build_s": HOST_WALL}  # g++ here
    return Execution(
        launch.outputs,
        run.diagnostics,
        run.trace,
        timings,
        run.exit_code,
        timing_sources=sources,
        events=run.events,
        events_missing=run.events_missing,
    )
