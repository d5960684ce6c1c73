"""The one-way data flow: Case -> plan -> inputs -> golden -> (backend run) -> comparison reports."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from .case import Case
from .compare import Report, compare
from .errors import UnknownName
from .registry import get_op
from .tiling import TilingPlan


def plan(case: Case) -> TilingPlan:
    """The host tiling decision for `case` (pure; raises InfeasibleTiling when nothing fits)."""
    return get_op(case.op).tiling(case)


def make_inputs(case: Case, seed: int = 0, distribution: str | None = None) -> dict[str, np.ndarray]:
    """Deterministic inputs for `case`: the same (case, seed, distribution) always gives the same bytes."""
    spec = get_op(case.op)
    dist = distribution or spec.distributions[0]
    if dist not in spec.distributions:
        raise UnknownName("distribution", dist, ", ".join(spec.distributions))
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _stable_hash(case.label()), _stable_hash(dist)]))
    return spec.make_inputs(case, rng, dist)


def golden(case: Case, inputs: Mapping[str, np.ndarray], **options: Any) -> dict[str, np.ndarray]:
    """The numpy reference outputs, from the spec's math (never from kernel code)."""
    spec = get_op(case.op)
    if spec.check_data is not None:
        spec.check_data(case, inputs)
    return spec.golden(case, inputs, **options)


def _stable_hash(text: str) -> int:
    """A process-independent 32-bit hash (Python's hash() is salted per process)."""
    h = 2166136261
    for byte in text.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def verify(
    case: Case,
    inputs: Mapping[str, np.ndarray],
    actual: Mapping[str, np.ndarray],
    expected: Mapping[str, np.ndarray] | None = None,
    standard: str | None = None,
    worst: int = 10,
    tiling: TilingPlan | None = None,
) -> dict[str, Report]:
    """Compare every output of a run against the golden, with input values and tiling provenance per element.

    `standard` None means each output's default standard from the op's spec; `tiling` None plans `case` here
    (a caller that already has the plan passes it).
    """
    spec = get_op(case.op)
    expected = golden(case, inputs) if expected is None else expected
    tiling = plan(case) if tiling is None else tiling
    described = spec.describe(case)
    reports: dict[str, Report] = {}
    for out in spec.outputs:
        dtype = described[out.name].dtype
        reports[out.name] = compare(
            actual[out.name],
            expected[out.name],
            dtype,
            standard or spec.standard(out.name, dtype),
            name=out.name,
            worst=worst,
            inputs=partial(_input_values, case, inputs, out.name, described[out.name].shape),
            locate=partial(tiling.locate, output=out.name),
        )
    return reports


def _input_values(
    case: Case, inputs: Mapping[str, np.ndarray], output: str, shape: tuple[int, ...], index: tuple[int, ...]
) -> dict[str, Any]:
    spec = get_op(case.op)
    if spec.input_values is not None:
        return spec.input_values(case, inputs, output, index)
    return {name: arr[index].item() for name, arr in inputs.items() if arr.shape == shape}
