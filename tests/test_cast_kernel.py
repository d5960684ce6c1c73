"""Cast kernel (kernels/cast/cast_kernel.cpp) on the ascemu emulator, Ascend310P3 (cast.md §3-§4, §6).

Every case runs the shipped kernel through `workbench.run(case, backend="emu")` and asserts a clean launch
(exit 0, no warning/error/fatal diagnostic) and bit-exact equality with the "sat" golden on every element,
floats included (cast.md §6: emulator vs golden is bit-exact). A mismatch is reported by element, core,
tile and tail window (T02). The trace is checked against the host plan: each core moves exactly its range
plus the tail window (no extra GM traffic), scalar staging uses no DMA at all, and the kernel's UB
allocation equals the plan's UB budget (the kernel and the host agree on every scratch buffer, D13).

Default run (about 50 s on 2 cores with a cold build cache, the ten builds dominate; 2 s warm): one pair per path class
(§3.2) on shapes that hit scalar staging (N < BLOCK, rank 0), one core + tail, eight cores + tail, several
tiles + tail window, and the edges distribution; the §4.5 worked examples E1-E3; and strict + interleaved +
exact-GM launches. `-m slow`: all 60 pairs x the T01 shapes, the T02 tiling edges, and the edges, uniform,
normal and exhaustive distributions.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

import workbench as wb
from workbench.core import resources
from workbench.ops.cast.tables import PAIRS
from workbench.ops.cast.tiling import UB_RESERVE
from workbench.running.emu import POISON, In, Out, load

OP = "cast"

# One pair per path class (§3.2), each the most involved chain of its class.
REPRESENTATIVE = {
    0: ("float32", "float16"),  # DIRECT (E1)
    1: ("int16", "float32"),  # TWO_CAST via SPLIT
    2: ("float32", "bool"),  # DST_BOOL, CEIL to int32 before Mins (D10)
    3: ("int64", "bool"),  # NARROW64: both halves (GatherMask patterns 1 and 2) ORed (D5)
    4: ("float32", "int64"),  # WIDEN64: Gather interleave with the OFF table (D7)
    5: ("bfloat16", "float32"),  # BF16_TO_F32: XB bit expansion (D8)
    6: ("bfloat16", "int8"),  # BF16_TO_OTHER: XB + f32 -Z-> i32 + N8 (E2)
    7: ("int8", "uint8"),  # SAMEWIDTH_8BIT: TQueBind byte copy
    8: ("float16", "uint8"),  # NARROW8: f16 -Z-> i32 + N8 mod-256 wrap
}
EXTRA = [("int64", "int32")]  # E3 (LO32 straight into dst)


def _case(pair: tuple[str, str], shape: tuple[int, ...]) -> wb.Case:
    return wb.Case(OP, pair, shape)


def _kernel(case: wb.Case) -> Any:
    make = case.spec.kernel
    assert make is not None
    info = make(case)
    return load(resources.path(info.source), info.entry, case.platform, info.defines)


@pytest.fixture(scope="module", autouse=True)
def _prebuilt() -> None:
    """Compile the default variants two at a time up front (the build cache is shared with the backend)."""
    cases = [_case(p, (1,)) for p in [*REPRESENTATIVE.values(), *EXTRA]]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda c: _kernel(c).built(), cases))


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(f"u{a.dtype.itemsize}")


def _mismatch_report(res: wb.Result, bad: np.ndarray) -> str:
    got, want = res.outputs["y"].reshape(-1), res.expected["y"].reshape(-1)
    x = np.asarray(res.inputs["x"]).reshape(-1)
    rows = []
    for i in bad[:8]:
        loc = res.plan.locate(int(i))
        rows.append(
            f"  [{i}] x={x[i]!r} got={got[i]!r} want={want[i]!r} core {loc.core} tile {loc.tile} ({loc.detail})"
        )
    return f"{bad.size} of {got.size} elements differ ({res.case.label()}):\n" + "\n".join(rows)


def check_clean_and_exact(res: wb.Result) -> None:
    noisy = [str(d) for d in res.diagnostics if d.severity != "info"]
    assert res.exit_code == 0 and not noisy, "\n".join([res.text(), *noisy])
    got, want = res.outputs["y"], res.expected["y"]
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = np.flatnonzero(_bits(got) != _bits(want))
    assert bad.size == 0, _mismatch_report(res, bad)


def check_trace(res: wb.Result) -> None:
    """GM traffic per core = its aligned range (+ the BLOCK tail window); UB = the host budget."""
    plan, cores = res.plan, res.trace.get("cores", [])
    if plan.block_dim == 0:
        return
    f = plan.fields
    src, dst = res.case.dtypes
    s_src, s_dst = np.dtype(res.inputs["x"].dtype).itemsize, res.expected["y"].dtype.itemsize
    assert len(cores) == plan.block_dim
    for rng, tr in zip(plan.cores, sorted(cores, key=lambda c: c["core"]), strict=True):
        if f["scalarStaging"]:
            assert tr["mte2"]["bytes"] == tr["mte3"]["bytes"] == 0
            assert tr["scalar"]["gm_get"] == tr["scalar"]["gm_set"] == f["totalElements"]
            continue
        moved = rng.count - rng.tail + (f["blockElems"] if rng.tail else 0)
        assert (tr["mte2"]["bytes"], tr["mte3"]["bytes"]) == (moved * s_src, moved * s_dst), (rng, tr)
        assert tr["scalar"]["gm_get"] == tr["scalar"]["gm_set"] == 0
    # class 7 allocates one TQueBind(2, ubFormer): half the uniform budget the host plans (§3.5, D13)
    bind = PAIRS[(src, dst)].path_class == 7
    budget = 2 * f["ubFormer"] * s_src if bind else sum(b.total for b in plan.ub_buffers)
    assert cores[0]["ub"]["peak_bytes"] == budget


def run(pair: tuple[str, str], shape: tuple[int, ...], dist: str | None = None, seed: int = 0) -> wb.Result:
    res = wb.run(_case(pair, shape), backend="emu", seed=seed, distribution=dist)
    check_clean_and_exact(res)
    check_trace(res)
    return res


def shapes_for(pair: tuple[str, str]) -> list[tuple[tuple[int, ...], str | None]]:
    """Scalar staging (rank 0, BLOCK-1), one core + tail, 8 cores + tail, several tiles + tail, edges."""
    f = wb.plan(_case(pair, (1,))).fields
    block, ub = f["blockElems"], f["ubFormer"]
    return [
        ((), None),
        ((block - 1,), "edges"),
        ((block + 1,), None),
        ((8 * block + 1,), None),
        ((4099,), "edges"),
        ((8 * ub + block + 3,), None),
    ]


@pytest.mark.parametrize(
    "key", sorted(REPRESENTATIVE), ids=[f"{k}-{'_'.join(REPRESENTATIVE[k])}" for k in sorted(REPRESENTATIVE)]
)
def test_path_class(key: int) -> None:
    pair = REPRESENTATIVE[key]
    for shape, dist in shapes_for(pair):
        res = run(pair, shape, dist)
        assert res.plan.tiling_key == key
    assert wb.plan(_case(pair, (0,))).block_dim == 0  # empty: no launch (§1)
    res = wb.run(_case(pair, (3, 0, 5)), backend="emu")
    assert res.outputs["y"].shape == (3, 0, 5)


@pytest.mark.parametrize(
    ("pair", "n", "cores", "tail_window"),
    [
        (("float32", "float16"), 1_000_000, 8, None),  # E1
        (("bfloat16", "int8"), 100_003, 8, (99_971, 100_003)),  # E2
        (("int64", "int32"), 1_000_001, 8, (999_993, 1_000_001)),  # E3
    ],
    ids=["E1", "E2", "E3"],
)
def test_worked_examples(pair: tuple[str, str], n: int, cores: int, tail_window: tuple[int, int] | None) -> None:
    res = run(pair, (n,))
    assert res.plan.block_dim == cores
    if tail_window is not None:
        assert (n - res.plan.fields["blockElems"], n) == tail_window


def launch_with(case: wb.Case, **options: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """One launch through workbench.running.emu with emulator options the backend's defaults do not set."""
    plan = wb.plan(case)
    inputs = wb.make_inputs(case, 0, "edges")
    y = np.empty(case.shape, wb.golden(case, inputs)["y"].dtype)
    run_ = _kernel(case)[plan.block_dim](
        In(np.ascontiguousarray(inputs["x"])),
        Out(y, fill=POISON),
        workspace=32,  # poisoned, role workspace: the kernel never touches it (§1)
        tiling=plan.tiling_bytes(),
        tiling_key=plan.tiling_key,
        **options,
    )
    return run_, y, wb.golden(case, inputs)["y"]


