"""The hand functions over a batch of deals, in numpy: each hand's suits as 13-bit masks (bit 0 the ace, bit 12
the two), and every function of one suit a table of its 8192 holdings, looked up for the whole batch at
once. `Batch` computes what a condition asks for once and keeps it while the condition is evaluated.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.cards import DealArray

HOLDINGS: Final = 1 << 13
IntArray = npt.NDArray[np.int32]

HCP: Final = (4, 3, 2, 1) + (0,) * 9
CONTROLS: Final = (2, 1) + (0,) * 11
ALT_COUNTS: Final = (
    (0, 0, 0, 0, 1) + (0,) * 8,  # pt0 tens
    (0, 0, 0, 1) + (0,) * 9,  # pt1 jacks
    (0, 0, 1) + (0,) * 10,  # pt2 queens
    (0, 1) + (0,) * 11,  # pt3 kings
    (1,) + (0,) * 12,  # pt4 aces
    (1, 1) + (0,) * 11,  # pt5 top2
    (1, 1, 1) + (0,) * 10,  # pt6 top3
    (1, 1, 1, 1) + (0,) * 9,  # pt7 top4
    (1, 1, 1, 1, 1) + (0,) * 8,  # pt8 top5
    (6, 4, 2, 1) + (0,) * 9,  # pt9 c13
)
"""The ten alternate counts as the reference program sets them, ace first."""

_BITS: Final = (np.arange(HOLDINGS)[:, None] >> np.arange(13)) & 1
LENGTH_TABLE: Final = _BITS.sum(axis=1).astype(np.int32)
_GATHER: Final = np.uint64(0x0102040810204080)
"""Times eight bytes of 0 or 1 (byte j at bits 8j), puts byte j's bit at bit 56 + j: the terms are distinct
powers of two, so nothing carries."""


def _suit_masks(deals: DealArray, seat: int) -> npt.NDArray[np.uint16]:
    """(n, 4) a seat's 13-bit mask in each suit: each suit's 13 cards as bytes 0 or 1 in two 8-byte words,
    each word's bytes gathered into bits by one multiplication."""
    n = len(deals)
    held = np.zeros((n, 4, 16), dtype=np.bool_)
    np.equal(deals.reshape(n, 4, 13), seat, out=held[:, :, :13])
    words = held.view("<u8")  # (n, 4, 2): ranks A..9 (bytes 0..7), then 8..2
    words *= _GATHER
    words >>= np.uint64(56)
    masks = words[:, :, 1].astype(np.uint16)
    masks <<= 8
    masks |= words[:, :, 0]
    return masks


def points_table(weights: tuple[int, ...]) -> IntArray:
    """Each holding's sum of `weights` (ace first) over the cards it holds."""
    table: IntArray = (_BITS @ np.asarray(weights, dtype=np.int64)).astype(np.int32)
    return table


def _losers(holding: int) -> int:
    length = bin(holding).count("1")
    ace, king, queen = holding & 1, (holding >> 1) & 1, (holding >> 2) & 1
    if length == 0:
        return 0
    if length == 1:
        return 1 - ace
    if length == 2:
        return 2 - ace - king
    return 3 - ace - king - queen


LOSER_TABLE: Final = np.array([_losers(h) for h in range(HOLDINGS)], dtype=np.int32)


def _quality(holding: int) -> int:
    """The suit quality of Kaplan and Rubens (The Bridge World, October 1982), times 100 as the reference
    program gives it: a tenth of the length times the honours (A 4, K 3, Q 2, J 1); in a suit of seven or
    more, missing queen and jack are made up by the length beyond six; else the ten counts whole beside two
    higher honours or the jack, half alone, and the nine half beside exactly two higher honours, the ten or
    the eight."""
    length = bin(holding).count("1")
    ace, king, queen, jack, ten, nine, eight = ((holding >> bit) & 1 for bit in range(7))
    factor = 10 * length
    higher = ace + king + queen + jack
    quality = factor * (4 * ace + 3 * king + 2 * queen + jack)
    if length > 6:
        quality += factor * min(3 - 2 * queen - jack, length - 6)
    else:
        if ten:
            quality += factor if higher > 1 or jack else factor // 2
        if nine and (higher == 2 or ten or eight):
            quality += factor // 2
    return quality


