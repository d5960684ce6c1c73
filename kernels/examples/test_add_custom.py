"""add_custom.cpp under pytest: copy this file beside your own kernel and change the launch (docs/pytest-plugin.md).

The workbench's pytest plugin gives the `workbench_kernel` fixture: it builds the kernel for the emulator (cached by
content, so only the first run compiles) and launches it as `kernel[block_dim](...)`, the arguments in the order the
kernel declares its parameters. `Expect(golden)` stands where an output goes: the launch fills a fresh array, poisoned
first so that an element the kernel never writes cannot pass, and compares it with the golden under the workbench's
precision standards. A precision failure fails the test with the workbench's report; a kernel fault (an error
diagnostic, a non-zero exit, an output never written) fails it as a fault, with the kernel's lines.

    pytest test_add_custom.py            # here, or wherever `workbench examples` copied this folder
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.view.pytest_plugin import Expect

CORES = 8  # add_custom splits x evenly over the cores, `perCore` elements each
TILE = 1024  # elements per double-buffered tile: perCore must be a multiple of it


def tiling(n: int) -> bytes:
    """AddCustomTiling {uint32 perCore; uint32 tile}, as the kernel reads it."""
    return np.array([n // CORES, TILE], np.uint32).tobytes()


@pytest.mark.parametrize("n", [CORES * TILE, CORES * 4 * TILE])
def test_add_custom_adds(workbench_kernel, n: int) -> None:
    kernel = workbench_kernel("add_custom.cpp", entry="add_custom", platform="Ascend310P3")  # beside this file
    x, y = np.random.default_rng(n).random((2, n), dtype=np.float32)
    check = kernel[CORES](x, y, Expect(x + y, name="z"), workspace=0, tiling=tiling(n))
    assert check.reports["z"].bit_exact_ratio == 1.0  # Add in float32 is exact against numpy's x + y


def test_add_custom_leaves_no_diagnostic(workbench_kernel) -> None:
    """A passing launch may still have warnings (they never fail a check): assert there are none, if you care."""
    kernel = workbench_kernel("add_custom.cpp", entry="add_custom")
    x, y = np.ones((2, CORES * TILE), np.float32)
    check = kernel[CORES](x, y, Expect(x + y, name="z"), workspace=0, tiling=tiling(x.size))
    assert check.run.diagnostics == ()
