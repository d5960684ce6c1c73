"""The roofline (judge/roofline.py) as frames, an altair chart (log axes, the ceilings as lines, each point labelled
with its time source) and text. altair and pandas are imported inside the functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .text import duration, table

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from ...judge.roofline import Roofline

SOURCE_COLORS = {"predicted": "#4e79a7", "device-measured": "#e15759"}


def _rate(value: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}/s"
    return f"{value:.3g} {unit}/s"


def points_frame(rl: Roofline) -> pd.DataFrame:
    """One row per kernel point that has an intensity: where it sits on the roofline, and its label."""
    import pandas as pd

    rows = [
        {
            "intensity": k.intensity,
            "achieved": k.achieved,
            "source": k.time_source,
            "label": f"kernel ({k.time_source})",
            "kernel_us": k.kernel_s * 1e6,
            "how": k.how,
        }
        for k in rl.kernels
        if k.intensity and k.achieved > 0
    ]
    return pd.DataFrame(rows, columns=["intensity", "achieved", "source", "label", "kernel_us", "how"])


def roofs_frame(rl: Roofline, points: pd.DataFrame | None = None) -> pd.DataFrame:
    """The two roofs as line segments over an intensity range that holds the ridge and every point: the memory roof
    (intensity x bandwidth) up to the ridge, the vector roof flat after it."""
    import pandas as pd

    points = points_frame(rl) if points is None else points
    ridge = rl.ridge()
    xs = [ridge, *points["intensity"].tolist()] if ridge > 0 else points["intensity"].tolist()
    lo, hi = min(xs, default=1.0) / 10, max(xs, default=1.0) * 10
    mem = f"memory roof {_rate(rl.memory.rate, 'B')} ({rl.memory.kind}): {rl.memory.source}"
    vec = f"vector roof {_rate(rl.vector.rate, 'B')} ({rl.vector.kind}): {rl.vector.source}"
    rows = [
        {"roof": "memory", "intensity": lo, "rate": lo * rl.memory.rate, "source": mem},
        {"roof": "memory", "intensity": ridge, "rate": rl.vector.rate, "source": mem},
        {"roof": "vector", "intensity": ridge, "rate": rl.vector.rate, "source": vec},
        {"roof": "vector", "intensity": hi, "rate": rl.vector.rate, "source": vec},
    ]
    frame = pd.DataFrame(rows)
    frame["name"] = frame["source"].str.split(":").str[0]  # "memory roof 1.15 TB/s (theoretical)"
    return frame


def roofline_chart(rl: Roofline, title: str = "roofline") -> alt.LayerChart:
    """Log-log: vector bytes per GM byte against vector bytes per second. The roofs are lines (their tooltips give the
    platform figure they come from); each kernel point is labelled with its time's source."""
    import altair as alt

    points = points_frame(rl)
    roofs = roofs_frame(rl, points)
    log = alt.Scale(type="log")
    x = alt.X(field="intensity", type="quantitative", scale=log, title="vector B per GM B", axis=alt.Axis(format="~g"))
    y = alt.Y(field="rate", type="quantitative", scale=log, title="vector B/s", axis=alt.Axis(format="~s"))
    # the roofs are named in a legend of their own (dash per roof): text on the lines ran into the points' labels or
    # the y axis, wherever the roofs fall in the chart
    dash = alt.StrokeDash(field="name", type="nominal", title="roofs", legend=alt.Legend(labelLimit=320))
    lines = (
        alt.Chart(roofs)
        .mark_line(color="#7f7f7f")
        .encode(
            x=x, y=y, strokeDash=dash, detail=alt.Detail(field="roof", type="nominal"), tooltip=["roof:N", "source:N"]
        )
    )
    py = alt.Y(field="achieved", type="quantitative", scale=log, title="vector B/s", axis=alt.Axis(format="~s"))
    color = alt.Color(
        field="source",
        type="nominal",
        scale=alt.Scale(domain=list(SOURCE_COLORS), range=list(SOURCE_COLORS.values())),
        title="time source",
    )
    base = alt.Chart(points).encode(x=x, y=py)
    dots = base.mark_point(filled=True, size=80).encode(
        color=color, tooltip=["label:N", "kernel_us:Q", "intensity:Q", "achieved:Q", "how:N"]
    )
    labels = base.mark_text(align="left", dx=8, dy=-6).encode(text=alt.Text(field="label", type="nominal"))
    subtitle = [f"{rl.platform}, {rl.cores} cores; ridge at {rl.ridge():.3g} vector B per GM B"]
    if rl.note:
        subtitle.append(rl.note)
    return alt.LayerChart(layer=[lines, dots, labels], title=alt.Title(title, subtitle=subtitle))


