"""Issue 21, items 3 and 4: what CANN's operator build gives an op_kernel file, run through the workbench as a user
would (`emu.load` with the op_host header on the include path).

- names/op_kernel/names_scale.cpp + names/op_host/names_scale_tiling.h: the tiling class declared in
  `namespace optiling` and named unqualified in the kernel, `TILING_KEY_IS(DT_FLOAT16)` / `TILING_KEY_IS(DT_FLOAT)`
  branches, an ASSERT glued to the expression before it and one with no `;` before a `}`; checked against numpy
  bit for bit, with no diagnostic, for both keys; the glued ASSERT still checks.
- names/op_kernel/names_bad_key.cpp: a genuine compile error that g++ reports inside the emulator's TILING_KEY_IS
  macro is placed at the kernel's own line.
- the ASSERT-site rewrite itself (workbench/running/emu/rewrite.py assert_sites), on its own.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import pytest

from workbench.running.emu import Kernel, Out, load
from workbench.running.emu.build import BuildError
from workbench.running.emu.rewrite import assert_sites

NAMES = Path(__file__).resolve().parent / "names"
KERNEL = NAMES / "op_kernel" / "names_scale.cpp"
OP_HOST = {"ASCEMU_TILING_STRUCT": "NamesScaleTilingData", "ASCEMU_TILING_HEADER": '"names_scale_tiling.h"'}
CORES, TILES = 4, 2  # per core: TILES tiles, each split in two by the double buffer


class NamesScaleTiling(ctypes.Structure):
    """names/op_host/names_scale_tiling.h NamesScaleTilingData, fields in the header's order."""

    _fields_ = [
        ("totalLength", ctypes.c_uint32),
        ("tileNum", ctypes.c_uint32),
        ("scale", ctypes.c_float),
        ("bias", ctypes.c_float),
    ]


def line_of(path: Path, tag: str) -> int:
    for i, text in enumerate(path.read_text().splitlines(), 1):
        if re.search(rf"// LINE:{re.escape(tag)}\b", text):
            return i
    raise KeyError(tag)


@pytest.fixture(scope="module")
def names_scale() -> Kernel:
    """The op_kernel, unchanged, with its op_host header named by the build (docs/emulator.md, Tiling structs)."""
    return load(KERNEL, "names_scale", "Ascend910B1", defines=OP_HOST, include_dirs=[NAMES / "op_host"], opt="-O0")


@pytest.mark.parametrize(("key", "dtype"), [(1, np.float16), (0, np.float32)], ids=["DT_FLOAT16", "DT_FLOAT"])
def test_op_kernel_names_run_bit_exact(names_scale: Kernel, key: int, dtype: type[np.generic]) -> None:
    """ge::DataType's codes as tiling keys (DT_FLOAT16 = 1, DT_FLOAT = 0), the optiling class named unqualified."""
    n = CORES * TILES * 2 * 512
    x = np.random.default_rng(21).normal(size=n).astype(dtype)
    y = np.zeros(n, dtype)
    scale, bias = 1.75, -0.3125
    run = names_scale[CORES](
        x, Out(y, fill=0), workspace=1024, tiling=NamesScaleTiling(n, TILES, scale, bias), tiling_key=key
    )
    assert run.exit_code == 0 and [str(d) for d in run.diagnostics] == []  # not even info
    # each instruction rounds once to the element type (docs/emulator.md): products and sums of halves or floats are
    # exact in float64, so rounding the float64 result once gives the device's bits
    s, b = np.float64(dtype(scale)), np.float64(dtype(bias))
    want = ((x.astype(np.float64) * s).astype(dtype).astype(np.float64) + b).astype(dtype)
    bits = np.uint16 if dtype is np.float16 else np.uint32
    np.testing.assert_array_equal(y.view(bits), want.view(bits))


def test_a_glued_assert_still_checks(names_scale: Kernel) -> None:
    """`this->tileNum = tiling.tileNum ASSERT(tiling.tileNum != 0 ...)`: compiled as the device does, checked as
    CANN's CPU-debug ASSERT is meant to check: a zero tile count ends the launch at that line."""
    n = CORES * 1024
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    run = names_scale[CORES](x, Out(y, fill=0), workspace=1024, tiling=NamesScaleTiling(n, 0, 1.0, 0.0))
    aborts = [d for d in run.diagnostics if d.kind == "KERNEL_ABORT"]
    assert run.exit_code == 2 and aborts, [str(d) for d in run.diagnostics]
    d = aborts[0]
    assert d.file.endswith("names_scale.cpp") and d.line == line_of(KERNEL, "glued"), str(d)
    assert d.details["expression"] == 'tiling.tileNum != 0 && "tile num can not be zero!"'


def test_a_compile_error_inside_a_macro_is_placed_at_the_kernel_line() -> None:
    bad = NAMES / "op_kernel" / "names_bad_key.cpp"
    kernel = load(bad, "names_bad_key", "Ascend910B1", defines=OP_HOST, include_dirs=[NAMES / "op_host"], opt="-O0")
    with pytest.raises(BuildError) as caught:
        kernel.built()
    first = caught.value.errors[0]
    assert Path(first.file).name == "names_bad_key.cpp" and first.line == line_of(bad, "bad-key"), first
    assert first.origin.startswith("system.h:") and "invalid cast" in first.message, first
    assert first.excerpt.startswith("if (TILING_KEY_IS(tilingData))")
    assert caught.value.text().startswith(f"names_bad_key.cpp:{first.line}:")


@pytest.mark.parametrize(
    ("written", "compiled"),
    [
        # the device-build-only sites
        ("n = m ASSERT(m != 0);", "n = m +ASCEMU_ASSERT_TERM(m != 0);"),
        ("if (c) n = m ASSERT(m); else f();", "if (c) n = m +ASCEMU_ASSERT_TERM(m); else f();"),
        ("uint32_t k = a[i] ASSERT(k);", "uint32_t k = a[i] +ASCEMU_ASSERT_TERM(k);"),
        ("i++ ASSERT(i < n);", "i++ +ASCEMU_ASSERT_TERM(i < n);"),
        ("Init(x) ASSERT(ok);", "Init(x) ,ASCEMU_ASSERT_TERM(ok);"),
        ("n = m\n    ASSERT(m);", "n = m\n    +ASCEMU_ASSERT_TERM(m);"),
        ("{ f(); ASSERT(ok) }", "{ f(); ASSERT(ok); }"),
        # what the macro takes as written
        ("ASSERT(ok);", "ASSERT(ok);"),
        ("ASSERT(a) next();", "ASSERT(a) next();"),
        ("ASSERT(a) ASSERT(b);", "ASSERT(a) ASSERT(b);"),
        ("if (c) ASSERT(a); else f();", "if (c) ASSERT(a); else f();"),
        ("for (i = 0; i < n; i++) ASSERT(v[i]);", "for (i = 0; i < n; i++) ASSERT(v[i]);"),
        ("else ASSERT(a);", "else ASSERT(a);"),
        # not an ASSERT site
        ("n = m MY_ASSERT(x);", "n = m MY_ASSERT(x);"),
        ("n = m; // m ASSERT(x)", "n = m; // m ASSERT(x)"),
        ('s = "m ASSERT(x)";', 's = "m ASSERT(x)";'),
        ("#define CHECK(m) n = m ASSERT(m)", "#define CHECK(m) n = m ASSERT(m)"),
    ],
)
def test_assert_sites(written: str, compiled: str) -> None:
    assert assert_sites(written) == compiled
