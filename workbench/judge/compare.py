"""Precision comparison: compare(actual, expected, dtype) -> Report; assert_close is a thin wrapper.

The flat arrays are judged in blocks of CHUNK elements, runs of blocks on the shared thread pool, so no
temporary is as large as the output. In a block, bit-identical elements are tallied from their bits alone; the
others are upcast to float64 (bf16 through ml_dtypes), NaN/Inf agreement is resolved, and the chosen standard
(exact, double_thousandth, single_benchmark, mixed_tolerance; tables in _standards.py) judges the finite pairs.
Block tallies merge exactly (counts, maxima, fsum), whatever the number of workers. ULP distances use the output
dtype's bit patterns, mapped sign-magnitude -> ordered integer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from ..core import shown
from ..core._parallel import map_runs, scratch
from ..core.dtypes import NUMPY, canonical, is_float
from ..core.errors import InvalidAttr, InvalidDtype, InvalidShape, UnknownName
from ._standards import JUDGES, STANDARDS, UBITS, Equal, bits_of, float_pairs, int_pairs, merge

__all__ = ["STANDARDS", "Element", "Report", "assert_close", "compare", "element_errors", "elements"]


def verdict(passed: bool, faulted: bool) -> str:
    """A run's verdict: a fault outranks precision, which is judged only on a run that did not fault."""
    return "PASS" if passed and not faulted else ("KERNEL FAULT" if faulted else "PRECISION FAIL")


@dataclass(frozen=True)
class Element:
    index: tuple[int, ...]
    flat: int
    expected: float | int
    actual: float | int
    abs_err: float
    rel_err: float
    ulp: int | None
    inputs: dict[str, Any] = field(default_factory=dict)
    location: str = ""


@dataclass(frozen=True)
class Report:
    name: str
    dtype: str
    standard: str
    shape: tuple[int, ...]
    thresholds: dict[str, Any]
    passed: bool
    numel: int
    failed: int
    nan_mismatch: int
    inf_mismatch: int
    max_abs_err: float
    max_rel_err: float
    mere: float | None
    mare: float | None
    bit_exact_ratio: float
    max_ulp: int
    mean_ulp: float
    ulp0: int
    ulp1: int
    ulp_gt1: int
    verdict: str
    notes: tuple[str, ...] = ()
    worst: tuple[Element, ...] = ()
    metrics: dict[str, Any] = field(default_factory=dict)
    mode: str | None = None

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return shown.render(self, "repr")

    def header(self) -> str:
        return shown.render(self, "header")

    def text(self) -> str:
        return shown.render(self, "text")

    def _repr_html_(self) -> str:
        return shown.render(self, "html")

    def to_json(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "worst"}
        d["worst"] = [{k: getattr(w, k) for k in w.__dataclass_fields__} for w in self.worst]
        return _jsonable(d)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def check_standard(standard: str | None) -> None:
    if standard is not None and standard not in STANDARDS:
        raise UnknownName("standard", standard, ", ".join(STANDARDS))


def _check(actual: Any, expected: Any, dtype: str, standard: str | None, worst: int) -> tuple[Any, ...]:
    dtype = canonical(dtype)
    a, g = np.asarray(actual), np.asarray(expected)
    if a.shape != g.shape:
        raise InvalidShape("actual.shape", a.shape, f"the expected (golden) shape {g.shape}")
    for which, arr in (("actual", a), ("expected", g)):
        if arr.dtype not in NUMPY.values() and arr.dtype != np.float64:
            raise InvalidDtype(f"{which}.dtype", str(arr.dtype), ", ".join([*NUMPY, "float64"]))
    check_standard(standard)
    if isinstance(worst, bool) or not isinstance(worst, (int, np.integer)) or worst < 0:
        raise InvalidAttr("worst", worst, "an integer >= 0")
    return dtype, a, g


