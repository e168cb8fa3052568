"""Curtain cards: one card per board and seat (board, seat, dealer, vulnerability, the hand), eight to
an A4 page in a 2 x 4 grid with dashed cutting lines, as page primitives (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dealer.language import _
from dealer.printing.drawing import A4, POINT_MM, Item, LineItem, Page, TextItem, place, ranks_em
from dealer.printing.handview import BoardView, HandView, chunks

MARGIN: Final = 10.0
COLS: Final = 2
ROWS: Final = 4
HAND_PT: Final = 16.0


def curtain_pages(views: Sequence[BoardView], title: str, page_size: tuple[float, float] = A4) -> list[Page]:
    """Pages of curtain cards, the four seats of a board together, two boards a page."""
    width, height = page_size
    card_w = (width - 2 * MARGIN) / COLS
    card_h = (height - 2 * MARGIN) / ROWS
    cards = [(view, hand) for view in views for hand in view.hands]
    pages = []
    for group in chunks(cards, COLS * ROWS):
        page = Page(width, height)
        for k, (view, hand) in enumerate(group):
            x = MARGIN + (k % COLS) * card_w
            y = MARGIN + (k // COLS) * card_h
            page.items.extend(place(card(view, hand, title, card_w, card_h), x, y))
        pages.append(page)
    return pages


def card(view: BoardView, hand: HandView, title: str, w: float, h: float) -> list[Item]:
    """One card at its own origin, its edges dashed for cutting."""
    items: list[Item] = [
        LineItem(0, 0, w, 0, dashed=True), LineItem(0, h, w, h, dashed=True),
        LineItem(0, 0, 0, h, dashed=True), LineItem(w, 0, w, h, dashed=True),
        TextItem(5, 11, _("Board {board}").format(board=view.board), 16, "bold"),
        TextItem(w - 5, 11, hand.seat_name, 16, "bold", anchor="end"),
        TextItem(5, 18, _("Dealer: {seat}").format(seat=view.dealer_name) + "    "
                 + _("Vul: {vulnerability}").format(vulnerability=view.vulnerability_name), 9),
        LineItem(5, 20.5, w - 5, 20.5, line=0.2),
        TextItem(5, h - 3.5, title, 6.5, color="grey"),
    ]
    longest = max(ranks_em(s) for s in hand.suits)
    size = min(HAND_PT, (w - 20) / (longest * POINT_MM))
    for k, (symbol, ranks, red) in enumerate(hand.lines()):
        base = 29 + k * 8.5
        items.append(TextItem(9, base, symbol, size, color="red" if red else "black"))
        items.append(TextItem(17, base, ranks, size))
    return items
