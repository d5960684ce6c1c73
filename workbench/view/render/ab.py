"""A RunComparison (running/ab.py) as text for terminals and the CLI, and as an HTML card for notebooks and the app.

Both show the same rows: the two runs and their verdicts, what differs in the cases and the plans, each output's
element-wise diff with where the differing elements were computed, and every time with its source. A difference of
two times is printed only when the comparison took one (like sources); otherwise its note says why not.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...core.timesource import MEANING
from .html import _card, _table
from .text import duration, table, wrap

if TYPE_CHECKING:
    from ...running.ab import FieldDiff, OutputDiff, RunComparison, TimingRow

MAX_FIELDS = 40  # plan fields listed; the rest are counted
e = html.escape


def value(x: Any) -> str:
    """A field's value as the diff shows it: "—" where the run has no such field."""
    if x is None:
        return "—"
    if isinstance(x, tuple):
        return "[" + ", ".join(map(str, x)) + "]"
    return str(x)


def _seconds(x: float | None) -> str:
    return "—" if x is None else duration(x)


def delta(r: TimingRow) -> str:
    """B − A with its sign, or "—" (the note says why) when the comparison took none."""
    if r.delta is None:
        return "—"
    return ("+" if r.delta > 0 else "−" if r.delta < 0 else "±") + duration(abs(r.delta))


def timing_rows(rows: Sequence[TimingRow]) -> list[list[str]]:
    return [
        [
            r.what.removesuffix("_s"),
            _seconds(r.a),
            r.a_source or "—",
            _seconds(r.b),
            r.b_source or "—",
            delta(r),
            r.note,
        ]
        for r in rows
    ]


def timing_header(c: RunComparison) -> list[str]:
    a, b = c.a.label, c.b.label
    return ["time", a, f"{a} source", b, f"{b} source", f"{b} − {a}", "note"]


def output_line(o: OutputDiff, labels: tuple[str, str] = ("A", "B")) -> str:
    line = o.summary()
    if o.diffed and o.differing:
        ulp = "undefined (NaN)" if o.max_ulp is None else str(o.max_ulp)
        line += f"; max |{labels[0]} − {labels[1]}| {o.max_abs:.6g}, max ULP {ulp}; first at {list(o.first or ())}"
        line += f", largest at {list(o.worst or ())}"
    return line


def _sources(c: RunComparison) -> list[str]:
    used = {s for r in (*c.timings, *c.model) for s in (r.a_source, r.b_source) if s}
    return [f"{s}: {MEANING[s]}" for s in MEANING if s in used]


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _differ(n: int) -> str:
    return f"{_count(n, 'field')} {'differs' if n == 1 else 'differ'}"


def _fields(diff: Sequence[FieldDiff]) -> list[list[str]]:
    return [[d.field, value(d.a), value(d.b)] for d in diff[:MAX_FIELDS]]


