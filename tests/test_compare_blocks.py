"""compare() judges blocks in parallel: the report must not depend on the block size, on whether bit-identical
elements skip the float64 work, or on the number of workers; the worst elements rank by (failing, severity,
position) however the ties fall across blocks."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import ml_dtypes
import numpy as np
import pytest

from workbench.judge.compare import STANDARDS, Report, compare, element_errors

cmp = importlib.import_module("workbench.judge.compare")  # the module (workbench.judge.compare is also the function)
par = importlib.import_module("workbench.core._parallel")
NP = {"float16": np.float16, "float32": np.float32, "bfloat16": ml_dtypes.bfloat16}
# (block size, sparse ratio, elements upcast at once, workers): the default; tiny blocks always upcasting only
# their differing elements; odd-sized blocks never skipping (SPARSE huge: only fully identical blocks), upcast
# 3 elements at a time; mid-sized blocks, one worker.
LAYOUTS = [(cmp.CHUNK, cmp.SPARSE, cmp.DENSE, 2), (64, 1, 64, 2), (7, 10**9, 3, 2), (1000, 2, 300, 1)]


def pairs(dtype: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A golden and an output that is bit-identical in most places, a few ulps off, badly off, and NaN/Inf/±0 in
    agreeing and disagreeing ways (NaN payloads differing included)."""
    rng = np.random.default_rng(seed)
    t = NP[dtype]
    g = (rng.standard_normal(n) * rng.choice([1e-6, 1e-2, 1.0, 300.0], n)).astype(np.float32).astype(t)
    a = g.copy()
    bits = a.view(np.uint16 if t(0).itemsize == 2 else np.uint32)
    near = rng.choice(n, n // 20, replace=False)
    bits[near] += rng.integers(1, 4, near.size).astype(bits.dtype)
    far = rng.choice(n, n // 200 + 1, replace=False)
    a[far] = (g[far].astype(np.float64) * 1.5 + 0.01).astype(t)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32).astype(t)
    odd = rng.choice(n, n // 100 + 2, replace=False)
    a[odd] = rng.choice(specials, odd.size)
    agree = odd[: odd.size // 2]
    g[agree] = a[agree]
    a.view(bits.dtype)[odd[-1]] |= 1  # a NaN payload differs, or a signed zero becomes the smallest subnormal
    return a, g


def layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(cmp, "MIN_RUN", 1)
    for chunk, sparse, dense, workers in LAYOUTS:
        monkeypatch.setattr(cmp, "CHUNK", chunk)
        monkeypatch.setattr(cmp, "SPARSE", sparse)
        monkeypatch.setattr(cmp, "DENSE", dense)
        monkeypatch.setattr(par, "WORKERS", workers)
        yield


def close(got: float | None, want: float | None) -> bool:
    """Equal up to rounding (NaN equals NaN); None (a metric the standard does not compute) only equals None."""
    if want is None or got is None:
        return got is want
    return bool(got == pytest.approx(want, rel=1e-12, nan_ok=True))


def same_report(r: Report, ref: Report) -> None:
    for f in ref.__dataclass_fields__:
        got, want = getattr(r, f), getattr(ref, f)
        if f == "worst":  # repr: NaN errors compare equal
            assert [repr((e.flat, e.abs_err, e.rel_err, e.ulp)) for e in got] == [
                repr((e.flat, e.abs_err, e.rel_err, e.ulp)) for e in want
            ]
        elif f == "mere":  # MERE sums per block: equal up to rounding
            assert close(got, want), f
        elif f == "metrics":
            assert got.keys() == want.keys() and all(close(got[k], want[k]) for k in want), f
        elif f in ("max_abs_err", "max_rel_err", "mean_ulp"):
            assert got == want or (np.isnan(got) and np.isnan(want)), f
        elif f != "verdict" or "MERE" not in want:
            assert got == want, f


@pytest.mark.parametrize("dtype", list(NP))
@pytest.mark.parametrize("standard", STANDARDS)
def test_the_report_does_not_depend_on_the_blocks(dtype: str, standard: str, monkeypatch: pytest.MonkeyPatch):
    a, g = pairs(dtype, 5003, seed=len(dtype) + STANDARDS.index(standard))
    ref = compare(a, g, dtype, standard, worst=12)
    assert ref.failed and ref.nan_mismatch + ref.inf_mismatch and 0 < ref.bit_exact_ratio < 1
    with np.errstate(invalid="ignore"):  # a signalling NaN payload
        wide = compare(a.astype(np.float64), g, dtype, standard, worst=12)  # no bit shortcut: float64 values
    assert (wide.failed, wide.nan_mismatch, wide.inf_mismatch, wide.max_abs_err) == (
        ref.failed,
        ref.nan_mismatch,
        ref.inf_mismatch,
        ref.max_abs_err,
    )
    errors = element_errors(a, g, dtype, standard)
    assert int(errors["failed"].sum()) == ref.failed and int((errors["ulp"] == 1).sum()) == ref.ulp1
    for _ in layouts(monkeypatch):
        same_report(compare(a, g, dtype, standard, worst=12), ref)
        e = element_errors(a, g, dtype, standard)
        assert all(np.array_equal(e[k], errors[k], equal_nan=True) for k in errors)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "bool"])
def test_integer_reports_do_not_depend_on_the_blocks(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    g = rng.integers(0, 2, 3001).astype(bool) if dtype == "bool" else rng.integers(-100, 100, 3001).astype(dtype)
    a = g.copy()
    flip = rng.choice(g.size, 40, replace=False)
    a[flip] = ~a[flip] if dtype == "bool" else a[flip] + 1
    ref = compare(a, g, dtype, worst=7)
    assert ref.failed == 40 and [e.flat for e in ref.worst] == sorted(flip.tolist())[:7]
    for _ in layouts(monkeypatch):
        same_report(compare(a, g, dtype, worst=7), ref)


def test_ties_rank_by_position_across_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cmp, "CHUNK", 1000)
    monkeypatch.setattr(cmp, "MIN_RUN", 1)
    g = np.ones(10_000, np.float32)
    assert [e.flat for e in compare(g.copy(), g, "float32", worst=5).worst] == [0, 1, 2, 3, 4]  # all severity 0
    a = g.copy()
    bad = [9_500, 7_001, 2_999, 5_000, 3_000, 8_888]  # one severity, spread over blocks in both workers' runs
    a[bad] = 2.0
    a[6_000] = 3.0  # the one worse
    r = compare(a, g, "float32", worst=4)
    assert [e.flat for e in r.worst] == [6_000, 2_999, 3_000, 5_000] and r.failed == 7
    r = compare(a, g, "float32", worst=9)  # every failing element, then the first passing ones
    assert [e.flat for e in r.worst] == [6_000, *sorted(bad), 0, 1]
    z = np.zeros(100, np.float32)
    z[1] = -0.0  # differs in bits, not in value: severity 0 like the identical elements around it
    assert [e.flat for e in compare(z, np.zeros(100, np.float32), "float32", worst=3).worst] == [0, 1, 2]


def test_int64_mean_ulp_is_exact_where_int64_sums_overflow() -> None:
    g = np.full(300_000, np.iinfo(np.int64).min, np.int64)
    a = np.full_like(g, np.iinfo(np.int64).max)
    a[::3] = g[::3]
    r = compare(a, g, "int64")
    dist = 2**63 - 1  # |max - min| is 2^64 - 1, capped at the int64 maximum
    assert r.max_ulp == dist and r.mean_ulp == (dist * (g.size - r.ulp0)) / g.size and r.ulp0 == 100_000


def test_a_block_of_identical_elements_is_tallied_like_the_rest() -> None:
    """Bit-identical blocks skip the float64 work; their small values, NaNs, Infs and the mixed_tolerance
    max-abs element must still count as if judged (compare against the same data with every block upcast)."""
    g = np.concatenate([np.full(200_000, 1e-5), [np.nan, np.inf, 3.0], np.linspace(-1, 1, 100_000)]).astype(np.float32)
    a = g.copy()
    a[-1] = np.nextafter(a[-1], np.float32(2))
    wide = a.astype(np.float64)
    for standard in STANDARDS:
        r, ref = compare(a, g, "float32", standard), compare(wide, g, "float32", standard)
        assert (r.passed, r.failed, r.ulp0, r.ulp1, r.metrics.keys()) == (
            ref.passed,
            ref.failed,
            ref.ulp0,
            ref.ulp1,
            ref.metrics.keys(),
        )
        assert all(close(r.metrics[k], ref.metrics[k]) for k in ref.metrics)
        assert r.bit_exact_ratio == ref.bit_exact_ratio
