"""The statistics report in pictures: bar charts of observed against exact shares, laid out as one HTML page
(inline SVG) or as PDF pages of primitives. Pure: :mod:`dealer.printing.outputs` writes the files. The
report shows counts and probabilities, never a deal.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Final

from dealer.language import _, decimal, spoken_language
from dealer.printing.drawing import A4, POINT_MM, Item, LineItem, Page, RectItem, TextItem, place, prose_chars
from dealer.printing.svg import svg_element
from dealer.stats.goodness import label_said
from dealer.stats.stats_report import figure_line, method_notes, units_text, wild_line
from dealer.stats.summary import Figure, SampleStats

CHART_WIDTH: Final = 180.0
CHART_HEIGHT: Final = 72.0
PLOT_LEFT: Final = 14.0
PLOT_RIGHT: Final = 4.0
PLOT_TOP: Final = 13.0
PLOT_BOTTOM: Final = 9.0
RARE_PATTERN: Final = 0.005
RARE_TAIL: Final = 0.0005
MARGIN: Final = 15.0


@dataclass(frozen=True)
class Bar:
    """One category of a chart: its label, the share counted and the exact share."""

    label: str
    observed: float
    expected: float


def chart_bars(figure: Figure) -> list[Bar]:
    """The bars of a figure's chart, rare categories drawn together: hand patterns under 0.5 % as one bar
    "other", and the tail of an ordered quantity from the first category under 0.05 % as one bar "N+" (the
    full tables, with every category, are in the HTML and the JSON)."""
    q = figure.quantity
    shares, expected = figure.observed_shares, [float(p) for p in q.probabilities]
    if q.key == "patterns":
        common = [i for i, e in enumerate(expected) if e >= RARE_PATTERN]
        rest = [i for i in range(len(expected)) if i not in common]
        bars = [Bar(label_said(q.labels[i]), shares[i], expected[i]) for i in common]
        return bars + [Bar(_("other"), sum(shares[i] for i in rest), sum(expected[i] for i in rest))]
    if q.key in ("wild", "shortest_in_hand"):
        return [Bar(label_said(label), s, e) for label, s, e in zip(q.labels, shares, expected, strict=True)]
    peak = expected.index(max(expected))
    tail = next((i for i in range(peak, len(expected)) if expected[i] < RARE_TAIL), len(expected))
    bars = [Bar(q.labels[i], shares[i], expected[i]) for i in range(tail)]
    if tail < len(expected):
        label = label_said(q.labels[tail]) + ("" if tail == len(expected) - 1 else "+")
        bars.append(Bar(label, sum(shares[tail:]), sum(expected[tail:])))
    return bars


def nice_top(value: float) -> tuple[float, float]:
    """The top of a share axis at or above `value` and its tick step (1, 2 or 5 times a power of ten)."""
    if value <= 0:
        return 0.01, 0.01
    exponent = math.floor(math.log10(value / 5))
    for mantissa in (1, 2, 5, 10):
        step = mantissa * 10.0**exponent
        if step * 5 >= value:
            return step * math.ceil(value / step - 1e-9), step
    raise AssertionError("unreachable")


def percent(share: float) -> str:
    """A share as a tick label: '20 %', '2.5 %', '0.4 %'."""
    value = share * 100
    if abs(value - round(value)) < 1e-9:
        return f"{value:.0f} %"
    return decimal(value, 1).removesuffix("0").rstrip(".,") + " %"  # 2.0 as 2


def chart_items(figure: Figure, width: float = CHART_WIDTH, height: float = CHART_HEIGHT) -> list[Item]:
    """A figure's bar chart at the origin: title, legend, share axis, and per category a grey bar (the share
    a perfect shuffle gives, exact) with a blue one beside it (the share counted), on one linear scale from
    zero, so a bar's height is its share."""
    q = figure.quantity
    bars = chart_bars(figure)
    top, step = nice_top(max(max(b.observed for b in bars), max(b.expected for b in bars)))
    left, right = PLOT_LEFT, width - PLOT_RIGHT
    base, ceiling = height - PLOT_BOTTOM, PLOT_TOP
    scale = (base - ceiling) / top
    items: list[Item] = [
        TextItem(1, 4.5, _(q.title), 9, "bold"),
        RectItem(left, 7, 3, 3, "grey"), TextItem(left + 4, 9.6, _("perfect shuffle (exact)"), 7),
        RectItem(left + 40, 7, 3, 3, "blue"),
        TextItem(left + 44, 9.6, _("counted ({units})").format(units=units_text(q.unit, figure.units)), 7),
    ]
    ticks = round(top / step)
    for k in range(ticks + 1):
        y = base - k * step * scale
        items.append(LineItem(left - 1, y, left, y, "black", 0.2))
        items.append(TextItem(left - 1.5, y + 1, percent(k * step), 6, anchor="end"))
    items.append(LineItem(left, ceiling, left, base, "black", 0.2))
    slot = (right - left) / len(bars)
    bar = min(slot * 0.38, 6.0)
    for i, b in enumerate(bars):
        middle = left + (i + 0.5) * slot
        for x, share, color in ((middle - bar, b.expected, "grey"), (middle, b.observed, "blue")):
            h = share * scale
            if h > 0:
                items.append(RectItem(x, base - h, bar, h, color))  # type: ignore[arg-type]
        size = min(7.0, 0.9 * slot / (0.64 * len(b.label) * POINT_MM))  # 0.64 em: a digit of the printed font
        items.append(TextItem(middle, base + 4, b.label, size, anchor="middle"))
    items.append(LineItem(left, base, right, base, "black", 0.2))
    return items