def comparison_text(c: RunComparison) -> str:
    a, b = c.a.label, c.b.label
    lines = [f"A/B comparison: {a} vs {b}"]
    for side in (c.a, c.b):
        lines += wrap(f"{side.label}: {side.what}", "  ")
    verdicts = [["run", c.a.verdict, c.b.verdict]]
    outs_b = dict(c.b.outputs)
    verdicts += [[name, v, outs_b.get(name, "—")] for name, v in c.a.outputs]
    verdicts += [[name, "—", v] for name, v in c.b.outputs if name not in dict(c.a.outputs)]
    verdicts.append(["diagnostics", str(c.a.diagnostics), str(c.b.diagnostics)])
    lines += ["", "verdicts:", table(verdicts, ["", a, b], indent="  ")]
    lines += ["", "case: " + ("the same" if not c.case_diff else _count(len(c.case_diff), "difference"))]
    if c.case_diff:
        lines.append(table(_fields(c.case_diff), ["field", a, b], indent="  "))
    lines += ["", "plan: " + ("the same" if not c.plan_diff else _differ(len(c.plan_diff)))]
    if c.plan_diff:
        lines.append(table(_fields(c.plan_diff), ["field", a, b], indent="  "))
        if len(c.plan_diff) > MAX_FIELDS:
            lines.append(f"  … and {len(c.plan_diff) - MAX_FIELDS} more (to_json() has them all)")
    lines += ["", "outputs:"]
    lines += [ln for o in c.outputs for ln in wrap(output_line(o, (a, b)), "  ")] or ["  none"]
    lines += ["", f"timings ({b} − {a} only between times of one source):"]
    lines.append(table(timing_rows(c.timings), timing_header(c), indent="  ", wrap_last=True))
    lines += ["", "performance model (per pipe: the slowest core's busy time):"]
    if c.model:
        lines.append(table(timing_rows(c.model), timing_header(c), indent="  ", wrap_last=True))
    for side, how in zip((c.a, c.b), c.model_how, strict=True):
        lines += wrap(f"{side.label}: {how}", "  ")
    if c.notes:
        lines += ["", "notes:", *(ln for n in c.notes for ln in wrap(n, "  - "))]
    lines += ["", "sources:", *(ln for s in _sources(c) for ln in wrap(s, "  "))]
    return "\n".join(lines)


def comparison_repr(c: RunComparison) -> str:
    outs = "; ".join(o.summary() for o in c.outputs) or "no outputs"
    return (
        f"<RunComparison {c.a.label} {c.a.verdict} vs {c.b.label} {c.b.verdict}: {len(c.case_diff)} case and "
        f"{len(c.plan_diff)} plan differences; {outs}>"
    )


def comparison_html(c: RunComparison) -> str:
    a, b = c.a.label, c.b.label
    outs_b = dict(c.b.outputs)
    verdicts = [["run", c.a.verdict, c.b.verdict]]
    verdicts += [[name, v, outs_b.get(name, "—")] for name, v in c.a.outputs]
    verdicts.append(["diagnostics", str(c.a.diagnostics), str(c.b.diagnostics)])
    body = [
        "<p>" + "<br>".join(f"<b>{e(s.label)}</b>: {e(s.what)}" for s in (c.a, c.b)) + "</p>",
        "<h5>verdicts</h5>",
        _table(["", a, b], verdicts),
        "<h5>case</h5>",
        _table(["field", a, b], _fields(c.case_diff)) if c.case_diff else "<p class='wb-muted'>the same</p>",
        f"<h5>plan{f': {_differ(len(c.plan_diff))}' if c.plan_diff else ''}</h5>",
        _table(["field", a, b], _fields(c.plan_diff)) if c.plan_diff else "<p class='wb-muted'>the same</p>",
        *(
            [f"<p class='wb-muted'>… and {len(c.plan_diff) - MAX_FIELDS} more</p>"]
            if len(c.plan_diff) > MAX_FIELDS
            else []
        ),
        "<h5>outputs</h5>",
        "<ul class='wb-ab-outputs'>" + "".join(f"<li>{e(output_line(o, (a, b)))}</li>" for o in c.outputs) + "</ul>",
        f"<h5>timings <span class='wb-muted'>({e(b)} − {e(a)} only between times of one source)</span></h5>",
        _table(timing_header(c), timing_rows(c.timings)),
        "<h5>performance model <span class='wb-muted'>(per pipe: the slowest core's busy time)</span></h5>",
        _table(timing_header(c), timing_rows(c.model)) if c.model else "",
        "<p class='wb-muted'>"
        + "<br>".join(f"{e(s.label)}: {e(h)}" for s, h in zip((c.a, c.b), c.model_how, strict=True))
        + "</p>",
        *(["<ul>" + "".join(f"<li>{e(n)}</li>" for n in c.notes) + "</ul>"] if c.notes else []),
        "<p class='wb-muted'>" + "<br>".join(map(e, _sources(c))) + "</p>",
    ]
    return _card(f"A/B: {a} {c.a.verdict} · {b} {c.b.verdict}", body)
