"""The four precision standards as data (per-dtype tables) plus one judge and one verdict function each.

compare.py judges an output block by block. Every judge sees one block's float64 `Pairs` (special values
already resolved) and returns a `Judged`: which elements fail, a severity for ranking the worst ones, the
relative error it defines, and the block's `tally` (counts, sums, maxima). Bit-identical elements skip the
float64 work: `Standard.equal` tallies them from the golden's bit patterns. The merged tallies of all blocks
(`merge`, independent of how blocks were grouped) give the verdict (`Standard.verdict`).
Thresholds and their public sources: docs/precision.md (one heading per standard).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, NamedTuple

import numpy as np

from ..core._parallel import scratch
from ..core.dtypes import NUMPY

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
UBITS: Final = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass
class Pairs:
    """One block's upcast data. `err` is 0 at agreeing special pairs and inf at disagreeing ones.

    The block is elements base.. of the flat arrays, or only those at base + index (the block's elements
    whose bits differ; the others are tallied by `Standard.equal`)."""

    dtype: str
    a: np.ndarray  # actual, float64
    g: np.ndarray  # expected (golden), float64
    err: np.ndarray  # |a - g|
    special: np.ndarray  # indices where |a - g| is not finite (a NaN/Inf on either side, or float64 overflow)
    special_fail: np.ndarray  # bool per `special`
    bit_equal: np.ndarray  # bool, same bits in the output dtype (NaN == NaN)
    ulp: np.ndarray  # int64 distance of the output dtype's bit patterns, -1 next to a NaN
    base: int = 0
    index: np.ndarray | None = None

    def position(self, i: int) -> int:
        """Flat position (in the whole output) of this block's element i."""
        return self.base + int(i if self.index is None else self.index[i])


