"""Precision comparison: compare(actual, expected, dtype) -> Report; assert_close is a thin wrapper.

One vectorized pass in float64 (bf16 upcast through ml_dtypes) resolves NaN/Inf agreement, then the chosen
standard (exact, double_thousandth, single_benchmark, mixed_tolerance; tables in _standards.py) judges the
finite pairs. ULP distances use the output dtype's bit patterns, mapped sign-magnitude -> ordered integer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._standards import JUDGES, STANDARDS, Outcome, Pairs, float_pairs, int_pairs
from .dtypes import NUMPY, canonical, is_float
from .errors import InvalidAttr, InvalidDtype, InvalidShape, UnknownName

__all__ = ["STANDARDS", "Element", "Report", "assert_close", "compare", "element_errors"]


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
        from .render.text import report_repr

        return report_repr(self)

    def header(self) -> str:
        from .render.text import report_header

        return report_header(self)

    def text(self) -> str:
        from .render.text import report_text

        return report_text(self)

    def _repr_html_(self) -> str:
        from .render.html import report_html

        return report_html(self)

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


def _top(x: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest values, largest first, ties by position.

    A strided sample's k-th largest value bounds the answer from below, so only the few elements above it
    (plus the first ties) go through argpartition instead of all 16M."""
    k = min(k, x.size)
    if k <= 0:
        return np.zeros(0, np.int64)
    cand = np.arange(x.size)
    if x.size > 65536 and k <= 1024:
        sample = x[:: x.size // 16384]
        thr = np.partition(sample, sample.size - k)[sample.size - k]
        if np.isnan(thr):  # severity is NaN-free by construction; stay correct if not
            return _top(np.nan_to_num(x, nan=-np.inf), k)
        cand = np.flatnonzero(x > thr)
        if cand.size < k:
            cand = np.concatenate([cand, np.flatnonzero(x == thr)[: k - cand.size]])
    if cand.size > k:
        cand = cand[np.argpartition(-x[cand], k - 1)[:k]]
    return cand[np.lexsort((cand, -x[cand]))]


def _pick(fail: np.ndarray, severity: np.ndarray, n: int) -> np.ndarray:
    failing = np.flatnonzero(fail)
    chosen = failing[_top(severity[failing], n)]
    if chosen.size < n:
        rest = severity.copy()
        rest[failing] = -np.inf
        chosen = np.concatenate([chosen, _top(rest, min(n - chosen.size, rest.size - failing.size))])
    return chosen


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
        p, ulp, o = _judge(a, g, dtype, std)
        finite: Any = True
        if p.special.size:
            finite = np.ones(a.size, bool)
            finite[p.special] = False
        max_abs = float(np.max(p.err, where=finite, initial=0.0)) if a.size else 0.0
        max_rel = float(np.max(o.rel, where=finite, initial=0.0)) if a.size else 0.0
        nan_a, nan_g = np.isnan(p.a[p.special]), np.isnan(p.g[p.special])
        bad_ulp = int((nan_a | nan_g).sum())  # ulp is -1 there: undefined next to a NaN
        valid = a.size - bad_ulp
        ulp0, ulp1 = int((ulp == 0).sum()), int((ulp == 1).sum())
        chosen = _pick(o.fail, o.severity, worst)
        elements = tuple(_element(int(i), a, g, p, o.rel, ulp, inputs, locate) for i in chosen)
    return Report(
        name=name,
        dtype=dtype,
        standard=std,
        shape=tuple(a.shape),
        thresholds=o.thresholds,
        passed=bool(o.passed),
        numel=int(a.size),
        failed=int(o.fail.sum()),
        nan_mismatch=int((nan_a != nan_g).sum()),
        inf_mismatch=int((p.special_fail & ~nan_a & ~nan_g).sum()),
        max_abs_err=max_abs,
        max_rel_err=max_rel,
        mere=o.metrics.get("mere"),
        mare=o.metrics.get("mare"),
        bit_exact_ratio=float(p.bit_equal.sum()) / a.size if a.size else 1.0,
        max_ulp=int(ulp.max(initial=0)),
        mean_ulp=float(ulp.sum() + bad_ulp) / valid if valid else 0.0,
        ulp0=ulp0,
        ulp1=ulp1,
        ulp_gt1=valid - ulp0 - ulp1,
        verdict=o.verdict,
        notes=tuple(notes),
        worst=elements,
        metrics=o.metrics,
        mode=mode,
    )


def _judge(a: np.ndarray, g: np.ndarray, dtype: str, std: str) -> tuple[Pairs, np.ndarray, Outcome]:
    p, ulp = (float_pairs if is_float(dtype) else int_pairs)(a.ravel(), g.ravel(), dtype)
    o = JUDGES[std](p)
    if p.special.size:  # agreeing specials never rank above real errors
        o.severity[p.special] = np.where(p.special_fail, np.inf, 0.0)
    return p, ulp, o


def element_errors(actual: Any, expected: Any, dtype: str, standard: str | None = None) -> dict[str, np.ndarray]:
    """Per-element errors in flat (C) order, judged exactly as compare() judges them: `ulp` (-1 next to a NaN),
    `abs_err` (0 where NaN/Inf agree, inf where they disagree), `failed` (bool): the precision panel's data."""
    dtype, a, g = _check(actual, expected, dtype, standard, 0)
    std = (standard or "double_thousandth") if is_float(dtype) else "exact"
    with np.errstate(all="ignore"):
        p, ulp, o = _judge(a, g, dtype, std)
        return {"ulp": ulp, "abs_err": p.err, "failed": np.asarray(o.fail, bool)}


def _element(
    i: int,
    a: np.ndarray,
    g: np.ndarray,
    p: Pairs,
    rel: np.ndarray,
    ulp: np.ndarray,
    inputs: Callable[[tuple[int, ...]], dict[str, Any]] | None,
    locate: Callable[[int], object] | None,
) -> Element:
    index = tuple(int(k) for k in np.unravel_index(i, a.shape))
    flat_a, flat_g = a.reshape(-1)[i], g.reshape(-1)[i]
    exp_v, act_v = (
        (float(flat_g), float(flat_a))
        if np.issubdtype(p.g.dtype, np.floating) and is_float(p.dtype)
        else (int(flat_g), int(flat_a))
    )
    return Element(
        index=index,
        flat=i,
        expected=exp_v,
        actual=act_v,
        abs_err=float(abs(p.a[i] - p.g[i])),
        rel_err=float(rel[i]),
        ulp=None if ulp[i] < 0 else int(ulp[i]),
        inputs=dict(inputs(index)) if inputs else {},
        location=str(locate(i)) if locate else "",
    )


def assert_close(actual: Any, expected: Any, dtype: str, standard: str | None = None, **kw: Any) -> Report:
    """compare(), raising AssertionError(report.text()) when the case fails."""
    report = compare(actual, expected, dtype, standard, **kw)
    if not report:
        raise AssertionError(report.text())
    return report
