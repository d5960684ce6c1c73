"""Each op's TilingData: the C header the kernel includes and the ctypes mirror must agree byte for byte.

One g++ program per run prints sizeof and every field's offset and size for every op's struct; the
test compares them with ctypes. Field names and order are also read from the header text, so a field
renamed, reordered, added or dropped on either side fails.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from workbench import OPS

ROOT = Path(__file__).resolve().parent.parent


def _header_fields(text: str, struct: str) -> list[str]:
    body = re.search(rf"struct\s+{struct}\s*\{{(.*?)\}};", text, re.S)
    assert body, f"struct {struct} not found"
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", body.group(1), flags=re.S)
    names: list[str] = []
    for decl in code.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        m = re.match(r"(?:const\s+)?[\w:]+\s+(.+)", decl)
        assert m, f"unparsed declaration {decl!r}"
        names += [n.strip() for n in m.group(1).split(",")]
    return names


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[int, int]]]:
    gxx = shutil.which("g++")
    assert gxx, "g++ is required (the emulator backend needs it too)"
    lines = ["#include <cstdio>", "#include <cstddef>"]
    body = []
    for spec in OPS.values():
        lines.append(f'#include "{ROOT / spec.tiling_header}"')
        name = spec.tiling_struct.__name__
        body.append(f'std::printf("%s sizeof %zu %zu\\n", "{name}", sizeof({name}), alignof({name}));')
        for field, _ in spec.tiling_struct._fields_:  # type: ignore[attr-defined]
            body.append(
                f'std::printf("%s %s %zu %zu\\n", "{name}", "{field}", offsetof({name}, {field}), '
                f"sizeof((({name}*)0)->{field}));"
            )
    src = "\n".join([*lines, "int main() {", *body, "return 0; }"])
    tmp = tmp_path_factory.mktemp("layout")
    (tmp / "layout.cpp").write_text(src)
    subprocess.run(
        [gxx, "-std=c++17", "-Wall", "-Werror", "-o", str(tmp / "layout"), str(tmp / "layout.cpp")],
        check=True,
        capture_output=True,
        text=True,
    )
    out = subprocess.run([str(tmp / "layout")], check=True, capture_output=True, text=True).stdout
    table: dict[str, dict[str, tuple[int, int]]] = {}
    for line in out.splitlines():
        struct, field, a, b = line.split()
        table.setdefault(struct, {})[field] = (int(a), int(b))
    return table


@pytest.mark.parametrize("op", list(OPS))
def test_ctypes_mirror_matches_the_kernel_header(op: str, layouts: dict[str, dict[str, tuple[int, int]]]) -> None:
    spec = OPS[op]
    struct = spec.tiling_struct
    c = layouts[struct.__name__]
    assert c["sizeof"] == (ctypes.sizeof(struct), ctypes.alignment(struct))
    for field, ctype in struct._fields_:  # type: ignore[attr-defined]
        assert c[field] == (getattr(struct, field).offset, ctypes.sizeof(ctype)), field
    header = (ROOT / spec.tiling_header).read_text()
    assert _header_fields(header, struct.__name__) == [f for f, _ in struct._fields_]  # type: ignore[attr-defined]
    assert '#include "kernel_operator.h"' not in header, "the tiling header must compile on the host without CANN"