CHUNK: Final = 1 << 18  # elements per block (a block with at most 1/SPARSE of them differing in bits upcasts
SPARSE: Final = 8  # only those; the others are tallied from their bits)
DENSE: Final = 1 << 16  # elements upcast at once: their float64 temporaries (~10 an element) stay in cache
MIN_RUN: Final = 2  # blocks a worker takes at least
# Tally keys every comparison reports (a block of bit-identical elements adds to a few of them only).
_COUNTS: Final = ("failed", "special_fail", "nan_mismatch", "inf_mismatch", "bad_ulp", "bit_equal", "ulp0", "ulp1")
_ZERO: Final[dict[str, Any]] = {**dict.fromkeys(_COUNTS, 0), "ulp_sum": 0, "ulp_max": 0, "max_abs": 0.0, "max_rel": 0.0}


def compare(
    actual: Any,
    expected: Any,
    dtype: str,
    standard: str | None = None,
    *,
    name: str = "out",
    inputs: Callable[[tuple[int, ...]], dict[str, Any]] | None = None,
    locate: Callable[[int], object] | None = None,
    worst: int = 10,
    mode: str | None = None,
) -> Report:
    """Compare a kernel output with its golden under `standard` (None: exact for integers/bool, else
    double_thousandth). `inputs(index)` and `locate(flat)` annotate the worst elements."""
    dtype, a, g = _check(actual, expected, dtype, standard, worst)
    floating = is_float(dtype)
    asked = standard or ("double_thousandth" if floating else "exact")
    notes = [] if mode is None else [f"golden computed in overflow mode {mode!r}"]
    if not floating and asked != "exact":
        notes.append(
            f"{dtype} output: compared bit-exactly whatever the standard "
            f"({asked!r} requested; docs/precision.md#defaults)"
        )
    out = NUMPY[dtype]
    for which, arr in (("actual", a), ("expected", g)):
        if arr.dtype != out:
            notes.append(
                f"{which} given as {arr.dtype.name}: errors use its own precision; bits/ULP use it as {dtype}"
                if floating
                else f"{which} given as {arr.dtype.name}: compared by integer value"
            )
    if a.size == 0:
        notes.append("empty output: nothing to compare")
    std = asked if floating else "exact"
    with np.errstate(all="ignore"):
        t, chosen = _scan(a, g, dtype, std, worst)
        elements = _elements(chosen, a, g, dtype, std, inputs, locate)
    v = JUDGES[std].verdict(t, a.size, dtype)
    valid = a.size - t["bad_ulp"]  # ULP is undefined next to a NaN
    return Report(
        name=name,
        dtype=dtype,
        standard=std,
        shape=tuple(a.shape),
        thresholds=v.thresholds,
        passed=bool(v.passed),
        numel=int(a.size),
        failed=t["failed"],
        nan_mismatch=t["nan_mismatch"],
        inf_mismatch=t["inf_mismatch"],
        max_abs_err=t["max_abs"],
        max_rel_err=t["max_rel"],
        mere=v.metrics.get("mere"),
        mare=v.metrics.get("mare"),
        bit_exact_ratio=t["bit_equal"] / a.size if a.size else 1.0,
        max_ulp=t["ulp_max"],
        mean_ulp=t["ulp_sum"] / valid if valid else 0.0,
        ulp0=t["ulp0"],
        ulp1=t["ulp1"],
        ulp_gt1=valid - t["ulp0"] - t["ulp1"],
        verdict=v.verdict,
        notes=tuple(notes),
        worst=elements,
        metrics=v.metrics,
        mode=mode,
    )


def element_errors(actual: Any, expected: Any, dtype: str, standard: str | None = None) -> dict[str, np.ndarray]:
    """Per-element errors in flat (C) order, judged exactly as compare() judges them: `ulp` (-1 next to a NaN),
    `abs_err` (0 where NaN/Inf agree, inf where they disagree), `failed` (bool), and `ratio`: the error over what
    the standard allows that element (an element fails above 1; exact allows nothing, so a differing element is
    inf): the precision panel's data."""
    dtype, a, g = _check(actual, expected, dtype, standard, 0)
    std = (standard or "double_thousandth") if is_float(dtype) else "exact"
    keep = {
        "ulp": np.empty(a.size, np.int64),
        "abs_err": np.empty(a.size),
        "failed": np.empty(a.size, bool),
        "ratio": np.empty(a.size),
    }
    with np.errstate(all="ignore"):
        _scan(a, g, dtype, std, 0, keep)
    if std == "exact":  # its severity is the plain error: every differing element is beyond what exact allows
        keep["ratio"] = np.where(keep["failed"], np.inf, 0.0)
    return keep


