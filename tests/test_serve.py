"""`workbench app` and `workbench lab` without a browser: what ships, the notebook copy, option errors, and a real
JupyterLab started, asked for its files and stopped with Ctrl-C. (The app page in a browser: test_browser.py.)"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from test_cli import run  # the CLI in-process, exit code and output captured

from workbench import resources, serve
from workbench.errors import WorkbenchError


def test_the_app_page_ships_inside_the_package() -> None:
    nb = json.loads(serve.app_notebook().read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert serve.app_notebook().parent.name == "ui" and serve.app_notebook().parent.parent.name == "workbench"
    source = "".join(code[0]["source"]) if len(code) == 1 else ""
    assert source.replace("\n\n", "\n") == "from workbench.ui import Workbench\nWorkbench()"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    template = serve.app_notebook().parent / "jupyter" / "voila" / "templates" / serve.TEMPLATE
    assert (template / "index.html.j2").is_file() and (template / "conf.json").is_file()


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


def test_lab_serves_the_copied_notebooks_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "lab", "--no-browser", "--dir", "nb"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config")},  # no user settings
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # printed once the server answers
        assert url.startswith("http://127.0.0.1:") and "/lab?token=" in url, url
        base, token = url.split("/lab?token=")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"{base}/api/contents?token={token}", timeout=30) as reply:
            listed = {item["name"] for item in json.load(reply)["content"]}
        assert listed == {p.name for p in resources.notebooks_dir().glob("*.ipynb")}
        assert listed == {p.name for p in (tmp_path / "nb").iterdir()}
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.rstrip().endswith("workbench: interrupted"), err
    assert "Traceback" not in err and f"copied {len(listed)} notebook(s) into" in err
