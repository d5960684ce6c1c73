"""The built-in (TBE) operator as a second opinion: three comparisons per run and the double-benchmark ratios.

- kernel vs golden: the run's own reports (pipeline.verify);
- TBE vs golden: the same standard applied to the built-in op's outputs;
- kernel vs TBE: the same standard with the built-in op's outputs in the golden's place;
- double benchmark (docs/precision.md#double-benchmark-against-the-built-in-op): per float output, the kernel's
  MARE, MERE and RMSE against the golden divided by the built-in op's. A ratio below 1 means the kernel is closer
  to the golden. The divisor is floored at the dtype's minimum error (msprobe's benchmark method: 2^-11 fp16, 2^-8 bf16,
  2^-14 fp32), so a built-in op that is exact does not make every ratio infinite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..core.dtypes import NUMPY, is_float
from .compare import Report, compare

MIN_ERR = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-14}
# Commercial double benchmark, level L0 (常规, ≥ 5000 cases): MARE ratio ≤ 10, MERE ratio ≤ 2, RMSE ratio ≤ 2.
L0_LIMITS = {"mare": 10.0, "mere": 2.0, "rmse": 2.0}


@dataclass(frozen=True)
class ErrorStats:
    mare: float
    mere: float
    rmse: float


@dataclass(frozen=True)
class DoubleBenchmark:
    output: str
    kernel: ErrorStats
    builtin: ErrorStats
    ratios: dict[str, float]
    limits: dict[str, float]

    @property
    def passed(self) -> bool:
        return all(self.ratios[k] <= self.limits[k] for k in self.limits)


@dataclass(frozen=True)
class Baseline:
    """The built-in op's outputs judged against the golden and against the kernel."""

    builtin_vs_golden: dict[str, Report]
    kernel_vs_builtin: dict[str, Report]
    double_benchmark: dict[str, DoubleBenchmark]

    @property
    def passed(self) -> bool:
        return all(d.passed for d in self.double_benchmark.values())


def error_stats(actual: np.ndarray, golden: np.ndarray) -> ErrorStats:
    """MARE, MERE and RMSE over the finite pairs (relative errors where the golden is not zero)."""
    a, g = actual.astype(np.float64).ravel(), golden.astype(np.float64).ravel()
    finite = np.isfinite(a) & np.isfinite(g)
    a, g = a[finite], g[finite]
    if a.size == 0:
        return ErrorStats(0.0, 0.0, 0.0)
    err = np.abs(a - g)
    nonzero = g != 0
    rel = err[nonzero] / np.abs(g[nonzero])
    return ErrorStats(
        float(rel.max(initial=0.0)), float(rel.mean()) if rel.size else 0.0, float(np.sqrt(np.mean(err**2)))
    )


def double_benchmark(
    name: str, dtype: str, kernel: np.ndarray, builtin: np.ndarray, golden: np.ndarray
) -> DoubleBenchmark:
    k, b = error_stats(kernel, golden), error_stats(builtin, golden)
    floor = MIN_ERR.get(dtype, 2.0**-14)
    ratios = {key: getattr(k, key) / max(getattr(b, key), floor) for key in L0_LIMITS}
    return DoubleBenchmark(name, k, b, ratios, dict(L0_LIMITS))


def compare_builtin(
    reports: Mapping[str, Report],
    outputs: Mapping[str, np.ndarray],
    builtin: Mapping[str, np.ndarray],
    expected: Mapping[str, np.ndarray],
) -> Baseline:
    """The two comparisons the kernel's own reports lack, under each output's standard, and the ratios."""
    vs_golden, vs_kernel, doubles = {}, {}, {}
    for name, report in reports.items():
        dtype, std = report.dtype, report.standard
        vs_golden[name] = compare(builtin[name], expected[name], dtype, std, name=name)
        vs_kernel[name] = compare(outputs[name], builtin[name], dtype, std, name=name)
        if is_float(dtype) and NUMPY[dtype] is not None:
            doubles[name] = double_benchmark(name, dtype, outputs[name], builtin[name], expected[name])
    return Baseline(vs_golden, vs_kernel, doubles)


def baseline_json(b: Baseline) -> dict[str, object]:
    return {
        "builtin_vs_golden": {k: r.to_json() for k, r in b.builtin_vs_golden.items()},
        "kernel_vs_builtin": {k: r.to_json() for k, r in b.kernel_vs_builtin.items()},
        "double_benchmark": {
            k: {"ratios": d.ratios, "limits": d.limits, "passed": d.passed} for k, d in b.double_benchmark.items()
        },
    }