def elements(
    actual: Any,
    expected: Any,
    dtype: str,
    standard: str | None,
    positions: np.ndarray,
    inputs: Callable[[tuple[int, ...]], dict[str, Any]] | None = None,
    locate: Callable[[int], object] | None = None,
) -> tuple[Element, ...]:
    """The elements at flat `positions`, each as a report lists its worst ones (the mismatch table's rows)."""
    dtype, a, g = _check(actual, expected, dtype, standard, 0)
    std = (standard or "double_thousandth") if is_float(dtype) else "exact"
    with np.errstate(all="ignore"):
        return _elements(np.asarray(positions, np.int64), a, g, dtype, std, inputs, locate)


def _scan(
    a: np.ndarray, g: np.ndarray, dtype: str, std: str, k: int, keep: dict[str, np.ndarray] | None = None
) -> tuple[dict[str, Any], np.ndarray]:
    """Judge a against g block by block, runs of blocks in parallel: the merged tally and the flat positions of
    the k worst elements in report order (failing ones by severity, then passing ones; ties by position).
    `keep` receives every element's ulp, abs_err and failed."""
    a, g = np.ravel(a), np.ravel(g)
    n = a.size
    blocks = [(lo, min(lo + CHUNK, n)) for lo in range(0, n, CHUNK)] or [(0, 0)]
    # two blocks a worker at least: thread hand-offs cost more than a smaller share of the work saves
    runs = map_runs(lambda run: _Run(a, g, dtype, std, k, keep).scan(run), blocks, min_run=MIN_RUN)
    t = {**_ZERO, **merge(x for r in runs for x in r.tallies)}
    failing = _Top.merged([r.failing for r in runs], k)
    passing = _Top.merged([r.passing for r in runs], k - failing.size)
    return t, np.concatenate([failing, passing])


class _Top:
    """The k largest severities offered, the earliest position first among equals. Offers come in increasing
    position order, so what is held stays in position order and a later equal severity never displaces it."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.sev = np.zeros(0)
        self.pos = np.zeros(0, np.int64)
        self.floor = -np.inf if k else np.inf  # an offer must exceed it: the k-th largest once k are held

    @property
    def full(self) -> bool:
        return self.sev.size >= self.k

    def offer(self, sev: np.ndarray, pos: np.ndarray) -> None:
        if not sev.size or not self.k:
            return
        s, p = np.concatenate([self.sev, sev]), np.concatenate([self.pos, pos])
        if s.size > self.k:
            kth = np.partition(s, s.size - self.k)[s.size - self.k]
            above = np.flatnonzero(s > kth)
            keep = np.concatenate([above, np.flatnonzero(s == kth)[: self.k - above.size]])
            keep.sort()
            s, p = s[keep], p[keep]
        self.sev, self.pos = s, p
        if self.full:
            self.floor = float(s.min())

    @staticmethod
    def merged(tops: list[_Top], k: int) -> np.ndarray:
        """The positions the runs' tops hold (runs in position order), the k largest first."""
        top = _Top(k)
        for t in tops:
            top.offer(t.sev, t.pos)
        return top.pos[np.lexsort((top.pos, -top.sev))]