def pipes_frame(rl: Roofline) -> pd.DataFrame:
    """One row per pipe and time source: work, achieved rate, ceiling, utilisation, busy share, and their sources."""
    import pandas as pd

    rows = [
        {
            "pipe": p.pipe,
            "source": p.time_source,
            "work": p.work,
            "unit": p.ceiling.unit,
            "achieved": p.achieved,
            "ceiling": p.ceiling.rate,
            "utilisation_pct": 100 * p.utilisation,
            "busy_us": p.busy_s * 1e6,
            "busy_source": p.busy_source,
            "busy_pct": 100 * p.busy_share,
            "ceiling_source": p.ceiling.source,
        }
        for p in rl.pipes
    ]
    return pd.DataFrame(rows)


def pipes_chart(rl: Roofline, title: str = "pipes against their ceilings") -> alt.LayerChart:
    """Per pipe: achieved as a share of its ceiling (bars, one per time source); the rule is the ceiling (100 %)."""
    import altair as alt

    frame = pipes_frame(rl)
    bars = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            y=alt.Y(field="pipe", type="nominal", sort=["MTE2", "V", "MTE3", "S"], title=None),
            yOffset=alt.YOffset(field="source", type="nominal"),
            x=alt.X(field="utilisation_pct", type="quantitative", title="% of the platform's ceiling"),
            color=alt.Color(
                field="source",
                type="nominal",
                scale=alt.Scale(domain=list(SOURCE_COLORS), range=list(SOURCE_COLORS.values())),
                title="time source",
            ),
            tooltip=["pipe:N", "source:N", "utilisation_pct:Q", "busy_us:Q", "busy_source:N", "ceiling_source:N"],
        )
    )
    ceiling = alt.Chart(alt.Data(values=[{"pct": 100}])).mark_rule(strokeDash=[4, 3]).encode(x="pct:Q")
    return alt.LayerChart(layer=[bars, ceiling], title=alt.Title(title, subtitle=["the dashed line is the ceiling"]))


def roofline_text(rl: Roofline) -> str:
    """The per-pipe table, the kernel points and the ceilings with their sources."""
    lines = [f"roofline on {rl.platform} ({rl.cores} cores)"]
    if rl.pipes:
        rows = [
            (
                p.pipe,
                p.time_source,
                f"{p.work:.4g} {p.ceiling.unit}",
                _rate(p.achieved, p.ceiling.unit),
                _rate(p.ceiling.rate, p.ceiling.unit),
                f"{p.utilisation:.1%}",
                f"{duration(p.busy_s)} ({p.busy_source})",
            )
            for p in rl.pipes
        ]
        header = ("pipe", "time source", "work", "achieved", "ceiling", "of ceiling", "busy")
        lines.append(table(rows, header, indent="  "))
        for k in rl.kernels:
            ai = f"{k.intensity:.3g} vector B per GM B" if k.intensity is not None else "no GM traffic"
            closest = rl.bound(k.time_source)
            lines.append(f"  kernel {duration(k.kernel_s)} ({k.time_source}): {ai}, closest to its ceiling: {closest}")
    if rl.note:
        lines.append(f"  {rl.note}")
    for c in (rl.memory, rl.vector, rl.scalar):
        lines.append(f"  ceiling {c.name} {_rate(c.rate, c.unit)} ({c.kind}): {c.source}")
    return "\n".join(lines)
