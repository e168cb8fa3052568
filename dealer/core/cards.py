"""Cards, suits, seats (Law 1) and the deal array: the data model every other module speaks.

A card is an index 0..51 = suit * 13 + rank, suits in Law 1 order S H D C, ranks A K Q J T 9 .. 2,
so 0 is the spade ace and 51 the club two (Duplimate card numbers are index + 1).
A seat is 0..3 = N E S W. A deal is a ``uint8`` array of 52 seats, one per card; a batch of deals is
``(n, 52)``. The invariant, checked at every boundary by :func:`check_deals`: 13 cards per seat.

The packed wire form is 13 bytes, 2 bits a card: card ``c`` is in byte ``c // 4`` at bits
``7 - 2*(c % 4)`` .. ``6 - 2*(c % 4)`` (the first card of a byte in its high bits).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.errors import InvalidDealError
from dealer.language import _

SEATS: Final = "NESW"
SUITS: Final = "SHDC"
RANKS: Final = "AKQJT98765432"
SUIT_SYMBOLS: Final = "♠♥♦♣"
CARDS_PER_SEAT: Final = 13
DECK_SIZE: Final = 52
PACKED_SIZE: Final = 13

DealArray = npt.NDArray[np.uint8]

_SHIFTS = np.array([6, 4, 2, 0], dtype=np.uint8)


def card_index(suit: str, rank: str) -> int:
    """Index of a card from its suit letter (S H D C) and rank letter (A K Q J T 9..2; 10 accepted)."""
    s = SUITS.index(suit.upper())
    r = RANKS.index("T" if rank == "10" else rank.upper())
    return s * 13 + r


def card_name(card: int) -> str:
    """Two-letter name of a card index: suit then rank, e.g. 0 -> 'SA', 51 -> 'C2'."""
    return SUITS[card // 13] + RANKS[card % 13]


def seat_index(seat: str) -> int:
    """Seat number 0..3 of a seat letter N E S W (any case)."""
    i = SEATS.find(seat.strip().upper()[:1]) if seat.strip() else -1
    if i < 0:
        raise ValueError(_("not a seat: {seat} (expected N, E, S or W)").format(seat=repr(seat)))
    return i


def check_deals(deals: npt.ArrayLike) -> DealArray:
    """Return `deals` as a (52,) or (n, 52) uint8 array, or raise `InvalidDealError` naming the row.

    Every row must hold 52 seats 0..3 with exactly 13 cards per seat.
    """
    arr = np.asarray(deals)
    if arr.ndim not in (1, 2) or arr.shape[-1] != DECK_SIZE:
        raise InvalidDealError(_("a deal is 52 seats per row; got shape {shape}").format(shape=arr.shape))
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise InvalidDealError(_("a deal holds integer seats; got dtype {dtype}").format(dtype=arr.dtype))
    batch = arr.reshape(-1, DECK_SIZE)
    if batch.size and (batch.min() < 0 or batch.max() > 3):
        row = int(np.flatnonzero(((batch < 0) | (batch > 3)).any(axis=1))[0])
        raise InvalidDealError(_("deal {row}: seats must be 0..3 (N E S W)").format(row=row))
    out = batch.astype(np.uint8, copy=False)
    bad = np.flatnonzero(_seat_count_codes(out) != _THIRTEEN_EACH)
    if bad.size:
        row = int(bad[0])
        counts = seat_counts(out[row])[0]
        shown = " ".join(f"{SEATS[s]}={int(counts[s])}" for s in range(4))
        raise InvalidDealError(_("deal {row}: every seat needs 13 cards ({counts})").format(row=row, counts=shown))
    return out.reshape(arr.shape)


# the counts of a row's seats in one number: seat s adds 64**s, and counts of at most 52 cannot carry
_THIRTEEN_EACH: Final = CARDS_PER_SEAT * (1 + 64 + 64**2 + 64**3)
_ROWS_AT_ONCE: Final = 8192


def _seat_count_codes(deals: DealArray) -> npt.NDArray[np.uint32]:
    """Per row of seats 0..3: the sum of 64**seat, i.e. the four seat counts in base 64."""
    codes = np.empty(len(deals), dtype=np.uint32)
    for start in range(0, len(deals), _ROWS_AT_ONCE):  # small temporaries, kept in cache
        part = deals[start : start + _ROWS_AT_ONCE]
        powers = np.left_shift(np.uint32(1), part * np.uint8(6), dtype=np.uint32)
        powers.sum(axis=1, dtype=np.uint32, out=codes[start : start + _ROWS_AT_ONCE])
    return codes


def seat_counts(deals: DealArray) -> npt.NDArray[np.intp]:
    """Cards per seat, shape (n, 4), for an (n, 52) batch of seats 0..3 (not checked)."""
    batch = np.asarray(deals).reshape(-1, DECK_SIZE)
    return np.stack([(batch == s).sum(axis=1) for s in range(4)], axis=1)


def hands(deal: DealArray) -> tuple[tuple[int, ...], ...]:
    """The four hands N E S W of one deal, each a sorted tuple of card indices."""
    deal = check_deals(deal).reshape(DECK_SIZE)
    return tuple(tuple(int(c) for c in np.flatnonzero(deal == s)) for s in range(4))


def from_hands(hands_: Sequence[Sequence[int]]) -> DealArray:
    """A (52,) deal from four hands (N E S W) of card indices; raises `InvalidDealError` if not a deal."""
    if len(hands_) != 4:
        raise InvalidDealError(_("a deal has 4 hands; got {count}").format(count=len(hands_)))
    deal = np.full(DECK_SIZE, 255, dtype=np.uint8)
    for seat, hand in enumerate(hands_):
        for card in hand:
            if not 0 <= card < DECK_SIZE:
                raise InvalidDealError(_("{seat}: no card {card}").format(seat=SEATS[seat], card=card))
            if deal[card] != 255:
                raise InvalidDealError(_("{card} is in two hands").format(card=card_name(card)))
            deal[card] = seat
    if (deal == 255).any():
        missing = " ".join(card_name(int(c)) for c in np.flatnonzero(deal == 255))
        raise InvalidDealError(_("cards in no hand: {cards}").format(cards=missing))
    return check_deals(deal)


def hand_text(deal: DealArray, seat: int) -> str:
    """One hand in PBN form 'S.H.D.C' with ranks high to low, e.g. 'AK2.QJ3..T98765'."""
    deal = np.asarray(deal).reshape(DECK_SIZE)
    return ".".join(
        "".join(RANKS[r] for r in range(13) if deal[s * 13 + r] == seat) for s in range(4)
    )


def to_pbn(deal: DealArray, first: int = 0) -> str:
    """PBN deal string of one deal, hands clockwise from seat `first`, e.g. 'N:AK.. ... ... ...'."""
    deal = check_deals(deal).reshape(DECK_SIZE)
    order = [(first + k) % 4 for k in range(4)]
    return SEATS[first] + ":" + " ".join(hand_text(deal, s) for s in order)


def from_pbn(text: str) -> DealArray:
    """A (52,) deal from a PBN deal string 'F:h1 h2 h3 h4' (first seat any, hands clockwise).

    One hand may be '-' (unknown) when the other three are complete: it gets the remaining cards.
    Raises `InvalidDealError` (a `ValueError`) with the reason.
    """
    first_text, sep, rest = text.strip().partition(":")
    if not sep:
        raise InvalidDealError(_("deal {text} lacks 'first seat:' prefix").format(text=repr(text)))
    try:
        first = seat_index(first_text)
    except ValueError as exc:
        raise InvalidDealError(str(exc)) from None
    parts = rest.split()
    if len(parts) != 4:
        raise InvalidDealError(_("deal needs 4 hands; got {count}").format(count=len(parts)))
    deal = np.full(DECK_SIZE, 255, dtype=np.uint8)
    unknown = []
    for k, hand in enumerate(parts):
        seat = (first + k) % 4
        if hand == "-":
            unknown.append(seat)
            continue
        _place_hand(deal, seat, hand)
    if len(unknown) == 1:
        deal[deal == 255] = unknown[0]
    elif unknown:
        raise InvalidDealError(_("more than one hand is unknown ('-')"))
    if (deal == 255).any():
        missing = " ".join(card_name(int(c)) for c in np.flatnonzero(deal == 255))
        raise InvalidDealError(_("cards in no hand: {cards}").format(cards=missing))
    return check_deals(deal)


def _place_hand(deal: DealArray, seat: int, hand: str) -> None:
    suits = hand.split(".")
    if len(suits) != 4:
        raise InvalidDealError(_("hand {hand} needs 4 suits separated by '.'").format(hand=repr(hand)))
    for s, ranks in enumerate(suits):
        for ch in ranks.upper():
            r = RANKS.find(ch)
            if r < 0:
                raise InvalidDealError(_("hand {hand}: {rank} is not a rank").format(hand=repr(hand), rank=repr(ch)))
            card = s * 13 + r
            if deal[card] != 255:
                raise InvalidDealError(_("{card} appears twice").format(card=card_name(card)))
            deal[card] = seat


def pack(deals: DealArray) -> npt.NDArray[np.uint8]:
    """Packed 13-byte form (2 bits a card) of a (52,) deal or an (n, 52) batch: shape (13,) or (n, 13)."""
    arr = check_deals(deals)
    quads = arr.reshape(*arr.shape[:-1], PACKED_SIZE, 4)
    packed: npt.NDArray[np.uint8] = np.bitwise_or.reduce(quads << _SHIFTS, axis=-1).astype(np.uint8)
    return packed


def unpack(packed: npt.ArrayLike) -> DealArray:
    """Deals from the packed 13-byte form; raises `InvalidDealError` if a seat has not 13 cards."""
    arr = np.asarray(packed, dtype=np.uint8)
    if arr.shape[-1:] != (PACKED_SIZE,):
        raise InvalidDealError(_("a packed deal is 13 bytes; got shape {shape}").format(shape=arr.shape))
    seats = (arr[..., :, None] >> _SHIFTS) & 3
    return check_deals(seats.reshape(*arr.shape[:-1], DECK_SIZE).astype(np.uint8))


def rotate(deals: DealArray, steps: int) -> DealArray:
    """Each hand moved `steps` seats clockwise (N's cards go to E for steps=1)."""
    return ((np.asarray(deals, dtype=np.uint8) + steps) % 4).astype(np.uint8)


HCP_BY_RANK: Final = (4, 3, 2, 1) + (0,) * 9


def hcp(deals: DealArray) -> npt.NDArray[np.intp]:
    """High-card points (A4 K3 Q2 J1) per seat: shape (4,) for one deal, (n, 4) for a batch."""
    arr = np.asarray(deals)
    points = np.tile(np.array(HCP_BY_RANK), 4)
    per_seat: npt.NDArray[np.intp] = np.stack([((arr == s) * points).sum(axis=-1) for s in range(4)], axis=-1)
    return per_seat
