"""Board-label sheets: Code 128 labels on standard A4 label stock, as page primitives (pure).

A label shows its barcode (with the payload in small print under it) and, beside it, the board number
large, the set name, the dealer and the vulnerability.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from dealer.core.boards import Vulnerability
from dealer.core.cards import SEATS
from dealer.core.errors import UsageError
from dealer.language import N_, _, decimal
from dealer.printing.drawing import A4, POINT_MM, Item, Page, RectItem, TextItem, place
from dealer.printing.handview import chunks
from dealer.printing.words import seats_shown, vulnerability_name
from firmware_protocol.labels import BoardLabel

MIN_MODULE: Final = 0.19   # mm; about 4.5 dots of a 600 dpi printer
MAX_MODULE: Final = 0.38
QUIET: Final = 10          # modules of white each side of the bars (ISO/IEC 15417)
PAD: Final = 2.5           # mm kept clear inside the label's edge
TEXT_W: Final = 19.0       # mm of the text column beside the barcode
DIGIT_EM: Final = 0.696    # width of a DejaVu Sans Bold digit (the printed font)
CAP_EM: Final = 0.73       # cap height of DejaVu Sans


@dataclass(frozen=True)
class LabelStock:
    """A sheet of labels: grid, label size, and the first label's top-left corner, in mm."""

    name: str
    description: str
    cols: int
    rows: int
    width: float
    height: float
    left: float
    top: float
    pitch_x: float
    pitch_y: float
    page: tuple[float, float] = A4

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows


STOCKS: Final = {s.name: s for s in (
    LabelStock("l7159", N_("A4, 3 x 8 labels of 63.5 x 33.9 mm"), 3, 8, 63.5, 33.9, 7.25, 12.9, 66.0, 33.9),
    LabelStock("l7160", N_("A4, 3 x 7 labels of 63.5 x 38.1 mm"), 3, 7, 63.5, 38.1, 7.25, 15.15, 66.0, 38.1),
    LabelStock("l7163", N_("A4, 2 x 7 labels of 99.1 x 38.1 mm"), 2, 7, 99.1, 38.1, 4.65, 15.15, 101.6, 38.1),
)}

BarWidths = Callable[[str], Sequence[int]]


def label_pages(labels: Sequence[BoardLabel], stock: LabelStock, bar_widths: BarWidths) -> list[Page]:
    """Sheets of `stock` holding `labels` in order, filled row by row."""
    pages = []
    for sheet in chunks(labels, stock.per_sheet):
        page = Page(*stock.page)
        for k, label in enumerate(sheet):
            x = stock.left + (k % stock.cols) * stock.pitch_x
            y = stock.top + (k // stock.cols) * stock.pitch_y
            page.items.extend(place(label_items(label, bar_widths(label.payload()), stock.width, stock.height),
                                    x, y))
        pages.append(page)
    return pages


def module_width(bars: Sequence[int], room: float) -> float:
    """The module width (mm) that fits the bars and quiet zones into `room` mm, at most MAX_MODULE."""
    return min(MAX_MODULE, room / (sum(bars) + 2 * QUIET))


def label_items(label: BoardLabel, bars: Sequence[int], w: float, h: float) -> list[Item]:
    """One label at its own origin: the barcode beside the text, its module width the largest that fits
    between MIN_MODULE and MAX_MODULE, with a quiet zone of QUIET modules each side; a payload too long to
    sit beside the text at MIN_MODULE takes the label's full width, the text under it."""
    beside = module_width(bars, w - 2 * PAD - TEXT_W - 1)
    if beside >= MIN_MODULE:
        return _side_by_side(label, bars, w, h, beside)
    above = module_width(bars, w - 2 * PAD)
    if above < MIN_MODULE:
        raise UsageError(_("label {label} is too long for {width} mm labels; use a shorter set name").format(
            label=repr(label.payload()), width=decimal(w, None)))
    return _stacked(label, bars, w, h, above)


def _side_by_side(label: BoardLabel, bars: Sequence[int], w: float, h: float, module: float) -> list[Item]:
    bar_h = h - 2 * PAD - 3.2
    items = barcode(bars, PAD, PAD, module, bar_h)
    code_w = (sum(bars) + 2 * QUIET) * module
    items.append(TextItem(PAD + code_w / 2, h - PAD, label.payload(), 6, anchor="middle"))
    cx = w - PAD - TEXT_W / 2
    number = str(label.board)
    size = min(30.0, TEXT_W / (len(number) * DIGIT_EM * POINT_MM))
    top = PAD + CAP_EM * size * POINT_MM
    items.append(TextItem(cx, top, number, size, "bold", anchor="middle"))
    set_size = min(8.0, TEXT_W / (len(label.set_name) * 0.72 * POINT_MM))
    items.append(TextItem(cx, top + 4.5, label.set_name, set_size, "bold", anchor="middle"))
    items.append(TextItem(cx, top + 8.2, _("Dealer {seat}").format(seat=seats_shown(SEATS[label.dealer])), 7,
                          anchor="middle"))
    items.append(TextItem(cx, top + 11.4, _("Vul {vulnerability}").format(
        vulnerability=vulnerability_name(Vulnerability(label.vulnerability))), 7, anchor="middle"))
    return items


def _stacked(label: BoardLabel, bars: Sequence[int], w: float, h: float, module: float) -> list[Item]:
    bar_h = h * 0.42
    items = barcode(bars, PAD, PAD, module, bar_h)
    items.append(TextItem(w / 2, PAD + bar_h + 2.6, label.payload(), 6, anchor="middle"))
    number = str(label.board)
    size = min(20.0, (h - bar_h - 2 * PAD - 3.5) / (CAP_EM * POINT_MM))
    items.append(TextItem(PAD, h - PAD, number, size, "bold"))
    items.append(TextItem(w - PAD, h - PAD - 3.4, label.set_name, 7, "bold", anchor="end"))
    details = (_("Dealer {seat}").format(seat=seats_shown(SEATS[label.dealer])) + "   "
               + _("Vul {vulnerability}").format(vulnerability=vulnerability_name(Vulnerability(label.vulnerability))))
    items.append(TextItem(w - PAD, h - PAD, details, 7, anchor="end"))
    return items


def barcode(bars: Sequence[int], x: float, y: float, module: float, height: float) -> list[Item]:
    """The bars of a symbol as black rectangles, after a quiet zone of QUIET modules from x."""
    items: list[Item] = []
    pos = x + QUIET * module
    for i, width in enumerate(bars):
        if i % 2 == 0:
            items.append(RectItem(pos, y, width * module, height))
        pos += width * module
    return items
