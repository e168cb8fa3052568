"""KoPS (``.rzd``), as Big Deal writes it: a 13-byte header, then 13 bytes a board.

The header is the number of boards as two bytes, low byte first, then 11 spaces; each board is the
13-byte deal of :mod:`._kops` with seats N=0 E=1 S=2 W=3. No board numbers: boards read are numbered
from the first board (1, or ``--first-board``) with Law 2 dealer and vulnerability. The writer writes
Big Deal's bytes (``output.c``: ``init_kops``, ``print_kops``); a count above 65535 keeps its low 16 bits,
as Big Deal's does.

Keeps: the deals, in order. Loses: board numbers, dealer, vulnerability, event. The reader checks the
header, that the file holds as many boards as it says, and that every seat holds 13 cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import _kops, board_sets
from dealer.formats._records import (
    CHUNK_BOARDS,
    RecordFault,
    check_batch,
    fault_error,
    iter_records,
    read_full,
    reject_options,
)
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "rzd"
EXTENSIONS: Final = ("rzd",)
MAX_BOARD: Final = None
NUMBERED: Final = False
COUNTED: Final = True
BOARD_SET: Final = board_sets.ONE_RUN
HEADER: Final = 13
RECORD: Final = _kops.DEAL_BYTES
_FILLER: Final = b" " * 11


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a KoPS file in chunks, numbered from the first board."""
    first_board = options.first_board or 1
    header = read_full(stream, HEADER)
    if len(header) < HEADER:
        raise FormatError(_("a KoPS file starts with a {size}-byte header; the file has {count} bytes").format(
            size=HEADER, count=len(header)), path, offset=len(header))
    if header[2:] != _FILLER:
        at = next(k for k in range(2, HEADER) if header[k:k + 1] != b" ")
        raise FormatError(_("byte {byte:#04x} in the header, where KoPS has 11 spaces").format(byte=header[at]), path,
                          offset=at)
    count = header[0] | header[1] << 8
    seen = 0
    for first, block in iter_records(stream, path, RECORD, start=HEADER):
        deals = _kops.decode(block, 0)
        try:
            check_batch(deals)
        except RecordFault as fault:
            raise fault_error(fault, path, first, RECORD, start=HEADER, first_board=first_board) from None
        yield DealSet.from_deals(deals, np.arange(first, first + len(deals)) + first_board)
        seen = first + len(deals)
    if seen % 65536 != count:
        raise FormatError(_("the header says {count} boards but the file holds {seen}").format(count=count, seen=seen),
                          path,
                          offset=HEADER + seen * RECORD)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write the header and every deal, in set order."""
    reject_options(NAME, options)
    count = len(deals) & 0xFFFF
    stream.write(bytes([count & 0xFF, count >> 8]) + _FILLER)
    for start in range(0, len(deals), CHUNK_BOARDS):
        stream.write(_kops.encode(deals.deals[start:start + CHUNK_BOARDS], 0).tobytes())
