"""The cluster executor: a sweep's batches as Ray tasks, on one machine or many (the optional extra
`pip install 'ascendc-workbench[cluster]'`; Ray is imported here only, when a sweep asks for it).

Ray schedules Ascend NPUs as its own resource, "NPU" (https://docs.ray.io/en/latest/ray-core/scheduling/accelerators.html):
a batch on the `npu` backend asks for one board and Ray sets ASCEND_RT_VISIBLE_DEVICES for the task, so the board
it was given is the worker's device 0, the one the NPU backend opens. Kernels travel as source inside the Task and
are built where they run (build keys are content hashes, so a worker never rebuilds what it has).

The workers import this package: on a cluster, every node has the same `ascendc-workbench` installed (the nodes need
CANN and a compiler anyway, so the package is installed there like them), or the caller ships it with a Ray
`runtime_env`. Every batch checks that the worker's workbench code is the driver's, because a row's key names the
code that made it (tasks.case_key)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from importlib import metadata
from typing import Any

from ..core.errors import InfrastructureError, InvalidInput
from .executors import Row, run_batch
from .points import Point
from .tasks import Task, code_digest

INSTALL = "pip install 'ascendc-workbench[cluster]'"
NPU = "npu"  # the backend whose tasks need a board
NPU_RESOURCE = "NPU"  # Ray's name for an Ascend NPU (ray._private.accelerators.npu)
VISIBLE_ENV = "ASCEND_RT_VISIBLE_DEVICES"  # what Ray sets for a task holding NPUs (Ray >= 2.10)
FORWARDED_PREFIX = "WORKBENCH_"  # the caller's workbench settings (cache folder, ACL mode, NPU repeats) go along


def import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise InvalidInput("executor", "ray", f"an install with Ray: {INSTALL} (ray is missing: {e})") from None
    return ray


class RayExecutor:
    """Runs each batch as a Ray task (one CPU; plus one NPU board on the `npu` backend) and yields its rows as
    tasks finish.

    `address`: None connects to $RAY_ADDRESS if set, else starts a Ray on this machine for this sweep (no dashboard,
    quiet logs, stopped by `close`); "ray://host:10001" connects through Ray Client (from any machine); "auto" or
    "host:6379" joins the cluster this machine is a node of. If this process is already connected to Ray
    (`ray.init` called by the caller), that connection is used and left open. `workers`: how many tasks run at once
    (default: the cluster's CPUs). `runtime_env`: Ray's, for a new connection (e.g. `{"py_modules": [...]}` to ship
    the package to nodes that lack it)."""

    name = "ray"

    def __init__(
        self, address: str | None = None, workers: int | None = None, runtime_env: Mapping[str, Any] | None = None
    ) -> None:
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise InvalidInput("workers", workers, "a positive integer (default: the Ray cluster's CPUs)")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise InvalidInput("address", address, "a Ray address: 'ray://host:10001', 'host:6379' or 'auto'")
        ray = import_ray()
        self._ray = ray
        self._connected_here = False  # True when this executor called ray.init (so close() disconnects)
        self._running: dict[Any, list[Task]] = {}
        if ray.is_initialized():
            if runtime_env is not None:
                raise InvalidInput(
                    "runtime_env", runtime_env, "None when Ray is already connected (give it to ray.init)"
                )
            self.address = "connected"
        else:
            target = address or os.environ.get("RAY_ADDRESS") or None
            self.address = target or "local"
            self._connect(target, workers, runtime_env)
        try:
            self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            self._fingerprint = code_fingerprint()
            self._env = forwarded_env(os.environ)
            self._remote = ray.remote(_ray_batch)
        except BaseException:
            self.close()  # no executor to close later: do not leave a connection (or a Ray we started) behind
            raise

    def _connect(self, target: str | None, workers: int | None, runtime_env: Mapping[str, Any] | None) -> None:
        import logging

        # The sweep's progress bar is the output: Ray's own INFO lines and the workers' stdout stay in Ray's logs.
        quiet: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
        if runtime_env is not None:
            quiet["runtime_env"] = dict(runtime_env)
        try:
            if target is None:
                # A private Ray for this sweep on this machine: no dashboard, one CPU per worker asked for. (Ray
                # listens on the machine's address, not loopback; recent Ray guards it with a token in ~/.ray.)
                self._ray.init(address="local", num_cpus=workers, include_dashboard=False, **quiet)
            else:
                self._ray.init(address=target, **quiet)
        except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...: all mean "no cluster"
            raise InfrastructureError(
                "Ray cluster",
                target or "local",
                f"cannot connect ({type(e).__name__}: {first_line(e)})",
                "start it (`ray start --head`), check the address ('ray://head:10001' from another machine, "
                "'auto' on a node of the cluster) and that this Ray's version is the cluster's",
            ) from None
        self._connected_here = True

    def rows(self, batches: Sequence[Sequence[Task]]) -> Iterator[list[Row]]:
        todo = deque(list(b) for b in batches if b)
        if any(needs_npu(b) for b in todo):
            self._check_boards()
        try:
            while todo or self._running:
                # At most `workers` tasks in flight: the rest wait here, so close() has little to cancel.
                while todo and len(self._running) < self.workers:
                    batch = todo.popleft()
                    payload = [dataclasses.asdict(t) for t in batch]
                    ref = self._remote.options(**task_options(batch)).remote(payload, self._fingerprint, self._env)
                    self._running[ref] = batch
                done, _ = self._ray.wait(list(self._running), num_returns=1)
                for ref in done:
                    batch = self._running.pop(ref)
                    yield self._result(ref, batch)
        finally:
            self._cancel()

    def _result(self, ref: Any, batch: list[Task]) -> list[Row]:
        try:
            out = self._ray.get(ref)
        except self._ray.exceptions.RayError as e:
            fix = (
                f"install ascendc-workbench on every node ({INSTALL}), or ship it with RayExecutor(runtime_env=...)"
                if "No module named 'workbench" in str(e)
                else "see that node's Ray logs (`ray logs --help`), then run the sweep again"
            )
            what = f"Ray task of {len(batch)} case(s) from"
            raise InfrastructureError(what, Point.from_json(batch[0].point).label(), first_line(e), fix) from None
        if isinstance(out, dict):  # the worker refused the batch: its code or its board is not the driver's
            raise InfrastructureError("Ray worker", out["worker"], out["problem"], out["fix"])
        return list(out)

    def _check_boards(self) -> None:
        """An `npu` task on a cluster without boards would wait forever: say so before submitting."""
        boards = self._ray.cluster_resources().get(NPU_RESOURCE, 0)
        if boards < 1:
            raise InfrastructureError(
                "Ray cluster",
                self.address,
                f"has no {NPU_RESOURCE!r} resource, so no node can run a task on the npu backend",
                "add nodes with Ascend boards (Ray counts /dev/davinci*), or start a node with "
                f"`ray start --resources='{{\"{NPU_RESOURCE}\": N}}'`",
            )

    def _cancel(self) -> None:
        for ref in self._running:
            # A running task gets KeyboardInterrupt (run_task lets it through); one already finished, or whose node
            # is gone, has nothing left to stop.
            with contextlib.suppress(Exception):
                self._ray.cancel(ref)
        self._running.clear()

    def close(self) -> None:
        self._cancel()
        if self._connected_here and self._ray.is_initialized():
            # Disconnects from a cluster; a Ray this executor started (address None) stops with it.
            self._ray.shutdown()
        self._connected_here = False


def needs_npu(batch: Sequence[Task]) -> bool:
    return any(t.backend == NPU for t in batch)


def task_options(batch: Sequence[Task]) -> dict[str, Any]:
    """Ray's resource request for one batch: one CPU; one NPU board (Ray sets the visible device) on `npu`."""
    options: dict[str, Any] = {"num_cpus": 1}
    if needs_npu(batch):
        options["resources"] = {NPU_RESOURCE: 1}
    return options


def forwarded_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The caller's WORKBENCH_* settings, and nothing else of its environment (paths like ASCEND_HOME_PATH are the
    node's own); a setting the caller did not make is not invented for the workers."""
    return {k: v for k, v in environ.items() if k.startswith(FORWARDED_PREFIX)}


def code_fingerprint() -> dict[str, str]:
    """The workbench version and a digest of its Python code (bundled kernels and notebooks aside): equal on the
    driver and a worker means the worker makes the rows the driver's keys name."""
    return {"version": _version(), "code": code_digest()[:16]}


def _version() -> str:
    try:
        return metadata.version("ascendc-workbench")
    except metadata.PackageNotFoundError:  # a checkout on sys.path, not installed: its code digest still decides
        return "unknown"


def first_line(e: BaseException) -> str:
    lines = [line for line in str(e).strip().splitlines() if line.strip()]
    last = lines[-1] if lines else type(e).__name__
    return last.strip()[:300]


def _ray_batch(
    payload: list[dict[str, Any]], expected: dict[str, str], env: dict[str, str]
) -> list[Row] | dict[str, str]:
    """What a Ray worker runs for one batch: the tasks arrive as plain dicts, so a worker with another workbench
    can still answer (with a refusal the driver raises) instead of failing to unpickle."""
    from ..core import progress

    worker = f"{socket.gethostname()}:{os.getpid()}"
    mine = code_fingerprint()
    if mine != expected:
        return {
            "worker": worker,
            "problem": f"runs workbench {mine['version']} (code {mine['code']}), the sweep {expected['version']} "
            f"(code {expected['code']})",
            "fix": "install the driver's ascendc-workbench on every node (same version and code), or ship it with "
            "RayExecutor(runtime_env={'py_modules': [...]})",
        }
    tasks = [Task(**t) for t in payload]
    if needs_npu(tasks) and not os.environ.get(VISIBLE_ENV):
        return {
            "worker": worker,
            "problem": f"Ray gave this npu task no board ({VISIBLE_ENV} unset)",
            "fix": "use Ray >= 2.10 and unset RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES on the nodes",
        }
    progress.set_enabled(False)  # a worker has no terminal: the sweep's bar is the progress
    # The caller's settings for this batch only: a Ray worker process outlives it and serves the next executor too.
    before = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return run_batch(tasks)
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
