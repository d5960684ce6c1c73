"""The one-way data flow: Case -> plan -> inputs -> golden -> (backend run) -> comparison reports."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from ..core.dtypes import itemsize, np_dtype
from ..core.errors import InfeasibleTiling, InvalidInput, UnknownName
from ..core.tiling import TilingPlan
from ..judge.compare import Report, compare
from . import memory
from .case import Case
from .registry import get_op

MAX_TENSOR_BYTES = 2**63 - 1  # GM addresses and byte offsets are int64 in the kernels and the runtime


MAX_UB_SIZE = 2**31 - 1  # what-if bounds: TilingData's UB-derived fields are 32-bit
MAX_BLOCK_DIM = 65535  # CANN's limit on a launch's blockDim (a uint16 launch parameter): also the most cores


def plan(
    case: Case, *, ub_size: int | None = None, ub_reserve: int | None = None, core_count: int | None = None
) -> TilingPlan:
    """The host tiling decision for `case` (pure; raises InfeasibleTiling when nothing fits or a tensor is
    beyond what a kernel can address).

    What-if: `ub_size` (bytes), `ub_reserve` (bytes kept back by tiling) and `core_count` (what GetCoreNum would
    return) replace the platform's and the op's values, to see how the decision would change. A what-if plan is
    for exploring: `run` always plans with the real values, which are what the kernel and the emulator see.
    """
    spec = get_op(case.op)
    for name, desc in spec.describe(case).items():
        if desc is not None and math.prod(desc.shape) * itemsize(desc.dtype) > MAX_TENSOR_BYTES:
            raise InfeasibleTiling(
                "shape", case.shape, f"tensors of at most {MAX_TENSOR_BYTES} bytes (int64 GM offsets; {name} is larger)"
            )
    if ub_size is None and ub_reserve is None and core_count is None:
        return spec.tiling(case)
    soc = case.soc
    ub = soc.ub_size if ub_size is None else _what_if("ub_size", ub_size, 1, MAX_UB_SIZE)
    cores = soc.core_num if core_count is None else _what_if("core_count", core_count, 1, MAX_BLOCK_DIM)
    if soc.traits.coupled:  # GetCoreNum reads AI Cores on coupled SoCs, vector cores on split ones
        soc = dataclasses.replace(soc, ub_size=ub, ai_core_cnt=cores)
    else:
        soc = dataclasses.replace(soc, ub_size=ub, vector_core_cnt=cores)
    what_if = (
        spec.tiling(case, soc)
        if ub_reserve is None
        else spec.tiling(case, soc, _what_if("ub_reserve", ub_reserve, 0, ub - 1))
    )
    real = case.soc
    note = (
        f"what-if: ub_size {ub} B, reserve {what_if.ub_reserved} B, {cores} cores "
        f"(the platform: {real.ub_size} B, {real.core_num} cores; run uses those)"
    )
    return dataclasses.replace(what_if, notes=(note, *what_if.notes))


def _what_if(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidInput(name, value, f"an integer in [{low}, {high}]")
    return int(value)


MAX_SEED = 2**64 - 1


def check_seed(seed: Any) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise InvalidInput("seed", seed, f"an integer in [0, {MAX_SEED}]")
    return int(seed)


def check_distribution(case: Case, distribution: str | None) -> str:
    spec = get_op(case.op)
    dist = distribution or spec.distributions[0]
    if dist not in spec.distributions:
        raise UnknownName("distribution", dist, ", ".join(spec.distributions))
    return dist


def make_inputs(
    case: Case, seed: int = 0, distribution: str | None = None, max_memory: Any = None
) -> dict[str, np.ndarray]:
    """Deterministic inputs for `case`: the same (case, seed, distribution) always gives the same bytes.

    Refused (MemoryBudgetExceeded) before allocating when they would not fit in `max_memory` (memory.py).
    """
    spec = get_op(case.op)
    seed, dist = check_seed(seed), check_distribution(case, distribution)
    memory.check(case, None, max_memory, parts=("inputs", "float64 temporaries"))
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _stable_hash(case.label()), _stable_hash(dist)]))
    return spec.make_inputs(case, rng, dist)


def check_inputs(case: Case, inputs: Any) -> None:
    """`inputs` holds exactly the op's input tensors, each with the dtype and element count the case describes."""
    spec = get_op(case.op)
    names = [t.name for t in spec.inputs]
    if not isinstance(inputs, Mapping):
        raise InvalidInput("inputs", type(inputs).__name__, f"a mapping of input name to numpy array: {names}")
    for name in inputs:
        if name not in names:
            raise InvalidInput("inputs", name, f"the inputs of {case.op}: {', '.join(names)}")
    described = spec.describe(case)
    for name in names:
        if name not in inputs:
            raise InvalidInput("inputs", f"no {name!r}", f"every input of {case.op}: {', '.join(names)}")
        arr, want = np.asarray(inputs[name]), described[name]
        if arr.size != math.prod(want.shape):  # the layout rules (e.g. flattened indices) are the op's check_data
            raise InvalidInput(f"{name}.shape", arr.shape, f"{want.shape} or another shape of as many elements")
        if arr.dtype != np_dtype(want.dtype):
            raise InvalidInput(f"{name}.dtype", str(arr.dtype), f"{want.dtype} (from the case)")


def check_data(case: Case, inputs: Mapping[str, np.ndarray]) -> None:
    """Everything golden() checks before computing: the tensors (check_inputs), then the op's rules on the values."""
    spec = get_op(case.op)
    check_inputs(case, inputs)
    if spec.check_data is not None:
        spec.check_data(case, inputs)


def golden(case: Case, inputs: Mapping[str, np.ndarray], **options: Any) -> dict[str, np.ndarray]:
    """The numpy reference outputs, from the spec's math (never from kernel code)."""
    check_data(case, inputs)
    return get_op(case.op).golden(case, inputs, **options)


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
            inputs=partial(input_values, case, inputs, out.name, described[out.name].shape),
            locate=partial(tiling.locate, output=out.name, inputs=inputs),
        )
    return reports


def input_values(
    case: Case, inputs: Mapping[str, np.ndarray], output: str, shape: tuple[int, ...], index: tuple[int, ...]
) -> dict[str, Any]:
    spec = get_op(case.op)
    if spec.input_values is not None:
        return spec.input_values(case, inputs, output, index)
    return {name: arr[index].item() for name, arr in inputs.items() if arr.shape == shape}
