"""PBN deal texts in bulk: (n, 52) deal arrays to and from ``"F:h1 h2 h3 h4"`` strings, vectorised.

A full deal in PBN is always 69 characters: the first seat, a colon, then four hands of exactly 13 ranks
and 3 dots (16 characters) separated by single spaces. Both directions work on that fixed layout as
(n, 69) byte arrays, so a batch of deals is converted with a few numpy operations and no Python loop
per deal. Texts in another layout (an unknown hand ``-``, extra spaces) are left to the scalar
:func:`dealer.cards.from_pbn`, which also gives the exact reason when a text is not a deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.cards import DECK_SIZE, RANKS, SEATS, DealArray

DEAL_TEXT_LENGTH: Final = 69  # "N:" + 4 hands of 16 + 3 spaces
_HAND_WIDTH: Final = 16
_SPACE_COLUMNS: Final = (18, 35, 52)  # columns of the three spaces between hands
_UNSET: Final = 255

_SEAT_CODES = np.frombuffer(SEATS.encode("ascii"), dtype=np.uint8)
_RANK_CODES = np.frombuffer(RANKS.encode("ascii"), dtype=np.uint8)


def _lookup(alphabet: str) -> npt.NDArray[np.uint8]:
    """Byte -> index in `alphabet` (either case), 255 for any other byte."""
    table = np.full(256, _UNSET, dtype=np.uint8)
    for i, ch in enumerate(alphabet):
        table[ord(ch)] = table[ord(ch.lower())] = i
    return table


_SEAT_OF_BYTE = _lookup(SEATS)
_RANK_OF_BYTE = _lookup(RANKS)


def deal_texts(deals: DealArray, first: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """PBN deal texts of an (n, 52) batch, hands clockwise from seat `first[i]`, as (n, 69) ASCII bytes.

    Ranks come in descending order within each suit, as the export format requires.
    """
    batch = np.asarray(deals, dtype=np.uint8).reshape(-1, DECK_SIZE)
    n = len(batch)
    starts = np.broadcast_to(np.asarray(first, dtype=np.uint8), (n,))
    out = np.full((n, DEAL_TEXT_LENGTH), ord("."), dtype=np.uint8)
    out[:, 0] = _SEAT_CODES[starts]
    out[:, 1] = ord(":")
    out[:, list(_SPACE_COLUMNS)] = ord(" ")
    position = (batch - starts[:, None]) % 4  # each card's hand position, 0 for the first hand
    # cards of each hand in ascending index order = suits S H D C, ranks high to low
    cards = np.concatenate(
        [np.nonzero(position == k)[1].reshape(n, 13) for k in range(4)], axis=1)
    slot = np.arange(DECK_SIZE)
    # a card's column: its hand's start, its place in the hand, plus one dot per suit before its own
    columns = 2 + (slot // 13) * (_HAND_WIDTH + 1) + slot % 13 + cards // 13
    np.put_along_axis(out, columns, _RANK_CODES[cards % 13], axis=1)
    return out


def parse_deal_texts(texts: Sequence[str]) -> tuple[DealArray, npt.NDArray[np.bool_]]:
    """Deals from PBN deal texts in the full 69-character layout (any first seat, any case).

    Returns the (n, 52) deals and a mask of the texts that were read; rows where the mask is False
    (another layout, or not a deal) hold no meaning and must be read with :func:`dealer.cards.from_pbn`.
    """
    n = len(texts)
    deals = np.full((n, DECK_SIZE), _UNSET, dtype=np.uint8)
    fits = np.fromiter((len(t) == DEAL_TEXT_LENGTH for t in texts), dtype=bool, count=n)
    rows = np.flatnonzero(fits)
    if not rows.size:
        return deals, fits
    text = "".join(texts[i] for i in rows.tolist()).encode("latin-1", "replace")
    raw = np.frombuffer(text, dtype=np.uint8).reshape(len(rows), DEAL_TEXT_LENGTH)
    read, ok = _parse_fixed(raw)
    deals[rows[ok]] = read
    fits[rows[~ok]] = False
    return deals, fits


def _parse_fixed(raw: npt.NDArray[np.uint8]) -> tuple[DealArray, npt.NDArray[np.bool_]]:
    """Deals of the rows of (m, 69) bytes that are well-formed full deals, and the mask of those rows."""
    first = _SEAT_OF_BYTE[raw[:, 0]]
    body = raw[:, 2:]
    space = body == ord(" ")
    dot = body == ord(".")
    hand = np.cumsum(space, axis=1, dtype=np.int16)
    dots = np.cumsum(dot, axis=1, dtype=np.int16)
    rank = _RANK_OF_BYTE[body]
    is_card = ~(space | dot)
    ok = (first < 4) & (raw[:, 1] == ord(":")) & (space.sum(axis=1) == 3) & (dot.sum(axis=1) == 12)
    ok &= (raw[:, list(_SPACE_COLUMNS)] == ord(" ")).all(axis=1)  # hands of 16 chars: 13 cards each
    ok &= ~(space & (dots != 3 * hand)).any(axis=1)  # three dots in every hand: four suits
    ok &= ~(is_card & (rank == _UNSET)).any(axis=1)
    good = np.flatnonzero(ok)
    m = len(good)
    if not m:
        return np.empty((0, DECK_SIZE), dtype=np.uint8), ok
    picked = is_card[good]
    suit = dots[good] - 3 * hand[good]
    cards = (suit * 13 + rank[good])[picked].reshape(m, DECK_SIZE)
    seats = ((first[good, None] + hand[good]) % 4)[picked].reshape(m, DECK_SIZE).astype(np.uint8)
    deals = np.full((m, DECK_SIZE), _UNSET, dtype=np.uint8)
    np.put_along_axis(deals, cards.astype(np.intp), seats, axis=1)
    whole = (deals != _UNSET).all(axis=1)  # 52 cards in 52 places: none twice, none missing
    ok[good[~whole]] = False
    return deals[whole], ok
