"""Huawei's published API examples as the oracle for ascemu (issue 11, deliverable 5).

Many API pages of CANN's Ascend C documentation end with a call example that prints its input and output
data.  Each page whose example the emulator can run has a data file in doc_examples/ holding the page's text
verbatim (with its source: repository, commit, path), the call's parameters and the SoCs the page names.
One kernel of ours, doc_examples/doc_kernel.cpp, re-enacts every documented call; this module expands the
page's printed data, runs the call on each named SoC and compares the result with the page, element by
element.  docs/doc-examples.md lists every API checked and every contradiction found.

Reading the printed data:
- `[1 2 3 ... 512]`: an ellipsis between runs of an arithmetic progression stands for the elided terms when
  the progression reaches the next printed number; otherwise it hides values the page does not give
  (not compared; inputs there get the example's `fill`).  `18 18 ... 18` is a run of one value.
- `undefined` (and lanes an example's `undefined_where` names): the call must leave dst as it was.
- `compare: bits` (default): each printed number, read as the element type, must equal the result bit for bit
  (numpy prints half in its shortest round-trip form, so a printed half names exactly one value).
  `compare: printed`: the page prints fewer digits than the type holds; the result rounded to the printed
  number of significant digits must be the printed number.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workbench.running.emu import In, Kernel, load

HERE = Path(__file__).resolve().parent / "doc_examples"
KERNEL = HERE / "doc_kernel.cpp"
PROBES = HERE / "missing_overloads.cpp"
REPO = HERE.parents[2]
DOC_TABLE = REPO / "docs" / "doc-examples.md"

SENTINEL = 0xA5  # dst byte for lanes a page shows as "undefined": the call must not touch them
# name -> (numpy dtype, the CODE_* code doc_kernel.cpp dispatches an example's T on; -1: an operand's type only)
DTYPES: dict[str, tuple[Any, int]] = {
    "half": (np.float16, 0),
    "float": (np.float32, 1),
    "int16_t": (np.int16, 2),
    "uint16_t": (np.uint16, 3),
    "int32_t": (np.int32, 4),
    "uint32_t": (np.uint32, 5),
    "uint8_t": (np.uint8, -1),
    "uint64_t": (np.uint64, -1),
}
SLOTS = ("src0", "src1", "src2", "dst")
VERDICTS = ("matches", "contradiction", "emulator_bug")


class DocCall(ctypes.Structure):
    """The tiling of doc_kernel.cpp: which documented call, with the page's parameters."""

    _fields_ = [
        ("api", ctypes.c_char * 24),
        ("form", ctypes.c_char * 24),
        ("dtype", ctypes.c_int32),
        ("bytes", ctypes.c_int32 * 4),
        ("mask", ctypes.c_uint64 * 2),
        ("repeat", ctypes.c_int32),
        ("stride", ctypes.c_int32 * 6),
        ("count", ctypes.c_int32),
        ("mode", ctypes.c_int32),
        ("scalar", ctypes.c_double),
    ]


