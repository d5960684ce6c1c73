"""Records -> long-form pandas frames: the one place where what a chart shows is computed.

pandas is imported inside each function, never at `import workbench`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from ..tiling import TilingPlan


def cores_frame(plan: TilingPlan) -> pd.DataFrame:
    """One row per core: its range of work in the plan's unit, tiles, and whether it is a tail core (less work
    than core 0) or runs Cast's back-stepped tail window."""
    import pandas as pd

    first = plan.cores[0].count if plan.cores else 0
    return pd.DataFrame(
        [
            {**c._asdict(), "unit": plan.unit, "role": "tail core" if c.count < first or c.tail else "core"}
            for c in plan.cores
        ],
        columns=["core", "start", "count", "tiles", "last_tile", "tail", "unit", "role"],
    )


def ub_frame(plan: TilingPlan) -> pd.DataFrame:
    """One row per UB allocation (bytes after InitBuffer's 32 B rounding), then the reserve and what is left,
    stacked in that order against the platform's UB size."""
    import pandas as pd

    rows = [{"part": b.name, "bytes": b.total, "kind": "buffer", "note": b.note} for b in plan.ub_buffers]
    rows.append({"part": "reserve", "bytes": plan.ub_reserved, "kind": "reserve", "note": "kept back by tiling"})
    free = plan.ub_size - plan.ub_reserved - plan.ub_used
    rows.append({"part": "free", "bytes": max(free, 0), "kind": "free", "note": ""})
    frame = pd.DataFrame(rows, columns=["part", "bytes", "kind", "note"])
    frame["order"] = range(len(frame))
    frame["ub_size"] = plan.ub_size
    return frame
