"""Files the workbench writes and reads on the user's behalf.

Writing: a temporary file in the same folder, then a rename, so a reader never sees half of one; an output path is
checked before the long work that produces its content (`check_output_file`), and what the machine refuses (a folder
where a file should be, a read-only or full filesystem, /proc) is an InfrastructureError naming the path and the fix.
Reading: a kernel source must be UTF-8 text (`check_text_source`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from .errors import InfrastructureError, InvalidInput

_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
CACHE_ENV = "WORKBENCH_CACHE"


def cache_home() -> Path:
    """Where the workbench keeps what it can make again (emu/ builds, npu/ libraries, charts/): $WORKBENCH_CACHE, else
    ~/.cache/ascendc-workbench."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "ascendc-workbench")


def os_error(what: str, path: str | Path, exc: OSError, fix: str | None = None) -> InfrastructureError:
    """The InfrastructureError for an OSError on `path`: what the machine refused, in words, and how to get past it."""
    reason = exc.strerror or str(exc)
    if exc.errno in _NO_SPACE:
        problem, default_fix = f"no space left ({reason})", "free space on that filesystem or choose another folder"
    elif exc.errno == errno.ENOENT:
        problem, default_fix = "cannot create files here (not a folder on a disk, e.g. /proc)", "choose a disk folder"
    elif exc.errno == errno.ENOTDIR:
        problem, default_fix = "has a file where a folder should be", "remove that file or choose another folder"
    elif exc.errno == errno.EROFS:
        problem, default_fix = "read-only filesystem", "choose a folder on a writable filesystem"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        problem, default_fix = f"not writable ({reason})", "choose a folder you can write to"
    elif exc.errno == errno.EISDIR:
        problem, default_fix = "is a folder", "give the path of a file (e.g. a name inside that folder)"
    else:
        problem, default_fix = reason, "choose a writable folder on a real disk"
    return InfrastructureError(what, path, problem, fix or default_fix)


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")  # same folder: the rename is atomic


def _refuse_non_regular(target: Path, what: str) -> None:
    """A folder, a device (/dev/null), a pipe or a socket is never replaced by a file."""
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise os_error(what, target, exc) from exc
    if stat.S_ISDIR(mode):
        raise InfrastructureError(
            what, target, "is a folder", "give the path of a file (e.g. a name inside that folder)"
        )
    if not stat.S_ISREG(mode):
        raise InfrastructureError(what, target, "is not a regular file (a device, pipe or socket)", "give a file path")


def check_output_file(path: str | Path, what: str) -> Path:
    """`path` as a file the workbench can write later: its folder exists (else InvalidInput: a typo, exit 2), it is not
    a folder or a device, and a file can be created and written there (else InfrastructureError, exit 4). Call it
    before the work whose result goes there; the write itself (atomic_write) still reports a disk that filled since."""
    target = Path(path).expanduser()
    if not target.parent.exists():
        raise InvalidInput(what, str(path), "a file path in an existing folder")
    if not target.parent.is_dir():
        raise InfrastructureError(what, target, f"{target.parent} is not a folder", "give a file path in a folder")
    _refuse_non_regular(target, what)
    probe = _temp_name(target)
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, b"\n")  # a full filesystem may still create an empty file
        finally:
            os.close(fd)
    except OSError as exc:
        raise os_error(what, target, exc) from exc
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return target


def atomic_write(target: Path, data: bytes, what: str = "output file") -> None:
    """Write `data` to `target` through a temporary file and a rename; on any failure no file is left behind and
    an OSError becomes an InfrastructureError naming `what` and the path."""
    _refuse_non_regular(target, what)
    tmp = _temp_name(target)
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise os_error(what, target, exc) from exc
        raise


def check_text_source(path: Path, field: str) -> None:
    """A kernel source is UTF-8 text: g++ reads it, and diagnostics and compile errors quote its lines."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise os_error(field, path, exc, "make the file readable") from exc
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            field, str(path), f"a UTF-8 text file (an Ascend C source); byte {exc.start} is not UTF-8"
        ) from None
    if b"\0" in data:
        raise InvalidInput(field, str(path), f"a text file (an Ascend C source); byte {data.index(0)} is a NUL byte")
