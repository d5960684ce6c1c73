"""The server process of `workbench app` (Voilà) and `workbench lab` (JupyterLab): `python -m workbench.serve_child
voila|jupyterlab ARGS`. serve.py starts it; nothing else imports it (it imports jupyter_server).

It adds two things to the servers, both configured by serve.py's arguments:

- ServedOriginOnly, the identity provider: a request is served only when it comes from one of the server's own
  pages, token or not. jupyter_server checks a request's Origin only when it was authenticated by cookie: one that
  carries the token skips the check, so any web page that learns the token (a URL in a history, a log, a
  screenshot) could open the kernel websocket and run code. Browsers send Origin on every websocket handshake and
  cross-site request.
- filters for the two known lines no setting can remove, so a clean session prints only workbench's own lines:
  tornado's warning about jupyter_server's websocket ping settings (`_not_ping_units`), and JupyterLab's
  CRITICAL "received signal 15, stopping" when serve.py stops it with SIGTERM and says so itself
  (`_not_sigterm_notice`).
"""

from __future__ import annotations

import logging
import signal
import sys
from typing import Any

from jupyter_server.auth.identity import PasswordIdentityProvider
from traitlets import List, Unicode


class ServedOriginOnly(PasswordIdentityProvider):
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


def main(argv: list[str]) -> None:
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
