"""The op table: one OpSpec per op, each defined in `workbench/ops/<op>/`. Adding an op = one line in _PACKAGES."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from ..core.errors import UnknownName
from ..core.opspec import OpSpec

# The registry: one line per op. Each package is imported on first use, so one op's import cost (or a
# broken op during development) never reaches the others.
_PACKAGES: dict[str, str] = {
    "cast": "workbench.ops.cast",
    "embedding_dense_grad": "workbench.ops.embedding_dense_grad",
    "softmax_cross_entropy_with_logits": "workbench.ops.softmax_cross_entropy_with_logits",
}


class _Ops(Mapping[str, OpSpec]):
    """Read-only op table keyed by canonical op name; iterates in registry order."""

    @staticmethod
    @cache
    def _spec(name: str) -> OpSpec:
        spec: OpSpec = importlib.import_module(_PACKAGES[name]).SPEC
        return spec

    def __getitem__(self, name: str) -> OpSpec:
        key = str(name).strip().lower()
        if key not in _PACKAGES:
            raise UnknownName("op", name, ", ".join(_PACKAGES))
        return self._spec(key)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in _PACKAGES

    def get(self, name: str, default: Any = None) -> Any:  # Mapping.get expects KeyError; we raise UnknownName
        try:
            return self[name]
        except UnknownName:
            return default

    def __iter__(self) -> Iterator[str]:
        return iter(_PACKAGES)

    def __len__(self) -> int:
        return len(_PACKAGES)


OPS: Mapping[str, OpSpec] = _Ops()


def get_op(name: str) -> OpSpec:
    return OPS[name]
