"""`workbench ops OP` for people: what the op computes, its tensors, attributes, formats, platforms, input
distributions and dtypes (grouped by the first dtype), in lines of at most OP_WIDTH columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .text import wrap

if TYPE_CHECKING:
    from ...core.opspec import AttrSpec, OpSpec

OP_WIDTH = 100
_MAX_RANK = 8  # the ranks whose default format is listed


def op_text(spec: OpSpec, width: int = OP_WIDTH) -> str:
    return "\n".join(
        [
            *wrap(f"{spec.name}: {spec.summary}", width=width),
            "",
            *_tensor_lines("inputs", [(t.name, t.doc) for t in spec.inputs], width),
            *_tensor_lines("outputs", [(t.name, t.doc) for t in spec.outputs], width),
            *_attr_lines(spec.attrs, width),
            *_choice_lines("formats", "--format", spec.formats, _default_formats(spec), width),
            *_choice_lines("platforms", "--platform", spec.target_platforms(), default_platform(spec), width),
            *_choice_lines("input distributions", "--distribution", spec.distributions, spec.distributions[0], width),
            *dtype_lines(spec, width),
        ]
    )


def default_platform(spec: OpSpec) -> str:
    """The SoC a case of this op gets without --platform (Case's rule: the first target, resolved)."""
    from ...core.platform import resolve

    return resolve(spec.platforms[0])


def platform_families(spec: OpSpec) -> list[str]:
    """The short SoC names of the op's platforms (Ascend310P, Ascend910B), in order, each once."""
    from ...core.platform import PLATFORMS

    return list(dict.fromkeys(PLATFORMS[soc].short_soc for soc in spec.target_platforms()))


def _choice_lines(title: str, flag: str, choices: Sequence[str], default: str, width: int) -> list[str]:
    return wrap(f"{title} ({flag}): {', '.join(choices)}; without {flag}: {default}", "  ", width=width)


def _tensor_lines(title: str, tensors: Sequence[tuple[str, str]], width: int) -> list[str]:
    name_width = max(len(name) for name, _ in tensors)
    lines = [f"  {title}:"]
    for name, doc in tensors:
        lines += wrap(doc, f"    {name.ljust(name_width)}  ", "", width=width)
    return lines


def _attr_lines(attrs: Sequence[AttrSpec], width: int) -> list[str]:
    from ...core.opspec import REQUIRED

    if not attrs:
        return ["  attributes: none"]
    lines = ["  attributes (--attr NAME=VALUE, repeatable):"]
    for a in attrs:
        need = "required" if a.default is REQUIRED else f"default {a.default}"
        lines += wrap(f"{a.name} ({a.type.__name__}, {need}): {a.doc}", "    ", width=width)
    return lines


def _default_formats(spec: OpSpec) -> str:
    """'ND', or 'NCHW for rank 4, ND otherwise' when the default depends on the shape's rank."""
    by_rank = {rank: spec.default_format((1,) * rank) for rank in range(_MAX_RANK + 1)}
    names = list(by_rank.values())
    usual = max(set(names), key=names.count)
    special = [f"{fmt} for rank {rank}" for rank, fmt in by_rank.items() if fmt != usual]
    return ", ".join([*special, f"{usual} otherwise"]) if special else usual


def dtype_lines(spec: OpSpec, width: int = OP_WIDTH) -> list[str]:
    """The dtype matrix: one dtype per combination in one wrapped list, or per first dtype the dtypes that may
    follow it."""
    matrix = spec.dtype_matrix
    roles = spec.dtype_roles or tuple(f"D{i + 1}" for i in range(len(matrix[0])))
    if len(matrix[0]) == 1:
        of = f"; the dtype of {roles[0]}" if spec.dtype_roles else ""
        return wrap(f"dtypes (--dtype{of}): {', '.join(d[0] for d in matrix)}", "  ", width=width)
    count = f"{len(matrix)} combination{'s' if len(matrix) != 1 else ''}"
    head = f"dtypes (--dtype {':'.join(roles)}): {count}; per {roles[0]} dtype, the {':'.join(roles[1:])} dtypes:"
    lines = wrap(head, "  ", width=width)
    firsts = list(dict.fromkeys(d[0] for d in matrix))
    first_width = max(len(f) for f in firsts)
    for first in firsts:
        rest = ", ".join(":".join(d[1:]) for d in matrix if d[0] == first)
        lines += wrap(rest, f"    {first.ljust(first_width)}  ", "", width=width)
    for first in firsts:
        filled = spec.dtype_fill((first,))
        if len(filled) > 1:
            lines += wrap(f"--dtype {first} means --dtype {':'.join(filled)}", "  ", width=width)
    return lines
