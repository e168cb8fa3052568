"""DGE (``.dge``): the four hands by suit, 128 bytes a board, no header, no separators.

Each board: N, E, S and W hands of 17 bytes, each the suit symbol bytes ``06 03 04 05`` (spade,
heart, diamond, club in the DOS code page) each followed by that suit's ranks ``AKQJT98765432``
(a void is the symbol alone), then 60 NUL bytes.

Keeps: the deals, in order. Loses: board numbers, dealer, vulnerability, event. Boards read are numbered
from the first board (1, or `--first-board`) and get dealer and vulnerability by Law 2. The reader
checks every byte, the order of the suit symbols, that each card is held once, and that the filler holds
only NUL bytes or spaces.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.dealset import DealSet
from dealer.formats import board_sets
from dealer.formats._codes import DGE_PART, decode_dge_part, encode_dge_part
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

NAME: Final = "dge"
EXTENSIONS: Final = ("dge",)
MAX_BOARD: Final = None
NUMBERED: Final = False
COUNTED: Final = False
BOARD_SET: Final = board_sets.ONE_RUN
RECORD: Final = 128


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a DGE file in chunks, numbered from the first board (1 unless the options say)."""
    first_board = options.first_board or 1
    for first, block in iter_records(stream, path, RECORD):
        try:
            filler_fault(block, DGE_PART, b"\0 ", _("DGE fills a board with NUL bytes"))
            deals = decode_dge_part(block[:, :DGE_PART])
        except RecordFault as fault:
            raise fault_error(fault, path, first, RECORD, first_board=first_board) from None
        yield DealSet.from_deals(deals, np.arange(first, first + len(deals)) + first_board)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write every deal as a 128-byte DGE record, in set order."""
    reject_options(NAME, options)
    for start in range(0, len(deals), CHUNK_BOARDS):
        part = deals.deals[start:start + CHUNK_BOARDS]
        block = np.zeros((len(part), RECORD), dtype=np.uint8)
        block[:, :DGE_PART] = encode_dge_part(part)
        stream.write(block.tobytes())
