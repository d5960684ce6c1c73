"""The memory guard: estimate the host memory a run needs and refuse, before allocating, when it does not fit.

A run holds the inputs, the golden outputs, the kernel's outputs and the emulator's GM files (tmpfs, so
memory too) at once, plus the largest of three passes of float64 temporaries: making the inputs, computing
the golden, comparing (block by block: bounded by the block size and the workers). The estimate of these is an
upper bound of what tracemalloc measures (tests/test_memory.py). The emulator process adds its cores: each core's
bookkeeping for the whole launch, and a core's UB arena and written shadow while it is resident (running or
waiting, kernels/emu/README.md); a run of the shipped ops can have all of its block_dim cores resident at once.
The default budget is a share of the memory the system reports available now.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core._parallel import runs
from ..core.dtypes import itemsize
from ..core.errors import InvalidInput, WorkbenchError
from ..judge.compare import CHUNK, DENSE, MIN_RUN

if TYPE_CHECKING:
    from ..core.tiling import TilingPlan
    from .case import Case

DEFAULT_SHARE = 0.5  # of MemAvailable: leaves room for the notebook, the compiler and the page cache
# float64 temporaries per element of the largest tensor for the whole-tensor intermediates of the inputs and the
# goldens (fp16 inputs are drawn as float32 first: 1.0, measured by tests/test_memory.py) ...
TEMPORARY_F64_PER_ELEMENT = 1
# ... or per element the comparison upcasts at once (compare.DENSE a worker): both sides, errors, severity, ULP
# distances, masks (about 10 measured), whichever pass needs more
DENSE_F64_PER_ELEMENT = 12

# The emulator's memory per core of a launch besides its UB: the core's state and trace and its share of the report
# (about 3 KiB measured, tests/emu/test_emu_block_dim.py), with room to spare.
EMU_BYTES_PER_CORE = 16 << 10

# The event log of a traced run (trace=True), in bytes per event: every copy of an event that can be alive at once.
# The Python side was measured with tracemalloc on traced runs of the shipped kernels (a warm process, the caches of
# the log built one after the other): SCE float32 (4096, 1000), 82,760 events, and Cast float32->float16 of 2**25
# elements, 19,224 events; the larger of the two per event is kept, rounded up (tests/test_memory_trace.py measures
# again).
EVENT_BYTES_EMULATOR = 160  # sizeof(ascemu::Event) in the emulator process (a static_assert in ascemu/events.h)
EVENT_BYTES_FILE = 134  # its record in the log file (EventDisk), on the scratch tmpfs while the caller reads it ...
EVENT_BYTES_RECORDS = 134  # ... and read into the caller's numpy records (events.EVENT_DTYPE)
# pandas frames built on first use: calls (164 retained, 297 at its peak), gm_accesses (16), the access map (80, 212
# at its peak) and the annotated source (10, 216 at its peak): 270 retained, about 470 while the last one is built
EVENT_BYTES_FRAMES = 512
# the Chrome trace export (to_chrome_trace, --trace FILE) on top of them: its list of event dicts (1,081 retained, the
# Cast; 929 the SCE) and the JSON text and its bytes while both exist (628 more at the peak of json.dumps(...).encode(),
# the SCE; 561 the Cast): 1,709 at most
EVENT_BYTES_EXPORT = 1792
EVENT_BYTES = EVENT_BYTES_EMULATOR + EVENT_BYTES_FILE + EVENT_BYTES_RECORDS + EVENT_BYTES_FRAMES + EVENT_BYTES_EXPORT
EVENT_BLOCK = 4096  # ascemu's kEventBlock: a recording core allocates its events this many at a time
MAX_EVENTS = 8 << 20  # ascemu's kMaxEvents: the largest cap of a launch's log, whatever the budget
MIN_EVENTS_PER_CORE = 1  # a budget with room for less than this per core refuses trace=True up front

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class MemoryBudgetExceeded(WorkbenchError):
    """The run would need more host memory than the budget allows."""


@dataclass(frozen=True)
class Estimate:
    """Bytes per holder, and their sum: the peak host memory a run can reach."""

    parts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    def text(self) -> str:
        return ", ".join(f"{k} {human(v)}" for k, v in self.parts.items() if v)


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def parse_size(value: Any, field: str = "max_memory") -> int:
    """512M, 8G, 1.5GiB, 2e9 or a plain byte count -> bytes (binary units)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return int(value)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmgt]?)(?:i?b)?\s*", str(value), re.IGNORECASE)
    if m is None or float(m.group(1)) <= 0:
        raise InvalidInput(field, value, "a positive size such as 512M, 8G, 1.5GiB or a byte count")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def available() -> int:
    """MemAvailable from /proc/meminfo (Linux), else free physical pages."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def budget(max_memory: Any = None) -> tuple[int, str]:
    """(bytes, how the number was chosen)."""
    if max_memory is not None:
        return parse_size(max_memory), "the --max-memory / max_memory setting"
    free = available()
    return int(free * DEFAULT_SHARE), f"{DEFAULT_SHARE:.0%} of the {human(free)} available; raise it with --max-memory"


def emulator_cores(plan: TilingPlan) -> int:
    """The emulator's memory for the plan's block_dim cores: its bookkeeping for each, and for each one's UB arena
    and its written shadow (a bit per byte), as all of them may be resident at once."""
    return plan.block_dim * (EMU_BYTES_PER_CORE + plan.ub_size + plan.ub_size // 8)


def estimate(case: Case, plan: TilingPlan | None = None) -> Estimate:
    """Every holder of a whole run; without a plan, the workspace and the emulator's cores are left out."""
    spec = case.spec
    descs = spec.describe(case)
    outputs = {t.name for t in spec.outputs}
    sizes = {name: math.prod(d.shape) * itemsize(d.dtype) for name, d in descs.items() if d is not None}
    largest = max((math.prod(d.shape) for d in descs.values() if d is not None), default=0)
    inputs = sum(v for k, v in sizes.items() if k not in outputs)
    outs = sum(v for k, v in sizes.items() if k in outputs)
    return Estimate(
        {
            "inputs": inputs,
            "golden outputs": outs,
            "kernel outputs": outs,
            "GM files": inputs + outs + (plan.workspace_bytes if plan is not None else 0),
            "float64 temporaries": 8 * max(TEMPORARY_F64_PER_ELEMENT * largest, compare_f64(largest)),
            "emulator cores": emulator_cores(plan) if plan is not None else 0,
        }
    )


