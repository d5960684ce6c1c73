"""Issue 21 item 5, the sort family, packed int4b_t tensors and the tik2 spelling: outputs against numpy, bit-exact.

sort/topk_910b.cpp (ours, in the style of CANN's top-k samples) runs on 910B: Sort32 + MrgSort + Extract, the same
through Concat + Sort<float, true> + Extract, a MrgSort that stops when a list is used up (sortedNum and
GetMrgSortResult), Sort32 of half scores (the 8-byte structure), and an int4 round trip (Cast half -> int4b_t in the
count and mask forms, DataCopy of the packed bytes, Cast int4b_t -> half, GetValue / SetValue of single values).
sort/proposal_310p.cpp, written as older samples are (`using namespace tik2;`, the class inside `namespace tik2`), runs
on 310P: ProposalConcat + RpSort16 + MrgSort4 + ProposalExtract on region proposals, Concat + Sort<half, true> +
Extract, the suspended merge, and Cast half -> int4b_t.  Each kernel's REFUSE=1 calls the other chip's instruction
(UNSUPPORTED_API at run time, as CANN's implementation reports it); sort/refused.cpp holds what CANN's compiler
rejects (int4b_t -> half on 310P, int4b_t -> float, Sort32 / RpSort16 of int32).
"""

from __future__ import annotations

import ctypes
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from workbench.running.emu import In, Kernel, KernelRun, load

SORT = Path(__file__).resolve().parent / "sort"
INCLUDE = SORT.parents[2] / "kernels" / "emu" / "include"


class TopkParams(ctypes.Structure):
    _fields_ = [("refuse", ctypes.c_int32), ("qscale", ctypes.c_float)]


class ProposalParams(ctypes.Structure):
    _fields_ = [("refuse", ctypes.c_int32), ("pad", ctypes.c_int32)]


@pytest.fixture(scope="module")
def kernels() -> dict[str, Kernel]:
    """Each kernel built once, for its chip (-O0: the checks are on values, not speed)."""
    loaded = {
        "ascend910b": load(SORT / "topk_910b.cpp", "topk_910b", "Ascend910B1", opt="-O0"),
        "ascend310p": load(SORT / "proposal_310p.cpp", "proposal_310p", "Ascend310P3", opt="-O0"),
    }
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda k: k.built(), loaded.values()))
    return loaded


def diagnostics(run: KernelRun) -> list[str]:
    return [str(d) for d in run.diagnostics]


def stable_descending(scores: np.ndarray) -> np.ndarray:
    """Largest first; equal scores keep their input order (CANN: score[i] == score[j], i > j -> j first)."""
    return np.argsort(-scores.astype(np.float64), kind="stable")


def suspended_merge(a: np.ndarray, b: np.ndarray) -> tuple[list[tuple[int, int]], list[int]]:
    """Two sorted lists of scores merged until one is used up; a tie takes the earlier list.  Returns the picks
    (list, position) and how many each list gave."""
    taken = [0, 0]
    picks = []
    lists = (a, b)
    while taken[0] < len(a) and taken[1] < len(b):
        k = 0 if lists[0][taken[0]] >= lists[1][taken[1]] else 1
        picks.append((k, taken[k]))
        taken[k] += 1
    return picks, taken


def pack_int4(values: np.ndarray) -> np.ndarray:
    """Two 4-bit values a byte, value 2k in the low nibble of byte k (CANN's LocalTensor<int4b_t> layout)."""
    nib = values.astype(np.int8).view(np.uint8) & 0xF
    return (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)


def scores_with_ties(n: int, scale: float, dtype: type) -> np.ndarray:
    x = (np.random.default_rng(21).standard_normal(n) * scale).astype(dtype)
    x[10] = x[20]  # ties: the stable order is checked
    x[40] = x[3]
    return x


# ------------------------------------------------------------------------------------------------ 910B
@pytest.fixture(scope="module")
def topk(kernels: dict[str, Kernel]) -> tuple[KernelRun, np.ndarray, np.ndarray]:
    x = scores_with_ties(128, 1.0, np.float32)
    out = np.zeros(3232, np.uint8)
    run = kernels["ascend910b"][1](In(x), In(np.arange(128, dtype=np.uint32)), out, tiling=TopkParams(0, 3.0))
    return run, x, out


def test_topk_910b_runs_clean(topk: tuple[KernelRun, np.ndarray, np.ndarray]) -> None:
    run, _, _ = topk
    assert run.exit_code == 0 and not run.diagnostics, diagnostics(run)


def test_sort32_mrgsort_extract_is_a_stable_descending_sort(topk: tuple[KernelRun, np.ndarray, np.ndarray]) -> None:
    _, x, out = topk
    order = stable_descending(x)
    np.testing.assert_array_equal(out[0:512].view(np.uint32), x[order].view(np.uint32))
    np.testing.assert_array_equal(out[512:1024].view(np.uint32), order)
    # the helpers (Concat, Sort<float, true>, Extract) give the same
    np.testing.assert_array_equal(out[1024:1536].view(np.uint32), x[order].view(np.uint32))
    np.testing.assert_array_equal(out[1536:2048].view(np.uint32), order)