# ------------------------------------------------------------------------------------------ the printed data
Entry = str | None  # a printed number, "undefined", or None (elided, not given by the page)
_TOKEN = re.compile(r"\.{2,}|undefined|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def tokens(text: str) -> list[str]:
    text = re.sub(r"\(0b[01]+\)", "", text).replace("…", "...")  # "240(0b11110000)": the binary is a gloss
    out: list[str] = []
    for t in _TOKEN.findall(text):
        if t.startswith("..") and out and out[-1] == "...":
            continue
        out.append("..." if t.startswith("..") else t)
    return out


def _progression(chunk: list[str]) -> tuple[Fraction, Fraction] | None:
    """(last, step) of the arithmetic run that ends `chunk`: two integers or three numbers at least, so
    that two random floats never pass for a progression."""
    nums: list[Fraction] = []
    for t in reversed(chunk):
        if t == "undefined":
            break
        nums.insert(0, Fraction(t))
        if len(nums) >= 3 and nums[1] - nums[0] != nums[2] - nums[1]:
            nums.pop(0)
            break
    if len(nums) < 2 or (len(nums) == 2 and any(n.denominator != 1 for n in nums)):
        return None
    return nums[-1], nums[-1] - nums[-2]


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else repr(float(value))


def expand_row(text: str, length: int, gaps: list[int] | None = None) -> list[Entry]:
    """The `length` entries of one printed row (see the module docstring for the rules)."""
    toks = tokens(text)
    chunks: list[list[str]] = [[]]
    for t in toks:
        if t == "...":
            chunks.append([])
        else:
            chunks[-1].append(t)
    parts: list[list[Entry] | tuple[str, str | None]] = [list(chunks[0])]  # fixed lists, or flexible gaps
    for left, right in itertools.pairwise(chunks):
        last = left[-1] if left else None
        first = right[0] if right else None
        run = _progression(left) if left else None
        if last == "undefined" and first in ("undefined", None):
            parts.append(("undefined", None))
        elif run and first not in (None, "undefined") and run[1] != 0:
            k = (Fraction(first) - run[0]) / run[1]
            if k.denominator == 1 and k >= 1:
                parts.append([_number(run[0] + run[1] * j) for j in range(1, int(k))])
            else:
                parts.append(("unknown", None))
        elif run and run[1] == 0 and first in (None, last):
            parts.append(("repeat", last))
        else:
            parts.append(("unknown", None))
        parts.append(list(right))
    fixed = sum(len(p) for p in parts if isinstance(p, list))
    flexible = [i for i, p in enumerate(parts) if isinstance(p, tuple)]
    if gaps is not None:
        sizes = list(gaps)
    elif len(flexible) == 1:
        sizes = [length - fixed]
    else:
        sizes = []
    if len(sizes) != len(flexible) or any(s < 0 for s in sizes) or fixed + sum(sizes) != length:
        raise ValueError(f"cannot lay {text!r} out over {length} elements (gaps {gaps})")
    out: list[Entry] = []
    size_of = dict(zip(flexible, sizes, strict=True))
    for i, p in enumerate(parts):
        if isinstance(p, list):
            out.extend(p)
        else:
            kind, value = p
            out.extend([{"undefined": "undefined", "repeat": value}.get(kind)] * size_of[i])
    return out


def expand(spec: dict[str, Any]) -> list[Entry]:
    """Entries of an operand spec: `text` over `length` elements (or over the first `text_length` of them), row by
    row when `row_length` is given.  Words after the closing bracket are the page's remarks, not data."""
    length = spec["length"]
    if "text" not in spec:
        return [None] * length
    text = spec["text"].strip()
    text = text[: text.rindex("]") + 1] if "]" in text else text
    gaps = spec.get("gaps")
    if "row_length" in spec:
        rows = [r for r in text.strip("[]").splitlines() if r.strip()]
        out: list[Entry] = []
        for i, row in enumerate(rows):
            out += expand_row(row, spec["row_length"], gaps[i] if gaps else None)
    else:
        out = expand_row(text, spec.get("text_length", length), gaps)
    out += [None] * (length - len(out))
    where = spec.get("undefined_where")
    if where:  # the page's own words: lanes past `from` in each period are uninitialised
        out = ["undefined" if i % where["period"] >= where["from"] else e for i, e in enumerate(out)]
    return out


def significant(token: str) -> int:
    digits = re.sub(r"[eE].*$", "", token).lstrip("+-").replace(".", "").lstrip("0")
    return max(len(digits), 1)


def same(token: str, actual: np.generic, how: str) -> bool:
    """Whether `actual` is what the page printed as `token` (module docstring: bits / printed)."""
    dtype = actual.dtype
    if np.issubdtype(dtype, np.integer):
        return Fraction(token) == int(actual)
    if how == "printed":
        return float(f"{float(actual):.{significant(token)}g}") == float(token)
    expected = np.array(float(token)).astype(dtype)
    return expected.tobytes() == np.array(actual).tobytes()


# ------------------------------------------------------------------------------------------ the data files
def _pages() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(HERE.glob("*.json"))]


