"""msOpST interop: a msOpST test case definition file (`<Op>_case.json`) in, sweep Points out, and back.

msOpST is the system-test tool of CANN's operator toolkit (`msopst create` / `msopst run`); its case file is a JSON list
of cases, each naming an op type, its inputs (formats, types, shapes, data distributions and value ranges), outputs
and attributes. docs/msopst.md has the field mapping, what is not supported and why, and the citation of msOpST's
published format description.

- `read_msopst(path)` expands every case the way msOpST does (per tensor, every combination of its formats, shapes,
  types, distributions and value ranges; sub-case i of every tensor forms case i) and returns the Points, what of
  the file the workbench cannot honour (named, never silently dropped) and the sub-cases it skipped, with reasons.
- `write_msopst(points_or_rows, path)` writes one msOpST case per Point (or sweep row) and names what msOpST
  cannot represent. `read_msopst(write_msopst(points).cases).points == points` for the representable points.
"""

from .format import MsopstExport, MsopstImport, Skipped
from .reader import read_msopst
from .writer import write_msopst

__all__ = ["MsopstExport", "MsopstImport", "Skipped", "read_msopst", "write_msopst"]