def test_mrgsort_exhausted_suspension_reports_what_each_list_gave(
    topk: tuple[KernelRun, np.ndarray, np.ndarray],
) -> None:
    _, x, out = topk
    groups = [np.sort(x[g * 32 : (g + 1) * 32])[::-1] for g in range(2)]
    orders = [g * 32 + stable_descending(x[g * 32 : (g + 1) * 32]) for g in range(2)]
    picks, taken = suspended_merge(*groups)
    np.testing.assert_array_equal(out[2048:2080].view(np.uint32), [*taken, 0, 0, *taken, 0, 0])
    merged = out[2080 : 2080 + 8 * len(picks)].view(np.uint32).reshape(-1, 2)
    expect_index = [orders[k][p] for k, p in picks]
    np.testing.assert_array_equal(merged[:, 1], expect_index)
    np.testing.assert_array_equal(merged[:, 0], x[expect_index].view(np.uint32))


def test_sort32_of_half_writes_score_reserved_index(topk: tuple[KernelRun, np.ndarray, np.ndarray]) -> None:
    _, x, out = topk
    h = x[:32].astype(np.float16)
    order = stable_descending(h)
    s = out[2592:2848].view(np.uint16).reshape(32, 4)
    np.testing.assert_array_equal(s[:, 0], h[order].view(np.uint16))
    assert not s[:, 1].any()  # the reserved 2 bytes: ascemu's named choice, zeros
    np.testing.assert_array_equal(s[:, 2:].copy().view(np.uint32).ravel(), order)


def test_int4_quantise_and_dequantise_910b(topk: tuple[KernelRun, np.ndarray, np.ndarray]) -> None:
    _, x, out = topk
    h = (x * np.float32(3.0)).astype(np.float16).astype(np.float64)
    rint = np.clip(np.rint(h), -8, 7)
    ceil = np.clip(np.ceil(h), -8, 7)
    assert rint.min() == -8 and rint.max() == 7  # the saturation is exercised
    np.testing.assert_array_equal(out[2848:2912], pack_int4(rint))  # count form, CAST_RINT
    ceil[127] = rint[3]  # GlobalTensor<int4b_t>::SetValue(255, GetValue(3))
    np.testing.assert_array_equal(out[2912:2976], pack_int4(ceil))  # mask form {1, 1, 2, 8}, CAST_CEIL
    deq = out[2976:3232].view(np.float16).astype(np.float64)
    np.testing.assert_array_equal(deq[:127], rint[:127])
    assert deq[127] == rint[5]  # GetValue(5) / SetValue(7) on the packed tensor


def test_a_nan_score_sorts_first_with_a_warning(kernels: dict[str, Kernel]) -> None:
    x = scores_with_ties(128, 1.0, np.float32)
    x[[7, 70]] = np.nan
    out = np.zeros(3232, np.uint8)
    run = kernels["ascend910b"][1](In(x), In(np.arange(128, dtype=np.uint32)), out, tiling=TopkParams(0, 3.0))
    assert {d.kind for d in run.diagnostics} == {"SORT_NAN_SCORE"}, diagnostics(run)
    assert all(d.severity == "warning" for d in run.diagnostics)
    np.testing.assert_array_equal(out[512:520].view(np.uint32), [7, 70])  # ascemu's choice: NaN above +inf
    rest = np.delete(np.arange(128), [7, 70])
    np.testing.assert_array_equal(out[520:1024].view(np.uint32), rest[stable_descending(x[rest])])


def test_310p_instructions_are_refused_on_910b(kernels: dict[str, Kernel]) -> None:
    run = kernels["ascend910b"][1](
        In(np.zeros(128, np.float32)), In(np.zeros(128, np.uint32)), np.zeros(3232, np.uint8), tiling=TopkParams(1, 1)
    )
    hits = [d for d in run.diagnostics if d.kind == "UNSUPPORTED_API"]
    assert [d.severity for d in hits] == ["error"] and "ProposalConcat" in hits[0].message, diagnostics(run)
    assert "ascend910b" in hits[0].message


# ------------------------------------------------------------------------------------------------ 310P (tik2 style)
@pytest.fixture(scope="module")
def proposals(kernels: dict[str, Kernel]) -> tuple[KernelRun, np.ndarray, np.ndarray, np.ndarray]:
    x = scores_with_ties(64, 6.0, np.float16)
    index = np.arange(64, dtype=np.uint32) * 70001  # past 16 bits: the half path splits it over y1 / label
    out = np.zeros(1728, np.uint8)
    labels = np.arange(64).astype(np.float16)
    run = kernels["ascend310p"][1](In(x), In(labels), In(index), out, tiling=ProposalParams(0, 0))
    return run, x, index, out