def chart_page(figure: Figure) -> Page:
    return Page(CHART_WIDTH, CHART_HEIGHT, chart_items(figure))


# --- HTML ------------------------------------------------------------------------------------------------

CSS: Final = """
body { font-family: Helvetica, Arial, sans-serif; color: #000; max-width: 190mm; margin: 8mm auto; }
h1 { font-size: 16pt; } h2 { font-size: 13pt; margin-top: 8mm; border-bottom: 0.3mm solid #999; }
h3 { font-size: 11pt; margin: 6mm 0 1mm; }
.verdict { font-size: 12pt; font-weight: bold; } .test { font-size: 9pt; color: #333; }
figure.chart { margin: 0; } figure.chart svg { width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 8pt; margin: 1mm 0 3mm; }
th, td { padding: 0.3mm 2mm; text-align: right; } th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 0.2mm solid #999; }
details { font-size: 9pt; } .notes p { font-size: 9pt; }
"""


def stats_html(samples: Sequence[SampleStats], title: str, notes: Sequence[str] = (), *, model: bool = False) -> str:
    """The whole report as one self-contained HTML page."""
    body = [f"<h1>{escape(title)}</h1>"]
    for sample in samples:
        body.append(f"<section class=\"sample\">\n<h2>{escape(sample.name)}: "
                    f"{escape(units_text('deal', sample.deals))}</h2>")
        body.append(f"<p class=\"verdict\">{escape(sample.sentence)}</p>")
        body.append("<p>" + escape(_("{wild}. Overall chance: {method}.").format(
            wild=wild_line(sample).capitalize(), method=sample.chance_method)) + "</p>")
        for figure in sample.figures:
            body.append(_figure_html(figure))
        body.append("</section>")
    body.append('<section class="notes"><h2>' + escape(_("How these figures are made")) + "</h2>")
    body.extend(f"<p>{escape(text)}</p>" for text in [*notes, *method_notes(samples, model)])
    body.append("</section>")
    return (f"<!DOCTYPE html>\n<html lang=\"{spoken_language()}\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _figure_html(figure: Figure) -> str:
    q = figure.quantity
    rows = "\n".join(
        f"<tr><td>{escape(label_said(label))}</td><td>{count}</td><td>{decimal(share * 100, 2)} %</td>"
        f"<td>{decimal(float(p) * 100, 4)} %</td><td>{decimal(expected, 1)}</td></tr>"
        for label, count, share, p, expected in zip(q.labels, figure.counts, figure.observed_shares,
                                                   q.probabilities, figure.expected_counts, strict=True))
    test = figure.test
    bins = "".join(f"<tr><td>{escape(label_said(b))}</td><td>{o}</td><td>{decimal(e, 1)}</td></tr>"
                   for b, o, e in zip(test.bins, test.observed, test.expected, strict=True))
    table = _("Table: every category")
    chart = svg_element([chart_page(figure)], _(q.title)).replace('id="page1"', f'id="chart-{q.key}"')
    return (f'<h3>{escape(_(q.title))}</h3>\n<figure class="chart" data-key="{q.key}">\n'
            f"{chart}</figure>\n"
            f'<p class="test">{escape(figure_line(figure))}</p>\n'
            f"<details><summary>{escape(table)}</summary>\n<table><thead><tr>"
            + "".join(f"<th>{escape(heading)}</th>" for heading in (
                _("category"), _("counted"), _("share"), _("perfect shuffle (exact)"), _("expected count")))
            + f"</tr></thead>\n<tbody>\n{rows}\n</tbody></table>\n<table><thead><tr>"
            + "".join(f"<th>{escape(heading)}</th>" for heading in (_("test bin"), _("counted"), _("expected")))
            + f"</tr></thead><tbody>{bins}</tbody></table></details>")


# --- PDF -------------------------------------------------------------------------------------------------


def stats_pages(samples: Sequence[SampleStats], title: str, notes: Sequence[str] = (), *,
                model: bool = False) -> list[Page]:
    """A4 pages: per sample its verdict and tests, then its charts three a page; the notes on method last."""
    width, height = A4
    line = width - 2 * MARGIN
    pages: list[Page] = []
    lines: list[tuple[str, float, bool]] = [(title, 14, True)]
    for sample in samples:
        lines += [("", 6, False), (f"{sample.name}: {units_text('deal', sample.deals)}", 12, True)]
        lines += [(text, 10, True) for text in textwrap.wrap(sample.sentence, prose_chars(line, 10, "bold"))]
        lines += [(text, 9, False) for text in textwrap.wrap(wild_line(sample).capitalize(), prose_chars(line, 9))]
        for figure in sample.figures:
            lines += [(text, 8, False) for text in textwrap.wrap(figure_line(figure), prose_chars(line, 8))]
    pages.extend(_text_pages(lines, width, height))
    for sample in samples:
        figures = list(sample.figures)
        for start in range(0, len(figures), 3):
            page = Page(width, height, [TextItem(MARGIN, MARGIN, _("{name}: charts").format(name=sample.name), 9,
                                                 "bold")])
            for row, figure in enumerate(figures[start:start + 3]):
                page.items.extend(place(chart_items(figure), MARGIN, MARGIN + 6 + row * (CHART_HEIGHT + 10)))
            pages.append(page)
    closing: list[tuple[str, float, bool]] = [(_("How these figures are made"), 12.0, True)]
    for text in [*notes, *method_notes(samples, model)]:
        closing += [(wrapped, 8, False) for wrapped in textwrap.wrap(text, prose_chars(line, 8))] + [("", 3, False)]
    pages.extend(_text_pages(closing, width, height))
    return pages


def _text_pages(lines: list[tuple[str, float, bool]], width: float, height: float) -> list[Page]:
    pages = [Page(width, height)]
    y = MARGIN
    for text, size, bold in lines:
        step = size * 0.45 + 1.2
        if y + step > height - MARGIN:
            pages.append(Page(width, height))
            y = MARGIN
        y += step
        if text:
            pages[-1].items.append(TextItem(MARGIN, y, text, size, "bold" if bold else "regular"))
    return pages