def _cases() -> list[Any]:
    params = []
    for page in _pages():
        for ex in page["examples"]:
            for dtype in ex["dtypes"]:
                for soc in ex.get("socs", page["socs"]):
                    marks = []
                    if ex["verdict"] == "emulator_bug":
                        marks.append(pytest.mark.xfail(strict=True, reason=ex["emulator_bug"]))
                    params.append(
                        pytest.param(page, ex, dtype, soc, id=f"{page['api']}-{ex['name']}-{dtype}-{soc}", marks=marks)
                    )
    return params


def _array(spec: dict[str, Any], entries: list[Entry], dtype: Any) -> np.ndarray:
    """The operand's values; elided and undefined positions get the spec's `fill` (default 0)."""
    fill = str(spec.get("fill", 0))
    values = [fill if e in (None, "undefined") else e for e in entries]
    if np.issubdtype(dtype, np.floating):
        return np.array([float(v) for v in values]).astype(dtype)  # decimal -> double -> dtype, as numpy reads
    return np.array([int(Fraction(v)) for v in values], dtype=dtype)  # "6." is how numpy prints 6


def _dtype_of(spec: dict[str, Any], dtype: str) -> Any:
    """An operand's numpy dtype: its own `dtype`, or the example's (`T`)."""
    name = spec.get("dtype", "T")
    return DTYPES[dtype if name == "T" else name][0]


def _initial(spec: dict[str, Any], dtype: str) -> np.ndarray:
    """dst before the call: the page's initial value, or the sentinel when the page shows none."""
    np_dtype = _dtype_of(spec, dtype)
    if "initial" in spec:
        initial = spec["initial"]
        return _array(initial, expand({**initial, "length": spec["length"]}), np_dtype)
    return np.full(spec["length"] * np.dtype(np_dtype).itemsize, SENTINEL, np.uint8).view(np_dtype)


def _gm(values: np.ndarray) -> np.ndarray:
    """Bytes of an operand padded to whole 32-byte blocks, as the kernel's DataCopy moves them."""
    raw = values.view(np.uint8)
    return np.concatenate([raw, np.zeros((-raw.size) % 32, np.uint8)])


@pytest.fixture(scope="session")
def kernels() -> dict[str, Kernel]:
    """doc_kernel.cpp built once per emulated SoC (-O1, in the workbench build cache, so reruns are fast)."""
    socs = sorted({soc for page in _pages() for ex in page["examples"] for soc in ex.get("socs", page["socs"])})
    loaded = {soc: load(KERNEL, entry="doc_example", platform=soc, opt="-O1") for soc in socs}
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda k: k.built(), loaded.values()))
    return loaded


