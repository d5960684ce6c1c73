"""The cluster executor (issue 20, item 2): a Ray head node on 127.0.0.1 runs a sweep, and its rows equal the local
pool's but for what the host measures; an edited kernel travels as source; an `npu` batch holds one board.

Ray is the optional extra `ascendc-workbench[cluster]`: without it these tests skip locally, and fail in CI
(CI=true), where the cluster executor is part of the suite and must not silently vanish."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from workbench.core._files import cache_home
from workbench.core.errors import InfrastructureError, InvalidInput
from workbench.sweeps import cluster, executors, points, tasks
from workbench.sweeps.cluster import RayExecutor
from workbench.sweeps.tasks import Task

GRID = points.grid("cast", dtypes=["float32:float16", "float16:float32"], shapes=[(1003,), (64, 33)], seeds=[0, 1, 2])
HOST_COLUMNS = {"worker", "build_s", "launch_s", "run_s", "kernel_s", "golden_s", "wall_s"}  # measured walls


def _missing(reason: str) -> None:
    """Skip locally; in CI the cluster executor is part of the suite and must not silently vanish."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the cluster test must run)", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Ray settings for the head and for this process (the driver): no token file written to ~/.ray, loopback rather
# than the machine's address, no usage report, a SIGTERM that stops the node at once instead of draining 30 s, and
# more than Ray's 30 s for the node to register on a busy 2-core machine.
RAY_ENV = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",
    "RAY_raylet_start_wait_time_s": "120",
}
STARTUP_S = 150


@pytest.fixture(scope="module")
def head() -> Iterator[str]:
    """A real Ray head node (`ray start --head`) on 127.0.0.1 with 2 CPUs and one pretend NPU board; its address."""
    if importlib.util.find_spec("ray") is None:
        _missing("ray is not installed (pip install 'ascendc-workbench[cluster]')")
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="wbray-", dir="/tmp")  # short: Ray's unix sockets live in it (108-byte limit)
    log_path = Path(folder, "head.log")
    command = [  # `ray start` of this interpreter's Ray, the driver's
        sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block", "--node-ip-address=127.0.0.1",
        f"--port={port}", "--num-cpus=2", f"--resources={json.dumps({'NPU': 1})}", "--include-dashboard=false",
        "--include-log-monitor=false", "--disable-usage-stats", f"--temp-dir={folder}",
    ]  # fmt: skip
    with pytest.MonkeyPatch.context() as mp, log_path.open("w") as log:
        for k, v in RAY_ENV.items():
            mp.setenv(k, v)
        mp.delenv("RAY_ADDRESS", raising=False)
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + STARTUP_S
            while "Ray runtime started" not in log_path.read_text():
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"ray start did not come up:\n{log_path.read_text()[-3000:]}", pytrace=False)
                time.sleep(0.2)
            yield f"127.0.0.1:{port}"
        finally:
            proc.send_signal(signal.SIGTERM)  # `ray start --block` stops the node's processes on SIGTERM
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the group this test started (start_new_session)
                proc.wait(timeout=10)
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_executor(head: str) -> Iterator[RayExecutor]:
    ex = RayExecutor(head)
    try:
        yield ex
    finally:
        ex.close()


def _run(ex: Any, ts: Sequence[Task]) -> list[dict[str, Any]]:
    return [row for batch in ex.rows(executors.batches(ts, ex.workers)) for row in batch]


def _comparable(rows: list[dict[str, Any]]) -> tuple[list[str], set[str]]:
    """Rows by key as JSON (NaN equals NaN there) without what the host measures; and the columns dropped."""
    dropped: set[str] = set()
    out = []
    for row in rows:
        keep = {}
        for k, v in row.items():
            source = row.get(f"{k}_source", row.get(f"{k[:-2]}_source", "")) if k.endswith("_s") else ""
            if k == "worker" or "wall" in str(source):
                dropped.add(k)
            else:
                keep[k] = v
        out.append(json.dumps(keep, sort_keys=True, default=str))
    return sorted(out), dropped


def test_a_sweep_on_a_ray_cluster_gives_the_local_pools_rows(ray_executor: RayExecutor) -> None:
    ts = [tasks.make_task(p, "emu", None, None, None) for p in GRID.points]
    assert len(ts) == 12 and ray_executor.workers == 2 and ray_executor.name == "ray"
    pool = executors.LocalPool(2)
    try:
        local = _run(pool, ts)
    finally:
        pool.close()
    remote = _run(ray_executor, ts)
    assert sorted(r["key"] for r in remote) == sorted(t.key for t in ts)
    assert {r["status"] for r in remote} == {"pass"}
    assert len({r["worker"] for r in remote}) <= 2 and {r["worker"] for r in remote}.isdisjoint(
        {r["worker"] for r in local}
    )
    (want, dropped_local), (got, dropped_remote) = _comparable(local), _comparable(remote)
    assert dropped_local == dropped_remote == HOST_COLUMNS
    assert got == want


