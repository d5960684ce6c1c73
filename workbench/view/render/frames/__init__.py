"""Records -> long-form pandas frames: the one place where what a chart shows is computed, one module per panel
(tiling, precision, timings).

pandas is imported inside each function, never at `import workbench`.
"""

from .precision import (
    HEATMAP_COLUMNS,
    MAX_CELLS,
    MISMATCH_COLUMNS,
    RATIO_LEVELS,
    RATIO_STEPS,
    Errors,
    errors_of,
    failing_in,
    failure_map_frame,
    heatmap_frame,
    mismatch_frame,
    ratio_level,
    split_lines_frame,
    split_of,
    ulp_frame,
)
from .tiling import cores_frame, neighbourhood_frames, selected_tile_frame, tile_size, ub_frame
from .timings import (
    NEEDS_DEVICE,
    TIME_LABEL_ROOM,
    TIMING_STEPS,
    pipe_kernel_frame,
    pipe_lanes,
    pipe_timeline_frame,
    powers_of_ten,
    timing_bars,
    timings_frame,
)

__all__ = [
    "HEATMAP_COLUMNS",
    "MAX_CELLS",
    "MISMATCH_COLUMNS",
    "NEEDS_DEVICE",
    "RATIO_LEVELS",
    "RATIO_STEPS",
    "TIME_LABEL_ROOM",
    "TIMING_STEPS",
    "Errors",
    "cores_frame",
    "errors_of",
    "failing_in",
    "failure_map_frame",
    "heatmap_frame",
    "mismatch_frame",
    "neighbourhood_frames",
    "pipe_kernel_frame",
    "pipe_lanes",
    "pipe_timeline_frame",
    "powers_of_ten",
    "ratio_level",
    "selected_tile_frame",
    "split_lines_frame",
    "split_of",
    "tile_size",
    "timing_bars",
    "timings_frame",
    "ub_frame",
    "ulp_frame",
]
