"""Plans -> frames for the tiling panel: work per core, the UB budget, a selected tile, the neighbourhood."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ....core.tiling import CoreRange, TilingPlan
    from ....planning.explore import Neighbourhood


def cores_frame(plan: TilingPlan) -> pd.DataFrame:
    """One row per core: its range of work in the plan's unit, tiles, and its role: "tail core" for a core that
    runs a tail (Cast's back-stepped window: CoreRange.tail > 0), "short core" for a core with less work than the
    busiest, "core" for the rest."""
    import pandas as pd

    most = max((c.count for c in plan.cores), default=0)

    def role(c: Any) -> str:
        if c.tail:
            return "tail core"
        return "short core" if c.count < most else "core"

    return pd.DataFrame(
        [{**c._asdict(), "unit": plan.unit, "role": role(c)} for c in plan.cores],
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


def selected_tile_frame(plan: TilingPlan, cores: Sequence[int], tile: int | None) -> pd.DataFrame:
    """The highlight for a selected element: per selected core, the extent [y0, y1) of its tile in the core's own
    units (the whole core when the tile is unknown). Tiles are equal but the last (CoreRange.last_tile)."""
    import pandas as pd

    rows = []
    for c in cores:
        if not 0 <= c < len(plan.cores):
            continue
        r = plan.cores[c]
        y0, y1 = 0, r.count
        if tile is not None and r.tiles > 0 and 0 <= tile < r.tiles:
            y0 = tile * tile_size(r)
            y1 = y0 + (r.last_tile if tile == r.tiles - 1 else tile_size(r))
        elif tile == r.tiles and r.tail:  # Cast's tail window, the tile after the last
            y0 = r.count - r.tail
        rows.append({"core": c, "y0": y0, "y1": y1, "tile": -1 if tile is None else tile})
    return pd.DataFrame(rows, columns=["core", "y0", "y1", "tile"])


def tile_size(r: CoreRange) -> int:
    """The length of a core's tiles (all equal but the last: CoreRange.last_tile), in the plan's unit."""
    return (r.count - r.tail - r.last_tile) // (r.tiles - 1) if r.tiles > 1 else r.count - r.tail


SWITCH_LABELS = 1  # switches labelled on the neighbourhood chart (the nearest to the current value); all have tooltips


def neighbourhood_frames(n: Neighbourhood) -> tuple[pd.DataFrame, pd.DataFrame]:
    """explore.neighbourhood as (points, switches): a row per planned value (its path, the quantity, whether it is
    the current value, and `run`, which numbers the stretches of one path so a line never joins two), and a row per
    switch with a label ("→ SPLIT_R(AR) at C = 4705") on the SWITCH_LABELS nearest the current value."""
    import pandas as pd

    rows, run = [], 0
    for i, p in enumerate(n.points):
        run += i > 0 and p.path != n.points[i - 1].path
        rows.append({**dataclasses.asdict(p), "current": p.value == n.current, "run": run})
    points = pd.DataFrame(rows, columns=["value", "path", "quantity", "block_dim", "current", "run"])
    points["name"], points["label"] = n.name, n.label
    near = sorted(n.switches, key=lambda s: abs(math.log(s.at / max(n.current, 1))))[:SWITCH_LABELS]
    switches = pd.DataFrame(
        [
            {**dataclasses.asdict(s), "label": f"→ {s.after} at {n.name} = {s.at}" if s in near else ""}
            for s in n.switches
        ],
        columns=["at", "before", "after", "rule", "label"],
    )
    return points, switches
