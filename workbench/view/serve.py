"""`workbench app` and `workbench lab`: the widgets app as a standalone Voilà page, and JupyterLab on the
shipped notebooks.

Each runs its server as a child process on 127.0.0.1 with a random token, prints the URL (token included)
on stdout once the server answers, and stops the server (and with it its kernels) on Ctrl-C or SIGTERM.
The child runs in its own session so that Ctrl-C reaches this process only: JupyterLab would otherwise ask
"Shutdown this Jupyter server (y/[n])?"; here it is sent SIGTERM, which both servers handle by shutting
their kernels down. Voilà and Jupyter are imported by the child only (`import workbench` stays light).

The child is `python -m workbench.view.serve_child voila|jupyterlab`: both servers take requests from their own pages
only (a foreign Origin is refused even with the token), encrypt their kernels' ZMQ traffic, and print nothing of
their own on a clean start.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import webbrowser
from collections.abc import Iterator, Sequence
from importlib import resources as importlib_resources
from pathlib import Path
from types import FrameType

from ..core import resources
from ..core.errors import WorkbenchError

HOST = "127.0.0.1"
START_TIMEOUT_S = 120.0  # a cold first start (Python imports, lab's extension scan) on a slow machine
STOP_TIMEOUT_S = 20.0  # the servers give their kernels 5 s to shut down, then kill them
DEFAULT_LAB_DIR = "workbench-notebooks"
TEMPLATE = "workbench"  # Voilà's lab template, offline (ui/jupyter/voila/templates/workbench)
IDENTITY = "workbench.view.serve_child.ServedOriginOnly"
SPARE_KERNELS = "workbench.view.serve_child.SpareKernelManager"
PAGE_EXTENSIONS = (
    "@jupyter-widgets/jupyterlab-manager",
    "@voila-dashboards/widgets-manager8",  # Voilà's widget manager for ipywidgets 8 (7: the other one)
    "@voila-dashboards/widgets-manager7",
    "anywidget",  # the charts (altair's JupyterChart)
)
EXIT_SERVER_FAILED = 1


def app_notebook() -> Path:
    """The app page's notebook, as installed with the package (workbench/view/ui/app.ipynb)."""
    nb = Path(str(importlib_resources.files("workbench").joinpath("view", "ui", "app.ipynb")))
    if not nb.is_file():
        raise WorkbenchError("app notebook", str(nb), "an install that carries workbench/view/ui/app.ipynb (reinstall)")
    return nb


