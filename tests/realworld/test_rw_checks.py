"""Every error class of CANN's own checker, and issue 11's false alarms and misses, on kernels of our own.

CANN's CPU-debug checker ("npu check", cann/asc-tools docs/02_npu_check.md) names 19 error classes; each has an
emulator diagnostic here, triggered by one tiling key of tests/realworld/checks/npu_check_kernel.cpp, and
docs/diagnostics.md#canns-checker-classes-and-ours maps one to the other.  The same kernel also carries the idioms
of CANN's examples that must stay quiet (a hard SyncAll with no kernel type, every core writing the same bytes
before a SyncAll) and the GM misses (an access through one GlobalTensor that lands in another allocation).
tests/realworld/checks/workspace_kernel.cpp covers GetUserWorkspace with and without a system workspace.  Issue 11's
leftovers: literal event IDs are quiet unless a queue's own flag holds the ID at the time, and an output no core wrote
a byte of is a warning.

Each case asserts the kind, the severity and the exact source line (`// LINE:<tag>` in the kernel), and, where the
kernel computes something, its output against numpy.  Builds go through the workbench build cache (-O1); every
launch is a subprocess of the emulator driver.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workbench.running.emu.build import Variant, build

ROOT = Path(__file__).resolve().parents[2]
CHECKS = Path(__file__).resolve().parent / "checks"
KERNEL = CHECKS / "npu_check_kernel.cpp"
WS_KERNEL = CHECKS / "workspace_kernel.cpp"
P310, P910B = "P310", "P910B"
BOTH = (P310, P910B)
EXIT_CLEAN, EXIT_ERRORS, EXIT_FATAL = 0, 1, 2
N = 2048  # float elements of x and y
TRAILER = 8  # floats after z's data that the SyncAll cases stamp
SYNC_SHIFT_KEYS = (2, 3, 4)
SYS_WORKSPACE = {P310: 2 << 20, P910B: 16 << 20}  # GetUserWorkspace's offset per platform (docs/emulator.md)


def line(tag: str, source: Path = KERNEL) -> int:
    """1-based line of the statement tagged `// LINE:<tag>`."""
    pattern = re.compile(r"//.*\bLINE:" + re.escape(tag) + r"(\s|$)")
    for number, text in enumerate(source.read_text().splitlines(), 1):
        if pattern.search(text):
            return number
    raise KeyError(tag)


def tiling(total: int = N, tiles: int = 2, set_sys_workspace: int = 0) -> bytes:
    return struct.pack("<4I", total, tiles, set_sys_workspace, 0)


@dataclass(frozen=True)
class Launch:
    rc: int
    report: dict[str, Any]
    outputs: dict[str, bytes]

    @property
    def diags(self) -> list[dict[str, Any]]:
        return list(self.report.get("diagnostics", []))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [d for d in self.diags if d["kind"] == kind]

    def lines(self, kind: str) -> set[int]:
        return {d["line"] for d in self.of(kind) if Path(d["file"]).name.endswith("_kernel.cpp")}

    def f32(self, name: str) -> np.ndarray:
        return np.frombuffer(self.outputs[name], dtype=np.float32)


def launch(binary: Path, work: Path, args: list[tuple[str, dict[str, Any]]], **config: Any) -> Launch:
    """Runs `binary` on a launch file: `args` are (name, launch-file entry) per kernel parameter, in order; an
    entry with `data` gets it as its in_file, every gm entry is written back to <name>.bin."""
    work.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, spec in args:
        spec = dict(spec)
        if "data" in spec:
            (work / f"{name}.in").write_bytes(spec.pop("data"))
            spec["in_file"] = f"{name}.in"
        if spec["kind"] == "gm":
            spec["out_file"] = f"{name}.bin"
        entries.append(spec)
    (work / "launch.json").write_text(
        json.dumps({"timeout_s": 30, "report_path": "report.json", "args": entries, **config})
    )
    proc = subprocess.run([str(binary), "--launch", str(work / "launch.json")], capture_output=True, timeout=90)
    report = json.loads((work / "report.json").read_text())
    outputs = {n: (work / f"{n}.bin").read_bytes() for n, s in args if s["kind"] == "gm"}
    return Launch(proc.returncode, report, outputs)


@pytest.fixture(scope="module")
def binaries() -> dict[str, Path]:
    def one(platform: str, source: Path, entry: str, **defines: str) -> Path:
        variant = Variant((source,), entry, platform, tuple(defines.items()), opt="-O1")
        return build(variant).path

    with ThreadPoolExecutor(2) as pool:  # the suite runs on two cores
        jobs = {
            P310: pool.submit(one, P310, KERNEL, "npu_check_kernel"),
            P910B: pool.submit(one, P910B, KERNEL, "npu_check_kernel"),
            "ws": pool.submit(one, P310, WS_KERNEL, "workspace_kernel"),
            "ws_have": pool.submit(one, P310, WS_KERNEL, "workspace_kernel", HAVE_WORKSPACE=""),
        }
        return {name: job.result() for name, job in jobs.items()}


@pytest.fixture
def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    return rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)


@pytest.fixture
def check(binaries, inputs, tmp_path):
    """check(platform, key, block_dim=1, **config): one launch of npu_check_kernel."""
    x, y = inputs

    def go(platform: str, key: int, block_dim: int = 1, **config: Any) -> Launch:
        z_floats = N + TRAILER if key in SYNC_SHIFT_KEYS else N
        args = [
            ("x", {"kind": "gm", "bytes": x.nbytes, "role": "input", "data": x.tobytes()}),
            ("y", {"kind": "gm", "bytes": y.nbytes, "role": "input", "data": y.tobytes()}),
            ("z", {"kind": "gm", "bytes": z_floats * 4, "role": "output", "fill": 0}),
            ("workspace", {"kind": "gm", "bytes": N * 4 + 64 * 32, "role": "workspace", "fill": 0}),
            ("tiling", {"kind": "bytes", "data": tiling()}),
        ]
        work = tmp_path / f"{platform}_{key}_{block_dim}"
        return launch(binaries[platform], work, args, tiling_key=key, block_dim=block_dim, **config)

    return go


# --------------------------------------------------------------------------------------------- CANN's classes
# (CANN class, tiling key, kind, severity, marker of the reported line, exit code)
CLASSES = [
    ("ErrorRead1", 10, "UB_USE_AFTER_FREE", "error", "read_freed", EXIT_ERRORS),
    ("ErrorRead1", 33, "UB_INVALID_TENSOR", "error", "no_tensor", EXIT_ERRORS),
    ("ErrorRead2", 12, "UB_UNINIT_READ", "warning", "add", EXIT_CLEAN),
    ("ErrorRead3", 13, "UB_TENSOR_OVERRUN", "error", "read_overrun", EXIT_ERRORS),
    ("ErrorRead4", 15, "UB_MISALIGNED", "error", "misaligned_read", EXIT_ERRORS),
    ("ErrorWrite1", 11, "UB_USE_AFTER_FREE", "error", "write_freed", EXIT_ERRORS),
    ("ErrorWrite2", 14, "UB_TENSOR_OVERRUN", "error", "write_overrun", EXIT_ERRORS),
    ("ErrorWrite3", 16, "QUE_WRITE_AFTER_ENQUE", "warning", "rewrite", EXIT_CLEAN),
    ("ErrorWrite4", 15, "UB_MISALIGNED", "error", "misaligned_write", EXIT_ERRORS),
    ("ErrorSync1", 23, "PIPE_HAZARD", "info", "waw", EXIT_CLEAN),
    ("ErrorSync1", 24, "MTE_OVERLAP_NO_BARRIER", "warning", "mte2_overlap", EXIT_CLEAN),
    ("ErrorSync2", 21, "PIPE_HAZARD", "info", "muls", EXIT_CLEAN),
    ("ErrorSync2", 22, "V_RAW_NO_BARRIER", "info", "adds", EXIT_CLEAN),
    ("ErrorSync3", 25, "EVENT_UNPAIRED", "warning", "set_no_wait", EXIT_CLEAN),
    ("ErrorSync3", 26, "EVENT_WAIT_WITHOUT_SET", "fatal", "wait_no_set", EXIT_FATAL),
    ("ErrorSync4", 27, "EVENT_ID_DUPLICATE", "warning", "dup_id", EXIT_CLEAN),
    ("ErrorFree", 18, "QUE_DOUBLE_FREE", "error", "double_free", EXIT_ERRORS),
    ("ErrorBuffer0", 30, "BUFFER_NOT_INITIALISED", "error", "que_alloc", EXIT_ERRORS),
    ("ErrorBuffer0", 31, "BUFFER_NOT_INITIALISED", "error", "tbuf_no_init", EXIT_ERRORS),
    ("ErrorBuffer1", 19, "QUE_FOREIGN_FREE", "error", "wrong_queue", EXIT_ERRORS),
    ("ErrorBuffer2", 11, "UB_USE_AFTER_FREE", "error", "enque_freed", EXIT_ERRORS),
    ("ErrorBuffer2", 11, "QUE_DEQUE_EMPTY", "error", "deque_x", EXIT_ERRORS),
    ("ErrorBuffer3", 32, "UB_OVERFLOW", "error", "ub_too_big", EXIT_ERRORS),
    ("ErrorBuffer4", 34, "BUFFER_NOT_INITIALISED", "error", "pool_no_init", EXIT_ERRORS),
]


@pytest.mark.parametrize("platform", BOTH)
@pytest.mark.parametrize(
    ("cann_class", "key", "kind", "severity", "tag", "rc"), CLASSES, ids=[f"{c[0]}-{c[2]}" for c in CLASSES]
)
def test_cann_checker_class(check, platform, cann_class, key, kind, severity, tag, rc):
    r = check(platform, key)
    found = [d for d in r.of(kind) if d["line"] == line(tag)]
    assert found, f"{cann_class}: no {kind} at line {line(tag)}: {[(d['kind'], d['line']) for d in r.diags]}"
    assert {d["severity"] for d in found} == {severity}
    assert r.rc == rc


@pytest.mark.parametrize("platform", BOTH)
def test_leak_is_reported_at_kernel_exit(check, platform):
    # ErrorLeak: the last z tensor is never freed; the record comes from the end-of-kernel check
    r = check(platform, 17)
    assert [d["severity"] for d in r.of("QUE_LEAK")] == ["info"] and r.rc == EXIT_CLEAN


@pytest.mark.parametrize("platform", BOTH)
def test_pipe_hazards_name_the_access_and_the_missing_event(check, platform):
    read = [d for d in check(platform, 21).of("PIPE_HAZARD") if d["line"] == line("muls")]
    write = [d for d in check(platform, 23).of("PIPE_HAZARD") if d["line"] == line("waw")]
    assert [(d["details"]["access"], d["details"]["event"]) for d in read] == [("read", "MTE2_V")]
    assert [(d["details"]["access"], d["details"]["event"]) for d in write] == [("write", "MTE2_V")]


@pytest.mark.parametrize("platform", BOTH)
def test_duplicate_event_id_names_the_first_set(check, platform):
    (dup,) = check(platform, 27).of("EVENT_ID_DUPLICATE")
    assert dup["details"]["other_line"] == line("dup_id") - 1 and dup["details"]["pending"] == 1


@pytest.mark.parametrize("platform", BOTH)
def test_multi_core_overlapping_writes_are_a_race(check, platform):
    # npu check's "GM multi-core stomping": four cores write different bytes to the same trailer before SyncAll
    r = check(platform, 4, block_dim=4)
    races = r.of("GM_WRITE_RACE")
    assert races and {(d["line"], d["severity"]) for d in races} == {(line("trailer"), "error")}
    assert all(not d["details"]["identical"] for d in races) and r.rc == EXIT_ERRORS


# --------------------------------------------------------------------------------------------- the clean idioms
@pytest.mark.parametrize("platform", BOTH)
def test_idiomatic_add_is_quiet_and_right(check, inputs, platform):
    x, y = inputs
    r = check(platform, 1, block_dim=4)
    assert r.rc == EXIT_CLEAN and not r.diags
    np.testing.assert_array_equal(r.f32("z")[:N], x + y)


@pytest.mark.parametrize("platform", BOTH)
def test_explicit_flags_kernel_is_quiet_and_right(check, inputs, platform):
    x, _ = inputs
    r = check(platform, 20, block_dim=2)
    assert r.rc == EXIT_CLEAN and not r.diags
    np.testing.assert_array_equal(r.f32("z")[:N], x * np.float32(2) + np.float32(1))


@pytest.mark.parametrize("platform", BOTH)
def test_same_bytes_from_every_core_before_syncall(check, inputs, platform):
    """Hard SyncAll with no kernel type (910B) and every core stamping the same trailer: no error, no warning."""
    x, _ = inputs
    r = check(platform, 2, block_dim=4)
    assert r.rc == EXIT_CLEAN
    assert {d["kind"] for d in r.diags} == {"GM_WRITE_RACE"}
    assert {(d["severity"], d["line"], d["details"]["identical"]) for d in r.diags} == {("info", line("trailer"), True)}
    shifted = np.roll(x.reshape(4, -1), -1, axis=0).reshape(-1)  # core i gets core i+1's slice
    np.testing.assert_array_equal(r.f32("z")[:N], shifted * np.float32(2) + np.float32(1))
    np.testing.assert_array_equal(r.f32("z")[N:], np.ones(8, np.float32))


def test_hard_syncall_in_an_aiv_only_kernel_is_a_warning(check):
    r = check(P910B, 3, block_dim=4)
    warnings = r.of("SYNCALL_KERNEL_TYPE")
    assert sorted(d["core"] for d in warnings) == [0, 1, 2, 3]
    assert {(d["severity"], d["line"], d["details"]["kernel_type"]) for d in warnings} == {
        ("warning", line("sync_all"), "KERNEL_TYPE_AIV_ONLY")
    }
    assert r.rc == EXIT_CLEAN
    assert r.report["trace"]["kernel_type"] == "KERNEL_TYPE_AIV_ONLY"


# --------------------------------------------------------------------------------------------- event IDs
MTE2_V = 4  # HardEvent::MTE2_V


@pytest.mark.parametrize("platform", BOTH)
@pytest.mark.parametrize("key", [28, 35], ids=["pipe-of-tbufs", "pipe-with-queues"])
def test_literal_event_ids_no_queue_holds_are_quiet(check, inputs, platform, key):
    x, y = inputs
    r = check(platform, key)
    assert r.rc == EXIT_CLEAN and not r.diags, r.diags
    expected = x * np.float32(2) + np.float32(1) if key == 28 else x + y
    np.testing.assert_array_equal(r.f32("z")[:N], expected)


@pytest.mark.parametrize("platform", BOTH)
@pytest.mark.parametrize(
    ("key", "tag", "queue_tag"), [(36, "id_held", "enque_x"), (37, "id_taken", None)], ids=["held", "taken"]
)
def test_a_literal_event_id_a_queue_holds_is_a_collision(check, inputs, platform, key, tag, queue_tag):
    x, y = inputs
    r = check(platform, key)
    found = r.of("EVENT_ID_UNMANAGED")
    assert {(d["line"], d["severity"]) for d in found} == {(line(tag), "warning")}, r.diags
    queue_line = line(queue_tag) if queue_tag else line(tag) + 1  # taken: the EnQue right after the SetFlag
    assert {(d["details"]["event"], d["details"]["event_id"], d["details"]["queue_line"]) for d in found} == {
        (MTE2_V, 0, queue_line)
    }
    assert r.rc == EXIT_CLEAN
    np.testing.assert_array_equal(r.f32("z")[:N], x + y)


# --------------------------------------------------------------------------------------------- unwritten outputs
@pytest.mark.parametrize("platform", BOTH)
def test_an_output_no_core_wrote_is_a_warning(check, platform):
    r = check(platform, 50, block_dim=2)  # the body is compiled out for these chips
    (unwritten,) = r.of("OUTPUT_UNWRITTEN")
    assert unwritten["severity"] == "warning" and r.rc == EXIT_CLEAN
    assert unwritten["details"]["unwritten"] == unwritten["details"]["bytes"] == N * 4


@pytest.mark.parametrize("platform", BOTH)
def test_an_output_written_in_part_stays_info(check, platform):
    (unwritten,) = check(platform, 42).of("OUTPUT_UNWRITTEN")  # z[0, 8) only
    assert unwritten["severity"] == "info" and unwritten["details"]["unwritten"] == N * 4 - 32


# --------------------------------------------------------------------------------------------- GM misses
@pytest.mark.parametrize("platform", BOTH)
def test_read_through_one_tensor_into_another_allocation(check, platform):
    r = check(platform, 40)
    (oob,) = r.of("GM_OOB")
    assert oob["line"] == line("neighbour_read") and oob["severity"] == "error"
    assert (oob["details"]["buffer"], oob["details"]["lands_in"]) == ("arg0:input", "arg1:input")
    assert r.f32("z")[:8].view(np.uint32).tolist() == [0xFFFFFFFF] * 8  # poison, not y's values


@pytest.mark.parametrize("platform", BOTH)
def test_write_through_one_tensor_into_another_allocation(check, platform):
    r = check(platform, 41)
    (oob,) = r.of("GM_OOB")
    assert oob["line"] == line("neighbour_write") and oob["details"]["write"] is True
    assert (oob["details"]["buffer"], oob["details"]["lands_in"]) == ("arg2:output", "arg3:workspace")
    assert not any(r.outputs["workspace"]), "the stray write reached the workspace"
    assert r.f32("z")[:8].tolist() == [7.0] * 8


@pytest.mark.parametrize("platform", BOTH)
def test_bytes_right_after_an_allocation_belong_to_none(check, platform):
    # the guard zone after every GM buffer: a tensor set past x's slack reads no other buffer's bytes
    r = check(platform, 42)
    (unknown,) = r.of("GM_UNKNOWN_POINTER")
    assert unknown["line"] == line("past_allocation") and r.rc == EXIT_ERRORS


# --------------------------------------------------------------------------------------------- GetUserWorkspace
@pytest.mark.parametrize(
    ("binary", "role", "set_sys", "clean"),
    [
        ("ws", "other", 0, False),  # kernel-launch build, nothing sets the system workspace
        ("ws", "other", 1, True),  # the kernel calls SetSysWorkspace
        ("ws", "workspace", 0, True),  # a framework launch: the workspace argument is the system workspace
        ("ws_have", "other", 0, True),  # a kernel-launch build with HAVE_WORKSPACE
    ],
    ids=["unset", "SetSysWorkspace", "framework", "HAVE_WORKSPACE"],
)
def test_get_user_workspace_needs_a_system_workspace(binaries, inputs, tmp_path, binary, role, set_sys, clean):
    x, _ = inputs
    args = [
        ("x", {"kind": "gm", "bytes": x.nbytes, "role": "input", "data": x.tobytes()}),
        ("z", {"kind": "gm", "bytes": x.nbytes, "role": "output", "fill": 0}),
        ("workspace", {"kind": "gm", "bytes": SYS_WORKSPACE[P310] + x.nbytes, "role": role, "fill": 0}),
        ("tiling", {"kind": "bytes", "data": tiling(set_sys_workspace=set_sys)}),
    ]
    r = launch(binaries[binary], tmp_path, args, block_dim=2)
    if clean:
        assert r.rc == EXIT_CLEAN and not r.diags
        np.testing.assert_array_equal(r.f32("z"), x * np.float32(3))
        staged = np.frombuffer(r.outputs["workspace"][SYS_WORKSPACE[P310] :], np.float32)
        np.testing.assert_array_equal(staged, x * np.float32(3))
    else:
        unset = r.of("SYS_WORKSPACE_UNSET")
        assert {(d["line"], d["severity"]) for d in unset} == {(line("get_user_workspace", WS_KERNEL), "error")}
        assert unset[0]["details"]["reserved_bytes"] == SYS_WORKSPACE[P310]
        stage = {line("stage_out", WS_KERNEL), line("stage_in", WS_KERNEL)}
        assert r.lines("GM_UNKNOWN_POINTER") == stage  # the stage at a null-based address is skipped
        assert not any(r.outputs["workspace"]) and r.rc == EXIT_ERRORS


# --------------------------------------------------------------------------------------------- kernel type names
def test_kernel_type_vectorcore_is_spelled_as_cann_spells_it(tmp_path):
    def syntax(*spellings: str) -> subprocess.CompletedProcess[str]:
        src = tmp_path / f"{spellings[0]}.cpp"
        keys = "".join(f"    KERNEL_TASK_TYPE({key}, {s});\n" for key, s in enumerate(spellings))
        src.write_text(f'#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k() {{\n{keys}}}\n')
        include = ROOT / "kernels" / "emu" / "include"
        cmd = ["g++", "-std=c++20", "-fsyntax-only", f"-I{include}", "-DASCEMU_PLATFORM=ascend310p", str(src)]
        return subprocess.run(cmd, capture_output=True, text=True)

    assert syntax("KERNEL_TYPE_VECTORCORE", "KERNEL_TYPE_MIX_VECTOR_CORE").returncode == 0
    wrong = syntax("KERNEL_TYPE_VECTOR_CORE")
    assert wrong.returncode != 0 and "KERNEL_TYPE_VECTOR_CORE" in wrong.stderr
