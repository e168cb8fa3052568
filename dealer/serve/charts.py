"""The report's pictures as inline SVG (no script, no image file): boards per hour per machine over the
run, and faults by Law. Built from the journal's events alone, like the report's figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape
from typing import Final

from dealer.journal.store import JobState, Recorded

COLOURS: Final = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
WIDTH: Final = 640
HEIGHT: Final = 260
PAD: Final = 44


def rate_series(events: Sequence[Recorded]) -> dict[str, list[tuple[float, float]]]:
    """Per machine, after each board it verified: (minutes since the run's first event, boards per hour of
    that machine since its first board was taken up)."""
    if not events:
        return {}
    t0 = datetime.fromisoformat(events[0].at)
    first: dict[str, float] = {}
    done: dict[str, int] = {}
    series: dict[str, list[tuple[float, float]]] = {}
    for event in events:
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
        return '<p class="empty">No board verified yet.</p>'
    x_max = max(x for x, _ in points) or 1.0
    y_max = max(y for _, y in points) * 1.1 or 1.0
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def xy(x: float, y: float) -> str:
        return f"{PAD + x / x_max * plot_w:.1f},{HEIGHT - PAD - y / y_max * plot_h:.1f}"

    parts = [_axes(plot_w, plot_h, f"{x_max:.1f} min", f"{y_max:.0f} boards/hour")]
    for k, (machine, line) in enumerate(sorted(series.items())):
        colour = COLOURS[k % len(COLOURS)]
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{" ".join(xy(x, y) for x, y in line)}"/>')
        parts.append(f'<text x="{WIDTH - PAD + 4}" y="{PAD + 14 * k}" fill="{colour}" font-size="12">'
                     f"{escape(machine)}</text>")
    return _svg("Boards per hour per machine over the run", "".join(parts))


def law_chart(counts: Mapping[str, int]) -> str:
    """One bar a Law (or machine stop), longest first."""
    if not counts:
        return '<p class="empty">No fault.</p>'
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    bar_h, label_w = 22, 260
    height = PAD + bar_h * len(items)
    top = max(n for _, n in items)
    rows = []
    for k, (law, n) in enumerate(items):
        y = 10 + k * bar_h
        w = (WIDTH - label_w - 60) * n / top
        rows.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" font-size="12">{escape(law)}</text>'
                    f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{bar_h - 6}" fill="#d62728"/>'
                    f'<text x="{label_w + w + 4:.1f}" y="{y + 15}" font-size="12">{n}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}"><title>Faults by Law</title>{"".join(rows)}</svg>')


def _axes(plot_w: float, plot_h: float, x_label: str, y_label: str) -> str:
    x0, y0 = PAD, HEIGHT - PAD
    return (f'<line x1="{x0}" y1="{y0}" x2="{x0 + plot_w}" y2="{y0}" stroke="#444"/>'
            f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 - plot_h}" stroke="#444"/>'
            f'<text x="{x0 + plot_w}" y="{y0 + 16}" text-anchor="end" font-size="12">{escape(x_label)}</text>'
            f'<text x="{x0 - 4}" y="{y0 + 16}" text-anchor="end" font-size="12">0</text>'
            f'<text x="{x0 + 4}" y="{y0 - plot_h - 6}" font-size="12">{escape(y_label)}</text>')


def _svg(title: str, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}"><title>{escape(title)}</title>{body}</svg>')
