"""Every rejection the workbench makes is a WorkbenchError naming the field, the value and what is allowed."""

from __future__ import annotations

from typing import Any


class WorkbenchError(ValueError):
    """Base class. `field`, `value` and `allowed` are kept for programmatic use (widgets, JSON)."""

    def __init__(self, field: str, value: Any, allowed: str, *, code: int | None = None) -> None:
        self.field, self.value, self.allowed, self.code = field, value, allowed, code
        suffix = f" [aclnn {code}]" if code is not None else ""
        super().__init__(f"{field}: got {_shown(value)}; allowed: {allowed}{suffix}")

    def to_json(self) -> dict[str, Any]:
        """The error as `--json` prints it: its kind, the message, and the field, value and what is allowed."""
        return {
            "error": type(self).__name__,
            "message": str(self),
            "field": self.field,
            "value": _shown(self.value),
            "allowed": self.allowed,
        }


def _shown(value: Any, limit: int = 240) -> str:
    """repr(value), its middle cut when long: a rejected 5000-digit shape should not flood the terminal."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit // 2]}…{text[-limit // 4 :]} ({len(text)} characters)"


class InfrastructureError(WorkbenchError):
    """The machine, not the input or the kernel, stopped the work: a cache, scratch or output path that is missing,
    not a folder, read-only or full, or a cached build that is broken. The message is one line naming the path and
    the fix; the CLI exits with EXIT_INFRASTRUCTURE (4). Never a verdict: nothing about the kernel is known."""

    def __init__(self, what: str, path: object, problem: str, fix: str) -> None:
        self.path, self.problem, self.fix = str(path), problem, fix
        super().__init__(what, self.path, fix)
        self.args = (f"{what} {self.path}: {problem}; fix: {fix}",)

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownName(WorkbenchError):
    """An op, platform, distribution, standard or dtype name that does not exist."""


class InvalidDtype(WorkbenchError):
    """A dtype (or dtype pair) outside the op's delivered matrix."""


class InvalidShape(WorkbenchError):
    """A shape, rank or shape relation the op's contract does not allow."""


class InvalidFormat(WorkbenchError):
    """A tensor format the op does not accept."""


class InvalidAttr(WorkbenchError):
    """An attribute that is missing, unknown, of the wrong type or out of range."""


class NullTensor(WorkbenchError):
    """A required tensor is missing (aclnn ACLNN_ERR_PARAM_NULLPTR)."""


class InvalidInput(WorkbenchError):
    """Input data that violates a data-dependent check (e.g. an index out of range)."""


class UnsupportedPlatform(WorkbenchError):
    """The op is not delivered for that SoC, or the platform file is unusable."""


class InfeasibleTiling(WorkbenchError):
    """The host tiling cannot place the case in the Unified Buffer."""


ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
