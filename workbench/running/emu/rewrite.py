"""The `<<<>>>` rewrite of a single-source program: every `kernel<<<blockDim, l2ctrl, stream>>>(args...)` becomes
a call into the emulator's launch machinery (kernels/emu/include/ascemu/program.h), on the same lines, after a
`#line` directive naming the user's file, so every diagnostic and compiler message points at the user's source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...core.errors import InvalidInput

__all__ = ["LaunchSite", "instantiated", "rewrite_launches"]


@dataclass(frozen=True)
class LaunchSite:
    kernel: str  # as written, whitespace collapsed: "add_custom<float, 2048>"
    line: int  # of the `<<<`


def _masked(text: str) -> str:
    """`text` with comments and string/char literals blanked (newlines kept), so `<<<` is found only in code."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            paren = text.find("(", i + 2)
            delim = text[i + 2 : paren] if paren >= 0 else ""
            j = text.find(")" + delim + '"', paren)
            j = n if paren < 0 or j < 0 else j + len(delim) + 2
            blank(i, j)
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _close(code: str, i: int, opening: str, closing: str) -> int:
    """Index just past the bracket that closes the one opened at code[i] (nested (), [], {} counted)."""
    depth = 0
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for k in range(i, len(code)):
        ch = code[k]
        if ch == opening and not stack:
            depth += 1
        elif ch == closing and not stack:
            depth -= 1
            if depth == 0:
                return k + 1
        elif ch in pairs and ch != opening:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
    return -1


def _split_top(code: str, text: str) -> list[str]:
    """`text` split at its top-level commas (`code` is the masked twin of `text`)."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(code):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


def _kernel_start(code: str, end: int) -> int:
    """Where the kernel expression before a `<<<` at `end` starts: a (qualified) name, then template arguments."""
    k = end
    while k > 0 and code[k - 1].isspace():
        k -= 1
    if k > 0 and code[k - 1] == ">":  # explicit template arguments: back to the matching '<'
        depth = 0
        while k > 0:
            k -= 1
            if code[k] == ">":
                depth += 1
            elif code[k] == "<":
                depth -= 1
                if depth == 0:
                    break
        while k > 0 and code[k - 1].isspace():
            k -= 1
    while k > 0 and (code[k - 1].isalnum() or code[k - 1] in "_:"):
        k -= 1
    return k


def _in_directive(text: str, pos: int) -> bool:
    """Is `pos` inside a preprocessor directive (a #define continued with backslashes)?"""
    start = text.rfind("\n", 0, pos) + 1
    while start > 1 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 1) + 1
    return text[start:pos].lstrip().startswith("#")


def _launch_call(text: str, code: str, at: int, file: str) -> tuple[int, int, str, LaunchSite]:
    """The launch whose `<<<` is at `at`: (its start, its end, the call replacing it, its site)."""
    line = text.count("\n", 0, at) + 1
    start = _kernel_start(code, at)
    kernel = " ".join(text[start:at].split())
    end_cfg = code.find(">>>", at + 3)
    paren = end_cfg + 3
    while end_cfg >= 0 and paren < len(code) and code[paren].isspace():
        paren += 1
    close = _close(code, paren, "(", ")") if end_cfg >= 0 and code[paren : paren + 1] == "(" else -1
    if not re.match(r"[A-Za-z_:]", kernel) or close < 0:
        raise InvalidInput("kernel launch", f"{file}:{line}", "kernel<<<blockDim, l2ctrl, stream>>>(args...)")
    config = _split_top(code[at + 3 : end_cfg], text[at + 3 : end_cfg])
    if len(config) != 3:
        raise InvalidInput(
            "kernel launch",
            f"{file}:{line}: <<<{text[at + 3 : end_cfg].strip()}>>>",
            "three launch parameters: blockDim, l2ctrl (or dynUBufSize), stream",
        )
    block_dim, l2ctrl, stream = config
    args = text[paren + 1 : close - 1]
    call = (
        f'::ascemu::program::launch({{"{kernel}", __FILE__, {line}, __PRETTY_FUNCTION__}}, '
        f"({block_dim}), ({l2ctrl}), ({stream}), "
        f"[&](auto&&... ascemu_args_) {{ {text[start:at].rstrip()}(ascemu_args_...); }}"
    )
    call += f", {args})" if args.strip() else ")"
    # the lines the launch spanned, so that every later line keeps its number
    lost = text.count("\n", start, close) - call.count("\n")
    call += (" \\\n" if _in_directive(text, start) else "\n") * lost
    return start, close, call, LaunchSite(kernel, line)


def rewrite_launches(text: str, file: str) -> tuple[str, tuple[LaunchSite, ...]]:
    """The program with every `<<<...>>>(...)` launch rewritten into ascemu::program::launch, on the same lines,
    after a `#line` directive that names `file` (so diagnostics and debug info point at the user's source)."""
    code = _masked(text)
    out: list[str] = []
    sites: list[LaunchSite] = []
    pos = 0
    for m in re.finditer(r"<<<", code):
        if m.start() < pos:  # inside the launch just rewritten
            continue
        start, end, call, launch_site = _launch_call(text, code, m.start(), file)
        out += [text[pos:start], call]
        sites.append(launch_site)
        pos = end
    out.append(text[pos:])
    quoted = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{quoted}"\n' + "".join(out), tuple(sites)


def instantiated(kernel: str, function: str) -> str:
    """`kernel` as written at the launch ("k<T, N>") with the launching function's template arguments put in
    ("k<float, 2048>"), read from g++'s __PRETTY_FUNCTION__ ("... [with T = float; unsigned int N = 2048]")."""
    head, sep, args = kernel.partition("<")
    with_ = re.search(r"\[with (.*)\]$", function)
    if not sep or not with_:
        return kernel
    bound: dict[str, str] = {}
    for binding in with_.group(1).split("; "):
        name, eq, value = binding.partition(" = ")
        if eq:
            bound[name.split()[-1]] = value
    return head + sep + re.sub(r"\b\w+\b", lambda m: bound.get(m.group(0), m.group(0)), args)