def ulp_distance(ba: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """|ordered(ba) - ordered(bg)| (int64: it can exceed int32), where ordered() maps sign-magnitude bit patterns
    to integers ordered like the values (+0 and -0 both 0, a negative pattern to -magnitude). Where the signs
    agree that is the distance of the raw patterns; where they differ, the sum of the two magnitudes."""
    ulp = np.subtract(ba, bg, dtype=np.int64)
    np.abs(ulp, out=ulp)
    opposite = np.flatnonzero((ba ^ bg) < 0)
    if opposite.size:
        magnitude = np.iinfo(ba.dtype).max
        ulp[opposite] = (ba[opposite] & magnitude).astype(np.int64) + (bg[opposite] & magnitude)
    return ulp


def float_pairs(a: np.ndarray, g: np.ndarray, dtype: str) -> Pairs:
    out = NUMPY[dtype]
    a64, g64 = a.astype(np.float64), g.astype(np.float64)
    err = np.subtract(a64, g64)
    np.abs(err, out=err)
    # one reduction instead of an isfinite pass: a NaN or Inf anywhere makes the maximum non-finite
    special = np.zeros(0, np.int64) if np.isfinite(err.max(initial=0.0)) else np.flatnonzero(~np.isfinite(err))
    sa, sg = a64[special], g64[special]
    both_nan = np.isnan(sa) & np.isnan(sg)
    special_fail = ~(both_nan | (sa == sg))  # an Inf agrees only with the same Inf
    err[special] = np.where(special_fail, np.inf, 0.0)
    bits = BITS[out.itemsize]
    ba, bg = a.astype(out, copy=False).view(bits), g.astype(out, copy=False).view(bits)
    bit_equal = ba == bg
    bit_equal[special[both_nan]] = True
    ulp = ulp_distance(ba, bg)
    ulp[special[np.isnan(sa) | np.isnan(sg)]] = -1
    return Pairs(dtype, a64, g64, err, special, special_fail, bit_equal, ulp)


def int_pairs(a: np.ndarray, g: np.ndarray, dtype: str) -> Pairs:
    ai, gi = a.astype(np.int64), g.astype(np.int64)
    # Wrapping int64 subtraction read as uint64 is the exact |a-g| even across the whole int64 range.
    dist = np.where(ai >= gi, ai - gi, gi - ai).view(np.uint64)
    ulp = np.minimum(dist, np.iinfo(np.int64).max).astype(np.int64)
    empty = np.zeros(0, np.int64)
    return Pairs(
        dtype, ai.astype(np.float64), gi.astype(np.float64), dist.astype(np.float64), empty, np.zeros(0, bool),
        ai == gi, ulp,
    )  # fmt: skip


def narrow(x: float, dtype: str) -> float:
    """A golden value as the output dtype holds it (for ULP(g_low))."""
    return float(np.asarray(x).astype(NUMPY[dtype]))


def ulp_of(x: float, dtype: str) -> float:
    out = NUMPY[dtype]
    bits = BITS[out.itemsize]
    v = np.abs(np.asarray([x]).astype(out))
    up = (v.view(bits) + 1).view(out)
    if not np.isfinite(up[0]):
        return float(v[0]) - float((v.view(bits) - 1).view(out)[0])
    return float(up[0]) - float(v[0])


@dataclass
class Judged:
    fail: np.ndarray
    severity: np.ndarray  # larger = worse; only compared within failing / within passing elements
    rel: np.ndarray
    tally: dict[str, Any]  # this block's share of the standard's totals


@dataclass
class Equal:
    """Bit-identical elements of one block (err, rel, ULP, severity all 0; a NaN/Inf one is an agreeing special),
    seen through the golden's |bit pattern| (unsigned, ordered like |value|)."""

    dtype: str
    absbits: np.ndarray
    mask: np.ndarray | None  # which elements of the block are bit-identical (None: all)
    g: np.ndarray  # the block's golden values, in the output dtype
    base: int

    def _below(self, bits: Any) -> np.ndarray:
        hit = np.less(self.absbits, bits, out=scratch(self.absbits.size, np.bool_, "below"))
        if self.mask is not None:
            hit &= self.mask
        return hit

    def below(self, bits: Any) -> int:
        """How many have a |bit pattern| below `bits` (|value| below the value of those bits; NaN is above all)."""
        return int(np.count_nonzero(self._below(bits)))

    def first_below(self, bits: Any) -> int:
        """The block index of the first one with a |bit pattern| below `bits`, -1 if none."""
        hit = self._below(bits)
        i = int(np.argmax(hit)) if hit.size else 0
        return i if hit.size and hit[i] else -1


def bits_of(x: float, dtype: str) -> Any:
    out = NUMPY[dtype]
    return np.asarray(x, out).view(UBITS[out.itemsize])[()]


# Tally keys merged by max / by first maximum; every other key adds up (floats exactly, with fsum).
MAXIMA: Final = frozenset({"max_abs", "max_rel", "ulp_max", "mare"})


def merge(tallies: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Totals of block tallies. `worst` entries (err, position, golden) keep the largest err, the first position on
    ties; float sums add exactly, so the result does not depend on the order or grouping of the blocks."""
    parts: dict[str, list[Any]] = {}
    for t in tallies:
        for k, v in t.items():
            parts.setdefault(k, []).append(v)
    out: dict[str, Any] = {}
    for k, vs in parts.items():
        if k in MAXIMA:
            out[k] = max(vs)
        elif k == "worst":
            out[k] = max(vs, key=lambda w: (w[0], -w[1]))
        elif all(isinstance(v, int) for v in vs):
            out[k] = sum(vs)
        else:
            out[k] = math.fsum(vs)
    return out


class Verdict(NamedTuple):
    passed: bool
    thresholds: dict[str, Any]
    verdict: str
    metrics: dict[str, Any]


def _finite_only(x: np.ndarray, p: Pairs) -> np.ndarray:
    if p.special.size:
        x[p.special] = np.where(p.special_fail, np.inf, 0.0)
    return x


def _special_reason(n: int) -> str | None:
    if not n:
        return None
    return (
        f"{n} NaN/Inf position or sign mismatch(es) "
        "(must match under every standard, docs/precision.md#how-every-standard-sees-the-data)"
    )


def _verdict(passed: bool, rule: str, facts: str, reasons: list[str | None]) -> str:
    why = "; ".join(r for r in reasons if r)
    return f"{'PASS' if passed else 'FAIL'} by {rule}: {facts}" + (f". Failed because: {why}" if why else "")


# Every verdict function reads the merged tally `t` (compare.py's keys: failed, special_fail, ...; plus its judge's).
def exact(p: Pairs) -> Judged:
    rel = _finite_only(p.err / (np.abs(p.g) + SB_EPS), p)
    return Judged(~p.bit_equal, p.err, rel, {})


def exact_verdict(t: dict[str, Any], numel: int, dtype: str) -> Verdict:
    n = t["failed"]
    reasons = [f"{n} element(s) differ in bits" if n else None, _special_reason(t["special_fail"])]
    facts = f"{n} of {numel} differ"
    return Verdict(
        n == 0,
        {"mismatches_allowed": 0},
        _verdict(n == 0, "exact (bit-identical, NaN payloads equal)", facts, reasons),
        {},
    )


def error_budget(t: float, numel: int) -> int:
    """floor(T·numel) computed on the decimal T so that 1e-4·20000 is 2, not 1.999..."""
    return math.floor(Fraction(repr(t)) * numel)


def double_thousandth(p: Pairs) -> Judged:
    t = DOUBLE_THOUSANDTH[p.dtype]
    denom = np.maximum(np.abs(p.a), np.abs(p.g))
    denom += DT_MINIMUM
    rel = _finite_only(np.divide(p.err, denom, out=denom), p)
    fail = p.err > t
    fail &= rel > t
    severity = np.minimum(p.err, rel)
    severity /= t
    return Judged(fail, severity, rel, {})


def double_thousandth_verdict(tally: dict[str, Any], numel: int, dtype: str) -> Verdict:
    t = DOUBLE_THOUSANDTH[dtype]
    n, budget = tally["failed"], error_budget(t, numel)
    passed = n <= budget and not tally["special_fail"]
    reasons = [f"{n} failing > budget {budget}" if n > budget else None, _special_reason(tally["special_fail"])]
    facts = (
        f"{n} of {numel} elements have |a-g| > {t:g} and |a-g|/(max(|a|,|g|)+1e-9) > {t:g}; "
        f"error budget floor({t:g}·{numel}) = {budget}, used {n}"
    )
    return Verdict(
        passed,
        {"T": t, "budget": budget},
        _verdict(passed, "double_thousandth (docs/precision.md#double_thousandth)", facts, reasons),
        {"budget": budget, "budget_used": n},
    )


def single_benchmark(p: Pairs) -> Judged:
    c = SINGLE_BENCHMARK[p.dtype]
    t, s, lim = c["T"], c["small"], c["small_limit"]
    absg = np.abs(p.g)
    small = absg < s  # NaN golden compares False; inf golden is never small
    absg += SB_EPS
    rel = _finite_only(np.divide(p.err, absg, out=absg), p)
    if p.special.size:
        small[p.special] = False
    big = ~small
    if p.special.size:
        big[p.special] = False
    small_fail = small & (p.err > lim)
    fail = rel >= MARE_RATIO * t  # special failures carry rel = inf
    fail &= ~small
    fail |= small_fail
    severity = rel / (MARE_RATIO * t)
    nsmall = int(np.count_nonzero(small))
    if nsmall:
        severity[small] = p.err[small] / lim
    tally = {
        "nbig": int(np.count_nonzero(big)),
        "rel_sum": float(np.sum(rel, where=big)),
        "mare": float(np.max(rel, where=big, initial=0.0)),
        "small": nsmall,
        "small_fail": int(np.count_nonzero(small_fail)),
    }
    return Judged(fail, severity, rel, tally)


def single_benchmark_equal(e: Equal) -> dict[str, Any]:
    small = e.below(bits_of(SINGLE_BENCHMARK[e.dtype]["small"], e.dtype))
    return {"nbig": e.below(bits_of(np.inf, e.dtype)) - small, "small": small}  # big: finite and not small


def single_benchmark_verdict(tally: dict[str, Any], numel: int, dtype: str) -> Verdict:
    c = SINGLE_BENCHMARK[dtype]
    t, s, lim = c["T"], c["small"], c["small_limit"]
    nbig, nsf, nsmall = tally.get("nbig", 0), tally.get("small_fail", 0), tally.get("small", 0)
    mere = tally.get("rel_sum", 0.0) / nbig if nbig else 0.0
    mare = tally.get("mare", 0.0)
    passed = mere < t and mare < MARE_RATIO * t and nsf == 0 and not tally["special_fail"]
    reasons = [
        f"MERE {mere:.4g} >= T {t:g}" if mere >= t else None,
        f"MARE {mare:.4g} >= 10·T {MARE_RATIO * t:g}" if mare >= MARE_RATIO * t else None,
        f"{nsf} small value(s) (|g| < {s:g}) with |a-g| > {lim:g}" if nsf else None,
        _special_reason(tally["special_fail"]),
    ]
    facts = (
        f"MERE {mere:.4g} (need < {t:g}), MARE {mare:.4g} (need < {MARE_RATIO * t:g}) over {nbig} elements with "
        f"|g| >= {s:g}; {nsmall} small values, {nsf} beyond {lim:g}"
    )
    if not nbig:
        facts += " (no element with |g| >= s: MERE/MARE are 0)"
    return Verdict(
        passed,
        {"T": t, "MARE_limit": MARE_RATIO * t, "small": s, "small_limit": lim},
        _verdict(passed, "single_benchmark MERE/MARE (docs/precision.md#single_benchmark)", facts, reasons),
        {"mere": mere, "mare": mare, "small_count": nsmall, "small_fail": nsf},
    )


def mixed_tolerance(p: Pairs) -> Judged:
    c = MIXED_TOLERANCE[p.dtype]
    absg = np.abs(p.g)
    rel = _finite_only(p.err / (absg + SB_EPS), p)
    allowed = absg
    allowed *= c["rtol"]
    allowed += c["atol"]
    fail = p.err > allowed  # special failures carry err = inf, and an agreeing Inf pair err = 0
    severity = np.divide(p.err, allowed, out=allowed)
    tally = {}
    if p.err.size:  # the largest finite error (first on ties) and its golden: the max-abs rule's ULP(g_low)
        finite_err = p.err
        if p.special.size:
            finite_err = p.err.copy()
            finite_err[p.special] = -1.0
        w = int(np.argmax(finite_err))
        tally["worst"] = (float(finite_err[w]), p.position(w), float(p.g[w]))
    return Judged(fail, severity, rel, tally)


def mixed_tolerance_equal(e: Equal) -> dict[str, Any]:
    i = e.first_below(bits_of(np.inf, e.dtype))
    return {} if i < 0 else {"worst": (0.0, e.base + i, float(e.g[i]))}


def mixed_tolerance_verdict(tally: dict[str, Any], numel: int, dtype: str) -> Verdict:
    c = MIXED_TOLERANCE[dtype]
    rtol, atol, floor = c["rtol"], c["atol"], c["floor"]
    n = tally["failed"]
    ratio = 1.0 - n / numel if numel else 1.0
    worst_err, _, worst_g = tally.get("worst", (-1.0, 0, 0.0))
    max_abs = max(worst_err, 0.0)
    g_low = narrow(worst_g, dtype) if worst_err >= 0 else 0.0
    limit = max(floor, ULP_FACTOR * ulp_of(g_low, dtype))
    ratio_ok = (numel - n) >= Fraction(repr(MATCHED_RATIO)) * numel  # exact: 99 of 100 is 0.99
    passed = ratio_ok and max_abs <= limit and not tally["special_fail"]
    reasons = [
        f"matched_ratio {ratio:.6f} < {MATCHED_RATIO}" if not ratio_ok else None,
        f"max_abs_error {max_abs:.4g} > {limit:.4g}" if max_abs > limit else None,
        _special_reason(tally["special_fail"]),
    ]
    facts = (
        f"{n} of {numel} elements beyond |a-g| <= {atol:g} + {rtol:g}·|g| (matched_ratio {ratio:.6f}, "
        f"need >= {MATCHED_RATIO}); max_abs_error {max_abs:.4g} "
        f"(need <= max({floor:g}, 32·ULP({g_low:.6g})) = {limit:.4g})"
    )
    return Verdict(
        passed,
        {"rtol": rtol, "atol": atol, "floor": floor, "matched_ratio": MATCHED_RATIO},
        _verdict(passed, "mixed_tolerance (docs/precision.md#mixed_tolerance)", facts, reasons),
        {"matched_ratio": ratio, "max_abs_limit": limit, "g_low": g_low},
    )


class Standard(NamedTuple):
    judge: Callable[[Pairs], Judged]
    equal: Callable[[Equal], dict[str, Any]]  # the tally of a block's bit-identical elements
    verdict: Callable[[dict[str, Any], int, str], Verdict]


JUDGES: Final[dict[str, Standard]] = {
    "exact": Standard(exact, lambda e: {}, exact_verdict),
    "double_thousandth": Standard(double_thousandth, lambda e: {}, double_thousandth_verdict),
    "single_benchmark": Standard(single_benchmark, single_benchmark_equal, single_benchmark_verdict),
    "mixed_tolerance": Standard(mixed_tolerance, mixed_tolerance_equal, mixed_tolerance_verdict),
}
