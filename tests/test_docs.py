"""The user documentation in docs/ stays in step with the code.

- every diagnostic kind the emulator can emit has a `### KIND` section in docs/diagnostics.md, and every such
  section is a real kind;
- every DECISION-XXX-N identifier used in workbench/ or kernels/ has a heading in the op docs;
- every relative Markdown link resolves to an existing file (and, for links into docs/, to an existing heading);
- no page mentions the internal design material.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EMU_INCLUDE = ROOT / "kernels" / "emu" / "include"
EMU_PY = ROOT / "workbench" / "emu"

KIND = r"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)"
# How the C++ side names a kind: diag("KIND", ...) / diag_launch("KIND", ...) (also qualified, e.g. ascemu::diag),
# a record built by hand (d.kind = "KIND"; R.kind_counts["KIND"]), or a preformatted JSON line (\"kind\":\"KIND\").
CPP_KIND_PATTERNS = (
    re.compile(r"\bdiag(?:_launch)?\s*\(\s*\"" + KIND + r"\""),
    re.compile(r"\.kind\s*=\s*\"" + KIND + r"\""),
    re.compile(r"kind_counts\s*\[\s*\"" + KIND + r"\"\s*\]"),
    re.compile(r"\\\"kind\\\"\s*:\s*\\\"" + KIND + r"\\\""),
)
# How the Python side adds one: Diagnostic("KIND", ...) or Diagnostic(kind="KIND", ...).
PY_KIND_PATTERN = re.compile(r"\bDiagnostic\s*\(\s*(?:kind\s*=\s*)?[\"']" + KIND + r"[\"']")
DECISION = re.compile(r"\bDECISION-[A-Z]+-[0-9]+[a-z]?\b")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def doc_files() -> list[Path]:
    return sorted(DOCS.glob("*.md")) + sorted((DOCS / "ops").glob("*.md"))


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of every line outside fenced code blocks."""
    out, fenced = [], False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, line))
    return out


def headings(path: Path) -> list[str]:
    return [m.group(2) for _, line in prose_lines(path) if (m := HEADING.match(line))]


def slug(title: str) -> str:
    """GitHub's heading anchor: markup dropped, lower case, punctuation removed, spaces -> hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # [text](link) -> text
    text = text.replace("`", "").replace("*", "").lower()
    kept = "".join(ch for ch in text if ch in "-_ " or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for title in headings(path):
        base = slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def emitted_kinds() -> set[str]:
    kinds: set[str] = set()
    for path in sorted(EMU_INCLUDE.rglob("*.h")):
        text = path.read_text(encoding="utf-8")
        for pattern in CPP_KIND_PATTERNS:
            kinds.update(pattern.findall(text))
    for path in sorted(EMU_PY.rglob("*.py")):
        kinds.update(PY_KIND_PATTERN.findall(path.read_text(encoding="utf-8")))
    return kinds


def test_docs_exist() -> None:
    want = ["README.md", "precision.md", "hardware.md", "emulator.md", "diagnostics.md"]
    want += [f"ops/{op}.md" for op in ("cast", "embedding_dense_grad", "softmax_cross_entropy_with_logits")]
    missing = [name for name in want if not (DOCS / name).is_file()]
    assert not missing, f"missing doc pages: {missing}"


def test_kind_extraction_is_sensible() -> None:
    kinds = emitted_kinds()
    assert len(kinds) > 50, f"only {len(kinds)} diagnostic kinds found in the emulator sources: {sorted(kinds)}"
    for kind in ("GM_OOB", "UB_OVERFLOW", "DEADLOCK", "TIMEOUT", "CRASH", "HARNESS", "GM_RW_RACE", "KERNEL_ABORT"):
        assert kind in kinds, f"the kind extraction misses {kind}"


def test_every_emitted_kind_is_documented() -> None:
    documented = set(re.findall(r"^### +" + KIND + r"\s*$", (DOCS / "diagnostics.md").read_text(), re.M))
    missing = sorted(emitted_kinds() - documented)
    assert not missing, f"diagnostic kinds without a '### KIND' section in docs/diagnostics.md: {missing}"


def test_every_documented_kind_is_real() -> None:
    documented = re.findall(r"^### +(\S+)\s*$", (DOCS / "diagnostics.md").read_text(), re.M)
    stale = sorted(set(documented) - emitted_kinds())
    assert not stale, f"docs/diagnostics.md has sections for kinds the emulator never emits: {stale}"
    dups = sorted({k for k in documented if documented.count(k) > 1})
    assert not dups, f"docs/diagnostics.md documents these kinds twice: {dups}"


def test_every_decision_has_a_heading() -> None:
    used: dict[str, str] = {}
    for folder, exts in (("workbench", ("*.py",)), ("kernels", ("*.h", "*.cpp"))):
        for ext in exts:
            for path in sorted((ROOT / folder).rglob(ext)):
                for ident in DECISION.findall(path.read_text(encoding="utf-8")):
                    used.setdefault(ident, str(path.relative_to(ROOT)))
    assert len(used) > 10, f"only {len(used)} DECISION identifiers found in workbench/ and kernels/"
    titled = set()
    for path in sorted((DOCS / "ops").glob("*.md")):
        for title in headings(path):
            titled.update(DECISION.findall(title.split(":")[0]))
    missing = sorted((ident, where) for ident, where in used.items() if ident not in titled)
    assert not missing, f"DECISION identifiers (first use) without a heading in docs/ops/*.md: {missing}"


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(DOCS)))
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for n, line in prose_lines(path):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:, ...
                continue
            file_part, _, fragment = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                broken.append(f"line {n}: {target} (no file {dest})")
                continue
            if dest.resolve().is_relative_to(ROOT.resolve()) is False:
                broken.append(f"line {n}: {target} (outside the repository)")
            elif fragment and dest.suffix == ".md" and dest.is_relative_to(DOCS) and fragment not in anchors(dest):
                broken.append(f"line {n}: {target} (no heading with anchor #{fragment} in {dest.name})")
    assert not broken, f"{path.relative_to(ROOT)} has broken relative links: {broken}"


FORBIDDEN = (
    (re.compile(r"shared/"), "a path into the internal shared/ folder"),
    (re.compile(r"ascend-facts", re.I), "the internal facts file"),
    (re.compile(r"\bspecs/"), "the internal specs folder"),
    (re.compile(r"pyacl\.md"), "an internal reference note"),
    (re.compile(r"\bseeds?/|\bseed\s*§|\bseed:[A-Za-z]", re.I), "the internal design documents"),
    (
        re.compile(r"\bthe seed\b|\bseed's\b|\bseed (?:design|doc|document|claim|formula|rule|split|table)", re.I),
        "the internal design documents",
    ),
)


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*")), ids=lambda p: str(p.relative_to(DOCS)))
def test_no_internal_material(path: Path) -> None:
    if not path.is_file():
        return
    found = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        for pattern, what in FORBIDDEN:
            if m := pattern.search(line):
                found.append(f"line {n}: {m.group(0)!r} ({what})")
    assert not found, f"{path.relative_to(ROOT)} mentions internal material: {found}"
