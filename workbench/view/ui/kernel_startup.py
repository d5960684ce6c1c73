"""Run by the kernel of each `workbench app` page as it starts: serve.py sets PYTHONSTARTUP to this file for the
Voilà server, and IPython runs that file in every kernel before the kernel answers.

It imports, in a thread, what the page's cells need: first the controls' modules (ipywidgets and the workbench
core, about a second), then the panels' (altair, pandas, and the charts' script bundle: a few seconds). The
kernel answers at once. A kernel started ahead of its page (serve_child.SpareKernelManager) has it all done when
the page arrives; otherwise the imports overlap the browser loading the page's scripts, and a cell that needs a
module still being imported waits on Python's import lock instead of importing it twice. The second cell waits for
the thread (Workbench.load_panels): code that looks a module up in sys.modules instead of importing it, as altair
does for pandas, must not find it half-imported. It runs in the notebook's namespace and leaves no name behind.

It also keeps a kernel's stop quiet (`_quiet_stop`): Ctrl-C on `workbench app` shuts the page's kernel down while a
cell may still be running, and ipykernel then sends the cell's reply or its last status on a ZMQ socket its shutdown
has closed, logging the ZMQError ENOTSOCK with a traceback ("Exception in message handler", "Uncaught exception in
ZMQStream callback"). Only that exception is dropped, from those two loggers. The preload thread likewise stays
quiet when the kernel stops under it.
"""


def _quiet_stop() -> None:
    import errno
    import logging

    def not_closed_socket(record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        closed = getattr(exc, "errno", None) == errno.ENOTSOCK
        return not (closed and any(c.__module__ == "zmq.error" for c in type(exc).__mro__))

    for name in ("IPKernelApp", "tornado.general"):  # ipykernel's own log, and pyzmq's ZMQStream callbacks
        logging.getLogger(name).addFilter(not_closed_socket)


def _start_preload() -> None:
    import contextlib
    import importlib
    import os
    import sys
    import threading
    import time

    folder = os.path.dirname(os.path.abspath(__file__))

    def imports() -> None:
        # IPython runs this file with its folder put first on sys.path and takes it out afterwards: an import that
        # overlapped that removal could skip the next entry of sys.path and load another copy of the package
        deadline = time.monotonic() + 5
        while folder in sys.path and time.monotonic() < deadline:
            time.sleep(0.005)
        importlib.import_module("workbench.view.ui.app")  # the first cell's
        # the second cell's, at a lower CPU priority (Linux: per thread): a page's browser and a page's kernel come
        # first, and in a spare kernel nobody is waiting for it yet
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        for module in ("pandas", "workbench.view.ui.panels"):
            importlib.import_module(module)
        sys.modules["workbench.view.ui.app"].offline_charts()  # the charts' script bundle, from its cache

    def preload() -> None:
        try:
            imports()
        except BaseException:
            # Ctrl-C on `workbench app` stops a kernel that may still be importing (a spare kernel on a busy machine):
            # the interpreter tears down under the thread, which then fails; nothing waits for these imports anymore
            if sys.is_finalizing() or not threading.main_thread().is_alive():
                return
            raise

    # the name is Workbench.load_panels' way to find it (workbench.view.ui.app.PRELOAD_THREAD)
    threading.Thread(target=preload, name="workbench-preload", daemon=True).start()


_quiet_stop()
_start_preload()
del _quiet_stop, _start_preload