def _run(kernel: Kernel, page: dict[str, Any], ex: dict[str, Any], dtype: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """Launches the documented call; returns dst's bytes, the scalar results and the KernelRun."""
    gm: dict[str, np.ndarray] = {}
    for slot in SLOTS[:3]:
        spec = ex["operands"].get(slot)
        if spec is not None:
            gm[slot] = _gm(_array(spec, expand(spec), _dtype_of(spec, dtype)))
    dst = _gm(_initial(ex["operands"]["dst"], dtype))
    p = ex["params"]
    mask = p.get("mask", [0, 0])
    stride = p.get("stride", [])
    call = DocCall(
        page["api"].encode(),
        ex["form"].encode(),
        DTYPES[dtype][1],
        (*(gm[s].size if s in gm else 0 for s in SLOTS[:3]), dst.size),
        (int(mask[0]), int(mask[1])),
        p.get("repeat", 0),
        (*stride, *(0,) * (6 - len(stride))),
        p.get("count", 0),
        p.get("mode", 0),
        float(p.get("scalar", 0.0)),
    )
    aux = np.zeros(4, np.uint64)
    sources = (In(gm.get(s, np.zeros(32, np.uint8))) for s in SLOTS[:3])
    run = kernel[p.get("block_dim", 1)](*sources, dst, aux, tiling=call)
    return dst, aux, run


def _mismatches(expected: list[Entry], actual: np.ndarray, initial: np.ndarray, how: str) -> list[tuple[int, str, Any]]:
    bad = []
    for i, e in enumerate(expected):
        if e is None:
            continue
        if e == "undefined":
            if actual[i : i + 1].tobytes() != initial[i : i + 1].tobytes():
                bad.append((i, "undefined (untouched)", actual[i]))
        elif not same(e, actual[i], how):
            bad.append((i, e, actual[i]))
    return bad


@pytest.mark.parametrize(("page", "ex", "dtype", "soc"), _cases())
def test_documented_call(kernels: dict[str, Kernel], page: dict[str, Any], ex: dict[str, Any], dtype: str, soc: str):
    dst_spec = ex["operands"]["dst"]
    n = dst_spec["length"]
    initial = _initial(dst_spec, dtype)
    dst, aux, run = _run(kernels[soc], page, ex, dtype)
    errors = sorted({d.kind for d in run.diagnostics if d.severity in ("error", "fatal")})
    assert errors == sorted(ex.get("diagnostics", [])), [str(d) for d in run.diagnostics]
    actual = dst[: initial.nbytes].view(initial.dtype)
    how = ex.get("compare", "bits")
    page_says = expand({**ex["expected"]["dst"], "length": n})
    cann_gives = _implementation(ex, page_says)
    bad = _mismatches(cann_gives, actual, initial, how)
    assert not bad, f"{len(bad)} elements differ from {'CANN' if 'implementation' in ex else 'the page'}: {bad[:8]}"
    scalars = {**ex["expected"].get("scalars", {}), **ex.get("implementation", {}).get("scalars", {})}
    for name, value in scalars.items():  # GatherMask's rsvdCnt
        assert int(aux[0]) == int(value), name
    if "implementation" in ex:  # and the page's own numbers are indeed not what the call gives
        assert _mismatches(page_says, actual, initial, how), "the page now matches: drop the contradiction"


def _implementation(ex: dict[str, Any], page_says: list[Entry]) -> list[Entry]:
    """What CANN's implementation gives where the page contradicts it: a whole dst, or the page's dst with the
    elements `dst_at` names replaced."""
    impl = ex.get("implementation")
    if impl is None:
        return page_says
    if "dst" in impl:
        return expand({**impl["dst"], "length": len(page_says)})
    return [impl.get("dst_at", {}).get(str(i), e) for i, e in enumerate(page_says)]


# ------------------------------------------------------------------------------------------ the parser itself
@pytest.mark.parametrize(
    ("text", "length", "gaps", "expected"),
    [
        ("[1 2 3 ... 8]", 8, None, ["1", "2", "3", "4", "5", "6", "7", "8"]),
        ("[254 252 ... 248]", 4, None, ["254", "252", "250", "248"]),
        ("[0.5 1.0 1.5 ... 3.0]", 6, None, ["0.5", "1.0", "1.5", "2", "2.5", "3.0"]),
        ("[1 2 2 ... 2]", 5, None, ["1", "2", "2", "2", "2"]),
        ("[6.938 -8.86 -0.2263 ... 1.971 1.778]", 6, None, ["6.938", "-8.86", "-0.2263", None, "1.971", "1.778"]),
        ("[2 4 ... 8 undefined ... undefined]", 6, None, ["2", "4", "6", "8", "undefined", "undefined"]),
        ("[0 1 2 3 ...]", 6, None, ["0", "1", "2", "3", None, None]),
        ("[18 18 ... 18 undefined ... undefined]", 7, [1, 1], ["18"] * 4 + ["undefined"] * 3),
        ("[ 240(0b11110000) ... ]", 3, None, ["240", None, None]),
    ],
)
def test_printed_data_reading(text: str, length: int, gaps: list[int] | None, expected: list[Entry]) -> None:
    assert expand_row(text, length, gaps) == expected


def test_printed_data_that_does_not_fit_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot lay"):
        expand_row("[1 2 3 ... 8]", 6)  # the progression needs 8 elements
    with pytest.raises(ValueError, match="cannot lay"):
        expand_row("[1 ... 5 undefined ... undefined]", 9)  # two elided spans of unknown length


def test_comparison_reads_half_exactly_and_floats_at_printed_precision() -> None:
    assert same("2.719", np.float16(np.e), "bits")  # numpy prints half(e) as 2.719
    assert not same("2.717", np.float16(np.e), "bits")  # the neighbouring half
    assert same("1.0986", np.float32(np.log(3)), "printed")
    assert not same("1.3863", np.float16(np.log(4)), "printed")  # half(ln 4) = 1.3867
    assert same("6.8e-06", np.array(114, np.uint16).view(np.float16)[()], "bits")


# ------------------------------------------------------------------------------------------ the data and the doc
def test_every_data_file_is_well_formed_and_in_the_doc_table() -> None:
    table = DOC_TABLE.read_text(encoding="utf-8")
    for page in _pages():
        assert page["source"]["commit"] and page["source"]["path"] and page["socs"], page["api"]
        assert f"| {page['api']} |" in table, f"{page['api']} is missing from docs/doc-examples.md"
        for ex in page["examples"]:
            where = f"{page['api']}/{ex['name']}"
            assert ex["verdict"] in VERDICTS and ex["call"], where
            assert ex["dtypes"] and all(DTYPES[d][1] >= 0 for d in ex["dtypes"]), where
            if ex["verdict"] == "contradiction":
                assert ex.get("why") and f"`{ex['name']}`" in table, f"contradiction {where} is not in the doc"
            if ex["verdict"] == "emulator_bug":
                assert ex.get("emulator_bug"), where
            assert set(ex["operands"]) <= set(SLOTS) and "dst" in ex["operands"], where
            n = ex["operands"]["dst"]["length"]
            for spec in [*ex["operands"].values(), {**ex["expected"]["dst"], "length": n}]:
                assert len(expand(spec)) == spec["length"], where  # the printed data fits the lengths given


# ------------------------------------------------------------------------------------------ documented call forms
def _probe_functions() -> list[tuple[str, str, int, int, bool]]:
    """(name, platform, first line, last line, lacking) of each `// PROBE:<name>[@<platform>] [LACKS]` function of
    missing_overloads.cpp (the platform defaults to ascend910b; LACKS: ascemu does not have the form yet)."""
    lines = PROBES.read_text(encoding="utf-8").splitlines()
    starts = [(i + 1, m) for i, line in enumerate(lines) if (m := re.match(r"void .*// PROBE:(\S+)( LACKS)?", line))]
    ends = [s - 1 for s, _ in starts[1:]] + [len(lines)]
    probes = []
    for (start, m), end in zip(starts, ends, strict=True):
        name, _, platform = m.group(1).partition("@")
        probes.append((name, platform or "ascend910b", start, end, bool(m.group(2))))
    return probes


@pytest.fixture(scope="session")
def probe_errors() -> dict[str, str]:
    """g++'s errors for missing_overloads.cpp against ascemu (syntax only), per platform a probe names."""

    def errors(platform: str) -> str:
        cmd = [
            "g++",
            "-std=c++20",
            "-fsyntax-only",
            "-fmax-errors=0",
            f"-DASCEMU_PLATFORM={platform}",
            "-I",
            str(REPO / "kernels" / "emu" / "include"),
            str(PROBES),
        ]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300).stderr

    platforms = sorted({p[1] for p in _probe_functions()})
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(platforms, pool.map(errors, platforms), strict=True))


@pytest.mark.parametrize(
    ("name", "platform", "first", "last"),
    [
        pytest.param(
            *p[:4],
            id=f"{p[0]}-{p[1]}",
            marks=[pytest.mark.xfail(strict=True, reason="ascemu lacks this documented form")] if p[4] else [],
        )
        for p in _probe_functions()
    ],
)
def test_documented_form_compiles(
    probe_errors: dict[str, str], name: str, platform: str, first: int, last: int
) -> None:
    pattern = re.compile(rf"{re.escape(str(PROBES))}:(\d+):\d+: error")
    here = [
        line
        for line in probe_errors[platform].splitlines()
        if (m := pattern.match(line)) and first <= int(m.group(1)) <= last
    ]
    assert not here, "\n".join(here[:3])
