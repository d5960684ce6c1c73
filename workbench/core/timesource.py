"""Where a time comes from: the one vocabulary every timing of the workbench is labelled with.

Every time the workbench shows (a run's `timings`, the kernel and built-in times a performance criterion judges,
the memory bound) carries one of these sources, in `--json`, the text report, the HTML report and the app. Only a
device-measured time says how fast a kernel is on a device; a performance criterion gets a pass/fail verdict from
device-measured times only (criteria.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, cast

TimeSource = Literal["device-measured", "emulator wall", "host wall", "predicted", "proxy", "theoretical"]

DEVICE: Final = "device-measured"
EMULATOR_WALL: Final = "emulator wall"
HOST_WALL: Final = "host wall"
PREDICTED: Final = "predicted"
PROXY: Final = "proxy"
THEORETICAL: Final = "theoretical"

# Each source and what a time of it says, in the order the reports list them.
MEANING: Final[Mapping[TimeSource, str]] = {
    DEVICE: "measured on a device: the npu backend's timeline events, or an attached msprof op_summary",
    EMULATOR_WALL: "the host's wall clock around the emulator running the kernel: says nothing about device speed",
    HOST_WALL: "the host's wall clock around a step of the workbench (build, golden, compare)",
    PREDICTED: "the performance model's prediction from the emulator's trace (docs/performance-model.md)",
    PROXY: "a documented stand-in for the built-in (TBE) op's time when no device measured it",
    THEORETICAL: "the memory bound: the least GM traffic divided by the platform's memory bandwidth",
}
SOURCES: Final[tuple[TimeSource, ...]] = tuple(MEANING)


def check(key: str, source: object) -> TimeSource:
    """`source` as a TimeSource, or a ValueError naming the timing and the sources allowed."""
    if source not in MEANING:
        raise ValueError(f"timing {key!r}: source {source!r} is not one of {', '.join(SOURCES)}")
    return cast(TimeSource, source)


def checked(timings: Mapping[str, float], sources: Mapping[str, object]) -> dict[str, TimeSource]:
    """The source of every timing, checked: each key of `timings` has exactly one source from the vocabulary."""
    if set(timings) != set(sources):
        raise ValueError(f"every timing needs a source: timings {sorted(timings)} but sources for {sorted(sources)}")
    return {key: check(key, sources[key]) for key in timings}


def timed_json(timings: Mapping[str, float], sources: Mapping[str, TimeSource]) -> dict[str, dict[str, object]]:
    """The JSON shape of timings: {"kernel_s": {"seconds": 0.0021, "source": "emulator wall"}, ...}."""
    return {key: {"seconds": seconds, "source": sources[key]} for key, seconds in timings.items()}
