"""ascemu fault catalogue: one deliberately broken kernel per check kind (tests/emu/fault_kernel.cpp).

Every case asserts the diagnostic kind AND the exact source line of the faulting kernel statement (marked
`// LINE:<tag>` in the kernel), plus the §5.6 exit code.  Launches run in subprocesses, so crashes, timeouts and
deadlocks never affect the pytest process.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from emu_helpers import (
    EXIT_CRASH,
    EXIT_DEADLOCK,
    EXIT_ERRORS,
    EXIT_FATAL,
    EXIT_HARNESS,
    KERNEL_FAULT,
    conf_tiling,
    marker_line,
    run,
)

KERNEL = KERNEL_FAULT
P310 = "ascend310p"


@pytest.fixture
def launch(fault_bin, tmp_path):
    def _go(key, **kw):
        kw.setdefault("in_bytes", bytes(1024))
        return run(fault_bin, tmp_path, platform=P310, tiling_key=key, tag=f"f{key}", **kw)

    return _go


def line(tag):
    return marker_line(KERNEL, tag)


def same_file(d):
    return Path(d["file"]).name == KERNEL.name


CASES = [
    # (id, key, kwargs, kind, marker, exit code)
    ("gm_oob_write", 1, {"out_size": 100}, "GM_OOB", "gm_oob", EXIT_ERRORS),
    ("ub_overflow", 2, {}, "UB_OVERFLOW", "ub_overflow", EXIT_ERRORS),
    ("ub_misaligned_copy", 3, {}, "UB_MISALIGNED", "ub_misaligned", EXIT_ERRORS),
    ("gm_misaligned_copy", 4, {}, "GM_MISALIGNED", "gm_misaligned", EXIT_ERRORS),
    ("queue_deque_empty", 5, {}, "QUE_DEQUE_EMPTY", "deque_empty", EXIT_ERRORS),
    ("queue_invalid_tensor_use", 5, {}, "UB_INVALID_TENSOR", "invalid_use", EXIT_ERRORS),
    ("cast_unsupported_p310", 6, {}, "UNSUPPORTED_CAST_PAIR", "cast_pair", EXIT_ERRORS),
    ("gm_write_race", 7, {"block_dim": 4}, "GM_WRITE_RACE", "race", EXIT_ERRORS),
    ("ub_tensor_overrun", 10, {}, "UB_TENSOR_OVERRUN", "overrun", EXIT_ERRORS),
    ("use_after_free", 11, {}, "UB_USE_AFTER_FREE", "uaf", EXIT_ERRORS),
    ("trap", 12, {}, "KERNEL_ABORT", "trap", EXIT_FATAL),
    ("strict_datacopy_round", 13, {"strict": True}, "DATACOPY_ROUNDED", "strict_round", EXIT_FATAL),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fault_reported_at_statement(launch, case):
    _, key, kw, kind, tag, code = case
    r = launch(key, **kw)
    hits = r.of(kind)
    assert hits, (kind, r.diags, r.stderr[-2000:])
    assert {d["line"] for d in hits} == {line(tag)}
    assert all(same_file(d) for d in hits)
    assert r.rc == code
    assert r.report["exit_code"] == code  # the report is written even on faults


def test_gm_write_race_names_both_cores(launch):
    r = launch(7, block_dim=4)
    races = r.of("GM_WRITE_RACE")
    assert {d["core"] for d in races} == {1, 2, 3}
    assert all(d["details"]["other_line"] == line("race") for d in races)


def test_infinite_loop_times_out(launch):
    r = launch(8, timeout_s=1)
    assert r.rc == EXIT_DEADLOCK  # 3 = deadlock/timeout
    t = r.of("TIMEOUT")
    assert t and t[0]["line"] == line("spin") and t[0]["severity"] == "fatal", t
    assert t[0]["details"]["cores"][0]["state"] == "running"


def test_wild_pointer_crash_is_isolated(launch):
    r = launch(9)
    assert r.rc == EXIT_CRASH
    lines = [d for d in r.stderr_diags() if d["kind"] == "CRASH"]
    assert len(lines) == 1  # exactly one ASCEMU_DIAG CRASH line on stderr
    d = lines[0]
    assert d["core"] == 0 and d["api"] == "Duplicate"  # last API before the fault
    assert d["line"] == line("crash") and same_file(d)  # resolved faulting statement
    assert r.report["exit_code"] == EXIT_CRASH and r.of("CRASH")


def test_crash_on_other_core(launch):
    r = launch(9, block_dim=3)
    assert r.rc == EXIT_CRASH
    assert [d["core"] for d in r.stderr_diags() if d["kind"] == "CRASH"] == [0]


def test_harness_arg_count_mismatch(launch):
    # args[] that does not match the entry signature -> HARNESS record, exit 5
    r = launch(1, out_size=100, extra={"args": []})
    assert r.rc == EXIT_HARNESS and r.of("HARNESS")


# --------------------------------------------------------------------------------------- §5.5 pipe/event sync
PIPE_CASES = [
    # (id, key, reader marker, writer marker, writer pipe -> reader pipe)
    ("mte2_to_v", 14, "hazard_mte2_v", "mte2_write", "MTE2", "V"),
    ("v_to_s", 15, "hazard_v_s", "v_write", "V", "S"),
]


@pytest.mark.parametrize("case", PIPE_CASES, ids=[c[0] for c in PIPE_CASES])
def test_pipe_hazard_without_sync(launch, case):
    _, key, reader, writer, wpipe, rpipe = case
    r = launch(key)
    hits = r.of("PIPE_HAZARD")
    assert len(hits) == 1, r.diags
    d = hits[0]
    assert d["line"] == line(reader) and same_file(d) and d["severity"] == "info"  # advisory by default
    det = d["details"]
    assert det["writer_line"] == line(writer) and Path(det["writer_file"]).name == KERNEL.name
    assert (det["writer_pipe"], det["reader_pipe"], det["event"]) == (wpipe, rpipe, f"{wpipe}_{rpipe}")
    assert r.rc == 0  # info does not change the exit code


@pytest.mark.parametrize("key", [14, 15, 16])
def test_pipe_hazard_clean_with_sync(launch, key):
    r = launch(key, tiling=conf_tiling(0, 1))
    assert not r.of("PIPE_HAZARD"), r.of("PIPE_HAZARD")
    assert r.rc == 0


def test_pipe_hazard_scalar_and_queues(launch):
    # S -> V without S_V is flagged at the Muls.  The TQue round trip after it is clean: EnQue/DeQue and
    # FreeTensor/AllocTensor carry the flag of the queue position (VECIN: MTE2_V, VECOUT: V_MTE3) ...
    # ... which does not order the scalar unit: a GetValue of the dequeued VECIN tensor needs MTE2_S.
    r = launch(16)
    assert [(d["line"], d["details"]["event"]) for d in r.of("PIPE_HAZARD")] == [
        (line("hazard_s_v"), "S_V"),
        (line("hazard_mte2_s"), "MTE2_S"),
    ]


def test_pipe_check_strict_and_off(launch, monkeypatch):
    # "pipe_check":"strict" in the launch file (or $ASCEMU_PIPE_CHECK) makes PIPE_HAZARD a warning; "off" skips it.
    monkeypatch.setenv("ASCEMU_PIPE_CHECK", "strict")
    r = launch(14, extra={"pipe_check": "strict"})
    assert [d["severity"] for d in r.of("PIPE_HAZARD")] == ["warning"] and r.rc == 0
    monkeypatch.setenv("ASCEMU_PIPE_CHECK", "off")
    assert not launch(14, extra={"pipe_check": "off"}).of("PIPE_HAZARD")


def test_mte_overlap_no_barrier(launch):
    r = launch(17)
    assert kinds_lines(r, "MTE_OVERLAP_NO_BARRIER") == sorted([line("mte2_overlap"), line("mte3_overlap")])
    assert all(d["severity"] == "warning" for d in r.of("MTE_OVERLAP_NO_BARRIER"))
    assert not launch(17, tiling=conf_tiling(0, 1)).of("MTE_OVERLAP_NO_BARRIER")


def kinds_lines(r, kind):
    return sorted(d["line"] for d in r.of(kind))


# ---------------------------------------------------------------- device readiness (docs/device-readiness.md)
def test_v_to_v_read_after_write_without_barrier(launch):
    # CANN's PipeBarrier page: a vector instruction reading what the previous one wrote needs PipeBarrier<PIPE_V>
    # (auto-sync may insert it, so info by default, as PIPE_HAZARD). The ReduceSum after the barrier and the
    # write-after-read Duplicate are not reported.
    r = launch(18)
    hits = r.of("V_RAW_NO_BARRIER")
    assert [(d["line"], d["details"]["writer_line"], d["severity"]) for d in hits] == [
        (line("vraw"), line("v_first"), "info")
    ]
    assert hits[0]["details"]["writer_api"] == "Duplicate" and same_file(hits[0])
    assert r.rc == 0


@pytest.mark.parametrize("order", [1, 2, 3], ids=["pipe_barrier_v", "v_v_flag", "scalar_waited_v_s"])
def test_v_to_v_read_after_write_ordered(launch, order):
    r = launch(18, tiling=conf_tiling(0, order))
    assert not r.of("V_RAW_NO_BARRIER"), r.of("V_RAW_NO_BARRIER")
    assert r.rc == 0


def test_v_to_v_check_follows_pipe_check(launch, monkeypatch):
    monkeypatch.setenv("ASCEMU_PIPE_CHECK", "strict")
    assert [d["severity"] for d in launch(18, extra={"pipe_check": "strict"}).of("V_RAW_NO_BARRIER")] == ["warning"]
    monkeypatch.setenv("ASCEMU_PIPE_CHECK", "off")
    assert not launch(18, extra={"pipe_check": "off"}).of("V_RAW_NO_BARRIER")


def test_write_past_the_end_of_an_output(launch):
    # 128-B copies of 96-B tensors: the last 32 bytes are the ones aclrtMalloc adds past ALIGN_UP(96, 32), which
    # aclrtMallocAlign32 or a view would not give. Writing them is GM_WRITE_PAST_END (a warning, an error under
    # strict); reading them GM_SLACK_ACCESS.
    r = launch(19, in_bytes=bytes(96), out_size=96)
    hits = r.of("GM_WRITE_PAST_END")
    assert [d["line"] for d in hits] == [line("write_past_end")] and same_file(hits[0])
    assert hits[0]["severity"] == "warning"
    assert (hits[0]["details"]["past_end"], hits[0]["details"]["role"]) == (32, "output")
    assert [d["line"] for d in r.of("GM_SLACK_ACCESS")] == [line("slack_read")]
    assert r.rc == 0
    assert launch(19, in_bytes=bytes(96), out_size=96, strict=True).rc == EXIT_FATAL
    # issue 21: the same copies of 100-B tensors end at ALIGN_UP(100, 32) = 128, inside what every allocator gives
    quiet = launch(19, in_bytes=bytes(100), out_size=100)
    assert not quiet.of("GM_WRITE_PAST_END") and not quiet.of("GM_SLACK_ACCESS") and quiet.rc == 0, quiet.diags


def test_block_ending_at_the_end_of_an_output_stays_inside(launch):
    r = launch(19, in_bytes=bytes(100), out_size=100, tiling=conf_tiling(0, 1))
    assert not r.of("GM_WRITE_PAST_END") and not r.of("MTE_OVERLAP_NO_BARRIER"), r.diags
    assert r.rc == 0


def test_flag_barrier_with_more_blocks_than_cores(launch):
    # Every block waits for every other block's flag: on a device with 8 AI Cores a 9th block is not resident
    # while the first 8 spin, so the barrier can hang. The emulator runs it, and says so.
    r = launch(20, block_dim=9)
    hits = r.of("POLL_BLOCKDIM_EXCEEDS_CORES")
    assert len(hits) == 1 and hits[0]["line"] == line("poll") and hits[0]["severity"] == "warning"
    assert (hits[0]["details"]["block_dim"], hits[0]["details"]["core_count"]) == (9, 8)
    assert r.rc == 0
    fits = launch(20, block_dim=8)
    assert not fits.of("POLL_BLOCKDIM_EXCEEDS_CORES") and fits.rc == 0
    assert fits.report["trace"]["cores"][0]["sync"]["poll_iterations"] > 0  # it did poll
