"""Plain-text renderings shared by the CLI and notebooks (pure functions of frozen records)."""

from __future__ import annotations

from collections.abc import Sequence

from .platform import Platform
from .tiling import TilingPlan


def table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    """A compact left-aligned text table."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _kib(n: int) -> str:
    return f"{n} B ({n / 1024:.1f} KiB)"


def _core_rows(plan: TilingPlan, limit: int) -> list[list[object]]:
    rows: list[list[object]] = []
    cores = plan.cores
    shown = cores if len(cores) <= limit else (*cores[: limit - 2], *cores[-2:])
    for i, c in enumerate(shown):
        if len(cores) > limit and i == limit - 2:
            rows.append(["...", f"({len(cores) - limit} more)", "", "", "", ""])
        rows.append([c.core, f"[{c.start}, {c.stop})", c.count, c.tiles, c.last_tile, c.tail or ""])
    return rows


def plan_text(plan: TilingPlan, case_label: str = "", max_cores: int = 10) -> str:
    head = [
        case_label or plan.op,
        f"tiling key {plan.tiling_key} ({plan.tiling_name}), block_dim {plan.block_dim}, platform {plan.platform}",
        "",
        table([[k, v] for k, v in plan.fields.items()], ["TilingData field", "value"]),
        "",
        table(_core_rows(plan, max_cores), ["core", f"{plan.unit}s", "count", "tiles", "last tile", "tail"])
        if plan.cores
        else "no launch (nothing to compute)",
        "",
        table(
            [[b.name, b.count, b.bytes_each, b.total, b.note] for b in plan.ub_buffers],
            ["UB buffer", "count", "bytes each", "total", "note"],
        ),
        f"UB used {_kib(plan.ub_used)} of {_kib(plan.ub_capacity)} "
        f"({100 * plan.ub_fraction:.1f} %; UB {plan.ub_size} - reserve {plan.ub_reserved})",
        f"workspace {plan.workspace_bytes} B",
    ]
    if plan.notes:
        head += ["", "why:", *(f"  - {n}" for n in plan.notes)]
    return "\n".join(head)


def platforms_text(platforms: Sequence[Platform]) -> str:
    rows = [
        [
            p.soc,
            p.traits.arch,
            p.core_num,
            p.ub_size,
            p.ub_runtime,
            "yes" if p.has_data_copy_pad else "no",
            "yes" if p.has_bf16 else "no",
            p.overflow_mode,
            f"{p.memory_bandwidth / 1e9:g} GB/s",
        ]
        for p in platforms
    ]
    return table(
        rows, ["SoC", "arch", "GetCoreNum", "UB (ini)", "UB (runtime)", "DataCopyPad", "bf16", "overflow", "bandwidth"]
    )