def _cccc_suit(holding: int) -> int:
    """One suit's share of the Kaplan-Rubens evaluation, times 100: ace 3, king 2 (half a point in a
    singleton), queen 1 (less a quarter when doubleton or without a higher honour, a quarter in a
    singleton), jack a quarter beside one higher honour and a half beside two, ten a quarter beside two
    higher honours or one and the nine; then the suit's quality. The shape is counted apart (`SHAPE_POINTS`)."""
    length = bin(holding).count("1")
    ace, king, queen, jack, ten, nine = ((holding >> bit) & 1 for bit in range(6))
    value = 300 * ace + (200 - (150 if length == 1 else 0)) * king
    if queen:
        value += 100 - (75 if length == 1 else 25 if length == 2 else 0) - (25 if ace + king == 0 else 0)
    higher = ace + king + queen
    if jack:
        value += 50 if higher == 2 else 25 if higher == 1 else 0
    higher += jack
    if ten and (higher == 2 or (higher == 1 and nine)):
        value += 25
    return value + _quality(holding)


QUALITY_TABLE: Final = np.array([_quality(h) for h in range(HOLDINGS)], dtype=np.int32)
CCCC_TABLE: Final = np.array([_cccc_suit(h) for h in range(HOLDINGS)], dtype=np.int32)
SHAPE_POINTS: Final = np.maximum(0, 3 - LENGTH_TABLE) * 100
"""The Kaplan-Rubens shape points a suit adds: 3 for a void, 2 for a singleton, 1 for a doubleton (times 100);
the hand's sum, less 1 (a hand without short suits: less a half), is added to its suits' shares."""
SHAPE_CODES: Final = 14 ** 4


def shape_table(shapes: frozenset[tuple[int, ...]]) -> npt.NDArray[np.bool_]:
    """A table by shape code (see `shape_codes`) of the shapes in `shapes`."""
    table = np.zeros(SHAPE_CODES, dtype=np.bool_)
    for s, h, d, c in shapes:
        table[((s * 14 + h) * 14 + d) * 14 + c] = True
    return table


class Batch:
    """A batch of deals (n, 52) and what has been computed on it, each computed at most once."""

    def __init__(self, deals: DealArray) -> None:
        self.deals = deals
        self.size = len(deals)
        self._masks: dict[int, npt.NDArray[np.uint16]] = {}
        self._values: dict[tuple[int, int, int | None], IntArray] = {}
        self._codes: dict[int, npt.NDArray[np.intp]] = {}

    def masks(self, seat: int) -> npt.NDArray[np.uint16]:
        """(n, 4) the seat's holding in each suit (spades first) as a 13-bit mask, ace at bit 0."""
        found = self._masks.get(seat)
        if found is None:
            found = _suit_masks(self.deals, seat)
            self._masks[seat] = found
        return found

    def suit_values(self, table: IntArray, seat: int, suit: int | None) -> IntArray:
        """A holding table's value for a seat in one suit, or summed over the hand (suit None)."""
        key = (id(table), seat, suit)
        found = self._values.get(key)
        if found is None:
            masks = self.masks(seat)
            if suit is None:
                per_suit = table[masks]
                found = per_suit.sum(axis=1, dtype=np.int32)
            else:
                found = table[masks[:, suit]]
            self._values[key] = found
        return found

    def shape_codes(self, seat: int) -> npt.NDArray[np.intp]:
        """Each deal's shape of a seat as one number: ((spades * 14 + hearts) * 14 + diamonds) * 14 + clubs."""
        found = self._codes.get(seat)
        if found is None:
            lengths = LENGTH_TABLE[self.masks(seat)]
            found = ((lengths[:, 0] * 14 + lengths[:, 1]) * 14 + lengths[:, 2]) * 14 + lengths[:, 3]
            self._codes[seat] = found
        return found

    def hascard(self, seat: int, card: int) -> IntArray:
        held: IntArray = (self.deals[:, card] == seat).astype(np.int32)
        return held