@pytest.mark.parametrize("key", [3, 4, 6, 7])
def test_strict_interleaved_exact_gm(key: int) -> None:
    """strict (warnings fatal), interleaved cores, no GM slack, the §4.2 reserve withheld from UB."""
    pair = REPRESENTATIVE[key]
    block = wb.plan(_case(pair, (1,))).fields["blockElems"]
    for n in (block - 1, 3 * block + 5, 100_003):
        run_, y, want = launch_with(
            _case(pair, (n,)), strict=True, mode="interleave:5", gm_alloc="exact", ub_reserved=UB_RESERVE
        )
        assert run_.exit_code == 0 and not run_.diagnostics, [str(d) for d in run_.diagnostics]
        assert np.array_equal(_bits(y), _bits(want))


# ---- full matrix (-m slow) ------------------------------------------------------------------------------
T01 = [(), (1,), (7,), (33,), (257,), (4099,), (2, 3, 4, 5), (2, 1, 3), (1,) * 8, (1_000_003,)]


def _t02(pair: tuple[str, str]) -> list[int]:
    f = wb.plan(_case(pair, (1,))).fields
    b, u = f["blockElems"], f["ubFormer"]
    return sorted({b - 1, b, b + 1, 8 * b - 1, 8 * b + 1, u, u + b + 1, 8 * u - 1, 8 * u + b + 3})


@pytest.mark.slow
@pytest.mark.parametrize("pair", list(PAIRS), ids=["_".join(p) for p in PAIRS])
def test_all_pairs(pair: tuple[str, str]) -> None:
    for shape in T01:
        run(pair, shape)
    for n in _t02(pair):
        for dist in ("default", "edges"):
            run(pair, (n,), dist)
    for dist in ("uniform", "normal"):
        run(pair, (4099,), dist)
    run(pair, (65_536,), "exhaustive")
