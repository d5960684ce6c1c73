"""The npu backend's own code, end to end under the emulated ACL runtime (WORKBENCH_ACL=emulated): build skipped,
device memory, the ctypes launch through aclrtlaunch_<kernel>, event timing, copies back, comparison."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.judge.criteria import evaluate
from workbench.judge.perfmodel import predict
from workbench.running.backends import npu
from workbench.running.launch import Diagnostic, prepare
from workbench.running.npu import acl_emulated, aclrtlaunch
from workbench.running.npu.acl_runtime import ACL_EVENT_TIME_LINE, KERNEL_FAULTS, AclError, Device, acl_module, ok
from workbench.view.render.frames import timings_frame

CASES = [
    wb.Case("cast", ("float32", "float16"), (4099,)),
    wb.Case("embedding_dense_grad", ("float32", "int32"), (64, 24), attrs={"num_weights": 50}),
    wb.Case("softmax_cross_entropy_with_logits", ("float32",), (8, 100)),
]


@pytest.fixture
def emulated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_ACL", "emulated")
    for env in (npu.WARMUP_ENV, npu.REPEATS_ENV):
        monkeypatch.delenv(env, raising=False)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.op)
def test_the_npu_path_runs_every_op_under_the_emulated_runtime(case: wb.Case, emulated: None) -> None:
    result = wb.run(case, backend="npu")
    on_emu = wb.run(case, backend="emu")
    assert result.passed and result.exit_code == 0, result.text()
    for name, out in on_emu.outputs.items():  # the same kernel on the same emulator, reached through ACL
        assert result.outputs[name].tobytes() == out.tobytes()
    info = result.trace["npu"]
    assert info["emulated"] and info["timing"] == "predicted" and "predicted" in info["how"]
    assert info["builtin"].startswith("needs an NPU") and result.builtin is None and result.baseline is None
    # the stream's clock advanced by the model's prediction for the launch's trace
    expected = predict(result.trace, case.soc).kernel_s
    assert result.timings["kernel_s"] == pytest.approx(expected, rel=1e-9) and expected > 0
    assert result.timing_sources == {
        "build_s": "host wall",
        "launch_s": "emulator wall",
        "kernel_s": "predicted",
        "golden_s": "host wall",
    }
    frame = timings_frame(result).set_index(["step", "source"])
    assert np.isnan(frame.loc[("kernel", "device-measured"), "seconds"])
    assert frame.loc[("kernel", "device-measured"), "how"].startswith("needs an NPU")
    assert frame.loc[("kernel", "predicted"), "seconds"] == pytest.approx(expected)
    assert "needs an NPU" in frame.loc[("built-in (TBE)", "device-measured"), "how"]
    assert not any(c.verdict for c in evaluate(result))  # nothing claims a measurement


def test_repeated_launches_are_each_timed_and_reset_by_the_launcher(
    emulated: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(npu.WARMUP_ENV, "1")
    monkeypatch.setenv(npu.REPEATS_ENV, "3")
    case = CASES[1]  # EmbeddingDenseGrad adds atomically into out: without a memset before each launch it doubles
    result = wb.run(case, backend="npu")
    samples = result.trace["npu"]["kernel_samples_s"]
    assert result.passed and len(samples) == 3 and samples == pytest.approx([samples[0]] * 3, rel=1e-9)
    assert "median of 3 launch(es) after 1 warm-up" in result.trace["npu"]["how"]


def test_a_launcher_that_skips_the_memsets_is_caught(emulated: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # out and the workspace must start zeroed (the kernel's contract): without it the emulated device's
    # allocations hold stale bytes and EmbeddingDenseGrad's sums come out wrong
    monkeypatch.setattr(Device, "memset", lambda self, ptr, n, value: None)
    result = wb.run(CASES[1], backend="npu")
    assert not result.passed


def test_a_trapping_kernel_fails_at_synchronize_with_the_emulators_diagnostics(
    emulated: None, tmp_path: object
) -> None:
    case = CASES[0]
    source = wb.copy_kernel(case, tmp_path)
    text = source.read_text()
    good = "yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(y), "
    planted = text.replace(good, "yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(y) + 100000, ")  # past out
    assert planted != text
    source.write_text(planted)
    result = wb.run(case, backend="npu", kernel=source)
    assert result.faulted and result.exit_code == 1
    assert any(d.is_fault and d.line > 0 for d in result.diagnostics)  # file:line from the emulator, not just 507015


def test_counts_refuse_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(npu.REPEATS_ENV, "0")
    with pytest.raises(wb.WorkbenchError, match=r"WORKBENCH_NPU_REPEATS.*integer in \[1, 10000\]"):
        npu.counts(False)
    monkeypatch.setenv(npu.REPEATS_ENV, "7")
    assert npu.counts(True) == npu.Counts(0, 7)


def test_without_cann_the_cli_exits_2_naming_what_is_missing() -> None:
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("WORKBENCH_ACL", "ASCEND_HOME_PATH")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "run",
            "cast",
            "--dtype",
            "float32:float16",
            "--shape",
            "64",
            "--backend",
            "npu",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "pyACL" in proc.stderr and "CANN" in proc.stderr and "set_env.sh" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_cli_under_the_emulated_runtime_labels_every_kernel_time_predicted() -> None:
    env = {**__import__("os").environ, "WORKBENCH_ACL": "emulated"}
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "softmax_cross_entropy_with_logits", "--dtype", "float32",
         "--shape", "8,100", "--backend", "npu"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"kernel time: [\d.]+ µs predicted", proc.stdout)
    assert "built-in (TBE) time: — (needs an NPU" in proc.stdout
    assert "measured" not in proc.stdout.split("kernel time:")[1].split("\n")[0]


# -- the generated launch function --------------------------------------------------------------------------------
_CTYPES = {"void*": ctypes.c_void_p, "uint32_t": ctypes.c_uint32, "aclrtStream": ctypes.c_void_p}


def _declared_parameters(source: str, entry: str) -> list[str]:
    m = re.search(rf'extern "C" __global__ __aicore__ void {entry}\(([^)]*)\)', source)
    assert m, entry
    return [" ".join(p.split()) for p in m.group(1).split(",")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.op)
def test_the_ctypes_prototype_is_the_generated_header_of_the_kernels_declaration(case: wb.Case) -> None:
    launch = prepare(case, wb.plan(case), wb.make_inputs(case))
    params = _declared_parameters(launch.source.read_text(), launch.entry)
    # the generation rules: GM_ADDR -> void*, a struct by value -> a host pointer to it; blockDim and stream first
    expected = [ctypes.c_uint32, ctypes.c_void_p]
    for p in params:
        ctype, _ = p.rsplit(" ", 1)
        expected.append(ctypes.c_void_p if ctype == "GM_ADDR" else ctypes.POINTER(case.spec.tiling_struct))
        if ctype != "GM_ADDR":
            assert ctype == case.spec.tiling_struct.__name__
    restype, argtypes = aclrtlaunch.prototype(launch)
    assert restype is ctypes.c_uint32 and argtypes == expected
    decl = aclrtlaunch.c_declaration(launch)
    assert decl.startswith(f'extern "C" uint32_t aclrtlaunch_{launch.entry}(uint32_t blockDim, aclrtStream stream')
    assert [p.split()[-1] for p in params] == [a.split()[-1].rstrip(");") for a in decl.split("(", 1)[1].split(",")[2:]]


def test_the_emulated_launch_function_marshals_like_a_shared_library(emulated: None) -> None:
    case = CASES[0]
    launch = prepare(case, wb.plan(case), wb.make_inputs(case))
    fn = aclrtlaunch.bind(acl_emulated.kernel_library(launch), launch)
    assert isinstance(fn, ctypes._CFuncPtr) and fn.argtypes == aclrtlaunch.prototype(launch)[1]
    with pytest.raises(ctypes.ArgumentError):  # a float where a pointer belongs is refused as on a real library
        fn(1, 0, 1.5, 0, 0, None)
    with pytest.raises(wb.WorkbenchError, match="aclrtlaunch_cast_kernel"):
        aclrtlaunch.bind(object(), launch)


# -- the emulated runtime's own contract --------------------------------------------------------------------------
def test_emulated_memory_events_and_errors(emulated: None) -> None:
    acl = acl_module()
    assert acl is acl_emulated
    with Device(acl) as dev:
        ptr = dev.malloc(100)
        alloc = acl_emulated._S.allocations[ptr]
        assert ptr % 64 == 0 and alloc.buffer.nbytes == 128 + 32 and alloc.buffer[0] != 0  # aclrtMalloc: not zeroed
        with pytest.raises(AclError, match="107000"):
            ok(acl.rt.memcpy(ptr + 200, 16, np.zeros(4).ctypes.data, 16, 1), "rt.memcpy")  # outside the allocation
        data = np.arange(25, dtype=np.float32)
        back = np.empty_like(data)
        dev_copy = dev.to_device(data)
        dev.to_host(dev_copy, back)
        assert np.array_equal(back, data)
        sync_only, _ = acl.rt.create_event_with_flag(0x1)  # ACL_EVENT_SYNC: no timestamp
        timed, _ = acl.rt.create_event_with_flag(ACL_EVENT_TIME_LINE)
        for ev in (sync_only, timed):
            assert acl.rt.record_event(ev, dev.stream) == 0
        assert acl.rt.event_elapsed_time(sync_only, timed) == (0.0, 107006)
        assert acl.rt.event_elapsed_time(timed, timed) == (0.0, 0)
    assert acl_emulated._S.allocations == {} and acl_emulated._S.initialised  # all freed; ACL stays up (one init)


# -- the built-in op on device memory, through a stand-in aclnn library -------------------------------------------
class FakeCast:
    """aclnnCast stand-ins with the real prototypes: phase 2 writes `payload` into the output tensor's memory."""

    def __init__(self, payload: np.ndarray) -> None:
        self.payload, self.data, self.launches = payload, {}, 0

    def library(self) -> object:
        from workbench.running.npu.aclnn import PROTOTYPES, AclnnLibrary

        def create(dims, n, dtype, strides, offset, fmt, storage, sn, data):  # type: ignore[no-untyped-def]
            handle = 0x100 + len(self.data)
            self.data[handle] = data
            return handle

        def phase1(src, dtype, out, workspace, executor):  # type: ignore[no-untyped-def]
            self.out = self.data[out]
            workspace[0], executor[0] = 64, 0xE0
            return 0

        def phase2(workspace, size, executor, stream):  # type: ignore[no-untyped-def]
            ctypes.memmove(self.out, self.payload.ctypes.data, self.payload.nbytes)
            self.launches += 1
            return 0

        handlers = {"aclCreateTensor": create, "aclnnCastGetWorkspaceSize": phase1, "aclnnCast": phase2}
        names = ("aclDestroyTensor", "aclSetAclOpExecutorRepeatable", "aclDestroyAclOpExecutor", *handlers)
        functions = {
            name: ctypes.CFUNCTYPE(PROTOTYPES[name][0], *PROTOTYPES[name][1])(handlers.get(name, lambda *a: 0))
            for name in names
        }
        return AclnnLibrary(functions, ("libnnopbase.so", "libopapi_math.so"), "per-repository")