class _Run:
    """One worker's contiguous run of blocks: a tally per block and the worst failing / passing elements."""

    def __init__(self, a: np.ndarray, g: np.ndarray, dtype: str, std: str, k: int, keep: dict[str, np.ndarray] | None):
        self.a, self.g, self.dtype, self.std, self.k, self.keep = a, g, dtype, JUDGES[std], k, keep
        out = NUMPY[dtype]
        # Bit patterns decide equality directly when both sides hold the output dtype (else float64 values do).
        self.by_bits = a.dtype == g.dtype == out and keep is None
        self.bits = np.dtype(UBITS[out.itemsize])
        self.floating = is_float(dtype)
        self.absmask = (1 << (8 * out.itemsize - 1)) - 1  # clears the sign bit
        self.inf = bits_of(np.inf, dtype) if self.floating else 0
        self.tallies: list[dict[str, Any]] = []
        self.failing, self.passing = _Top(k), _Top(k)

    def scan(self, blocks: Sequence[tuple[int, int]]) -> _Run:
        with np.errstate(all="ignore"):  # per thread (a context variable): NaN/Inf data warns in every formula
            for lo, hi in blocks:
                self._block(self.a[lo:hi], self.g[lo:hi], lo)
        return self

    def _block(self, a: np.ndarray, g: np.ndarray, lo: int) -> None:
        if self.by_bits:
            eq = np.equal(a.view(self.bits), g.view(self.bits), out=scratch(a.size, np.bool_, "equal"))
            differ = eq.size - int(np.count_nonzero(eq))
            if differ * SPARSE <= eq.size:
                pos = self._equal(g, eq if differ else None, lo)
                sev = np.zeros(pos.size)
                if differ:
                    idx = np.flatnonzero(~eq)
                    (fpos, fsev), (ppos, psev) = self._judge(a[idx], g[idx], lo, idx)
                    self.failing.offer(fsev, fpos)
                    pos, sev = np.concatenate([pos, ppos]), np.concatenate([sev, psev])
                    order = np.argsort(pos, kind="stable")  # offers go in position order
                    pos, sev = pos[order], sev[order]
                self.passing.offer(sev, pos)
                return
        for at in range(0, max(a.size, 1), DENSE):
            (fpos, fsev), (ppos, psev) = self._judge(a[at : at + DENSE], g[at : at + DENSE], lo + at, None)
            self.failing.offer(fsev, fpos)
            self.passing.offer(psev, ppos)

    def _equal(self, g: np.ndarray, mask: np.ndarray | None, lo: int) -> np.ndarray:
        """Tally a block's bit-identical elements (no error, ULP 0 but undefined at a NaN, severity 0); return the
        positions of those that may still rank among the worst: the first k, while fewer are held."""
        same = g.size if mask is None else int(np.count_nonzero(mask))
        nan = 0
        t: dict[str, Any] = {}
        if self.floating:
            absbits = np.bitwise_and(g.view(self.bits), self.absmask, out=scratch(g.size, self.bits, "absbits"))
            e = Equal(self.dtype, absbits, mask, g, lo)
            nan = same - e.below(self.inf + 1)
            t = self.std.equal(e)
        self.tallies.append({"bit_equal": same, "ulp0": same - nan, "bad_ulp": nan, **t})
        if self.passing.full or self.failing.full:
            return np.zeros(0, np.int64)
        return lo + (np.arange(min(self.k, g.size)) if mask is None else np.flatnonzero(mask)[: self.k])

    def _judge(self, a: np.ndarray, g: np.ndarray, lo: int, idx: np.ndarray | None) -> tuple[Candidates, Candidates]:
        """Judge a block (or its elements at idx) in float64: tally it; return the failing and the passing elements
        that may rank among the worst (position, severity)."""
        p = (float_pairs if self.floating else int_pairs)(a, g, self.dtype)
        p.base, p.index = lo, idx
        j = self.std.judge(p)
        sev, ulp = j.severity, p.ulp
        t: dict[str, Any] = {"special_fail": 0, "nan_mismatch": 0, "inf_mismatch": 0, "bad_ulp": 0}
        if p.special.size:  # agreeing specials never rank above real errors
            sev[p.special] = np.where(p.special_fail, np.inf, 0.0)
            nan_a, nan_g = np.isnan(p.a[p.special]), np.isnan(p.g[p.special])
            t["special_fail"] = int(np.count_nonzero(p.special_fail))
            t["nan_mismatch"] = int(np.count_nonzero(nan_a != nan_g))
            t["inf_mismatch"] = int(np.count_nonzero(p.special_fail & ~nan_a & ~nan_g))
            t["bad_ulp"] = int(np.count_nonzero(nan_a | nan_g))
            finite = np.ones(p.err.size, bool)
            finite[p.special] = False
            max_abs = np.max(p.err, where=finite, initial=0.0)
            max_rel = np.max(j.rel, where=finite, initial=0.0)
        else:
            max_abs, max_rel = p.err.max(initial=0.0), j.rel.max(initial=0.0)
        failed = int(np.count_nonzero(j.fail))
        ulp_max = int(ulp.max(initial=0))
        t |= {
            "failed": failed,
            "bit_equal": int(np.count_nonzero(p.bit_equal)),
            "ulp0": int(np.count_nonzero(ulp == 0)),
            "ulp1": int(np.count_nonzero(ulp == 1)),
            "ulp_sum": _exact_sum(ulp, ulp_max) + t["bad_ulp"],  # the -1s cancelled: the sum of defined ULPs
            "ulp_max": ulp_max,
            "max_abs": float(max_abs),
            "max_rel": float(max_rel),
            **j.tally,
        }
        self.tallies.append(t)
        if self.keep is not None:
            hi = lo + p.err.size
            self.keep["ulp"][lo:hi], self.keep["abs_err"][lo:hi], self.keep["failed"][lo:hi] = ulp, p.err, j.fail
            self.keep["ratio"][lo:hi] = sev
        none = np.zeros(0, np.int64)
        fail_at = pass_at = none
        if failed and self.k:
            fail_at = np.flatnonzero(j.fail & (sev > self.failing.floor))
        if not self.failing.full and self.k:  # with k failing, passing elements are never shown
            hot = sev > self.passing.floor
            if failed:
                hot &= ~j.fail
            pass_at = np.flatnonzero(hot)
        return (
            (fail_at + lo if idx is None else idx[fail_at] + lo, sev[fail_at]),
            (pass_at + lo if idx is None else idx[pass_at] + lo, sev[pass_at]),
        )


