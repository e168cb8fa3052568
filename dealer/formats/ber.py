"""Bernasconi (``.ber``): 52 ASCII digits a board, no header, no separators.

Character i (0-51, spade ace first, club two last) names the hand holding card i: ``1`` = North,
``2`` = East, ``3`` = South, ``4`` = West. Big Deal writes no line ends; a final line end is
tolerated.

Keeps: the deals, in order. Loses: board numbers, dealer, vulnerability, event. Boards read are numbered
from the first board (1, or `--first-board`) and get dealer and vulnerability by Law 2. The reader
checks every character and that each hand holds 13 cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.dealset import DealSet
from dealer.formats import board_sets
from dealer.formats._records import (
    CHUNK_BOARDS,
    RecordFault,
    check_batch,
    fault_error,
    iter_records,
    reject_options,
)
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "ber"
EXTENSIONS: Final = ("ber",)
MAX_BOARD: Final = None
NUMBERED: Final = False
COUNTED: Final = False
BOARD_SET: Final = board_sets.ONE_RUN
RECORD: Final = 52


def _line_end(rest: bytes) -> bool:
    return rest in (b"\n", b"\r\n")


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a BER file in chunks, numbered from the first board (1 unless the options say)."""
    first_board = options.first_board or 1
    for first, block in iter_records(stream, path, RECORD, tail_ok=_line_end):
        deals = block - np.uint8(ord("1"))
        try:
            bad = deals > 3
            if bad.any():
                row, k = (int(v[0]) for v in np.nonzero(bad))
                raise RecordFault(row, k, _("byte {byte:#04x} is not a hand 1-4").format(byte=int(block[row, k])))
            check_batch(deals)
        except RecordFault as fault:
            raise fault_error(fault, path, first, RECORD, first_board=first_board) from None
        yield DealSet.from_deals(deals, np.arange(first, first + len(deals)) + first_board)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write every deal as 52 digits 1-4, in set order."""
    reject_options(NAME, options)
    for start in range(0, len(deals), CHUNK_BOARDS):
        stream.write((deals.deals[start:start + CHUNK_BOARDS] + np.uint8(ord("1"))).tobytes())
