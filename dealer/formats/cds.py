"""CDS (``.cds``), as Big Deal writes it: 14 bytes a board, no header.

Each board: its number as one byte (Big Deal writes the number's low 8 bits: board 256 is 0), then the
13-byte deal of :mod:`._kops` with seats W=0 N=1 E=2 S=3. Boards read are numbered from their bytes;
a run that goes past board 255 wraps to 0 and is numbered on (255, 0, 1 read as 255, 256, 257), and a
0 anywhere else is refused. Dealer and vulnerability follow Law 2. The writer writes Big Deal's bytes
(``output.c``: ``print_cds``).

Keeps: the deals, their board numbers (mod 256). Loses: dealer, vulnerability, event. The reader checks
the board numbers and that every seat holds 13 cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import _kops, board_sets
from dealer.formats._records import CHUNK_BOARDS, RecordFault, check_batch, fault_error, iter_records, reject_options
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "cds"
EXTENSIONS: Final = ("cds",)
MAX_BOARD: Final = None
NUMBERED: Final = True
COUNTED: Final = False
BOARD_SET: Final = board_sets.BYTE_NUMBERS
RECORD: Final = 1 + _kops.DEAL_BYTES
_OFFSET: Final = 1


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a CDS file in chunks, as the file numbers them."""
    last_byte = -1  # the byte of the previous board
    wraps = 0  # times the numbers went from 255 to 0
    for first, block in iter_records(stream, path, RECORD):
        numbers = block[:, 0].astype(np.int64)
        previous = np.concatenate(([last_byte], numbers[:-1]))
        wrap = (numbers == 0) & (previous == 255)
        zero = np.flatnonzero((numbers == 0) & ~wrap)
        if zero.size:
            row = int(zero[0])
            raise FormatError(_("board number 0 (a run that wraps goes 255, 0, 1, ...)"), path,
                              offset=(first + row) * RECORD)
        boards = numbers + 256 * (wraps + np.cumsum(wrap))
        wraps += int(wrap.sum())
        last_byte = int(numbers[-1])
        deals = _kops.decode(np.ascontiguousarray(block[:, 1:]), _OFFSET)
        try:
            check_batch(deals)
        except RecordFault as fault:
            fault = RecordFault(fault.row, None if fault.column is None else fault.column + 1, fault.reason)
            raise fault_error(fault, path, first, RECORD, boards=boards) from None
        if report is not None:
            report.place_all([_("byte {offset}").format(offset=(first + k) * RECORD) for k in range(len(block))])
        yield DealSet.from_deals(deals, boards)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write every board: its number's low byte, then its deal, in set order."""
    reject_options(NAME, options)
    for start in range(0, len(deals), CHUNK_BOARDS):
        part = slice(start, start + CHUNK_BOARDS)
        block = np.empty((len(deals.deals[part]), RECORD), dtype=np.uint8)
        block[:, 0] = (deals.boards[part] & 0xFF).astype(np.uint8)
        block[:, 1:] = _kops.encode(deals.deals[part], _OFFSET)
        stream.write(block.tobytes())
