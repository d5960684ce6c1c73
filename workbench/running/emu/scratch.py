"""A per-process pool of reusable GM files on tmpfs, and whole-buffer pread/pwrite helpers.

Every GM buffer of a launch is a file the child maps (launch-file key "gm_file", kernels/emu/include/ascemu/
driver.h): inputs MAP_PRIVATE (copy-on-write: the kernel reads the bytes written here, no copy in the child),
everything else MAP_SHARED (the kernel's stores land in the file, read back with one pread into the caller's
array). The files live in a per-process scratch directory on tmpfs that is reused from launch to launch: a
tmpfs page that already exists is written at memory speed, while allocating (and later freeing) one costs
about as much again as the copy itself. Concurrent launches (threads) each take their own directory.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import mmap
import os
import shutil
import tempfile
import threading
from pathlib import Path

import numpy as np

from ...core._files import os_error
from ...core.errors import InfrastructureError
from . import worker


def _scratch_root() -> str | None:
    """ASCEMU_SCRATCH_DIR, else /dev/shm (tmpfs) when writable, else the system temp directory (None)."""
    if os.environ.get("ASCEMU_SCRATCH_DIR"):
        return os.environ["ASCEMU_SCRATCH_DIR"]
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


SCRATCH_FIX = (
    "free space there, or set ASCEMU_SCRATCH_DIR to a writable folder with room for the launch's arrays "
    "(default: /dev/shm, else $TMPDIR)"
)


_PAGE = mmap.PAGESIZE
_CHUNK = 1 << 30  # bytes per pread/pwrite call (Linux moves at most ~2 GiB per call)
_POOL_PREFIX = "ascemu-pool-"
# A scratch directory holding more than this after a launch gives its memory back (files truncated to 0).
_KEEP_BYTES = int(os.environ.get("ASCEMU_SCRATCH_KEEP_BYTES", 1 << 30))


def gm_file_size(nbytes: int) -> int:
    """The file behind one GM buffer covers the aclrtMalloc allocation (ALIGN_UP(bytes, 32) + 32), page-rounded."""
    alloc = max(64, (nbytes + 31) // 32 * 32 + 32)
    return (alloc + _PAGE - 1) // _PAGE * _PAGE


class Scratch:
    """One private directory: gm<i>.bin per GM argument slot (kept open and sized), plus the launch/report files."""

    def __init__(self, root: str | None) -> None:
        _roots.add(root)  # before the directory exists: exit clean-up finds it even if this never returns
        self.dir = Path(tempfile.mkdtemp(prefix=f"{_POOL_PREFIX}{os.getpid()}-", dir=root))
        self.files: dict[int, tuple[int, int]] = {}  # slot -> (fd, size)

    def gm(self, slot: int, size: int) -> tuple[int, str]:
        path = self.dir / f"gm{slot}.bin"
        fd, cur = self.files.get(slot, (-1, -1))
        if fd < 0:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            cur = os.fstat(fd).st_size
        if cur != size:
            os.ftruncate(fd, size)  # shrinking frees the tail
            if size > cur:  # reserve the new pages here: a full tmpfs fails with ENOSPC now, not SIGBUS in the child
                try:
                    os.posix_fallocate(fd, max(cur, 0), size - max(cur, 0))
                except OSError as exc:  # other errors (EOPNOTSUPP): the child's fill allocates the pages
                    if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
                        os.ftruncate(fd, 0)
                        self.files[slot] = (fd, 0)
                        raise InfrastructureError(
                            "emulator scratch folder",
                            self.dir,
                            f"no room for a {size}-byte GM buffer ({exc.strerror})",
                            SCRATCH_FIX,
                        ) from exc
        self.files[slot] = (fd, size)
        return fd, str(path)

    def held_bytes(self) -> int:
        return sum(size for _, size in self.files.values())

    def trim(self, first_slot: int = 0) -> None:
        """Give back the memory of the files of slots >= first_slot (they stay open, 0 bytes long)."""
        for slot, (fd, size) in list(self.files.items()):
            if slot >= first_slot and size:
                os.ftruncate(fd, 0)
                self.files[slot] = (fd, 0)

    def close(self, remove: bool = True) -> None:
        for fd, _ in self.files.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self.files.clear()
        if remove:
            shutil.rmtree(self.dir, ignore_errors=True)


_pool_lock = threading.Lock()
_pool: list[Scratch] = []
_pool_pid = -1
_roots: set[str | None] = set()  # scratch roots this process made directories in


def _remove_stale_dirs(root: str | None) -> None:
    """Scratch directories of processes that died without running their atexit hook (SIGKILL)."""
    base = Path(root or tempfile.gettempdir())
    try:
        entries = list(base.glob(_POOL_PREFIX + "*"))
    except OSError:
        return
    for d in entries:
        try:
            pid = int(d.name[len(_POOL_PREFIX) :].split("-", 1)[0])
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass  # alive (another user's process)


def acquire() -> Scratch:
    global _pool_pid
    with _pool_lock:
        if _pool_pid != os.getpid():  # first use, or a forked child: the parent's directories are not ours
            for sc in _pool:
                sc.close(remove=False)
            _pool.clear()
            if _pool_pid == -1:
                atexit.register(_at_exit)
            _roots.clear()
            _pool_pid = os.getpid()
            _remove_stale_dirs(_scratch_root())
        if _pool:
            return _pool.pop()
    root = _scratch_root()
    try:
        return Scratch(root)
    except OSError as exc:  # a root that is missing, not a folder, read-only or full
        raise os_error("emulator scratch folder", root or tempfile.gettempdir(), exc, SCRATCH_FIX) from exc


def release(sc: Scratch) -> None:
    if sc.held_bytes() > _KEEP_BYTES:
        sc.trim()
    with _pool_lock:
        if _pool_pid == os.getpid():
            _pool.append(sc)
            return
    sc.close(remove=False)


def release_scratch() -> None:
    """Delete the reusable scratch files (tmpfs memory) of launches in this process; they are recreated on demand.
    Idle emulator workers stop too: their mappings would keep the deleted files' memory."""
    worker.stop_all()
    with _pool_lock:
        if _pool_pid != os.getpid():
            return
        scs = list(_pool)
        _pool.clear()
    for sc in scs:
        sc.close()


def _at_exit() -> None:
    """Interpreter exit: the pooled directories, and any a launch still held (an interrupted caller), go."""
    release_scratch()
    if _pool_pid != os.getpid():
        return
    for root in list(_roots):
        for d in Path(root or tempfile.gettempdir()).glob(f"{_POOL_PREFIX}{os.getpid()}-*"):
            shutil.rmtree(d, ignore_errors=True)


def write_all(fd: int, array: np.ndarray) -> None:
    src = array if array.flags.c_contiguous else np.ascontiguousarray(array)
    mv = src.reshape(-1).view(np.uint8).data
    off, n = 0, len(mv)
    while off < n:
        off += os.pwrite(fd, mv[off : off + _CHUNK], off)


def read_all(fd: int, array: np.ndarray) -> None:
    """The file's first nbytes into `array`, in place (one copy, straight into the caller's memory)."""
    direct = array.flags.c_contiguous
    dst = array if direct else np.empty(array.shape, array.dtype)
    mv = dst.reshape(-1).view(np.uint8).data
    off, n = 0, len(mv)
    while off < n:
        got = os.preadv(fd, [mv[off : off + _CHUNK]], off)
        if got <= 0:
            return  # file shorter than the buffer: leave the array as it was
        off += got
    if not direct:
        array[...] = dst
