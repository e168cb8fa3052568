"""Hand-record sheets: boards in compass diagrams, several to an A4 page, as page primitives (pure).

Each board is drawn at a natural size of BLOCK_W x BLOCK_H mm (North top, West left, East right,
South bottom, a compass in the middle holding each hand's HCP, board, dealer and vulnerability top
left, par bottom left, the double-dummy table bottom right) and scaled to the page's grid cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dealer.language import _
from dealer.printing.drawing import A4, POINT_MM, Item, LineItem, Page, RectItem, TextItem, grid, place, ranks_em
from dealer.printing.handview import BoardView, HandView, chunks
from dealer.printing.words import seat_letters, strains_shown

BLOCK_W: Final = 91.0
BLOCK_H: Final = 61.0
MARGIN: Final = 10.0
HEADER: Final = 12.0
FOOTER: Final = 8.0
HAND_PT: Final = 9.0
HAND_ROOM: Final = (50.0, 29.0, 23.0, 32.0)  # mm a suit line of N E S W may take before it meets something
LINE: Final = 4.0             # suit line pitch at HAND_PT, mm
MAX_SCALE: Final = 1.8
DD_ORDER: Final = (0, 2, 1, 3)  # declarers N S E W


def record_pages(views: Sequence[BoardView], title: str, per_page: int = 6,
                 page_size: tuple[float, float] = A4) -> list[Page]:
    """The pages of a hand-record sheet: `per_page` boards a page under `title`, numbered pages."""
    pages = chunks(views, per_page)
    width, height = page_size
    cols, rows = grid(per_page)
    cell_w = (width - 2 * MARGIN) / cols
    cell_h = (height - 2 * MARGIN - HEADER - FOOTER) / rows
    scale = min(cell_w / (BLOCK_W + 2), cell_h / (BLOCK_H + 2), MAX_SCALE)
    out = []
    for number, boards in enumerate(pages, start=1):
        page = Page(width, height)
        page.items.append(TextItem(width / 2, MARGIN + 6, title, 14, "bold", anchor="middle"))
        page.items.append(TextItem(width / 2, height - MARGIN, _("Page {page} of {pages}").format(
            page=number, pages=len(pages)), 7, color="grey", anchor="middle"))
        top = MARGIN + HEADER
        page.items.extend(_cell_rules(cols, rows, cell_w, cell_h, top, len(boards)))
        for k, view in enumerate(boards):
            col, row = k % cols, k // cols
            dx = MARGIN + col * cell_w + (cell_w - BLOCK_W * scale) / 2
            dy = top + row * cell_h + (cell_h - BLOCK_H * scale) / 2
            page.items.extend(place(board_block(view), dx, dy, scale))
        out.append(page)
    return out


def _cell_rules(cols: int, rows: int, cell_w: float, cell_h: float, top: float, used: int) -> list[Item]:
    """Light rules between the grid cells of a page (only as far as boards go)."""
    rules: list[Item] = []
    used_rows = -(-used // cols)
    for r in range(1, used_rows):
        y = top + r * cell_h
        rules.append(LineItem(MARGIN, y, MARGIN + cols * cell_w, y, line=0.15))
    for c in range(1, cols):
        x = MARGIN + c * cell_w
        rules.append(LineItem(x, top, x, top + used_rows * cell_h, line=0.15))
    return rules


def board_block(view: BoardView) -> list[Item]:
    """One board at natural size, origin at the block's top-left corner."""
    items: list[Item] = [
        TextItem(1, 5, _("Board {board}").format(board=view.board), 11, "bold"),
        TextItem(1, 9.5, _("Dealer: {seat}").format(seat=view.dealer_name), 7.5),
        TextItem(1, 13.5, _("Vul: {vulnerability}").format(vulnerability=view.vulnerability_name), 7.5),
    ]
    size = hand_size(view.hands)
    step = LINE * size / HAND_PT
    north, east, south, west = view.hands
    items += hand_lines(north, 36, 4, size, step)
    items += hand_lines(west, 1, 24, size, step)
    items += hand_lines(east, 60, 24, size, step)
    items += hand_lines(south, 36, 45, size, step)
    items += compass(view.hands, 35, 19.5)
    if view.dd is not None:
        items += dd_table(view, 60, 42)
        items += par_lines(view, 1, 46)
    return items


def hand_size(hands: Sequence[HandView]) -> float:
    """Font size (pt) for a board's hands: HAND_PT unless a long suit needs less to fit its room."""
    size = HAND_PT
    for hand in hands:
        longest = max(ranks_em(s) for s in hand.suits)
        size = min(size, HAND_ROOM[hand.seat] / (0.4 + longest * POINT_MM))
    return size


def hand_lines(hand: HandView, x: float, y: float, size: float, step: float) -> list[Item]:
    """Four suit lines: the symbol (red for hearts and diamonds), then the ranks."""
    items: list[Item] = []
    for k, (symbol, ranks, red) in enumerate(hand.lines()):
        base = y + k * step
        items.append(TextItem(x, base, symbol, size, color="red" if red else "black"))
        items.append(TextItem(x + 0.4 * size, base, ranks, size))
    return items


def compass(hands: Sequence[HandView], x: float, y: float) -> list[Item]:
    """The compass box between the hands, each side naming its seat and that hand's HCP."""
    w, h = 22.0, 21.0
    n, e, s, wst = (f"{hd.seat_shown} {hd.hcp}" for hd in hands)
    return [
        RectItem(x, y, w, h, fill=None, stroke="grey", line=0.3),
        TextItem(x + w / 2, y + 4, n, 7, "bold", anchor="middle"),
        TextItem(x + w / 2, y + h - 1.6, s, 7, "bold", anchor="middle"),
        TextItem(x + 1, y + h / 2 + 1.2, wst, 7, "bold"),
        TextItem(x + w - 1, y + h / 2 + 1.2, e, 7, "bold", anchor="end"),
    ]


def dd_table(view: BoardView, x: float, y: float) -> list[Item]:
    """Double-dummy tricks: rows N S E W, columns NT ♠ ♥ ♦ ♣."""
    assert view.dd is not None
    items: list[Item] = []
    col = [x + 6.5 + 5.0 * k for k in range(5)]
    for k, symbol in enumerate(strains_shown()):
        items.append(TextItem(col[k], y + 2.5, symbol, 7, "bold", "red" if k in (2, 3) else "black", "middle"))
    items.append(LineItem(x, y + 3.6, x + 30, y + 3.6, line=0.15))
    for r, seat in enumerate(DD_ORDER):
        base = y + 6.7 + 3.4 * r
        items.append(TextItem(x + 0.5, base, seat_letters()[seat], 7, "bold"))
        items += [TextItem(col[k], base, str(t), 7, anchor="middle") for k, t in enumerate(view.dd.tricks[seat])]
    return items


def par_lines(view: BoardView, x: float, y: float) -> list[Item]:
    """'Par', the score and each par contract on its own line."""
    assert view.dd is not None
    items: list[Item] = [TextItem(x, y, _("Par {score}").format(score=view.dd.par_score_text()), 7.5, "bold")]
    for k, contract in enumerate(view.dd.par_contract_texts()[:3]):
        items.append(TextItem(x, y + 3.6 * (k + 1), contract, 7.5))
    return items
