"""The 13-byte deal of Big Deal's KoPS (``.rzd``) and CDS (``.cds``) formats, both directions, in bulk.

Byte r (0-12) of a deal holds rank r (ace first) of the four suits: spades in bits 7-6, hearts 5-4,
diamonds 3-2, clubs 1-0, each the seat holding that card plus an offset, mod 4 (KoPS: N=0 E=1 S=2
W=3, offset 0; CDS: offset 1, so W=0 N=1 E=2 S=3). Every byte is some assignment of four cards; a deal
is checked for 13 cards a seat by the caller.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from dealer.formats._records import ByteArray

DEAL_BYTES: Final = 13
_SHIFTS: Final = np.array([6, 4, 2, 0], dtype=np.uint8)  # spades, hearts, diamonds, clubs


def encode(deals: ByteArray, offset: int) -> ByteArray:
    """(n, 13) bytes of (n, 52) deals."""
    seats = ((deals.reshape(-1, 4, 13) + np.uint8(offset)) & 3).astype(np.uint8)  # (n, suit, rank)
    out: ByteArray = np.bitwise_or.reduce(seats << _SHIFTS[None, :, None], axis=1).astype(np.uint8)
    return out


def decode(block: ByteArray, offset: int) -> ByteArray:
    """(n, 52) seats of (n, 13) bytes (not checked for 13 cards a seat)."""
    seats = (block[:, None, :] >> _SHIFTS[None, :, None]) & 3  # (n, suit, rank)
    out: ByteArray = ((seats + np.uint8(4 - offset)) & 3).astype(np.uint8).reshape(-1, 52)
    return out
