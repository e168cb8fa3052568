"""Paint pages of primitives into a PDF with reportlab (extra ``print``).

Every text is set in DejaVu Sans (regular and bold, shipped in ``fonts/``), embedded in the PDF as a
subset: it holds the suit symbols ♠ ♥ ♦ ♣, Greek letters and superscripts the reports use, so a PDF
shows on every viewer exactly the characters written. A character the font lacks is refused with its
text named, never printed as an empty box.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, Final

from dealer.core.errors import UsageError
from dealer.core.extras import require
from dealer.language import _
from dealer.printing.drawing import Color, Font, Item, LineItem, Page, RectItem, TextItem

MM: Final = 72.0 / 25.4
FONT_DIR: Final = Path(__file__).resolve().parent / "fonts"
FONT_FILES: Final[dict[Font, tuple[str, str]]] = {
    "regular": ("DejaVuSans", "DejaVuSans.ttf"), "bold": ("DejaVuSans-Bold", "DejaVuSans-Bold.ttf")}
RGB: Final = {"black": (0.0, 0.0, 0.0), "red": (0.8, 0.0, 0.0), "grey": (0.55, 0.55, 0.55),
              "blue": (0x1F / 255, 0x5F / 255, 0xBF / 255)}


def font_name(font: Font) -> str:
    """The registered reportlab name of a font role, registered on first use."""
    metrics = require("reportlab.pdfbase.pdfmetrics", "print", "PDF output")
    name, filename = FONT_FILES[font]
    if name not in metrics.getRegisteredFontNames():
        ttfonts = require("reportlab.pdfbase.ttfonts", "print", "PDF output")
        metrics.registerFont(ttfonts.TTFont(name, str(FONT_DIR / filename)))
    return name


def missing_glyphs(text: str, font: Font) -> list[str]:
    """The characters of `text` the font of role `font` has no glyph for."""
    metrics = require("reportlab.pdfbase.pdfmetrics", "print", "PDF output")
    held = metrics.getFont(font_name(font)).face.charToGlyph
    return sorted({ch for ch in text if ord(ch) not in held})


def write_pdf(pages: Sequence[Page], stream: BinaryIO, title: str, purpose: str) -> None:
    """Write `pages` as a PDF to `stream`; `purpose` names the output in a missing-extra error. A text
    holding a character the font lacks is refused (`UsageError`) before anything is written."""
    canvas_mod = require("reportlab.pdfgen.canvas", "print", purpose)
    for page in pages:
        for item in page.items:
            if isinstance(item, TextItem) and (lacking := missing_glyphs(item.text, item.font)):
                raise UsageError(_("{purpose}: the printed font has no {characters} (in {text}): write it with "
                                   "other characters").format(purpose=purpose, characters=" ".join(lacking),
                                                              text=repr(item.text[:60])))
    canvas = canvas_mod.Canvas(stream, invariant=1, pageCompression=1, initialFontName=font_name("regular"))
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


def _text(canvas: Any, height: float, t: TextItem) -> None:
    metrics = require("reportlab.pdfbase.pdfmetrics", "print", "PDF output")
    font = font_name(t.font)
    width = metrics.stringWidth(t.text, font, t.size)
    x = t.x * MM - {"start": 0.0, "middle": width / 2, "end": width}[t.anchor]
    canvas.setFillColorRGB(*RGB[t.color])
    canvas.setFont(font, t.size)
    canvas.drawString(x, (height - t.y) * MM, t.text)
