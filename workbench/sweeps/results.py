"""A sweep's results file: JSON Lines, one row per line, appended as rows arrive and keyed by each case's content
key. Reading it back is how a sweep resumes (every key already there is not run again) and how a rerun of an
unchanged case is free. A line torn by a crash mid-write is skipped, reported, and cut off before the next append."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core._files import check_output_file, os_error

Row = dict[str, Any]


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON has no NaN/inf: kept as "nan"/"inf" text and read back as floats
    if hasattr(value, "item"):
        return _clean(value.item())
    return value


def _restore(value: Any) -> Any:
    return float(value) if value in ("nan", "inf", "-inf") else value


class ResultsFile:
    """Rows by key, read from `path` at open, appended to it as each arrives."""

    def __init__(self, path: str | Path, resume: bool = True) -> None:
        self.path = check_output_file(path, "sweep results file")
        self.rows: dict[str, Row] = {}
        self.torn = 0  # lines that were not whole rows (a crash mid-write), skipped
        if resume and self.path.is_file():
            self._read()
        elif self.path.exists() and not resume:
            self._truncate(0)

    def _read(self) -> None:
        good_end = 0
        try:
            with open(self.path, "rb") as fh:
                for line in fh:
                    try:
                        row = json.loads(line)
                        if not isinstance(row, dict) or "key" not in row or not line.endswith(b"\n"):
                            raise ValueError("not a row")
                    except ValueError:
                        self.torn += 1
                        continue
                    self.rows[row["key"]] = {k: _restore(v) for k, v in row.items()}
                    good_end = fh.tell()
        except OSError as e:
            raise os_error("sweep results file", self.path, e) from None
        if self.torn and good_end < self.path.stat().st_size:
            self._truncate(good_end)  # a torn tail would glue itself to the next row

    def _truncate(self, size: int) -> None:
        try:
            with open(self.path, "r+b") as fh:
                fh.truncate(size)
        except OSError as e:
            raise os_error("sweep results file", self.path, e) from None

    def append(self, rows: Iterable[Row]) -> None:
        """One write per batch of whole lines, flushed to the disk: an interrupted sweep loses no finished row."""
        rows = list(rows)
        data = b"".join(json.dumps({k: _clean(v) for k, v in r.items()}).encode() + b"\n" for r in rows)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:
            raise os_error("sweep results file", self.path, e) from None
        for r in rows:
            self.rows[r["key"]] = r
