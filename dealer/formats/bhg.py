"""Borel (``.bhg``): one line of 52 letters a board, after an empty first line.

Each letter is a card: ``A``-``Z`` = cards 1-26 (spade ace .. heart two), ``a``-``z`` = cards 27-52
(diamond ace .. club two). A line holds four hands of 13 letters, the dealer's hand first, then
clockwise. Big Deal writes an empty first line and LF line ends; empty lines are passed over.

Keeps: the deals, in order. Loses: board numbers, dealer and vulnerability (line k is board k, with
the Law 2 dealer and vulnerability, and its hands start with that dealer's), event. The writer
therefore starts line k with the hand of board k's Law 2 dealer, so any set survives a round trip;
for a run starting at board 1 (mod 4) this is exactly Big Deal's file. The reader checks every
letter and that each card is held once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.cards import card_name
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats._codes import cards_by_seat
from dealer.formats._records import (
    CHUNK_BOARDS,
    UNSET,
    ByteArray,
    RecordFault,
    check_batch,
    duplicate_card,
    iter_lines,
    reject_options,
)

NAME: Final = "bhg"
EXTENSIONS: Final = ("bhg",)
MAX_BOARD: Final = None
_CARD_OF_BYTE: Final = np.full(256, -1, dtype=np.int16)
_CARD_OF_BYTE[ord("A"):ord("Z") + 1] = np.arange(26)
_CARD_OF_BYTE[ord("a"):ord("z") + 1] = np.arange(26, 52)
_LETTERS: Final = np.frombuffer(bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1)),
                                dtype=np.uint8)


def read(stream: BinaryIO, path: str) -> Iterator[DealSet]:
    """Boards of a Borel file in chunks, numbered from 1."""
    lines: list[bytes] = []
    numbers: list[int] = []
    done = 0
    for number, line in iter_lines(stream, path):
        if not line.strip():
            continue
        if len(line) != 52:
            raise FormatError(f"a board is 52 letters; this line has {len(line)} bytes", path,
                              line=number, board=done + len(lines) + 1)
        lines.append(line)
        numbers.append(number)
        if len(lines) == CHUNK_BOARDS:
            yield _decode(lines, numbers, done, path)
            done += len(lines)
            lines, numbers = [], []
    if lines:
        yield _decode(lines, numbers, done, path)


def _decode(lines: list[bytes], numbers: list[int], done: int, path: str) -> DealSet:
    boards = np.arange(done + 1, done + len(lines) + 1)
    letters = np.frombuffer(b"".join(lines), dtype=np.uint8).reshape(-1, 52)
    cards = _CARD_OF_BYTE[letters]
    try:
        deals = _deals_of(cards, boards)
    except RecordFault as fault:
        raise FormatError(fault.reason, path, line=numbers[fault.row], board=int(boards[fault.row])) from None
    return DealSet.from_deals(deals, boards)


def _deals_of(cards: np.ndarray, boards: np.ndarray) -> ByteArray:
    bad = cards < 0
    if bad.any():
        row, k = (int(v[0]) for v in np.nonzero(bad))
        raise RecordFault(row, k, f"character {k + 1} is not a letter A-Z or a-z")
    n = len(cards)
    seats = ((boards[:, None] - 1 + np.arange(52)[None, :] // 13) % 4).astype(np.uint8)
    deals = np.full((n, 52), UNSET, dtype=np.uint8)
    deals[np.arange(n)[:, None], cards] = seats
    try:
        check_batch(deals)
    except RecordFault as fault:
        twice = duplicate_card(cards[fault.row])
        raise RecordFault(fault.row, None, fault.reason if twice is None
                          else f"{card_name(twice)} is given twice") from None
    return deals


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write an empty line, then each deal as 52 letters starting with its Law 2 dealer's hand."""
    reject_options(NAME, options)
    stream.write(b"\n")
    for start in range(0, len(deals), CHUNK_BOARDS):
        part = deals.deals[start:start + CHUNK_BOARDS]
        order = cards_by_seat(part)  # N, E, S, W hands, 13 cards each
        dealer = (start + np.arange(len(part))) % 4
        columns = ((dealer[:, None] * 13 + np.arange(52)[None, :]) % 52)
        block = np.empty((len(part), 53), dtype=np.uint8)
        block[:, :52] = _LETTERS[np.take_along_axis(order, columns, axis=1)]
        block[:, 52] = ord("\n")
        stream.write(block.tobytes())