def compare_f64(elements: int) -> int:
    """float64 temporaries of comparing `elements` elements: a DENSE-element share per worker it uses."""
    return DENSE_F64_PER_ELEMENT * min(elements, DENSE) * runs(-(-elements // CHUNK), MIN_RUN)


def check(
    case: Case, plan: TilingPlan | None = None, max_memory: Any = None, parts: tuple[str, ...] | None = None
) -> Estimate:
    """The estimate (only `parts` of it, when given), or MemoryBudgetExceeded naming it and the budget."""
    need = estimate(case, plan)
    if parts is not None:
        need = Estimate({k: v for k, v in need.parts.items() if k in parts})
    limit, why = budget(max_memory)
    if need.total > limit:
        raise MemoryBudgetExceeded(
            "memory", human(need.total), f"at most {human(limit)} ({why}); the estimate is {need.text()}"
        )
    return need


@dataclass(frozen=True)
class TraceRoom:
    """The event cap of a traced run (`max_events`, the launch's "max_events") and what set it (`limit`)."""

    max_events: int
    limit: str


def trace_room(need: Estimate, plan: TilingPlan, max_memory: Any = None) -> TraceRoom:
    """How many events a run with trace=True may record: the budget left after the run's own estimate `need` and
    one block of the emulator's events per core (a core allocates them a block at a time), at EVENT_BYTES each, at
    most MAX_EVENTS. MemoryBudgetExceeded when that leaves fewer than MIN_EVENTS_PER_CORE per core."""
    limit, why = budget(max_memory)
    blocks = plan.block_dim * EVENT_BLOCK * EVENT_BYTES_EMULATOR
    room = (limit - need.total - blocks) // EVENT_BYTES
    least = plan.block_dim * MIN_EVENTS_PER_CORE
    if room < least:
        raise MemoryBudgetExceeded(
            "memory",
            human(need.total + blocks + least * EVENT_BYTES),
            f"at most {human(limit)} ({why}); trace=True needs room for {least} events ({MIN_EVENTS_PER_CORE} per "
            f"core) at {EVENT_BYTES:,} B each and {human(blocks)} of the emulator's event blocks, besides the "
            f"run's {human(need.total)} ({need.text()})",
        )
    if room >= MAX_EVENTS:
        return TraceRoom(MAX_EVENTS, f"the emulator's limit, {MAX_EVENTS:,} events")
    return TraceRoom(
        int(room),
        f"memory budget {human(limit)} ({why}), less the run's {human(need.total)} and {human(blocks)} of event "
        f"blocks, at {EVENT_BYTES:,} B per event",
    )
