"""Page primitives shared by the PDF and SVG painters: text, rectangles and lines on pages.

Units are millimetres, the origin is the top-left corner of the page and y grows downwards; a text's
y is its baseline. Fonts are roles, not font names (``regular``, ``bold``); each painter maps them to
fonts it has, and draws the suit symbols ♠ ♥ ♦ ♣ inside any text with a font that holds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Final, Literal

Font = Literal["regular", "bold"]
Anchor = Literal["start", "middle", "end"]
Color = Literal["black", "red", "grey", "blue"]

A4: Final = (210.0, 297.0)
POINT_MM: Final = 25.4 / 72.0
RANK_EM: Final = 0.70   # generous mean width of a rank (A K Q J 10 9 ... 2) in the printed font, in em
SPACE_EM: Final = 0.32  # a space between cards, in em
PROSE_EM: Final = {"regular": 0.54, "bold": 0.60}  # generous mean width of a character of prose, in em


@dataclass(frozen=True)
class TextItem:
    """One line of text; `size` is the font size in points."""

    x: float
    y: float
    text: str
    size: float
    font: Font = "regular"
    color: Color = "black"
    anchor: Anchor = "start"


@dataclass(frozen=True)
class RectItem:
    """A rectangle; filled if `fill`, outlined if `stroke` (line width `line` mm)."""

    x: float
    y: float
    w: float
    h: float
    fill: Color | None = "black"
    stroke: Color | None = None
    line: float = 0.2


@dataclass(frozen=True)
class LineItem:
    """A straight line, solid or dashed (for cutting)."""

    x1: float
    y1: float
    x2: float
    y2: float
    color: Color = "grey"
    line: float = 0.2
    dashed: bool = False


Item = TextItem | RectItem | LineItem


@dataclass
class Page:
    """One page: its size in mm and what is drawn on it, in drawing order."""

    width: float
    height: float
    items: list[Item] = field(default_factory=list)


def place(items: Iterable[Item], dx: float, dy: float, scale: float = 1.0) -> list[Item]:
    """Items drawn at natural size, moved by (dx, dy) and scaled about their own origin."""
    out: list[Item] = []
    for it in items:
        if isinstance(it, TextItem):
            out.append(replace(it, x=dx + it.x * scale, y=dy + it.y * scale, size=it.size * scale))
        elif isinstance(it, RectItem):
            out.append(replace(it, x=dx + it.x * scale, y=dy + it.y * scale, w=it.w * scale, h=it.h * scale,
                               line=it.line * scale))
        else:
            out.append(replace(it, x1=dx + it.x1 * scale, y1=dy + it.y1 * scale, x2=dx + it.x2 * scale,
                               y2=dy + it.y2 * scale, line=it.line * scale))
    return out


def grid(count: int) -> tuple[int, int]:
    """Columns and rows for `count` equal cells on a portrait page: one column up to 2, else two."""
    cols = 1 if count <= 2 else 2
    return cols, -(-count // cols)


def ranks_em(ranks: str) -> float:
    """The width of a suit's ranks ('A K 10 9 2') in em, generously: for fitting a hand into its room."""
    return sum(SPACE_EM if ch == " " else RANK_EM for ch in ranks)


def prose_chars(width: float, size: float, font: Font = "regular") -> int:
    """How many characters of prose at `size` points fit a line `width` mm wide (for wrapping)."""
    return int(width / (size * POINT_MM * PROSE_EM[font]))
