"""The server process of `workbench app` (Voilà) and `workbench lab` (JupyterLab): `python -m workbench.view.serve_child
voila|jupyterlab ARGS`. serve.py starts it; nothing else imports it (it imports jupyter_server).

It adds three things to the servers, all configured by serve.py's arguments:

- ServedOriginOnly, the identity provider: a request is served only when it comes from one of the server's own
  pages, token or not. jupyter_server checks a request's Origin only when it was authenticated by cookie: one that
  carries the token skips the check, so any web page that learns the token (a URL in a history, a log, a
  screenshot) could open the kernel websocket and run code. Browsers send Origin on every websocket handshake and
  cross-site request.
- SpareKernelManager (Voilà only): one kernel is started before any page asks for it, with the cells' modules
  imported (serve.py's PYTHONSTARTUP runs ui/kernel_startup.py), so a page does not wait for its kernel.
- filters for the known lines no setting can remove, so a clean session prints only workbench's own lines:
  tornado's warning about jupyter_server's websocket ping settings (`_not_ping_units`), JupyterLab's CRITICAL
  "received signal 15, stopping" when serve.py stops it with SIGTERM and says so itself (`_not_sigterm_notice`),
  and the traceback of a write to a page's websocket that closed while the server stopped (`_not_closed_page`;
  the kernel side of the same stop is ui/kernel_startup.py's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from typing import Any

from jupyter_server._tz import utcnow
from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from jupyter_server.utils import ensure_async
from tornado.ioloop import IOLoop
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError
from traitlets import Float, List, Unicode


class ServedOriginOnly(PasswordIdentityProvider):
    """jupyter_server's token (or password) login, for requests from the server's own pages only (`origins`)."""

    origins = List(Unicode(), help="the origins of the server's own pages, e.g. http://127.0.0.1:8866").tag(config=True)

    def should_check_origin(self, handler: Any) -> bool:
        """Always: tornado then refuses a websocket handshake whose Origin is not the Host it was sent to (403)."""
        return True

    def get_user(self, handler: Any) -> Any:
        """No user (403, or the login page) for a request sent by a page of another origin, such as a foreign name
        that resolves to 127.0.0.1, whose Host and Origin agree."""
        origin = handler.request.headers.get("Origin")
        if origin is not None and origin.lower() not in self.origins:
            self.log.warning("refused a request from origin %s: this server serves only %s", origin, self.origins)
            return None
        return super().get_user(handler)


_ROOT: Any = ""  # the API path of the server's root folder (jupyter_server's ApiPath is a str)


class SpareKernelManager(AsyncMappingKernelManager):
    """Keeps one kernel of `spare_kernel_name` started in the server's root folder for the next page.

    A page's kernel otherwise starts when the page is requested, and the page cannot show anything before it
    answers. Here the spare is started with the server, and the next one once the page that took the last one has
    run its cells (its kernel idle for `quiet_s`; `refill_after_s` at most), so the two do not compete for the CPU.
    A page that finds none (two pages at once, another kernel name or folder) gets a kernel started for it, as
    Voilà does. The spare is never culled; it is shut down with the server. It was started before the page asked,
    so it lacks the page's request variables in its environment (SCRIPT_NAME, QUERY_STRING, ...), which the
    workbench app does not read."""

    spare_kernel_name = Unicode("python3", help="the kernelspec of the served notebook").tag(config=True)
    quiet_s = Float(1.0, help="seconds a page's kernel stays idle before the next spare starts").tag(config=True)
    refill_after_s = Float(30.0, help="seconds after which the next spare starts anyway").tag(config=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._spare: asyncio.Future[str] | None = None
        self._refill: asyncio.Future[None] | None = None
        self._closing = False
        IOLoop.current().add_callback(self._start_spare)  # once the server's loop runs

    def _start_spare(self) -> None:
        if self._spare is None and not self._closing:
            self._spare = asyncio.ensure_future(super().start_kernel(kernel_name=self.spare_kernel_name, path=_ROOT))

    async def _start_spare_after(self, kernel_id: str) -> None:
        """The next spare, once `kernel_id` has been busy and then idle for `quiet_s` (or is gone)."""
        loop = asyncio.get_running_loop()
        deadline, busy_seen, idle_since = loop.time() + self.refill_after_s, False, loop.time()
        while loop.time() < deadline and kernel_id in self:
            if getattr(self.get_kernel(kernel_id), "execution_state", "") == "idle":
                if busy_seen and loop.time() - idle_since >= self.quiet_s:
                    break
            else:
                busy_seen, idle_since = True, loop.time()
            await asyncio.sleep(0.2)
        self._start_spare()

    # the same override as jupyter_server's own: its async start_kernel replaces jupyter_client's sync one
    async def start_kernel(self, *, kernel_id: str | None = None, path: Any = None, **kwargs: Any) -> str:  # type: ignore[override]
        """The spare when it fits the request and is alive (waiting for it if it is still starting), else a new one."""
        spare, self._spare = self._spare, None
        fits = (
            kernel_id is None
            and kwargs.get("kernel_name", self.spare_kernel_name) == self.spare_kernel_name
            and self.cwd_for_path(path or _ROOT) == self.cwd_for_path(_ROOT)
        )
        if spare is not None and not fits:
            self._spare = spare  # for the next page
            return str(await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs))
        taken = None if spare is None else await _result_or_none(spare)
        if taken is None or taken not in self or not await ensure_async(self.get_kernel(taken).is_alive()):
            taken = str(await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs))
        else:  # idle since the page took it, not since it started (jupyter_server keeps this on the kernel manager)
            setattr(self.get_kernel(taken), "last_activity", utcnow())  # noqa: B010
        if spare is not None:
            self._refill = asyncio.ensure_future(self._start_spare_after(taken))
        return taken

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        if self._spare is not None and self._spare.done() and _result_of(self._spare) == kernel_id:
            return  # waiting for a page is what the spare is for
        await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_all(self, now: bool = False) -> None:  # type: ignore[override]  # async, as start_kernel
        self._closing = True  # no new spare from here on
        if self._refill is not None:
            self._refill.cancel()
        if self._spare is not None:
            await _result_or_none(self._spare)  # a spare still starting is shut down with the others
        await super().shutdown_all(now=now)


async def _result_or_none(future: asyncio.Future[str]) -> str | None:
    with contextlib.suppress(Exception):
        return await future
    return None


def _result_of(future: asyncio.Future[str]) -> str | None:
    return None if future.cancelled() or future.exception() else future.result()


def _not_ping_units(record: logging.LogRecord) -> bool:
    """jupyter_server gives tornado its websocket ping interval and timeout in milliseconds (30000 and 90000) where
    tornado >= 6.5 expects seconds, and tornado warns once that the timeout exceeds the interval. jupyter_server runs
    its own ping loop, in milliseconds, so the warning changes nothing; a setting that silenced it would make that
    loop close healthy connections (timeout <= interval) or turn the pings off."""
    message = record.getMessage()
    return not (
        message.startswith("The websocket_ping_timeout (")
        and ") cannot be longer than the websocket_ping_interval (" in message
    )


def _not_sigterm_notice(record: logging.LogRecord) -> bool:
    """JupyterLab logs SIGTERM, the way serve.py stops it, as CRITICAL; serve.py prints its own line instead."""
    return record.getMessage() != f"received signal {int(signal.SIGTERM)}, stopping"


def _not_closed_page(record: logging.LogRecord) -> bool:
    """Ctrl-C stops the server while a page's websocket is open: a write of the kernel's last messages to a page
    that has closed since fails with WebSocketClosedError, which asyncio reports as "Task exception was never
    retrieved" with a traceback. Nothing was lost (the page is gone); only that exception is dropped."""
    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, (WebSocketClosedError, StreamClosedError))


def main(argv: list[str]) -> None:
    logging.getLogger("asyncio").addFilter(_not_closed_page)
    logging.getLogger("tornado.general").addFilter(_not_ping_units)
    logging.getLogger("ServerApp").addFilter(_not_sigterm_notice)
    server, args = argv[0], argv[1:]
    if server == "voila":
        from voila.app import Voila as App
    elif server == "jupyterlab":
        from jupyterlab.labapp import LabApp as App
    else:
        raise SystemExit(f"serve_child: unknown server {server!r} (voila or jupyterlab)")
    App.launch_instance(argv=args)


if __name__ == "__main__":
    main(sys.argv[1:])