def test_proposal_sort_310p_in_tik2_style_runs_clean(
    proposals: tuple[KernelRun, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    run = proposals[0]
    assert run.exit_code == 0 and not run.diagnostics, diagnostics(run)


def test_region_proposals_sorted_and_merged(proposals: tuple[KernelRun, np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, x, index, out = proposals
    order = stable_descending(x)
    np.testing.assert_array_equal(out[0:128].view(np.uint16), x[order].view(np.uint16))  # ProposalExtract score
    np.testing.assert_array_equal(out[128:256].view(np.float16), order.astype(np.float16))  # ... label
    rp = out[704:1728].view(np.uint16).reshape(64, 8)  # [x1, y1, x2, y2, score, label, reserved, reserved]
    np.testing.assert_array_equal(rp[:, 4], x[order].view(np.uint16))
    np.testing.assert_array_equal(rp[:, 5], order.astype(np.float16).view(np.uint16))
    assert not rp[:, [0, 1, 2, 3, 6, 7]].any()
    # the helpers: Concat, Sort<half, true> (index in y1 / label), Extract
    np.testing.assert_array_equal(out[256:384].view(np.uint16), x[order].view(np.uint16))
    np.testing.assert_array_equal(out[384:640].view(np.uint32), index[order])


def test_mrgsort4_exhausted_suspension_310p(proposals: tuple[KernelRun, np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, x, _, out = proposals
    groups = [np.sort(x[g * 16 : (g + 1) * 16].astype(np.float64))[::-1] for g in range(2)]
    _, taken = suspended_merge(*groups)
    np.testing.assert_array_equal(out[640:672].view(np.uint32), [*taken, 0, 0, *taken, 0, 0])


def test_int4_quantise_310p(proposals: tuple[KernelRun, np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, x, _, out = proposals
    q = np.clip(np.rint(x.astype(np.float64)), -8, 7)  # CAST_NONE rounds to nearest even
    assert q.min() == -8 and q.max() == 7
    np.testing.assert_array_equal(out[672:704], pack_int4(q))


def test_910b_instructions_are_refused_on_310p(kernels: dict[str, Kernel]) -> None:
    z = np.zeros(64, np.float16)
    run = kernels["ascend310p"][1](
        In(z), In(z), In(np.zeros(64, np.uint32)), np.zeros(1728, np.uint8), tiling=ProposalParams(1, 0)
    )
    hits = [d for d in run.diagnostics if d.kind == "UNSUPPORTED_API"]
    assert [d.severity for d in hits] == ["error"] and "Sort32" in hits[0].message, diagnostics(run)
    assert "ascend310p" in hits[0].message


# ------------------------------------------------------------------------------------------------ compile time
REFUSED = {  # tag in sort/refused.cpp: (chips CANN's compiler rejects it on, words of the message)
    "int4-to-half": ({"ascend310p"}, "int4b_t -> half (910B only)"),
    "int4-to-float": ({"ascend310p", "ascend910b"}, "Cast with int4b_t"),
    "sort32-int32": ({"ascend310p", "ascend910b"}, "Sort32 supports half and float only"),
    "rpsort16-int32": ({"ascend310p", "ascend910b"}, "RpSort16 supports half and float only"),
}


def _refused_errors(platform: str) -> dict[int, str]:
    cmd = ["g++", "-std=c++20", "-fsyntax-only", "-fmax-errors=0", f"-DASCEMU_PLATFORM={platform}", f"-I{INCLUDE}"]
    stderr = subprocess.run([*cmd, str(SORT / "refused.cpp")], capture_output=True, text=True, timeout=300).stderr
    out: dict[int, str] = {}
    pending = None
    for text in stderr.splitlines():
        if m := re.match(r".*refused\.cpp:(\d+):\d+:\s+required from here", text):
            pending = int(m.group(1))
        elif pending is not None and (m := re.match(r".*: error: (.*)", text)):
            out[pending] = m.group(1)
            pending = None
    return out


def test_what_cann_rejects_in_the_sort_family_does_not_compile() -> None:
    lines = (SORT / "refused.cpp").read_text().splitlines()
    line = {tag: next(i for i, t in enumerate(lines, 1) if f"REFUSED:{tag}" in t) for tag in REFUSED}
    chips = ("ascend310p", "ascend910b")
    with ThreadPoolExecutor(2) as pool:
        errors = dict(zip(chips, pool.map(_refused_errors, chips), strict=True))
    for platform, found in errors.items():
        expected = {line[t] for t, (chips, _) in REFUSED.items() if platform in chips}
        assert set(found) == expected, (platform, found)
        for tag, (_, words) in REFUSED.items():
            if line[tag] in found:
                assert words in found[line[tag]], (platform, tag, found[line[tag]])
