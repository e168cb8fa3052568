"""The report's pictures (no script, no image file): boards per hour per machine over the run as inline
SVG, drawn small enough that its words stay readable on a phone, and faults by Law as bars in a table.
Built from the journal's events alone, like the report's figures."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from html import escape
from typing import Final

from dealer.journal.store import JobState, Recorded
from dealer.language import _, decimal

COLOURS: Final = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
WIDTH: Final = 400
HEIGHT: Final = 220
PAD: Final = 40
TEXT: Final = 13
"""The words' size in the drawing's units: a drawing 400 units wide shown in a phone's 360 px keeps them at 12 px."""


def rate_series(events: Iterable[Recorded]) -> dict[str, list[tuple[float, float]]]:
    """Per machine, after each board it verified: (minutes since the run's first event, boards per hour of
    that machine since its first board was taken up). The events are read once, in order (a run's may be
    read a page at a time: `Journal.each_event`)."""
    t0: datetime | None = None
    first: dict[str, float] = {}
    done: dict[str, int] = {}
    series: dict[str, list[tuple[float, float]]] = {}
    for event in events:
        if t0 is None:
            t0 = datetime.fromisoformat(event.at)
        machine = event.machine
        if not machine:
            continue
        t = (datetime.fromisoformat(event.at) - t0).total_seconds()
        first.setdefault(machine, t)
        if event.state is JobState.VERIFIED:
            done[machine] = done.get(machine, 0) + 1
            span = t - first[machine]
            if span > 0:
                series.setdefault(machine, []).append((t / 60.0, done[machine] * 3600.0 / span))
    return series


def rate_chart(series: Mapping[str, Sequence[tuple[float, float]]]) -> str:
    """Lines of boards per hour against minutes, one a machine, with a legend."""
    points = [p for line in series.values() for p in line]
    if not points:
        return '<p class="empty">' + escape(_("No board verified yet.")) + "</p>"
    x_max = max(x for x, _ in points) or 1.0
    y_max = max(y for _, y in points) * 1.1 or 1.0
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def xy(x: float, y: float) -> str:
        return f"{PAD + x / x_max * plot_w:.1f},{HEIGHT - PAD - y / y_max * plot_h:.1f}"

    parts = [_axes(plot_w, plot_h, _("{minutes} min").format(minutes=decimal(x_max, 1)),
                   _("{rate:.0f} boards/hour").format(rate=y_max))]
    for k, (machine, line) in enumerate(sorted(series.items())):
        colour = COLOURS[k % len(COLOURS)]
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{" ".join(xy(x, y) for x, y in line)}"/>')
        parts.append(f'<text x="{WIDTH - PAD + 4}" y="{PAD + 14 * k}" fill="{colour}" font-size="{TEXT}">'
                     f"{escape(machine)}</text>")
    return _svg(_("Boards per hour per machine over the run"), "".join(parts))


def law_chart(counts: Mapping[str, int]) -> str:
    """One bar a Law (or machine stop), longest first: a table of HTML, so that its words wrap and keep the
    page's size at any width (a drawing scaled down to a phone shrinks its words with it)."""
    if not counts:
        return '<p class="empty">' + escape(_("No fault.")) + "</p>"
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    top = max(n for _, n in items)
    rows = "".join(f'<tr><th scope="row">{escape(law)}</th><td><span class="bar" style="width: {80 * n / top:.0f}%">'
                   f'</span> {n}</td></tr>' for law, n in items)
    label = escape(_("Faults by Law"), quote=True)
    return f'<table class="bars" aria-label="{label}"><tbody>{rows}</tbody></table>'


def _axes(plot_w: float, plot_h: float, x_label: str, y_label: str) -> str:
    x0, y0 = PAD, HEIGHT - PAD
    return (f'<line x1="{x0}" y1="{y0}" x2="{x0 + plot_w}" y2="{y0}" stroke="#444"/>'
            f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 - plot_h}" stroke="#444"/>'
            f'<text x="{x0 + plot_w}" y="{y0 + 16}" text-anchor="end" font-size="{TEXT}">{escape(x_label)}</text>'
            f'<text x="{x0 - 4}" y="{y0 + 16}" text-anchor="end" font-size="{TEXT}">0</text>'
            f'<text x="{x0 + 4}" y="{y0 - plot_h - 6}" font-size="{TEXT}">{escape(y_label)}</text>')


def _svg(title: str, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}"><title>{escape(title)}</title>{body}</svg>')