def test_sweep_takes_the_cluster_by_address(ray_executor: RayExecutor, head: str, tmp_path: Path) -> None:
    """`sweep(..., executor="ray:<address>")`: the route the CLI's --executor takes (this process being connected
    already, the executor joins that connection)."""
    from workbench.sweeps import sweep

    frame = sweep(GRID.points[:4], executor=f"ray:{head}", results=tmp_path / "rows.jsonl", show_progress=False)
    assert frame.attrs["executor"] == "ray" and frame.attrs["ran"] == 4
    assert list(frame["status"]) == ["pass"] * 4 and list(frame["label"]) == [p.label() for p in GRID.points[:4]]


def test_an_edited_kernel_travels_as_source_and_fails_on_the_cluster(ray_executor: RayExecutor, tmp_path: Path) -> None:
    case = wb.Case("cast", ("float32", "float16"), (1003,))
    copy = wb.copy_kernel(case, tmp_path)
    planted = copy.read_text().replace("t_.tailElems != 0", "t_.tailElems == 0")  # the tail window is skipped
    copy.write_text(planted)
    ts = [tasks.make_task(points.Point(case, seed), "emu", None, (copy.name, planted), None) for seed in (0, 1)]
    copy.unlink()  # only the Task's text is left: the worker must build what it was sent
    rows = _run(ray_executor, ts)
    assert [(r["status"], r["kernel"], r["failed"]) for r in rows] == [("fail", "cast_kernel.cpp", 11)] * 2
    digest = tasks._digest_text(planted)[:24]
    assert (cache_home() / "sweep-kernels" / digest / "cast_kernel.cpp").read_text() == planted


def test_an_npu_batch_holds_one_board_that_ray_makes_visible(
    ray_executor: RayExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    monkeypatch.setenv("WORKBENCH_ACL", "emulated")  # the NPU backend's pyACL stand-in: no CANN, no board here
    point = points.Point(wb.Case("cast", ("float32", "float16"), (1003,)))
    batch = [tasks.make_task(point, "npu", None, None, None)]
    assert cluster.task_options(batch) == {"num_cpus": 1, "resources": {"NPU": 1}}

    @ray.remote
    def visible() -> str | None:
        return os.environ.get(cluster.VISIBLE_ENV)

    assert ray.get(visible.options(**cluster.task_options(batch)).remote()) == "0"  # the pretend board, as device 0
    ex = RayExecutor(workers=1)  # joins this process's connection; takes WORKBENCH_ACL along to the workers
    try:
        assert ex.address == "connected" and ex._env["WORKBENCH_ACL"] == "emulated"
        (row,) = _run(ex, batch)
    finally:
        ex.close()
    assert ray.is_initialized()  # an executor that found Ray connected leaves the connection open
    assert (row["backend"], row["status"]) == ("npu", "pass"), row["error"]


def test_a_worker_with_other_workbench_code_is_refused(ray_executor: RayExecutor) -> None:
    ts = [tasks.make_task(GRID.points[0], "emu", None, None, None)]
    real = ray_executor._fingerprint
    ray_executor._fingerprint = {**real, "code": "0" * 16}  # as if the driver ran other code than the workers
    try:
        with pytest.raises(InfrastructureError, match=r"Ray worker .*runs workbench .*same version"):
            _run(ray_executor, ts)
    finally:
        ray_executor._fingerprint = real


class _NoBoards:
    """Just enough of the `ray` module for a cluster with CPUs and no NPU."""

    @staticmethod
    def cluster_resources() -> dict[str, float]:
        return {"CPU": 8.0}


def test_an_npu_sweep_on_a_cluster_without_boards_is_refused_before_it_waits_forever() -> None:
    ex = RayExecutor.__new__(RayExecutor)
    ex._ray, ex.address, ex.workers, ex._running = _NoBoards(), "10.0.0.1:6379", 2, {}
    batch = [tasks.make_task(GRID.points[0], "npu", None, None, None)]
    with pytest.raises(InfrastructureError, match=r"no 'NPU' resource.*--resources"):
        next(ex.rows([batch]))


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(InvalidInput, match=r"pip install 'ascendc-workbench\[cluster\]'"):
        executors.get_executor("ray://head:10001", None)
    with pytest.raises(InvalidInput, match="positive integer"):
        RayExecutor(workers=0)


def test_only_workbench_settings_go_to_the_workers() -> None:
    env = {"WORKBENCH_CACHE": "/big/disk", "ASCEND_HOME_PATH": "/usr/local/Ascend", "PATH": "/bin"}
    assert cluster.forwarded_env(env) == {"WORKBENCH_CACHE": "/big/disk"}
    assert cluster.forwarded_env({"PATH": "/bin"}) == {}
