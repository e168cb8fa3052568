"""BRI (``.bri``): Duplimate card numbers, 128 bytes a board, no header, no separators.

Each board: North, East and South hands as 13 two-digit card numbers each (``01`` = spade ace ..
``52`` = club two; any order within a hand), then 32 spaces and 18 NUL bytes (the filler Big Deal
and other writers use). West holds the 13 cards not named.

Keeps: the deals, in order. Loses: board numbers, dealer, vulnerability, event. Boards read are numbered
from the first board (1, or `--first-board`) and get dealer and vulnerability by Law 2. The reader
checks every digit, that each number is 01-52 and named once, and that the filler holds only spaces and
NUL bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.dealset import DealSet
from dealer.formats import board_sets
from dealer.formats._codes import BRI_PART, decode_bri_part, encode_bri_part
from dealer.formats._records import (
    CHUNK_BOARDS,
    RecordFault,
    fault_error,
    filler_fault,
    iter_records,
    reject_options,
)
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "bri"
EXTENSIONS: Final = ("bri",)
MAX_BOARD: Final = None
NUMBERED: Final = False
COUNTED: Final = False
BOARD_SET: Final = board_sets.ONE_RUN
RECORD: Final = 128
_FILLER: Final = b" " * 32 + b"\0" * 18


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a BRI file in chunks, numbered from the first board (1 unless the options say)."""
    first_board = options.first_board or 1
    for first, block in iter_records(stream, path, RECORD):
        try:
            filler_fault(block, BRI_PART, b" \0", _("BRI fills a board with spaces and NUL bytes"))
            deals = decode_bri_part(block[:, :BRI_PART])
        except RecordFault as fault:
            raise fault_error(fault, path, first, RECORD, first_board=first_board) from None
        yield DealSet.from_deals(deals, np.arange(first, first + len(deals)) + first_board)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write every deal as a 128-byte BRI record (hands in ascending card order), in set order."""
    reject_options(NAME, options)
    filler = np.frombuffer(_FILLER, dtype=np.uint8)
    for start in range(0, len(deals), CHUNK_BOARDS):
        part = deals.deals[start:start + CHUNK_BOARDS]
        block = np.empty((len(part), RECORD), dtype=np.uint8)
        block[:, :BRI_PART] = encode_bri_part(part)
        block[:, BRI_PART:] = filler
        stream.write(block.tobytes())
