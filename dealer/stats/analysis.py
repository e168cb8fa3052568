"""Counting: how often each category of each quantity occurs in an (n, 52) batch of deals, vectorised.

One pass over the deals, in chunks that stay in cache, nothing looped in Python per deal; the counts are in
the category order of :mod:`dealer.stats.exact`.
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.cards import DECK_SIZE, DealArray
from dealer.stats.exact import FIGURE_KEYS, POINTS, length_vectors, lookup, quantity, vector_index

Counts = dict[str, npt.NDArray[np.int64]]

CHUNK: Final = 32768
KEYS: Final = 14 * 196

PER_HAND: Final = ("patterns", "suit_lengths", "longest_in_hand", "shortest_in_hand")
_HONOURS: Final = np.array([suit * 13 + rank for suit in range(4) for rank in range(4)])
_HONOUR_POINTS: Final = np.tile(np.array(POINTS, dtype=np.uint32), 4)


@cache
def _valid_keys() -> npt.NDArray[np.intp]:
    """The keys of the 560 length vectors a hand can have."""
    return vector_index(length_vectors())


@cache
def _from_keys(key: str) -> npt.NDArray[np.float64]:
    """The (560, categories) table that turns a histogram of hands' length vectors into `key`'s counts."""
    table = np.zeros((len(length_vectors()), len(quantity(key).labels)))
    for row, a in enumerate(length_vectors()):
        if key == "suit_lengths":
            for n in a:
                table[row, int(n)] += 1
        else:
            table[row, lookup(key)[int(vector_index(a))]] = 1
    return table


def empty_counts() -> Counts:
    """Zero counts of every quantity."""
    return {key: np.zeros(len(quantity(key).labels), dtype=np.int64) for key in FIGURE_KEYS}


def count_deals(deals: DealArray) -> Counts:
    """The counts of every quantity over `deals` ((n, 52) seats 0..3, 13 each; not checked here)."""
    batch = np.asarray(deals, dtype=np.uint8).reshape(-1, DECK_SIZE)
    return {key: counts[0] for key, counts in _count(batch, 1).items()}


def count_sets(deals: DealArray, sets: int) -> Counts:
    """The counts of every quantity in each of `sets` equal consecutive sets of deals: shape (sets, K)."""
    batch = np.asarray(deals, dtype=np.uint8).reshape(-1, DECK_SIZE)
    if sets < 1 or len(batch) % sets:
        raise ValueError(f"{len(batch)} deals do not make {sets} equal sets")
    return _count(batch, sets)


def _count(batch: DealArray, sets: int) -> Counts:
    """The counts per set, in one pass:

    - the cards of each suit give, per deal and suit, the four hands' lengths packed in one 16-bit number
      (a nibble per seat: seat ``h`` adds ``1 << 4h``);
    - each hand's length vector becomes a key ``a♠ * 196 + a♥ * 14 + a♦`` (:func:`dealer.stats.exact.vector_index`);
      one histogram of the keys gives every per-hand figure (pattern, longest and shortest suit, and the
      suit lengths, which the key determines), summed through a table from key to category;
    - the longest suit of the deal and the wild deals take the per-hand tables' maximum over the four hands;
    - a partnership's length in a suit is its two nibbles added (North + South; East-West hold the rest);
    - the sixteen honours give the points, packed a byte per seat.
    """
    size = len(batch) // sets if sets else 0
    per_set = {key: np.zeros((sets, len(quantity(key).labels)), dtype=np.int64) for key in FIGURE_KEYS}
    if size == 0:
        return per_set
    by_key = sets * len(length_vectors()) <= len(batch)   # a histogram of keys smaller than the deals
    if by_key:
        per_set["hand_keys"] = np.zeros((sets, KEYS), dtype=np.int64)
    for start in range(0, len(batch), CHUNK):
        part = batch[start:start + CHUNK]
        owner = (start + np.arange(len(part))) // size          # the set of each deal
        first, last = int(owner[0]), int(owner[-1]) + 1
        local = owner - first
        for key, (codes, width) in _categories(part, by_key).items():
            flat = (np.repeat(local, codes.shape[1]) * width + codes.ravel()).astype(np.intp)
            per_set[key][first:last] += np.bincount(flat, minlength=(last - first) * width).reshape(-1, width)
    if by_key:
        hands = per_set.pop("hand_keys")[:, _valid_keys()].astype(np.float64)
        for key in PER_HAND:
            per_set[key] = np.rint(hands @ _from_keys(key)).astype(np.int64)
    return per_set


def suit_lengths(deals: DealArray) -> npt.NDArray[np.uint8]:
    """Cards of each suit in each hand: shape (n, 4 hands, 4 suits)."""
    packed = _packed_lengths(np.asarray(deals, dtype=np.uint8).reshape(-1, DECK_SIZE))
    shifts = np.array([0, 4, 8, 12], dtype=np.uint16)
    lengths: npt.NDArray[np.uint8] = ((packed[:, None, :] >> shifts[None, :, None]) & 15).astype(np.uint8)
    return lengths


def points(deals: DealArray) -> npt.NDArray[np.uint8]:
    """High-card points of each hand: shape (n, 4)."""
    batch = np.asarray(deals, dtype=np.uint8).reshape(-1, DECK_SIZE)
    honours = batch[:, _HONOURS].astype(np.uint32)
    packed = (_HONOUR_POINTS << (honours * np.uint32(8))).sum(axis=1, dtype=np.uint32)
    shifts = np.array([0, 8, 16, 24], dtype=np.uint32)
    result: npt.NDArray[np.uint8] = ((packed[:, None] >> shifts) & 255).astype(np.uint8)
    return result


def _packed_lengths(batch: DealArray) -> npt.NDArray[np.uint16]:
    ones = np.left_shift(np.uint16(1), (batch * np.uint8(4)).astype(np.uint16))
    packed: npt.NDArray[np.uint16] = ones.reshape(-1, 4, 13).sum(axis=2, dtype=np.uint16)
    return packed


def _categories(batch: DealArray, by_key: bool) -> dict[str, tuple[npt.NDArray[np.integer], int]]:
    """Per count: the code of every unit (n, units per deal) and how many codes there are. With `by_key`
    the per-hand figures come as ``hand_keys``, the hands' length keys, to be summed by key; else each
    hand's categories are looked up."""
    packed = _packed_lengths(batch)                       # (n, suit): nibble h = hand h's length
    keys = np.empty((len(batch), 4), dtype=np.int16)
    for hand in range(4):
        shift = np.uint16(4 * hand)
        lengths = (packed >> shift) & np.uint16(15)
        keys[:, hand] = lengths[:, 0] * 196 + lengths[:, 1] * 14 + lengths[:, 2]
    longest = lookup("longest_in_hand")[keys].max(axis=1, keepdims=True)
    wild = lookup("wild")[keys].max(axis=1, keepdims=True)
    north_south = (packed & np.uint16(15)) + ((packed >> np.uint16(8)) & np.uint16(15))
    fits = np.stack([north_south.max(axis=1), 13 - north_south.min(axis=1)], axis=1) - 7
    if by_key:
        per_hand: dict[str, tuple[npt.NDArray[np.integer], int]] = {"hand_keys": (keys, KEYS)}
    else:
        shifts = np.array([0, 4, 8, 12], dtype=np.uint16)
        lengths_16 = ((packed[:, None, :] >> shifts[None, :, None]) & np.uint16(15)).reshape(len(batch), 16)
        per_hand = {key: (lookup(key)[keys], len(quantity(key).labels))
                    for key in ("patterns", "longest_in_hand", "shortest_in_hand")}
        per_hand["suit_lengths"] = (lengths_16, 14)
    return {
        **per_hand,
        "hcp": (points(batch), 38),
        "longest_in_deal": (longest, 10),
        "longest_fit": (fits, 7),
        "wild": (1 - wild, 2),                            # category 0 is "wild"
    }
