"""What a board shows in print: dealer, vulnerability, and each hand as suit lines with its HCP.

Pure: a deal set in, plain text out. Ranks run high to low; the ten is written '10' with a space between
cards ("A K 10 9 2"), or 'T' with none ("AKT92"), as asked; a void is '—'. Suits are in Law 1 order
♠ ♥ ♦ ♣; hearts and diamonds print red.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from dealer.core.boards import Vulnerability
from dealer.core.cards import RANKS, SEATS, SUIT_SYMBOLS, DealArray, hcp
from dealer.core.dealset import BoardDeal, DealSet
from dealer.printing.doubledummy import DDResult
from dealer.printing.words import honours, seat_letters, seat_name, vulnerability_name

VOID: Final = "—"
TEN_STYLES: Final = ("10", "T")
RED_SUITS: Final = frozenset({1, 2})

T = TypeVar("T")


@dataclass(frozen=True)
class HandView:
    """One hand: its seat (0..3 = N E S W), four suit texts in order ♠ ♥ ♦ ♣, and its HCP."""

    seat: int
    suits: tuple[str, str, str, str]
    hcp: int

    @property
    def seat_name(self) -> str:
        return seat_name(self.seat)

    @property
    def seat_letter(self) -> str:
        """N E S W, whatever the language (a page's data names seats by it)."""
        return SEATS[self.seat]

    @property
    def seat_shown(self) -> str:
        """The seat's letter as printed in the language spoken."""
        return seat_letters()[self.seat]

    def lines(self) -> list[tuple[str, str, bool]]:
        """(suit symbol, ranks, is red) for each suit, in print order."""
        return [(SUIT_SYMBOLS[s], self.suits[s], s in RED_SUITS) for s in range(4)]


@dataclass(frozen=True)
class BoardView:
    """One board as printed: number, dealer, vulnerability, hands N E S W and, if analysed, DD result."""

    board: int
    dealer: int
    vulnerability: Vulnerability
    hands: tuple[HandView, HandView, HandView, HandView]
    dd: DDResult | None = None

    @property
    def dealer_name(self) -> str:
        return seat_name(self.dealer)

    @property
    def vulnerability_name(self) -> str:
        return vulnerability_name(self.vulnerability)


def suit_text(deal: DealArray, seat: int, suit: int, ten: str = "10") -> str:
    """The ranks `seat` holds in `suit`, high to low ('A K 10 9 2', or 'AKT92' with `ten` 'T'), '—' for a
    void."""
    letters = honours()
    held = [letters.get(RANKS[r], RANKS[r]) for r in range(13) if deal[suit * 13 + r] == seat]
    if not held:
        return VOID
    return "".join(held) if ten == "T" else " ".join(held).replace("T", ten)


def board_view(bd: BoardDeal, ten: str = "10", dd: DDResult | None = None) -> BoardView:
    """The printed view of one board; `ten` is '10' or 'T'."""
    if ten not in TEN_STYLES:
        raise ValueError(f"the ten prints as '10' or 'T', not {ten!r}")
    points = hcp(bd.deal)
    hands = tuple(HandView(seat, (suit_text(bd.deal, seat, 0, ten), suit_text(bd.deal, seat, 1, ten),
                                  suit_text(bd.deal, seat, 2, ten), suit_text(bd.deal, seat, 3, ten)),
                           int(points[seat])) for seat in range(4))
    return BoardView(bd.board, bd.dealer, bd.vulnerability, (hands[0], hands[1], hands[2], hands[3]), dd)


def board_views(deals: DealSet, ten: str = "10", dd: Sequence[DDResult] | None = None) -> list[BoardView]:
    """Printed views of every board of a set, in set order, with DD results if given (one per board)."""
    if dd is not None and len(dd) != len(deals):
        raise ValueError(f"{len(dd)} double-dummy results for {len(deals)} boards")
    return [board_view(bd, ten, None if dd is None else dd[i]) for i, bd in enumerate(deals)]


def chunks(items: Sequence[T], size: int) -> list[list[T]]:
    """`items` cut into consecutive runs of `size` (the last may be shorter)."""
    if size < 1:
        raise ValueError("a page holds at least one item")
    return [list(items[i:i + size]) for i in range(0, len(items), size)]
