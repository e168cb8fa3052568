"""Paint pages of primitives into a PDF with reportlab (extra ``print``).

TextItem uses the PDF standard fonts, so nothing is embedded and every viewer has them: Helvetica for
letters and digits, ZapfDingbats for the suit symbols ♠ ♥ ♦ ♣ (reportlab maps them to its glyphs,
and text extraction gives the symbols back).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO, Final

from dealer.core.extras import require
from dealer.printing.drawing import Color, Item, LineItem, Page, RectItem, TextItem

MM: Final = 72.0 / 25.4
SUITS: Final = frozenset("♠♥♦♣")
FONTS: Final = {"regular": "Helvetica", "bold": "Helvetica-Bold"}
SYMBOL_FONT: Final = "ZapfDingbats"
SYMBOL_SCALE: Final = 1.05  # ZapfDingbats suits beside Helvetica capitals
RGB: Final = {"black": (0.0, 0.0, 0.0), "red": (0.8, 0.0, 0.0), "grey": (0.55, 0.55, 0.55),
              "blue": (0x1F / 255, 0x5F / 255, 0xBF / 255)}


def write_pdf(pages: Sequence[Page], stream: BinaryIO, title: str, purpose: str) -> None:
    """Write `pages` as a PDF to `stream`; `purpose` names the output in a missing-extra error."""
    canvas_mod = require("reportlab.pdfgen.canvas", "print", purpose)
    canvas = canvas_mod.Canvas(stream, invariant=1, pageCompression=1)
    canvas.setTitle(title)
    canvas.setCreator("dealer")
    for page in pages:
        canvas.setPageSize((page.width * MM, page.height * MM))
        for item in page.items:
            _paint(canvas, page.height, item)
        canvas.showPage()
    canvas.save()


def _paint(canvas: Any, height: float, item: Item) -> None:
    if isinstance(item, TextItem):
        _text(canvas, height, item)
    elif isinstance(item, RectItem):
        _fill_stroke(canvas, item.fill, item.stroke, item.line)
        canvas.rect(item.x * MM, (height - item.y - item.h) * MM, item.w * MM, item.h * MM,
                    stroke=int(item.stroke is not None), fill=int(item.fill is not None))
    elif isinstance(item, LineItem):
        canvas.setStrokeColorRGB(*RGB[item.color])
        canvas.setLineWidth(item.line * MM)
        if item.dashed:
            canvas.setDash(2 * MM, 1.5 * MM)
        else:
            canvas.setDash()
        canvas.line(item.x1 * MM, (height - item.y1) * MM, item.x2 * MM, (height - item.y2) * MM)


def _fill_stroke(canvas: Any, fill: Color | None, stroke: Color | None, line: float) -> None:
    if fill is not None:
        canvas.setFillColorRGB(*RGB[fill])
    if stroke is not None:
        canvas.setStrokeColorRGB(*RGB[stroke])
        canvas.setLineWidth(line * MM)
        canvas.setDash()


def _runs(text: str) -> Iterator[tuple[str, bool]]:
    """Consecutive pieces of `text`, each all suit symbols or all other characters."""
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or (text[i] in SUITS) != (text[start] in SUITS):
            yield text[start:i], text[start] in SUITS
            start = i


def _text(canvas: Any, height: float, t: TextItem) -> None:
    metrics = require("reportlab.pdfbase.pdfmetrics", "print", "PDF output")
    runs = [(piece, SYMBOL_FONT, t.size * SYMBOL_SCALE) if suit else (piece, FONTS[t.font], t.size)
            for piece, suit in _runs(t.text)]
    widths = [metrics.stringWidth(piece, font, size) for piece, font, size in runs]
    x = t.x * MM - {"start": 0.0, "middle": sum(widths) / 2, "end": sum(widths)}[t.anchor]
    canvas.setFillColorRGB(*RGB[t.color])
    for (piece, font, size), width in zip(runs, widths, strict=True):
        canvas.setFont(font, size)
        canvas.drawString(x, (height - t.y) * MM, piece)
        x += width
