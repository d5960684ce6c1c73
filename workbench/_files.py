"""Writing files so that a reader never sees half of one: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import os
from pathlib import Path


def atomic_write(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # same folder: the rename is atomic
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
