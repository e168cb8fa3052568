"""PBN deal texts in bulk: (n, 52) deal arrays to and from ``"F:h1 h2 h3 h4"`` strings, vectorised.

A full deal in PBN is always 69 characters: the first seat, a colon, then four hands of exactly 13 ranks
and 3 dots (16 characters) separated by single spaces. Both directions work on that fixed layout as
(n, 69) byte arrays, so a batch of deals is converted with a few numpy operations and no Python loop
per deal. Texts in another layout (an unknown hand ``-``, extra spaces) are left to the scalar
:func:`dealer.core.cards.from_pbn`, which also gives the exact reason when a text is not a deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.cards import DECK_SIZE, RANKS, SEATS, DealArray

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
# the text of a deal before its first seat and ranks are put in: "?:" then dots, a space between hands
BLANK_DEAL_TEXT: Final = b"?:" + b" ".join([b"." * _HAND_WIDTH] * 4)
_BLANK_TEXT = np.frombuffer(BLANK_DEAL_TEXT, dtype=np.uint8)
_CARD_RANK_CODES = np.tile(_RANK_CODES, 4)  # rank letter of each card index
_SUIT_OFFSET = (2 + np.arange(DECK_SIZE) // 13).astype(np.uint8)  # "X:" and the dots before the suit
_TEXT_CHUNK: Final = 8192


def deal_texts(deals: DealArray, first: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """PBN deal texts of an (n, 52) batch, hands clockwise from seat `first[i]`, as (n, 69) ASCII bytes.

    Ranks come in descending order within each suit, as the export format requires.
    """
    batch = np.asarray(deals, dtype=np.uint8).reshape(-1, DECK_SIZE)
    out = np.empty((len(batch), DEAL_TEXT_LENGTH), dtype=np.uint8)
    out[:] = _BLANK_TEXT
    put_deal_texts(batch, np.asarray(first, dtype=np.uint8), out, 0)
    return out


def put_deal_texts(deals: DealArray, first: npt.NDArray[np.uint8], rows: npt.NDArray[np.uint8],
                   column: int) -> None:
    """Write the deal texts of `deals` into columns column..column+68 of the C-contiguous byte rows.

    Those columns must already hold the blank text (``X:`` and dots, a space between hands): only the
    first seat and the 52 ranks are written. A card's column is its hand's start, plus the cards of
    its hand before it (cards in index order are suits S H D C, ranks high to low), plus one dot for
    each suit before its own; the columns left over are the dots. The cards before it in its hand are
    counted for all four hands at once: each card adds 1 to its hand's byte of a uint32 running sum.
    """
    n = len(deals)
    if rows.shape[0] != n or not rows.flags.c_contiguous:
        raise ValueError("rows must be C-contiguous with one row per deal")
    starts = np.broadcast_to(first, (n,))
    rows[:, column] = _SEAT_CODES[starts]
    for lo in range(0, n, _TEXT_CHUNK):  # in chunks: the uint32 and index temporaries stay in cache
        hi = min(lo + _TEXT_CHUNK, n)
        position = deals[lo:hi] - starts[lo:hi, None]
        position &= 3  # each card's hand: 0 for the hand written first
        shift = position << 3
        ones = np.left_shift(np.uint32(1), shift, dtype=np.uint32)
        before = np.cumsum(ones, axis=1, dtype=np.uint32)
        before -= ones
        before >>= shift  # the low byte is now the count of earlier cards in the same hand
        place = before.astype(np.uint8)  # keeps that low byte
        place += position * np.uint8(_HAND_WIDTH + 1)
        place += _SUIT_OFFSET
        index = place.astype(np.intp)
        index += (np.arange(lo, hi, dtype=np.intp) * rows.shape[1] + column)[:, None]
        rows.reshape(-1)[index.reshape(-1)] = np.broadcast_to(_CARD_RANK_CODES, (hi - lo, DECK_SIZE)).reshape(-1)


def parse_deal_texts(texts: Sequence[str]) -> tuple[DealArray, npt.NDArray[np.bool_]]:
    """Deals from PBN deal texts in the full 69-character layout (any first seat, any case).

    Returns the (n, 52) deals and a mask of the texts that were read; rows where the mask is False
    (another layout, or not a deal) hold no meaning and must be read with :func:`dealer.core.cards.from_pbn`.
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
