"""The four precision standards as data (per-dtype tables) plus one judge function each.

Every judge sees the same float64 `Pairs` (special values already resolved) and returns an `Outcome`:
which elements fail, a severity for ranking the worst ones, the relative error it defines, and the verdict.
Thresholds and their public sources: docs/precision.md (one heading per standard).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

import numpy as np

from .dtypes import NUMPY

STANDARDS: Final = ("exact", "double_thousandth", "single_benchmark", "mixed_tolerance")

# docs/precision.md#double_thousandth: LOSS; fp32 1e-4 is the contest-template variant, bf16 4e-3 msprobe's value.
DOUBLE_THOUSANDTH: Final = {"float16": 1e-3, "float32": 1e-4, "bfloat16": 4e-3}
DT_MINIMUM: Final = 1e-9  # denominator guard (the sample script's MINIMUM, 10e-10)
# docs/precision.md#single_benchmark: T (MARE limit 10·T), small-value domain |g| < s, small-value abs-error limit.
SINGLE_BENCHMARK: Final = {
    "float16": {"T": 2.0**-10, "small": 2.0**-11, "small_limit": 2.0**-16},
    "bfloat16": {"T": 2.0**-7, "small": 2.0**-8, "small_limit": 2.0**-16},
    "float32": {"T": 2.0**-13, "small": 2.0**-14, "small_limit": 2.0**-30},
}
SB_EPS: Final = 1e-7
MARE_RATIO: Final = 10  # ATK mare_ratio: exactly 10·T, not rounded to a power of two
# docs/precision.md#mixed_tolerance table.
MIXED_TOLERANCE: Final = {
    "float16": {"rtol": 2.0**-9, "atol": 2.0**-9, "floor": 1e-1},
    "bfloat16": {"rtol": 2.0**-6, "atol": 2.0**-6, "floor": 1e0},
    "float32": {"rtol": 2.0**-10, "atol": 2.0**-16, "floor": 1e-2},
}
MATCHED_RATIO: Final = 0.99
ULP_FACTOR: Final = 32
BITS: Final = {2: np.int16, 4: np.int32}


@dataclass
class Pairs:
    """Upcast data shared by the judges. `err` is 0 at agreeing special pairs and inf at disagreeing ones."""

    dtype: str
    a: np.ndarray  # actual, float64, flat
    g: np.ndarray  # expected (golden), float64, flat
    err: np.ndarray  # |a - g|
    special: np.ndarray  # flat indices where a or g is NaN/Inf
    special_fail: np.ndarray  # bool per `special`
    bit_equal: np.ndarray  # bool, same bits in the output dtype (NaN == NaN)
    narrow: Callable[[float], float]  # golden value -> value in the output dtype (for ULP(g_low))
    ulp_of: Callable[[float], float]


def ordered(bits: np.ndarray) -> np.ndarray:
    """Sign-magnitude bit patterns -> integers ordered like the values (+0 and -0 both map to 0).

    Negative patterns become -(magnitude): with sign = bits >> (w-1) (0 or -1), that is (bits ^ (sign & max)) - sign."""
    sign = bits >> (8 * bits.itemsize - 1)
    out = sign & np.iinfo(bits.dtype).max
    out ^= bits
    out -= sign
    return out


def float_pairs(a: np.ndarray, g: np.ndarray, dtype: str) -> tuple[Pairs, np.ndarray]:
    out = NUMPY[dtype]
    a64, g64 = a.astype(np.float64), g.astype(np.float64)
    err = np.subtract(a64, g64)
    np.abs(err, out=err)
    finite = np.isfinite(err)
    special = np.zeros(0, np.int64) if finite.all() else np.flatnonzero(~finite)
    sa, sg = a64[special], g64[special]
    both_nan = np.isnan(sa) & np.isnan(sg)
    special_fail = ~(both_nan | (sa == sg))  # an Inf agrees only with the same Inf
    err[special] = np.where(special_fail, np.inf, 0.0)
    bits = BITS[out.itemsize]
    ba, bg = a.astype(out, copy=False).view(bits), g.astype(out, copy=False).view(bits)
    bit_equal = ba == bg
    bit_equal[special[both_nan]] = True
    ulp = np.subtract(ordered(ba), ordered(bg), dtype=np.int64)  # int64: the distance can exceed int32
    np.abs(ulp, out=ulp)
    ulp[special[np.isnan(sa) | np.isnan(sg)]] = -1

    def narrow(x: float) -> float:
        return float(np.asarray(x).astype(out))

    def ulp_of(x: float) -> float:
        v = np.abs(np.asarray([x]).astype(out))
        up = (v.view(bits) + 1).view(out)
        if not np.isfinite(up[0]):
            return float(v[0]) - float((v.view(bits) - 1).view(out)[0])
        return float(up[0]) - float(v[0])

    return Pairs(dtype, a64, g64, err, special, special_fail, bit_equal, narrow, ulp_of), ulp


def int_pairs(a: np.ndarray, g: np.ndarray, dtype: str) -> tuple[Pairs, np.ndarray]:
    ai, gi = a.astype(np.int64), g.astype(np.int64)
    # Wrapping int64 subtraction read as uint64 is the exact |a-g| even across the whole int64 range.
    dist = np.where(ai >= gi, ai - gi, gi - ai).view(np.uint64)
    ulp = np.minimum(dist, np.iinfo(np.int64).max).astype(np.int64)
    empty = np.zeros(0, np.int64)
    pairs = Pairs(
        dtype,
        ai.astype(np.float64),
        gi.astype(np.float64),
        dist.astype(np.float64),
        empty,
        np.zeros(0, bool),
        ai == gi,
        float,
        lambda _: 1.0,
    )
    return pairs, ulp


@dataclass
class Outcome:
    fail: np.ndarray
    severity: np.ndarray  # larger = worse; only compared within failing / within passing elements
    rel: np.ndarray
    passed: bool
    thresholds: dict[str, Any]
    verdict: str
    metrics: dict[str, Any] = field(default_factory=dict)


def _finite_only(x: np.ndarray, p: Pairs) -> np.ndarray:
    if p.special.size:
        x[p.special] = np.where(p.special_fail, np.inf, 0.0)
    return x


def _special_reason(p: Pairs) -> str | None:
    n = int(p.special_fail.sum())
    if not n:
        return None
    return (
        f"{n} NaN/Inf position or sign mismatch(es) "
        "(must match under every standard, docs/precision.md#how-every-standard-sees-the-data)"
    )


def _verdict(passed: bool, rule: str, facts: str, reasons: list[str | None]) -> str:
    why = "; ".join(r for r in reasons if r)
    return f"{'PASS' if passed else 'FAIL'} by {rule}: {facts}" + (f". Failed because: {why}" if why else "")


def exact(p: Pairs) -> Outcome:
    fail = ~p.bit_equal
    rel = _finite_only(p.err / (np.abs(p.g) + SB_EPS), p)
    n = int(fail.sum())
    reasons = [f"{n} element(s) differ in bits" if n else None, _special_reason(p)]
    return Outcome(
        fail,
        p.err,
        rel,
        n == 0,
        {"mismatches_allowed": 0},
        _verdict(n == 0, "exact (bit-identical, NaN payloads equal)", f"{n} of {p.a.size} differ", reasons),
    )


def error_budget(t: float, numel: int) -> int:
    """floor(T·numel) computed on the decimal T so that 1e-4·20000 is 2, not 1.999..."""
    return math.floor(Fraction(repr(t)) * numel)


def double_thousandth(p: Pairs) -> Outcome:
    t = DOUBLE_THOUSANDTH[p.dtype]
    denom = np.maximum(np.abs(p.a), np.abs(p.g))
    denom += DT_MINIMUM
    rel = _finite_only(np.divide(p.err, denom, out=denom), p)
    fail = (p.err > t) & (rel > t)
    n, budget = int(fail.sum()), error_budget(t, p.a.size)
    passed = n <= budget and not p.special_fail.any()
    reasons = [f"{n} failing > budget {budget}" if n > budget else None, _special_reason(p)]
    facts = (
        f"{n} of {p.a.size} elements have |a-g| > {t:g} and |a-g|/(max(|a|,|g|)+1e-9) > {t:g}; "
        f"error budget floor({t:g}·{p.a.size}) = {budget}, used {n}"
    )
    return Outcome(
        fail,
        np.minimum(p.err, rel) / t,
        rel,
        passed,
        {"T": t, "budget": budget},
        _verdict(passed, "double_thousandth (docs/precision.md#double_thousandth)", facts, reasons),
        {"budget": budget, "budget_used": n},
    )


def single_benchmark(p: Pairs) -> Outcome:
    c = SINGLE_BENCHMARK[p.dtype]
    t, s, lim = c["T"], c["small"], c["small_limit"]
    absg = np.abs(p.g)
    small = absg < s  # NaN golden compares False; inf golden is never small
    rel = _finite_only(p.err / (absg + SB_EPS), p)
    if p.special.size:
        small[p.special] = False
    big = ~small
    if p.special.size:
        big[p.special] = False
    nbig = int(big.sum())
    mere = float(np.sum(rel, where=big)) / nbig if nbig else 0.0
    mare = float(np.max(rel, where=big, initial=0.0))
    small_fail = small & (p.err > lim)
    fail = small_fail | (~small & (rel >= MARE_RATIO * t))  # special failures carry rel = inf
    severity = rel / (MARE_RATIO * t)
    if small.any():
        severity[small] = p.err[small] / lim
    nsf = int(small_fail.sum())
    passed = mere < t and mare < MARE_RATIO * t and nsf == 0 and not p.special_fail.any()
    reasons = [
        f"MERE {mere:.4g} >= T {t:g}" if mere >= t else None,
        f"MARE {mare:.4g} >= 10·T {MARE_RATIO * t:g}" if mare >= MARE_RATIO * t else None,
        f"{nsf} small value(s) (|g| < {s:g}) with |a-g| > {lim:g}" if nsf else None,
        _special_reason(p),
    ]
    facts = (
        f"MERE {mere:.4g} (need < {t:g}), MARE {mare:.4g} (need < {MARE_RATIO * t:g}) over {nbig} elements with "
        f"|g| >= {s:g}; {int(small.sum())} small values, {nsf} beyond {lim:g}"
    )
    if not nbig:
        facts += " (no element with |g| >= s: MERE/MARE are 0)"
    return Outcome(
        fail,
        severity,
        rel,
        passed,
        {"T": t, "MARE_limit": MARE_RATIO * t, "small": s, "small_limit": lim},
        _verdict(passed, "single_benchmark MERE/MARE (docs/precision.md#single_benchmark)", facts, reasons),
        {"mere": mere, "mare": mare, "small_count": int(small.sum()), "small_fail": nsf},
    )


def mixed_tolerance(p: Pairs) -> Outcome:
    c = MIXED_TOLERANCE[p.dtype]
    rtol, atol, floor = c["rtol"], c["atol"], c["floor"]
    absg = np.abs(p.g)
    rel = _finite_only(p.err / (absg + SB_EPS), p)
    allowed = absg * rtol
    allowed += atol
    fail = p.err > allowed  # special failures carry err = inf, and an agreeing Inf pair err = 0
    severity = np.divide(p.err, allowed, out=allowed)
    n, numel = int(fail.sum()), p.a.size
    ratio = 1.0 - n / numel if numel else 1.0
    finite_err = p.err
    if p.special.size:
        finite_err = p.err.copy()
        finite_err[p.special] = -1.0
    worst = int(np.argmax(finite_err)) if numel else 0
    max_abs = max(float(finite_err[worst]), 0.0) if numel else 0.0
    g_low = p.narrow(float(p.g[worst])) if numel and finite_err[worst] >= 0 else 0.0
    limit = max(floor, ULP_FACTOR * p.ulp_of(g_low))
    ratio_ok = (numel - n) >= Fraction(repr(MATCHED_RATIO)) * numel  # exact: 99 of 100 is 0.99
    passed = ratio_ok and max_abs <= limit and not p.special_fail.any()
    reasons = [
        f"matched_ratio {ratio:.6f} < {MATCHED_RATIO}" if not ratio_ok else None,
        f"max_abs_error {max_abs:.4g} > {limit:.4g}" if max_abs > limit else None,
        _special_reason(p),
    ]
    facts = (
        f"{n} of {p.a.size} elements beyond |a-g| <= {atol:g} + {rtol:g}·|g| (matched_ratio {ratio:.6f}, "
        f"need >= {MATCHED_RATIO}); max_abs_error {max_abs:.4g} "
        f"(need <= max({floor:g}, 32·ULP({g_low:.6g})) = {limit:.4g})"
    )
    return Outcome(
        fail,
        severity,
        rel,
        passed,
        {"rtol": rtol, "atol": atol, "floor": floor, "matched_ratio": MATCHED_RATIO},
        _verdict(passed, "mixed_tolerance (docs/precision.md#mixed_tolerance)", facts, reasons),
        {"matched_ratio": ratio, "max_abs_limit": limit, "g_low": g_low},
    )


JUDGES: Final[dict[str, Callable[[Pairs], Outcome]]] = {
    "exact": exact,
    "double_thousandth": double_thousandth,
    "single_benchmark": single_benchmark,
    "mixed_tolerance": mixed_tolerance,
}