Candidates = tuple[np.ndarray, np.ndarray]  # flat positions (increasing), their severities


def _exact_sum(ulp: np.ndarray, largest: int) -> int:
    """ulp.sum() without int64 overflow (int64 outputs' distances reach 2^63): halves summed apart when needed."""
    if largest < 2**47 // max(ulp.size, 1):
        return int(ulp.sum())
    return (int((ulp >> 32).sum()) << 32) + int((ulp & 0xFFFFFFFF).sum())


def _elements(
    chosen: np.ndarray,
    a: np.ndarray,
    g: np.ndarray,
    dtype: str,
    std: str,
    inputs: Callable[[tuple[int, ...]], dict[str, Any]] | None,
    locate: Callable[[int], object] | None,
) -> tuple[Element, ...]:
    """The chosen elements, judged again on their own (every per-element figure depends on that element only)."""
    if not chosen.size:
        return ()
    flat_a, flat_g = np.ravel(a)[chosen], np.ravel(g)[chosen]
    p = (float_pairs if is_float(dtype) else int_pairs)(flat_a, flat_g, dtype)
    rel = JUDGES[std].judge(p).rel
    as_value = float if is_float(dtype) else int
    elements = []
    for e, i in enumerate(chosen.tolist()):
        index = tuple(int(x) for x in np.unravel_index(i, a.shape))
        elements.append(
            Element(
                index=index,
                flat=i,
                expected=as_value(flat_g[e]),
                actual=as_value(flat_a[e]),
                abs_err=float(abs(p.a[e] - p.g[e])),
                rel_err=float(rel[e]),
                ulp=None if p.ulp[e] < 0 else int(p.ulp[e]),
                inputs=dict(inputs(index)) if inputs else {},
                location=str(locate(i)) if locate else "",
            )
        )
    return tuple(elements)


def assert_close(actual: Any, expected: Any, dtype: str, standard: str | None = None, **kw: Any) -> Report:
    """compare(), raising AssertionError(report.text()) when the case fails."""
    report = compare(actual, expected, dtype, standard, **kw)
    if not report:
        raise AssertionError(report.text())
    return report
