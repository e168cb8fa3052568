"""Paint pages of primitives as one SVG document, the pages stacked top to bottom (pure text).

Units are millimetres (the viewBox), so a page prints at its true size. TextItem uses a sans-serif
family that carries the suit symbols.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

from dealer.printing.drawing import POINT_MM, Item, LineItem, Page, RectItem, TextItem

FAMILY: Final = "Helvetica, Arial, 'DejaVu Sans', sans-serif"
COLORS: Final = {"black": "#000", "red": "#c00", "grey": "#8c8c8c", "blue": "#1f5fbf"}


def svg_document(pages: Sequence[Page], title: str) -> str:
    """The SVG text of `pages`, stacked vertically on one canvas."""
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + svg_element(pages, title)


def svg_element(pages: Sequence[Page], title: str) -> str:
    """The ``<svg>`` element of `pages` stacked vertically, without the XML declaration (to sit in HTML)."""
    width = max((p.width for p in pages), default=0.0)
    height = sum(p.height for p in pages)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
           f'viewBox="0 0 {width:g} {height:g}" font-family="{escape(FAMILY)}">',
           f"<title>{escape(title)}</title>",
           f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#fff"/>']
    top = 0.0
    for number, page in enumerate(pages, start=1):
        out.append(f'<g id="page{number}" transform="translate(0 {top:.3f})">')
        out.extend(_item(item) for item in page.items)
        out.append("</g>")
        top += page.height
    out.append("</svg>\n")
    return "\n".join(out)


def _item(item: Item) -> str:
    if isinstance(item, TextItem):
        weight = ' font-weight="bold"' if item.font == "bold" else ""
        return (f'<text x="{item.x:.3f}" y="{item.y:.3f}" font-size="{item.size * POINT_MM:.3f}"{weight} '
                f'text-anchor="{item.anchor}" fill="{COLORS[item.color]}">{escape(item.text)}</text>')
    if isinstance(item, RectItem):
        fill = COLORS[item.fill] if item.fill else "none"
        stroke = f' stroke="{COLORS[item.stroke]}" stroke-width="{item.line:.3f}"' if item.stroke else ""
        return (f'<rect x="{item.x:.4f}" y="{item.y:.4f}" width="{item.w:.4f}" height="{item.h:.4f}" '
                f'fill="{fill}"{stroke}/>')
    assert isinstance(item, LineItem)
    dash = ' stroke-dasharray="2 1.5"' if item.dashed else ""
    return (f'<line x1="{item.x1:.3f}" y1="{item.y1:.3f}" x2="{item.x2:.3f}" y2="{item.y2:.3f}" '
            f'stroke="{COLORS[item.color]}" stroke-width="{item.line:.3f}"{dash}/>')
