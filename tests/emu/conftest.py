"""Fixtures of the ascemu emulator tests (everything emulator-specific lives in this folder).

The plain helpers (build, run, conf_tiling, marker_line, ...) are in emu_helpers.py beside this file; pytest
puts this folder on the module search path for its conftest and test modules (no __init__.py, default
"prepend" import mode), so `from emu_helpers import ...` works without any test editing the path.  The C++
assets are here too: conf_kernel.cpp, fault_kernel.cpp, scale_add.cpp and test_numeric.cpp.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from emu_helpers import KERNEL_CONF, KERNEL_FAULT, UserKernel, build
from emu_helpers import user_kernel as _user_kernel


@pytest.fixture(scope="session")
def conf_bins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """conf_kernel.cpp built once per platform per session (-O1), by platform macro name."""
    d = tmp_path_factory.mktemp("emu_conf_build")
    with ThreadPoolExecutor(2) as ex:
        futs = {p: ex.submit(build, KERNEL_CONF, "conf_kernel", p, d) for p in ("ascend310p", "ascend910b")}
        return {p: f.result() for p, f in futs.items()}


@pytest.fixture(scope="session")
def fault_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fault_kernel.cpp built once per session for the 310P profile."""
    return build(KERNEL_FAULT, "fault_kernel", "ascend310p", tmp_path_factory.mktemp("emu_fault_build"))


@pytest.fixture(scope="session")
def user_kernel() -> UserKernel:
    """`user_kernel(directory, source, entry, platform)`: a context manager that builds `source` as a user's own
    kernel (workbench.running.emu.load, -O1) in a build cache of its own under `directory` and yields the Kernel."""
    return _user_kernel
