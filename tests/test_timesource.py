"""One vocabulary of time sources (workbench/core/timesource.py), and every backend labels every time it reports."""

from __future__ import annotations

from dataclasses import replace

import pytest

import workbench as wb
from workbench.core import timesource
from workbench.running.backends.replay import recorded_sources


def test_the_vocabulary_is_defined_once_with_what_each_source_means() -> None:
    assert timesource.SOURCES == (
        "device-measured",
        "emulator wall",
        "host wall",
        "predicted",
        "proxy",
        "theoretical",
    )
    assert "says nothing about device speed" in timesource.MEANING["emulator wall"]
    with pytest.raises(ValueError, match="'kernel_s': source 'measured' is not one of device-measured, emulator wall"):
        timesource.check("kernel_s", "measured")


def test_a_result_refuses_a_timing_without_a_source() -> None:
    result = wb.run(wb.Case("cast", ("float32", "float16"), (64,)))
    assert set(result.timing_sources) == set(result.timings)
    with pytest.raises(ValueError, match="every timing needs a source"):
        replace(result, timings={**result.timings, "extra_s": 1.0})
    with pytest.raises(ValueError, match="source 'measured'"):
        replace(result, timing_sources={**result.timing_sources, "kernel_s": "measured"})


def test_a_launch_of_nothing_reports_host_zeros_never_a_device_time() -> None:
    result = wb.run(wb.Case("embedding_dense_grad", "float32", (0, 8), attrs={"num_weights": 4}))
    assert result.plan.block_dim == 0 and set(result.timing_sources.values()) == {"host wall"}
    assert result.to_json()["performance"]["kernel"]["source"] is None


@pytest.mark.parametrize(
    ("made_on", "timing", "kernel", "builtin"),
    [
        ("npu", "measured on the device: timeline events around each launch", "device-measured", True),
        ("emulator", "predicted: the emulated ACL runtime's event times", "predicted", False),
        ("emulator", "emulator wall time on this machine, not a device time", "emulator wall", False),
        ("emulator", "measured on the device: …", "emulator wall", False),  # made off a device: never a device time
    ],
)
def test_a_record_gives_its_times_the_sources_they_were_made_with(
    made_on: str, timing: str, kernel: str, builtin: bool
) -> None:
    sources = recorded_sources(made_on, timing)
    assert sources["kernel_s"] == kernel and sources["build_s"] == "host wall"
    assert sources["launch_s"] == ("host wall" if kernel == "device-measured" else "emulator wall")
    assert ("builtin_kernel_s" in sources) == builtin  # only a device runs the built-in op
