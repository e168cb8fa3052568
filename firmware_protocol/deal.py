"""The 13-byte packed deal on the wire, without numpy: seat of a card, packing, validity, short hash.

Card ``c`` (0..51 = suit * 13 + rank; suits S H D C, ranks A K Q J T 9..2) has its seat (0..3 =
N E S W) in byte ``c // 4`` at bits ``7 - 2*(c % 4)`` .. ``6 - 2*(c % 4)``: the first card of a byte in
its high bits. This is the same layout as `dealer.core.cards.pack`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from firmware_protocol.crc import crc16

DEAL_BYTES: Final = 13
DECK: Final = 52


def seat_of(deal: bytes, card: int) -> int:
    """Seat (0..3) that card index `card` goes to in the packed `deal`."""
    return (deal[card >> 2] >> (6 - 2 * (card & 3))) & 3


def unpack_seats(deal: bytes) -> tuple[int, ...]:
    """The 52 seats of a packed deal, card 0 first."""
    if len(deal) != DEAL_BYTES:
        raise ValueError(f"a packed deal is {DEAL_BYTES} bytes, not {len(deal)}")
    return tuple((b >> shift) & 3 for b in deal for shift in (6, 4, 2, 0))


def pack_seats(seats: Sequence[int]) -> bytes:
    """Packed 13 bytes of 52 seats (0..3), card 0 first."""
    if len(seats) != DECK or any(not 0 <= s <= 3 for s in seats):
        raise ValueError("a deal is 52 seats, each 0..3")
    return bytes(
        (seats[i] << 6) | (seats[i + 1] << 4) | (seats[i + 2] << 2) | seats[i + 3] for i in range(0, DECK, 4)
    )


def seat_counts(deal: bytes) -> tuple[int, int, int, int]:
    """Cards per seat N E S W in a packed deal."""
    seats = unpack_seats(deal)
    return (seats.count(0), seats.count(1), seats.count(2), seats.count(3))


def is_valid_deal(deal: bytes) -> bool:
    """True if `deal` is 13 bytes giving every seat exactly 13 cards."""
    return len(deal) == DEAL_BYTES and seat_counts(deal) == (13, 13, 13, 13)


def deal_hash(deal: bytes) -> int:
    """The deal's one-byte short hash: the low byte of the CRC-16/CCITT-FALSE of its 13 bytes."""
    return crc16(deal) & 0xFF
