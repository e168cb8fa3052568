"""Hand records and curtain cards as one self-contained HTML page (inline CSS, A4 print breaks). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

from dealer.language import _, spoken_language
from dealer.printing.drawing import grid
from dealer.printing.handview import BoardView, HandView, chunks
from dealer.printing.records_layout import HAND_PT, hand_size
from dealer.printing.words import seat_letters, strains_shown

BOARD_CSS: Final = """
.board { display: grid; grid-template-columns: 32% 34% 34%; padding: 3mm;
  grid-template-areas: "info north north" "west compass east" "par south dd";
  border-bottom: 0.2mm solid #bbb; font-size: 9pt; color: #000; break-inside: avoid; }
.board .info { grid-area: info; } .board .info h2 { font-size: 11pt; margin: 0 0 1mm; }
.board .info p { margin: 0; font-size: 7.5pt; }
.board .hand { font-size: calc(var(--hand-scale, 1) * 1em); }
.board .hand.north { grid-area: north; } .board .hand.south { grid-area: south; }
.board .hand.west { grid-area: west; align-self: center; }
.board .hand.east { grid-area: east; align-self: center; padding-left: 2mm; }
:is(.board, .card) .suit { white-space: nowrap; line-height: 1.3; }
:is(.board, .card) .sym { display: inline-block; width: 1.2em; }
:is(.board, .card) .red { color: #c00; }
.board .compass { grid-area: compass; border: 0.3mm solid #999; width: 22mm; height: 21mm; position: relative;
  font-size: 7pt; font-weight: bold; margin: 1mm 0; }
.board .compass .hcp { position: absolute; white-space: nowrap; }
.board .hcp.N { top: 1mm; left: 0; right: 0; text-align: center; }
.board .hcp.S { bottom: 1mm; left: 0; right: 0; text-align: center; }
.board .hcp.W { left: 1mm; top: 8mm; } .board .hcp.E { right: 1mm; top: 8mm; }
.board .compass .caption { position: absolute; top: 8mm; left: 0; right: 0; text-align: center;
  font-weight: normal; color: #555; }
.board .par { grid-area: par; font-size: 7.5pt; align-self: end; } .board .par p { margin: 0; }
.board table.dd { grid-area: dd; border-collapse: collapse; font-size: 7pt; align-self: end; }
.board table.dd th, .board table.dd td { padding: 0 1.2mm; text-align: center; border: 0; }
.board table.dd thead th { border-bottom: 0.2mm solid #999; }
.cards { display: grid; grid-template-columns: 1fr 1fr; }
.card { border: 0.3mm dashed #999; padding: 4mm; height: 58mm; break-inside: avoid; }
.card header { display: flex; justify-content: space-between; font-size: 16pt; font-weight: bold; }
.card .meta { font-size: 9pt; margin: 1mm 0 3mm; border-bottom: 0.2mm solid #999; padding-bottom: 1mm; }
.card .hand { font-size: 16pt; }
"""
"""How a board and a curtain card look, every rule under `.board` or `.card`: the printed page inlines it,
and the console serves it as its own stylesheet for the director's board view."""
PAGE_CSS: Final = """
@page { size: A4; margin: 10mm; }
body { font-family: Helvetica, Arial, sans-serif; color: #000; margin: 0; }
.page { width: 190mm; margin: 0 auto 8mm; }
h1 { text-align: center; font-size: 14pt; margin: 2mm 0 4mm; }
.sheet { display: grid; gap: 0; }
.footer { text-align: center; color: #888; font-size: 7pt; }
@media print { .page { break-after: page; margin: 0; } .page:last-child { break-after: auto; } }
"""
CSS: Final = PAGE_CSS + BOARD_CSS


def records_html(views: Sequence[BoardView], title: str, per_page: int = 6) -> str:
    """A hand-record sheet: `per_page` boards a printed page, each in its compass diagram."""
    pages = chunks(views, per_page)
    cols, _rows = grid(per_page)
    body = []
    for number, boards in enumerate(pages, start=1):
        blocks = "\n".join(board_html(v) for v in boards)
        footer = escape(_("Page {page} of {pages}").format(page=number, pages=len(pages)))
        body.append(f'<section class="page">\n<h1>{escape(title)}</h1>\n'
                    f'<div class="sheet" style="grid-template-columns: repeat({cols}, 1fr)">\n{blocks}\n</div>\n'
                    f'<p class="footer">{footer}</p>\n</section>')
    return _document(title, "\n".join(body))


def curtains_html(views: Sequence[BoardView], title: str) -> str:
    """Curtain cards: one card per board and seat, two boards (eight cards) a printed page."""
    body = []
    for boards in chunks(views, 2):
        cards = "\n".join(card_html(v, hand, title) for v in boards for hand in v.hands)
        body.append(f'<section class="page">\n<div class="cards">\n{cards}\n</div>\n</section>')
    return _document(title, "\n".join(body))


def _document(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="{spoken_language()}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{escape(title)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def hand_html(hand: HandView, where: str, scale: float = 1.0) -> str:
    """One hand's four suit lines; `scale` below 1 sets them smaller (a long suit, as on the PDF)."""
    lines = "".join(
        f'<div class="suit"><span class="sym{" red" if red else ""}">{symbol}</span>'
        f'<span class="ranks">{escape(ranks)}</span></div>'
        for symbol, ranks, red in hand.lines())
    style = f' style="--hand-scale: {scale:.2f}"' if scale < 1 else ""
    return (f'<div class="hand {where}" data-seat="{hand.seat_letter}" aria-label="{hand.seat_name}"{style}>'
            f"{lines}</div>")


def board_html(view: BoardView) -> str:
    """One board: info, the four hands around the compass of HCP, and DD table and par if analysed."""
    north, east, south, west = view.hands
    scale = hand_size(view.hands) / HAND_PT  # the hands' type, made smaller for a long suit as on the PDF
    points, meaning = _("HCP"), _("high-card points of each hand")
    compass = " ".join(f'<span class="hcp {h.seat_letter}" data-seat="{h.seat_letter}" title="{h.seat_name}: '
                       f'{h.hcp} {points}">{h.seat_shown} {h.hcp}</span>' for h in view.hands)
    parts = [
        f'<article class="board" data-board="{view.board}">',
        '<div class="info"><h2>' + _("Board {board}").format(board=view.board) + '</h2><p class="dealer">'
        + _("Dealer: {seat}").format(seat=view.dealer_name) + '</p><p class="vul">'
        + _("Vul: {vulnerability}").format(vulnerability=view.vulnerability_name) + "</p></div>",
        hand_html(north, "north", scale), hand_html(west, "west", scale),
        f'<div class="compass" title="{escape(meaning, quote=True)}">{compass}'
        f'<span class="caption">{points}</span></div>',
        hand_html(east, "east", scale), hand_html(south, "south", scale),
    ]
    if view.dd is not None:
        parts.append(_par_html(view) + _dd_html(view))
    parts.append("</article>")
    return "\n".join(parts)


def _par_html(view: BoardView) -> str:
    assert view.dd is not None
    contracts = "".join(f'<p class="contract">{escape(c)}</p>' for c in view.dd.par_contract_texts())
    par = _("Par {score}").format(score=view.dd.par_score_text())
    return f'<div class="par"><p><b>{escape(par)}</b></p>{contracts}</div>'


def _dd_html(view: BoardView) -> str:
    assert view.dd is not None
    head = "".join(f'<th{" class=red" if k in (2, 3) else ""}>{s}</th>' for k, s in enumerate(strains_shown()))
    shown = seat_letters()
    rows = "".join(
        f'<tr data-declarer="{"NESW"[seat]}"><th>{shown[seat]}</th>'
        + "".join(f"<td>{t}</td>" for t in view.dd.tricks[seat]) + "</tr>"
        for seat in (0, 2, 1, 3))
    return f'<table class="dd"><thead><tr><th></th>{head}</tr></thead><tbody>{rows}</tbody></table>'


def card_html(view: BoardView, hand: HandView, title: str) -> str:
    """One curtain card: board, seat, dealer, vulnerability and that seat's hand."""
    return (f'<article class="card" data-board="{view.board}" data-seat="{hand.seat_letter}">'
            '<header><span class="board">' + _("Board {board}").format(board=view.board) + "</span>"
            f'<span class="seat">{hand.seat_name}</span></header><p class="meta">'
            + _("Dealer: {seat}").format(seat=view.dealer_name) + " &nbsp; "
            + _("Vul: {vulnerability}").format(vulnerability=view.vulnerability_name)
            + f' &nbsp; <span class="event">{escape(title)}</span></p>'
            f"{hand_html(hand, 'curtain')}</article>")
