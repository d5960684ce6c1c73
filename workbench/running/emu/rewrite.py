"""Source rewrites that make g++ read a user's file the way CANN's compiler does, on the same lines, after a
`#line` directive naming the user's file, so every diagnostic and compiler message points at the user's source:

- the `<<<>>>` rewrite of a single-source program: every `kernel<<<blockDim, l2ctrl, stream>>>(args...)` becomes a
  call into the emulator's launch machinery (kernels/emu/include/ascemu/program.h);
- `ASSERT` sites that only compile because CANN's device build expands ASSERT to nothing (`x = n ASSERT(n != 0);`,
  `{ f(); ASSERT(ok) }`): the glued one becomes a checking term of the expression, the other gets its `;`
  (`assert_sites`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...core.errors import InvalidInput

__all__ = ["LaunchSite", "assert_sites", "instantiated", "rewrite_launches", "with_line_directive"]


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
    return with_line_directive(assert_sites(text="".join(out)), file), tuple(sites)


def with_line_directive(text: str, file: str) -> str:
    """`text` after a `#line 1` directive naming `file`: g++'s messages, __FILE__ and debug lines name the user's
    source although the compiler reads a rewritten copy."""
    quoted = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{quoted}"\n' + text


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


# ------------------------------------------------------------------------------------------------ ASSERT sites
# CANN's impl/basic_api/kernel_macros.h (cann/asc-devkit) defines ASSERT(x) as nothing in the device build
# (ASCENDC_CPU_DEBUG unset) and as the C library's assert(x) in a CPU-debug build.  So the device build accepts an
# ASSERT glued to the expression before it (`this->tileNum = tileNum ASSERT(tileNum != 0);`, which public op_kernel
# files contain) and one with no `;` right before a `}`; CANN's CPU twin rejects both.  ascemu keeps the check: its
# ASSERT (ascemu/kassert.h) is one if-else statement, which takes `ASSERT(x);`, `ASSERT(x) next();` and
# `if (c) ASSERT(x); else ...` as written, and these two sites are rewritten:
# - after an expression, `ASSERT(` becomes `+ASCEMU_ASSERT_TERM(` (after a call's `)`: `,ASCEMU_ASSERT_TERM(`, as
#   the call may be void): a term that checks and leaves the expression's value unchanged, so the statement (and an
#   unbraced `if` around it) keeps its extent; where the term cannot stand (a void call's value initialising a
#   declaration, a bit-field) the build fails at the kernel's line, never silently;
# - right before a `}`, the ASSERT gets the `;` that the device build does not need.
_CONTROL = {"if", "while", "for", "switch", "ASSERT"}  # `(...)` after these is not an expression's end
_NOT_AN_OPERAND = {"else", "do", "return", "case", "default", "goto", "throw", "co_return", "co_yield", "new", "delete"}
ASSERT_TERM = "ASCEMU_ASSERT_TERM"


def _word_before(code: str, end: int) -> str:
    k = end
    while k > 0 and (code[k - 1].isalnum() or code[k - 1] == "_"):
        k -= 1
    return code[k:end]


def _open_of(code: str, close: int) -> int:
    """Index of the `(` matching the `)` at code[close] (-1 when unbalanced)."""
    depth = 0
    for k in range(close, -1, -1):
        if code[k] == ")":
            depth += 1
        elif code[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _joining_operator(code: str, at: int) -> str:
    """The operator that joins an ASSERT at `at` to the expression the code before it ends ("+", or "," after a
    call's `)`); "" when the code before `at` ends no expression (the ASSERT starts a statement)."""
    k = at
    while k > 0 and code[k - 1].isspace():
        k -= 1
    if k == 0:
        return ""
    c = code[k - 1]
    if c == ")":
        opening = _open_of(code, k - 1)
        j = opening
        while j > 0 and code[j - 1].isspace():
            j -= 1
        return "," if opening >= 0 and _word_before(code, j) not in _CONTROL else ""
    if c.isalnum() or c == "_":
        return "+" if _word_before(code, k) not in _NOT_AN_OPERAND else ""
    if c == "]" or (c in "+-" and k > 1 and code[k - 2] == c):  # a subscript, a postfix ++ / --
        return "+"
    return ""


def assert_sites(text: str) -> str:
    """`text` with its device-build-only ASSERT sites made C++ (see above), on the same lines. Only `text` itself:
    a header it includes keeps its sites."""
    code = _masked(text)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in `text`
    for m in re.finditer(r"(?<![A-Za-z0-9_])ASSERT\s*\(", code):
        if _in_directive(text, m.start()):
            continue
        close = _close(code, m.end() - 1, "(", ")")
        if close < 0:
            continue
        joining = _joining_operator(code, m.start())
        if joining:
            edits.append((m.start(), m.start() + len("ASSERT"), joining + ASSERT_TERM))
            continue
        after = close
        while after < len(code) and code[after].isspace():
            after += 1
        if after < len(code) and code[after] == "}":
            edits.append((close, close, ";"))
    for start, end, replacement in sorted(edits, reverse=True):  # from the end: no edit moves a later one
        text = text[:start] + replacement + text[end:]
    return text