def test_the_builtin_op_runs_on_its_own_buffers_and_is_timed(emulated: None, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[0]
    inputs = wb.make_inputs(case)
    launch = prepare(case, wb.plan(case), inputs)
    payload = wb.golden(case, inputs)["y"]
    fake = FakeCast(payload)
    asked: list[object] = []
    monkeypatch.setattr(
        "workbench.running.npu.aclnn.load", lambda home=None, library=None: asked.append(library) or fake.library()
    )
    with Device(acl_module()) as dev:
        timed = npu._run_builtin(dev, launch, npu.Counts(1, 2))
    assert timed is not None and timed.outputs is not None and fake.launches == 3
    assert timed.outputs["y"].tobytes() == payload.tobytes() and len(timed.samples) == 2
    assert asked == ["libopapi_math.so"]  # Cast is an ops-math operator: that repository's library
    assert "aclnnCast through aclnn from libopapi_math.so (per-repository layout) (2 timed launches)" in timed.note
    assert timed.outputs["y"] is not launch.outputs["y"]  # its own buffers: the kernel's outputs stay its own


def test_a_failing_builtin_op_is_a_note_not_a_failed_run(emulated: None, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[1]
    launch = prepare(case, wb.plan(case), wb.make_inputs(case))

    def refuse(home: object = None, library: object = None) -> object:
        raise wb.WorkbenchError("aclnnEmbeddingDenseBackward", 561103, "a supported SoC")

    monkeypatch.setattr("workbench.running.npu.aclnn.load", refuse)
    with Device(acl_module()) as dev:
        timed = npu._run_builtin(dev, launch, npu.Counts(0, 1))
    assert timed is not None and timed.outputs is None and timed.note.startswith("the built-in op failed")
    assert "Atlas inference" in timed.note or "Ascend310P" in timed.note  # the call's own caveat travels with it


def test_a_relative_profile_folder_is_made_absolute_and_created(
    emulated: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # pyACL's acl.prof.init takes "an absolute path": the emulated runtime refuses a relative one with 100000, as
    # the device's did, so the backend resolves WORKBENCH_NPU_PROFILE first
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(npu.PROFILE_ENV, "prof/run1")
    result = wb.run(CASES[2], backend="npu")
    assert result.passed, result.text()
    folder = tmp_path / "prof" / "run1"
    assert folder.is_dir() and result.trace["npu"]["profile"].startswith(f"{folder} (the emulated runtime")
    assert acl_emulated.prof.init("prof/run1") == 100000
    assert acl_emulated.prof.init(str(folder)) == 0 and acl_emulated.prof.finalize() == 0
    with (
        pytest.raises(wb.WorkbenchError, match="WORKBENCH_NPU_PROFILE"),
        Device(acl_module()) as dev,
        dev.profiling(tmp_path / ("x" * 4096)),
    ):
        pass


def test_profiling_wraps_the_block_in_the_acl_prof_sequence(emulated: None) -> None:
    from types import SimpleNamespace

    calls: list[tuple[object, ...]] = []

    def rec(name: str, ret: object = 0) -> object:
        return lambda *args: calls.append((name, *args)) or ret

    prof = SimpleNamespace(
        init=rec("init"),
        create_config=rec("create_config", 0xC0),
        start=rec("start"),
        stop=rec("stop"),
        destroy_config=rec("destroy_config"),
        finalize=rec("finalize"),
    )
    acl = SimpleNamespace(
        **{k: getattr(acl_emulated, k) for k in ("init", "finalize", "rt", "get_soc_name")}, prof=prof
    )
    with Device(acl) as dev, dev.profiling("/tmp/prof"):  # type: ignore[arg-type]
        calls.append(("work",))
    assert [c[0] for c in calls] == ["init", "create_config", "start", "work", "stop", "destroy_config", "finalize"]
    assert calls[1][1:] == ([0], 1, 0, 0x1 | 0x2 | 0x4)  # device 0, pipe utilisation, ACL API | task time | AI Core


def test_a_kernel_taking_its_tiling_from_gm_gets_a_device_copy(emulated: None, tmp_path: object) -> None:
    # the other public pattern: `GM_ADDR tiling`, copied into a local struct by the kernel
    case = CASES[2]
    source = wb.copy_kernel(case, tmp_path)
    text = source.read_text()
    by_value = "    SoftmaxCrossEntropyWithLogitsTilingData tiling)\n{\n"
    in_gm = (
        "    GM_ADDR tilingGm)\n{\n"
        "    SoftmaxCrossEntropyWithLogitsTilingData tiling;\n"
        "    auto* words = reinterpret_cast<uint32_t*>(&tiling);\n"
        "    auto* gm = reinterpret_cast<__gm__ uint32_t*>(tilingGm);\n"
        "    for (uint32_t i = 0; i < sizeof(tiling) / 4; ++i) words[i] = gm[i];\n"
    )
    assert by_value in text
    source.write_text(text.replace(by_value, in_gm))
    launch = prepare(case, wb.plan(case), wb.make_inputs(case), source)
    assert aclrtlaunch.tiling_in_gm(launch) and aclrtlaunch.prototype(launch)[1][-1] is ctypes.c_void_p
    assert aclrtlaunch.c_declaration(launch).endswith("void* workspace, void* tiling);")
    result = wb.run(case, backend="npu", kernel=source)
    assert result.passed, result.text()


# -- the documented rules the emulated runtime enforces ------------------------------------------------------------
def _launched(dev: Device, case: wb.Case) -> tuple[object, list[int]]:
    """The case's kernel launched once on `dev` (queued on its stream, not synchronised): (launch, output ptrs)."""
    launch = prepare(case, wb.plan(case), wb.make_inputs(case))
    fn = aclrtlaunch.bind(acl_emulated.kernel_library(launch), launch)
    ptrs = [dev.to_device(a.array) if a.role == "input" else dev.malloc(a.array.nbytes) for a in launch.args]
    workspace = dev.malloc(launch.workspace_bytes) if launch.workspace_bytes else 0
    tiling = ctypes.byref(aclrtlaunch.tiling_struct(launch))
    assert fn(launch.block_dim, dev.stream, *ptrs, workspace, tiling) == 0
    return launch, [p for p, a in zip(ptrs, launch.args, strict=True) if a.role == "output"]


def test_host_calls_on_memory_a_queued_launch_uses_are_flagged(emulated: None) -> None:
    # aclrtMemset, aclrtMemcpy and aclrtFree run at once "without implicit device or stream synchronisation"
    acl = acl_module()
    with Device(acl) as dev:
        _, (out,) = _launched(dev, CASES[0])
        with pytest.raises(acl_emulated.HostRace, match=r"acl\.rt\.memset.*launch of auto_gen_cast_kernel_kernel"):
            acl.rt.memset(out, 16, 0, 16)
        with pytest.raises(acl_emulated.HostRace, match=r"acl\.rt\.memcpy"):
            acl.rt.memcpy(np.empty(4, np.float16).ctypes.data, 8, out, 8, 2)
        with pytest.raises(acl_emulated.HostRace, match=r"acl\.rt\.free"):
            acl.rt.free(out)
        assert acl.rt.memset_async(out, 16, 0, 16, dev.stream) == 0  # ordered after the launch: fine
        dev.synchronize()
        assert acl.rt.memset(out, 16, 0, 16) == 0  # nothing queued uses it any more


def test_an_event_synchronisation_completes_only_what_came_before_the_event(emulated: None) -> None:
    acl = acl_module()
    with Device(acl) as dev:
        _, (first,) = _launched(dev, CASES[0])
        mark = dev.event()
        assert acl.rt.record_event(mark, dev.stream) == 0
        _, (second,) = _launched(dev, CASES[0])
        assert acl.rt.synchronize_event(mark) == 0
        assert acl.rt.memset(first, 16, 0, 16) == 0
        with pytest.raises(acl_emulated.HostRace):
            acl.rt.memset(second, 16, 0, 16)


def test_every_reset_between_timed_launches_is_queued_on_the_stream(
    emulated: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # EmbeddingDenseGrad accumulates atomically into out and its GM-flag slots: a reset racing the previous launch
    # double-counts or never releases the barrier; the launcher queues every reset behind the launch before it
    monkeypatch.setenv(npu.WARMUP_ENV, "1")
    monkeypatch.setenv(npu.REPEATS_ENV, "2")
    calls: list[str] = []
    for name in ("memset", "memset_async"):
        real = getattr(acl_emulated.rt, name)
        monkeypatch.setattr(acl_emulated.rt, name, lambda *a, _n=name, _f=real: calls.append(_n) or _f(*a))
    result = wb.run(CASES[1], backend="npu")
    assert result.passed, result.text()
    assert calls == ["memset_async"] * 6  # out and the workspace before each of 3 launches; no host memset


@pytest.mark.parametrize("code", sorted(KERNEL_FAULTS))
def test_every_kernel_fault_code_is_a_kernel_fault_with_its_meaning(
    code: int, emulated: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a device reports no file or line: only the code at the next synchronisation (rt_error_codes.h)
    real = acl_emulated.rt.synchronize_stream
    monkeypatch.setattr(acl_emulated.rt, "synchronize_stream", lambda stream: real(stream) or code)
    monkeypatch.setattr(acl_emulated, "diagnostics", lambda: ())
    result = wb.run(CASES[0], backend="npu")
    kind, meaning = KERNEL_FAULTS[code]
    assert result.faulted and result.exit_code == 1 and [d.kind for d in result.diagnostics] == [kind]
    assert str(code) in result.diagnostics[0].message and meaning in result.diagnostics[0].message
    assert result.trace["npu"]["fault"] == {"code": code, "kind": kind, "meaning": meaning}


def test_the_emulated_runtime_reports_the_code_a_device_gives(emulated: None) -> None:
    def diag(kind: str) -> Diagnostic:
        return Diagnostic(kind=kind, severity="fatal", core=0, api="", file="k.cpp", line=1, message="")

    assert acl_emulated.fault_code([diag("DEADLOCK")], vector_cores=False) == 507014
    assert acl_emulated.fault_code([diag("GM_OOB")], vector_cores=False) == 507015
    assert acl_emulated.fault_code([diag("KERNEL_ABORT")], vector_cores=False) == 507016
    assert acl_emulated.fault_code([diag("TIMEOUT")], vector_cores=True) == 507034  # AIV tasks on A2
    assert acl_emulated.fault_code([diag("GM_OOB")], vector_cores=True) == 507035
    assert acl_emulated.fault_code([diag("KERNEL_ABORT")], vector_cores=True) == 507036


def test_acl_is_initialised_once_per_process_and_finalised_at_exit(tmp_path: Path) -> None:
    # "aclInit can be called only once in a process" (acl_rt.h; older CANN refuses a second one, even after
    # aclFinalize), paired with one aclFinalize before the process exits
    script = (
        "import atexit, os\n"
        "from workbench.running.npu import acl_emulated as e\n"
        "counts = {'init': 0, 'finalize': 0}\n"
        "atexit.register(lambda: print('COUNTS', counts['init'], counts['finalize'], e._S.finalized))\n"
        "for name in counts:\n"
        "    real = getattr(e, name)\n"
        "    setattr(e, name, lambda *a, _n=name, _f=real: counts.__setitem__(_n, counts[_n] + 1) or _f(*a))\n"
        "import workbench as wb\n"
        "case = wb.Case('cast', ('float32', 'float16'), (4099,))\n"
        "print('RUNS', [wb.run(case, backend='npu').passed for _ in range(2)])\n"
    )
    env = {**os.environ, "WORKBENCH_ACL": "emulated"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "RUNS [True, True]" in proc.stdout
    assert "COUNTS 1 1 True" in proc.stdout  # one init, one finalize, at exit
