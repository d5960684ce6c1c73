"""The emu backend from the outside: load() for a user's kernel, the build cache, crash containment."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from workbench.core.errors import InvalidInput
from workbench.running.emu import In, Out, load

KERNEL = Path(__file__).parent / "scale_add.cpp"


class ScaleAddTiling(ctypes.Structure):
    _fields_ = [
        ("total", ctypes.c_uint32),
        ("perCore", ctypes.c_uint32),
        ("tile", ctypes.c_uint32),
        ("alpha", ctypes.c_float),
    ]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("emu-cache")
    old = os.environ.get("WORKBENCH_CACHE")
    os.environ["WORKBENCH_CACHE"] = str(path)
    yield path
    if old is None:
        del os.environ["WORKBENCH_CACHE"]
    else:
        os.environ["WORKBENCH_CACHE"] = old


def tiling(cores: int, per_core: int, tile: int, alpha: float = 2.0) -> ScaleAddTiling:
    return ScaleAddTiling(cores * per_core, per_core, tile, alpha)


def test_user_kernel_fills_outputs_in_place(cache: Path) -> None:
    kernel = load(KERNEL, entry="scale_add", platform="Ascend310P3", opt="-O1")
    x = np.arange(4 * 1024, dtype=np.float32)
    y = np.zeros_like(x)
    run = kernel[4](x, y, workspace=1024, tiling=tiling(4, 1024, 256))
    assert not run.faulted, [str(d) for d in run.diagnostics]
    np.testing.assert_array_equal(y, x * 2 + 1)
    cores = run.trace["cores"]
    assert len(cores) == 4 and all(c["mte2"]["bytes"] == 4096 and c["mte3"]["bytes"] == 4096 for c in cores)


def test_build_cache_is_keyed_by_content_and_fast_when_warm(cache: Path) -> None:
    kernel = load(KERNEL, entry="scale_add", platform="Ascend310P3", opt="-O1")
    first = kernel.built()
    again = kernel.built()
    assert again.cached and again.path == first.path and again.seconds < 0.05
    other = load(KERNEL, entry="scale_add", platform="Ascend310P3", opt="-O1", defines={"SCALE_ADD_SPIN": 1})
    assert other.variant != kernel.variant
    assert other.built().path != first.path  # a define changes the key


def test_concurrent_builds_of_one_variant_are_safe(cache: Path) -> None:
    code = (
        "from workbench.running.emu import load; "
        f"k = load({str(KERNEL)!r}, entry='scale_add', platform='Ascend910B3', opt='-O0', "
        "defines={'BUILD_RACE': 1}); print(k.built().path)"
    )
    env = {**os.environ, "WORKBENCH_CACHE": str(cache)}
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env) for _ in range(3)
    ]
    paths = {p.communicate(timeout=300)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(paths) == 1 and Path(paths.pop()).is_file()


def test_a_crashing_kernel_is_reported_and_the_caller_survives(cache: Path) -> None:
    kernel = load(KERNEL, entry="scale_add", platform="Ascend310P3", opt="-O1", defines={"SCALE_ADD_WILD_WRITE": 1})
    x = np.ones(2 * 256, np.float32)
    run = kernel[2](In(x), Out(np.zeros_like(x)), workspace=64, tiling=tiling(2, 256, 256))
    assert run.faulted and run.exit_code == 4
    crash = [d for d in run.diagnostics if d.kind == "CRASH"]
    assert crash and crash[0].core == 1


def test_a_hanging_kernel_times_out(cache: Path) -> None:
    kernel = load(KERNEL, entry="scale_add", platform="Ascend310P3", opt="-O1", defines={"SCALE_ADD_SPIN": 1})
    x = np.ones(256, np.float32)
    t0 = time.perf_counter()
    run = kernel[1](x, np.zeros_like(x), workspace=64, tiling=tiling(1, 256, 256), timeout_s=2)
    assert run.faulted and run.exit_code == 3
    assert any(d.kind == "TIMEOUT" for d in run.diagnostics)
    assert time.perf_counter() - t0 < 30


def test_bad_arguments_are_named() -> None:
    with pytest.raises(InvalidInput, match="sources"):
        load("no/such/file.cpp", entry="k")
    kernel = load(KERNEL, entry="scale_add")
    with pytest.raises(InvalidInput, match="block_dim"):
        kernel[0]
    with pytest.raises(InvalidInput, match="argument 0"):
        kernel[1]([1.0, 2.0])  # type: ignore[arg-type]
