"""`workbench app` and `workbench lab` without a browser: what ships, the notebook copy, option errors, a real
JupyterLab started, asked for its files and stopped with Ctrl-C, and both servers' edges: the kernel websocket takes
only the served origin, a port left in TIME_WAIT by a clean stop is free again at once, and a clean start prints only
our own lines. (The app page in a browser: test_browser.py.)"""

from __future__ import annotations

import ast
import base64
import contextlib
import errno
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
import zmq
from test_cli import run  # the CLI in-process, exit code and output captured

from workbench.core import resources
from workbench.core.errors import WorkbenchError
from workbench.view import serve


def app_cells() -> list[str]:
    nb = json.loads(serve.app_notebook().read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def test_the_app_page_ships_inside_the_package() -> None:
    nb = json.loads(serve.app_notebook().read_text())
    assert serve.app_notebook().parent.parts[-3:] == ("workbench", "view", "ui")
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    template = serve.app_notebook().parent / "jupyter" / "voila" / "templates" / serve.TEMPLATE
    assert (template / "index.html.j2").is_file() and (template / "conf.json").is_file()
    assert (serve.app_notebook().parent / "kernel_startup.py").is_file()  # serve.py's PYTHONSTARTUP for the kernels


def test_the_app_page_shows_the_controls_first_and_loads_the_panels_next() -> None:
    """The first cell builds and shows the controls with the workbench core and ipywidgets only (no altair, no pandas:
    they take seconds to import); the second adds the panels to the same app."""
    first, second = app_cells()
    assert first.rstrip().endswith("\napp")  # the cell's value is the app: Voilà shows it as soon as the cell ends
    code = f"import sys\n{first}\nprint(app.panels_loaded, [m for m in ('altair', 'pandas') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False []"
    namespace: dict[str, object] = {}
    exec(first, namespace)
    exec(second, namespace)
    app = namespace["app"]
    assert app.panels_loaded and app.tiling.widget in app.widget.children  # type: ignore[attr-defined]
    assert app.loading not in app.widget.children  # type: ignore[attr-defined]


def test_the_cells_wait_for_the_kernels_preload() -> None:
    """A kernel of `workbench app` starts importing the panels' modules in a thread (kernel_startup.py, serve.py's
    PYTHONSTARTUP) while the page's cells may already run: the second cell must not use a module half-imported
    (altair found pandas 'partially initialized' before Workbench.load_panels waited for the thread)."""
    startup = serve.app_notebook().parent / "kernel_startup.py"
    first, second = app_cells()
    code = (
        f"exec(compile(open({str(startup)!r}).read(), {str(startup)!r}, 'exec'), {{'__file__': {str(startup)!r}}})\n"
        f"{first}\n{second}\n"
        "import threading\n"
        "print(app.panels_loaded, app.tiling.ub.chart is not None, [t.name for t in threading.enumerate()][1:])"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "True True []"


def test_the_notebooks_are_copied_and_a_users_file_is_never_overwritten(tmp_path: Path) -> None:
    shipped = sorted(p.name for p in resources.notebooks_dir().glob("*.ipynb"))
    assert shipped, f"no notebooks in {resources.notebooks_dir()}"
    dest = tmp_path / "nb"
    dest.mkdir()
    (dest / shipped[0]).write_text("my edits")
    copied = serve.copy_notebooks(dest)
    assert sorted(p.name for p in copied) == shipped[1:]
    assert (dest / shipped[0]).read_text() == "my edits"
    assert sorted(p.name for p in dest.glob("*.ipynb")) == shipped
    assert serve.copy_notebooks(dest) == []


def test_a_file_is_no_notebook_folder(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(WorkbenchError, match="--dir"):
        serve.copy_notebooks(tmp_path / "f")


@pytest.mark.parametrize("command", ["app", "lab"])
def test_bad_ports_are_one_line_errors(command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    extra = ["--dir", str(tmp_path / "nb")] if command == "lab" else []
    code, out, err = run(capsys, command, "--port", "0", "--no-browser", *extra)
    assert (code, out) == (2, "") and err == "workbench: --port: got 0; allowed: 1..65535\n"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = run(capsys, command, "--port", str(port), "--no-browser", *extra)
    assert (code, out) == (2, "") and err.startswith(f"workbench: --port: got {port}; allowed: a port free")
    assert err.count("\n") == 1
    code, _, err = run(capsys, command, "--port", "x")
    assert code == 2 and err.strip().endswith("argument --port: invalid int value: 'x'")


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through an HTTP proxy


@contextlib.contextmanager
def serving(command: str, cwd: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`workbench <command> --no-browser` in `cwd` until the block ends (then Ctrl-C); yields it and its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", command, "--no-browser", *extra],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(cwd / "jupyter-config")},  # no user settings
    )
    try:
        assert proc.stdout is not None
        url = _first_line(proc.stdout).strip()  # printed once the server answers
        if not url.startswith("http://127.0.0.1:"):
            proc.kill()
            pytest.fail(f"`workbench {command}` printed no URL: {proc.communicate()}", pytrace=False)
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=60)
        if proc.poll() is None:
            proc.kill()
        if proc.stdout is not None and not proc.stdout.closed:
            proc.communicate()  # reaps it and closes the pipes


def _first_line(stream: IO[str]) -> str:
    """The first line, read byte by byte: nothing after it is held in a buffer where communicate() cannot see it."""
    raw = stream.buffer.raw  # type: ignore[attr-defined]
    line = b""
    while not line.endswith(b"\n") and (byte := raw.read(1)):
        line += byte
    return line.decode()


def stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """Ctrl-C, as a user stops it; what it printed after its URL (stdout) and its stderr."""
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    return out, err


def test_lab_serves_the_copied_notebooks_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    with serving("lab", tmp_path, "--dir", "nb") as (proc, url):
        assert "/lab?token=" in url, url
        base, token = url.split("/lab?token=")
        with OPENER.open(f"{base}/api/contents?token={token}", timeout=30) as reply:
            listed = {item["name"] for item in json.load(reply)["content"]}
        assert listed == {p.name for p in resources.notebooks_dir().glob("*.ipynb")}
        assert listed == {p.name for p in (tmp_path / "nb").iterdir()}
        _, err = stop(proc)
    assert err.rstrip().endswith("workbench: interrupted"), err
    assert "Traceback" not in err and f"copied {len(listed)} notebook(s) into" in err


def start_kernel(command: str, base: str, token: str) -> str:
    """A kernel on the server, started the way its page starts one; its id."""
    if command == "lab":
        request = urllib.request.Request(f"{base}/api/kernels?token={token}", data=b"{}", method="POST")
        with OPENER.open(request, timeout=60) as reply:
            return str(json.load(reply)["id"])
    with OPENER.open(f"{base}/?token={token}", timeout=180) as reply:  # Voilà starts the page's kernel
        page = reply.read().decode()
    match = re.search(r'"kernelId": "([0-9a-f-]+)"', page)
    assert match, page[-2000:]
    return match.group(1)


def handshake(base: str, path: str, origin: str, host: str | None = None) -> int:
    """The HTTP status a browser's websocket handshake gets (101: accepted) from a page of `origin`."""
    port = int(base.rsplit(":", 1)[1])
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request.encode())
        status = s.recv(4096).split(b"\r\n", 1)[0].decode()
    return int(status.split()[1])


@pytest.mark.parametrize("command", ["app", "lab"])
def test_the_kernel_websocket_takes_only_the_served_origin(command: str, tmp_path: Path) -> None:
    with serving(command, tmp_path, *(["--dir", "nb"] if command == "lab" else [])) as (_, url):
        base, token = re.match(r"(http://127\.0\.0\.1:\d+)/\S*\?token=(\S+)", url).groups()  # type: ignore[union-attr]
        port = base.rsplit(":", 1)[1]
        kernel = start_kernel(command, base, token)
        sockets = [f"/api/kernels/{kernel}/channels?token={token}"]
        if command == "app":  # Voilà's progressive rendering runs the cells over a websocket of its own
            sockets.append(f"/voila/execution/{kernel}?token={token}")
        for path in sockets:
            assert handshake(base, path, "http://evil.example") == 403, path
            # DNS rebinding: a foreign name that resolves to 127.0.0.1, its Host and Origin agreeing
            assert handshake(base, path, f"http://evil.example:{port}", host=f"evil.example:{port}") == 403, path
            assert handshake(base, path, f"http://localhost:{port}0") == 403, path  # another port is another origin
            assert handshake(base, path, base) == 101, path
            assert handshake(base, path, f"http://localhost:{port}", host=f"localhost:{port}") == 101, path


@pytest.mark.parametrize("command", ["app", "lab"])
def test_a_clean_session_prints_only_our_own_lines(command: str, tmp_path: Path) -> None:
    """Start, open a kernel and its websocket as the page does, stop: stdout is the URL, stderr only `workbench:`
    lines (Jupyter's TCP-without-encryption and token-deprecation warnings, tornado's ping warning and lab's
    CRITICAL stop notice were printed here)."""
    with serving(command, tmp_path, *(["--dir", "nb"] if command == "lab" else [])) as (proc, url):
        base, token = re.match(r"(http://127\.0\.0\.1:\d+)/\S*\?token=(\S+)", url).groups()  # type: ignore[union-attr]
        kernel = start_kernel(command, base, token)
        path = f"/api/kernels/{kernel}/channels?token={token}&session_id=test"
        assert handshake(base, path, base) == 101
        time.sleep(2)  # the kernel is up and has said what it had to say
        out, err = stop(proc)
    lines = err.splitlines()
    assert lines and all(line.startswith("workbench: ") for line in lines), err
    assert lines[-1] == "workbench: interrupted" and out == "", (out, err)


def time_wait_on(port: int) -> None:
    """Leave a connection in TIME_WAIT on `port` the way a server that closes first does, then stop listening."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen()
        with socket.create_connection(("127.0.0.1", port)) as client:
            conn, _ = listener.accept()
            conn.close()  # the server side closes first: its end of the connection waits in TIME_WAIT
            assert client.recv(1) == b""


def test_a_port_left_in_time_wait_is_free(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    time_wait_on(port)
    assert serve._free_port(port) == port


def test_the_app_restarts_at_once_on_the_port_it_was_stopped_on(tmp_path: Path) -> None:
    port = serve._free_port(None)
    for _ in range(2):  # the second start comes right after the first stop, while its connections are in TIME_WAIT
        with serving("app", tmp_path, "--port", str(port)) as (proc, url):
            assert url.startswith(f"http://127.0.0.1:{port}/?token=")
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(f"GET /login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
                reply = b"".join(iter(lambda: s.recv(65536), b""))  # to the end: the server closes first
            assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
            stop(proc)


def kernel_ids(pid: int) -> set[str]:
    """The ids of the kernels a server process runs (from their connection files' names)."""
    ids = set()
    for child in (p for p in Path("/proc").glob("[0-9]*") if _parent(p) == pid):
        with contextlib.suppress(OSError):
            ids.update(re.findall(r"kernel-([0-9a-f-]{36})\.json", (child / "cmdline").read_bytes().decode()))
    return ids


def test_the_app_has_a_kernel_started_before_its_page_asks(tmp_path: Path) -> None:
    """Voilà starts a page's kernel when the page is requested, and the page waits for it; `workbench app` keeps one
    started ahead (serve_child.SpareKernelManager), and the page gets that one."""
    with serving("app", tmp_path) as (proc, url):
        (server,) = [int(p.name) for p in Path("/proc").glob("[0-9]*") if _parent(p) == proc.pid]
        deadline = time.monotonic() + 120
        while not (spare := kernel_ids(server)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(spare) == 1, spare
        base, token = re.match(r"(http://127\.0\.0\.1:\d+)/\S*\?token=(\S+)", url).groups()  # type: ignore[union-attr]
        assert {start_kernel("app", base, token)} == spare


def _parent(proc: Path) -> int:
    """The parent pid of /proc/<pid> (-1 once it is gone)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    return -1


def _record(exc: BaseException | None) -> logging.LogRecord:
    info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord("x", logging.ERROR, __file__, 1, "Task exception was never retrieved", (), info)


def test_a_stop_with_a_page_open_drops_only_its_closed_websocket_tracebacks() -> None:
    from tornado.websocket import WebSocketClosedError

    from workbench.view.serve_child import _not_closed_page

    assert not _not_closed_page(_record(WebSocketClosedError()))
    assert _not_closed_page(_record(ValueError("boom"))) and _not_closed_page(_record(None))


def test_a_kernel_stopped_mid_message_drops_only_its_closed_socket_tracebacks() -> None:
    # the startup file runs in each kernel and leaves no name behind: its filter is taken from its source
    source = resources.path("workbench/view/ui/kernel_startup.py").read_text()
    tree = ast.parse(source)
    quiet = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_quiet_stop")
    namespace: dict[str, object] = {}
    exec(compile(ast.Module([quiet], []), "kernel_startup.py", "exec"), namespace)
    logger = logging.getLogger("IPKernelApp")
    before = list(logger.filters)
    namespace["_quiet_stop"]()  # type: ignore[operator]
    added = [f for f in logger.filters if f not in before]
    try:
        assert len(added) == 1 and added[0] in logging.getLogger("tornado.general").filters
        assert not logger.filter(_record(zmq.ZMQError(errno.ENOTSOCK)))
        assert logger.filter(_record(zmq.ZMQError(errno.EAGAIN)))
        assert logger.filter(_record(OSError(errno.ENOTSOCK, "not from zmq")))
    finally:
        for name in ("IPKernelApp", "tornado.general"):
            logging.getLogger(name).filters = [f for f in logging.getLogger(name).filters if f not in added]
