"""Every record's file and line is the kernel's source line, or none for a launch-level check: never a line of the
emulator's own headers (docs/diagnostics.md#reading-a-diagnostic).  The reports are read as the binary wrote them
(the Python side has a guard of its own, tests/test_diagnostic_location.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from emu_helpers import EXIT_ERRORS, EXIT_HARNESS, INCLUDE, build, marker_line, run

P310 = "ascend310p"

# An emulator API (its body compiled as if it were a line of the emulator's headers, by #line) that calls another
# API without passing the kernel's call site on: the inner call's checks must name the kernel's call of the outer
# API, and so must a record made later at the core's last call (QUE_LEAK at the kernel's end).
INNER_CALL = """\
#include "kernel_operator.h"
using namespace AscendC;

struct Tiling { int32_t n, p0, p1, p2; };

void OuterApi(const LocalTensor<float>& u, int32_t n, std::source_location loc = std::source_location::current());

extern "C" __global__ __aicore__ void inner_call(GM_ADDR in, GM_ADDR out, GM_ADDR ws, Tiling t) {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 256);
    LocalTensor<float> u = q.AllocTensor<float>();  // never freed: QUE_LEAK at the core's last call
    OuterApi(u, 128);  // LINE:outer  the inner Adds runs past the 64-float tensor and reads never-written UB
}

#line 1 EMU_HEADER
void OuterApi(const LocalTensor<float>& u, int32_t n, std::source_location loc) {
    ascemu::api_enter("OuterApi", loc);
    Adds(u, u, 1.0f, n);
}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("emu_locations")


@pytest.mark.parametrize("separate", [False, True], ids=["header-only", "separate-runtime"])
def test_an_api_called_inside_the_emulator_reports_at_the_kernels_call(work: Path, separate: bool) -> None:
    source = work / "inner_call.cpp"
    source.write_text(INNER_CALL)
    header = INCLUDE / "ascemu" / "inner_probe.h"  # never created: only the name the #line gives the body
    binary = build(source, "inner_call", P310, work, defines=[f'EMU_HEADER="{header}"'], separate=separate)
    r = run(binary, work / "run", platform=P310, tag="separate" if separate else "header_only")
    assert r.rc == EXIT_ERRORS, (r.diags, r.stderr[-2000:])
    kernel = [d for d in r.diags if d["core"] >= 0]
    assert {"UB_TENSOR_OVERRUN", "QUE_LEAK"} <= {d["kind"] for d in kernel}, r.diags
    assert {(d["file"], d["line"]) for d in kernel} == {(str(source), marker_line(source, "outer"))}, kernel


@pytest.fixture(scope="module")
def fault_run(fault_bin: Path, work: Path):
    def go(key: int, **kw):
        return run(fault_bin, work / "fault", platform=P310, tiling_key=key, in_bytes=bytes(1024), **kw)

    return go


def test_output_unwritten_names_no_line(fault_run) -> None:
    r = fault_run(3)  # a misaligned copy into UB: nothing reaches the output
    (d,) = r.of("OUTPUT_UNWRITTEN")
    assert (d["file"], d["line"], d["column"], d["function"], d["core"]) == ("", 0, 0, "", -1), d


def test_a_harness_refusal_names_no_line(fault_run) -> None:
    r = fault_run(3, extra={"mode": "bogus"})
    assert r.rc == EXIT_HARNESS
    (d,) = r.of("HARNESS")
    assert (d["file"], d["line"]) == ("", 0) and "unknown mode 'bogus'" in d["message"], d