def copy_notebooks(dest: str | Path) -> list[Path]:
    """Copy the shipped notebooks into `dest` (created if needed); a file already there is never overwritten.
    Returns the copies made."""
    folder = Path(dest).expanduser()
    if folder.exists() and not folder.is_dir():
        raise WorkbenchError("--dir", str(dest), "a folder, or a path where one can be created")
    shipped = sorted(resources.notebooks_dir().glob("*.ipynb"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        copied = []
        for nb in shipped:
            target = folder / nb.name
            if not target.exists():
                shutil.copyfile(nb, target)
                copied.append(target)
    except OSError as exc:
        raise WorkbenchError("--dir", str(dest), f"a folder you can write to ({exc.strerror})") from None
    return copied


def app(port: int | None = None, open_browser: bool = True) -> int:
    """Serve the widgets app with Voilà until interrupted."""
    _require("voila", "voila")
    nb = app_notebook()
    port = _free_port(port)
    token = secrets.token_urlsafe(24)
    argv = [
        "voila",
        str(nb),
        f"--Voila.ip={HOST}",
        f"--Voila.port={port}",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
        f"--Voila.identity_provider_class={IDENTITY}",
        *_served_origins(port),
        *_kernel_encryption(),
        "--Voila.open_browser=False",
        "--Voila.log_level=ERROR",  # not its per-page notices; a failing cell shows on the page
        "--VoilaConfiguration.show_tracebacks=True",  # a local, token-protected page: show the user the error
        # the page arrives at once and each cell shows as it has run: the controls (first cell) before the charts
        "--VoilaConfiguration.progressive_rendering=True",
        # the page runs the scripts of the JupyterLab extensions it uses only (the widgets, and anywidget for the
        # charts): any other one installed would be fetched and run on every page load for nothing
        *(f"--VoilaConfiguration.extension_allowlist={name}" for name in PAGE_EXTENSIONS),
        # Voilà 0.5 reads an allow list only beside a deny list (an unset one fails): this one it disables anyway
        "--VoilaConfiguration.extension_denylist=@voila-dashboards/jupyterlab-preview",
        # a kernel started before the page asks (serve_child.py), for the notebook's kernelspec
        f"--VoilaConfiguration.multi_kernel_manager_class={SPARE_KERNELS}",
        f"--SpareKernelManager.spare_kernel_name={_kernel_name(nb)}",
        f"--VoilaConfiguration.template={TEMPLATE}",
        # the kernel runs where the user started (relative kernel paths, saved charts), not in the notebook's folder
        # inside the installed package
        f"--MappingKernelManager.root_dir={os.getcwd()}",
        # a page closed without telling the server (a crashed tab, a suspended laptop) leaves its kernel running:
        # stop kernels that no page is connected to after 10 idle minutes (an open page's kernel is kept)
        "--MappingKernelManager.cull_idle_timeout=600",
        "--MappingKernelManager.cull_interval=60",
        "--MappingKernelManager.cull_connected=False",
    ]
    # the page's template (ui/jupyter/voila/templates/workbench) is found on the Jupyter data path
    jupyter_path = os.pathsep.join(filter(None, [str(nb.parent / "jupyter"), os.environ.get("JUPYTER_PATH")]))
    env = {**os.environ, "JUPYTER_PATH": jupyter_path}
    # IPython runs PYTHONSTARTUP in each kernel as it starts: ui/kernel_startup.py imports the cells' modules before a
    # page takes the kernel, or while the browser loads the page's scripts (a user's own PYTHONSTARTUP is kept, and
    # the page then loads without it)
    env.setdefault("PYTHONSTARTUP", str(nb.parent / "kernel_startup.py"))
    return _serve(argv, port, f"/?token={token}", "Voilà", open_browser, env)


def lab(port: int | None = None, directory: str | Path = DEFAULT_LAB_DIR, open_browser: bool = True) -> int:
    """Copy the notebooks into `directory` (keeping the user's files) and run JupyterLab there until interrupted."""
    _require("jupyterlab", "jupyterlab")
    port = _free_port(port)
    copied = copy_notebooks(directory)
    folder = Path(directory).expanduser().resolve()
    if copied:
        print(f"workbench: copied {len(copied)} notebook(s) into {folder}", file=sys.stderr)
    token = secrets.token_urlsafe(24)
    argv = [
        "jupyterlab",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.identity_provider_class={IDENTITY}",
        *_served_origins(port),
        *_kernel_encryption(),
        # notebook_shim maps the classic Notebook's config onto the server by reading every server setting, the
        # deprecated ServerApp.token included, which prints a DeprecationWarning on every start; lab needs none of it
        "--ServerApp.jpserver_extensions=notebook_shim=False",
        "--ServerApp.open_browser=False",
        f"--ServerApp.root_dir={folder}",
        "--ServerApp.log_level=WARN",
        "--LabApp.log_level=WARN",
        *(["--ServerApp.allow_root=True"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),  # CI, containers
    ]
    return _serve(argv, port, f"/lab?token={token}", "JupyterLab", open_browser, None, cwd=folder)


def _kernel_name(nb: Path) -> str:
    return str(json.loads(nb.read_text())["metadata"]["kernelspec"]["name"])


def _require(module: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise WorkbenchError("server", module, f"an install with {package} (pip install {package})")


def _served_origins(port: int) -> list[str]:
    """The origins of the server's own pages: the URL it prints and its localhost twin (serve_child.py)."""
    return [f"--ServedOriginOnly.origins=http://{name}:{port}" for name in (HOST, "localhost")]


def _kernel_encryption() -> list[str]:
    """Kernels with CurveZMQ keys from the server: ipykernel >= 7 otherwise warns at every kernel start that it runs
    over TCP without encryption. 'auto' keys the kernels whose kernelspec declares support (ipykernel's does) and
    leaves older ones as they were; a jupyter_client without the setting gets no flag."""
    from jupyter_client.manager import KernelManager

    offered = "transport_encryption" in KernelManager.class_trait_names()
    return ["--KernelManager.transport_encryption=auto"] if offered else []


def _free_port(port: int | None) -> int:
    """`port` when the server could listen on it on HOST, else an error; None picks a free one.

    Tested the way tornado binds (SO_REUSEADDR, then listen): connections of a stopped server that linger in
    TIME_WAIT for a minute do not make the port busy, a socket listening on it does."""
    if port is not None and not 1 <= port <= 65535:
        raise WorkbenchError("--port", port, "1..65535")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port or 0))
            s.listen()
        except OSError:
            raise WorkbenchError("--port", port, f"a port free on {HOST} (this one is in use)") from None
        return int(s.getsockname()[1])


def _serve(
    argv: Sequence[str],
    port: int,
    page: str,
    name: str,
    open_browser: bool,
    env: dict[str, str] | None,
    cwd: Path | None = None,
) -> int:
    url = f"http://{HOST}:{port}{page}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.view.serve_child", *argv],
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,  # run before any thread starts
    )
    with _sigterm_as_interrupt():
        try:
            failure = _wait_until_serving(proc, f"http://{HOST}:{port}/login")  # both servers have a login page
            if failure:
                print(f"workbench: {name} {failure}", file=sys.stderr)
                return EXIT_SERVER_FAILED
            print(url, flush=True)
            print(f"workbench: {name} is serving on {HOST} (Ctrl-C stops it)", file=sys.stderr, flush=True)
            if open_browser:
                webbrowser.open(url)
            status = proc.wait()
            print(f"workbench: {name} exited with status {status}", file=sys.stderr)
            return EXIT_SERVER_FAILED if status else 0
        finally:
            _stop(proc)


def _wait_until_serving(proc: subprocess.Popen[bytes], probe: str) -> str | None:
    """None once the server answers HTTP on `probe` (any status), else why it did not."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through an HTTP proxy
    deadline = time.monotonic() + START_TIMEOUT_S
    while proc.poll() is None:
        try:
            with opener.open(probe, timeout=5):
                return None
        except urllib.error.HTTPError:
            return None
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                return f"did not answer on {probe} within {START_TIMEOUT_S:.0f} s"
            time.sleep(0.2)
    return f"exited with status {proc.returncode} before serving"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the servers then shut their kernels down), SIGKILL to its process group if it hangs."""
    if proc.poll() is not None:
        return
    try:
        proc.terminate()
        proc.wait(STOP_TIMEOUT_S)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):  # a hung server, or a second Ctrl-C
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if this process dies without stopping it (e.g. SIGKILL)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM to this process stops the server the way Ctrl-C does."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
