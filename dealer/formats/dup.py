"""Duplimate DUP (``.dup``, the DOS version): 156 bytes a board, no header, no separators.

Each board: the BRI part (bytes 1-78: N, E, S hands as two-digit card numbers 01-52), the DGE part
(bytes 79-146: N, E, S, W hands as suit symbols and ranks) and a 10-byte trailer::

    147 Y/N  random hands       148 Y/N  backwards counting
    149-151  lowest board       152-153  copies of each board       154-156  highest board
    (numbers left-aligned and space-padded)

The file holds no board numbers: the Duplimate deals its records as boards lowest..highest of the
trailer. Variants read: the trailer on every board (Jannersten's description, current Big Deal) or on
the first board only with ten NUL bytes on the others (Big Deal 1.2); "blind" files whose first board's
DGE part is 68 spaces so the DOS program does not show the cards (Big Deal ``dupblind``); and files of
78-digit BRI lines separated by CRLF, described for early DUP files (read only; the first line must end
with CRLF, or the file would be one cut short record). Boards are numbered
from `--first-board` if given, else from the trailer's lowest board; dealer and vulnerability follow
Law 2.

Writing follows Big Deal's ``output.c`` byte for byte, the DUP files Duplimate machines in the field are
known to read (no machine document we hold says otherwise): every record carries the trailer
``YN1  0 NN `` - lowest board 1, no copies, NN the number of boards in two digits - whatever the run's
own numbers, so a run of boards 5-20 is written as the Duplimate's boards 1-16 (``YN1  0 16 ``); its
board numbers are not in the file and come back only with ``--first-board 5``. The blind variant blanks
the DGE part of board 1 only, as Big Deal's ``dupblind`` does: a run that does not hold board 1 is written
with every board's cards shown. Boards must be one consecutive run ending at board 99 at most (Big Deal:
"Format dup supports 99 as high board").

Keeps: the deals of a run of consecutive boards; whether the file is blind (metadata ``sealed`` =
``yes``). Loses: board numbers (as above), dealer and vulnerability other than Law 2, event. The reader
checks both parts of every board and that they give the same deal, every trailer, and that the number
of boards matches the trailer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.cards import SEATS, card_name
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, UsageError
from dealer.formats import board_sets
from dealer.formats._codes import (
    BRI_PART,
    DGE_PART,
    decode_bri_part,
    decode_dge_part,
    encode_bri_part,
    encode_dge_part,
)
from dealer.formats._records import CHUNK_BOARDS, ByteArray, RecordFault, fault_error, iter_records, read_full
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import N_, _

NAME: Final = "dup"
EXTENSIONS: Final = ("dup",)
MAX_BOARD: Final = 99
NUMBERED: Final = False
COUNTED: Final = True
BOARD_SET: Final = board_sets.ONE_RUN
RECORD: Final = 156
TRAILER_AT: Final = BRI_PART + DGE_PART  # 146
LINE_RECORD: Final = BRI_PART + 2  # 78 digits + CRLF
_NO_TRAILER: Final = b"\0" * 10
_BLIND_DGE: Final = b" " * DGE_PART


@dataclass(frozen=True)
class Trailer:
    """The 10-byte trailer: flags and the board range the DOS program duplicates."""

    random: bool
    backwards: bool
    lowest: int
    copies: int
    highest: int

    def encode(self) -> bytes:
        """The trailer bytes, numbers left-aligned; the highest board in two digits, as Big Deal writes it."""
        text = (("Y" if self.random else "N") + ("Y" if self.backwards else "N")
                + f"{self.lowest:<3d}{self.copies:<2d}{self.highest:02d}".ljust(8))
        return text.encode("ascii")

    @classmethod
    def parse(cls, raw: bytes, path: str) -> Trailer:
        """Parse the first board's trailer; `FormatError` naming the byte if it is not one."""
        flags = raw[:2]
        if any(b not in b"YN" for b in flags):
            raise FormatError(_("trailer flags {flags} must be Y or N").format(flags=repr(flags)), path,
                              offset=TRAILER_AT, board=1)
        fields = []
        for begin, end, what in ((2, 5, N_("trailer lowest board {value} is not a left-aligned number")),
                                 (5, 7, N_("trailer copies {value} is not a left-aligned number")),
                                 (7, 10, N_("trailer highest board {value} is not a left-aligned number"))):
            text = raw[begin:end].rstrip(b" ")
            if not text.isdigit() or not text.isascii():
                raise FormatError(_(what).format(value=repr(raw[begin:end])), path, offset=TRAILER_AT + begin)
            fields.append(int(text))
        lowest, copies, highest = fields
        if not 1 <= lowest <= highest:
            raise FormatError(_("trailer board range {lowest}-{highest} is empty or starts at 0").format(
                lowest=lowest, highest=highest), path, offset=TRAILER_AT + 2)
        return cls(flags[0:1] == b"Y", flags[1:2] == b"Y", lowest, copies, highest)


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a DUP file in chunks, numbered from the first board of the options, else from the
    trailer's lowest board (from 1 in the early variant without trailers)."""
    head = read_full(stream, LINE_RECORD)
    if head[BRI_PART:LINE_RECORD] == b"\r\n":
        if report is not None:
            report.notes.append(_("{path}: an early DUP of BRI lines, which does not record how many boards it "
                                  "holds: check that none is missing").format(path=path))
        yield from _read_lines(stream, path, head, options.first_board or 1)
    else:
        yield from _read_records(stream, path, head, options.first_board)


def _read_records(stream: BinaryIO, path: str, head: bytes, first_board: int | None) -> Iterator[DealSet]:
    trailer: Trailer | None = None
    first_ends = b""  # the first board's trailer bytes
    later: bytes | None = None  # the trailer every board after the first carries
    seen = 0
    for first, block in iter_records(stream, path, RECORD, initial=head):
        if trailer is None:
            first_ends = block[0, TRAILER_AT:].tobytes()
            trailer = Trailer.parse(first_ends, path)
        count = trailer.highest - trailer.lowest + 1
        if first + len(block) > count:
            raise FormatError(_("the trailer gives boards {lowest}-{highest} but the file holds more").format(
                lowest=trailer.lowest, highest=trailer.highest), path, offset=count * RECORD,
                board=trailer.highest + 1)
        later = _check_trailers(block, first, first_ends, later, path, trailer.lowest)
        blind = first == 0 and block[0, BRI_PART:TRAILER_AT].tobytes() == _BLIND_DGE
        lowest = first_board or trailer.lowest
        try:
            deals = _decode_checked(block, blind)
        except RecordFault as fault:
            raise fault_error(fault, path, first, RECORD, first_board=lowest) from None
        boards = np.arange(first, first + len(block)) + lowest
        yield DealSet.from_deals(deals, boards, metadata={"sealed": "yes"} if blind else None)
        seen = first + len(block)
    if trailer is not None and seen != trailer.highest - trailer.lowest + 1:
        raise FormatError(_("the trailer gives boards {lowest}-{highest} but the file ends after {count} "
                            "boards").format(lowest=trailer.lowest, highest=trailer.highest, count=seen),
                          path, offset=seen * RECORD)


def _check_trailers(block: ByteArray, first: int, first_ends: bytes, later: bytes | None, path: str,
                    lowest: int) -> bytes | None:
    """Every board after the first repeats the first board's trailer, or every one holds ten NUL bytes.
    Returns the trailer the later boards carry (None while only the first board was seen)."""
    ends = block[:, TRAILER_AT:]
    begin = 1 if first == 0 else 0
    if begin >= len(block):
        return later
    if later is None:
        later = ends[begin].tobytes()
        if later not in (first_ends, _NO_TRAILER):
            raise FormatError(_("trailer {trailer} neither repeats the first board's nor is ten NUL bytes").format(
                trailer=repr(later)), path, offset=RECORD + TRAILER_AT, board=lowest + 1)
    bad = np.flatnonzero((ends[begin:] != np.frombuffer(later, dtype=np.uint8)).any(axis=1))
    if bad.size:
        row = begin + int(bad[0])
        raise FormatError(_("trailer {trailer} differs from the earlier boards' {earlier}").format(
            trailer=repr(ends[row].tobytes()), earlier=repr(later)),
            path, offset=(first + row) * RECORD + TRAILER_AT, board=lowest + first + row)
    return later


def _decode_checked(block: ByteArray, blind: bool) -> ByteArray:
    """Deals from both parts of each record; raises `RecordFault` where they disagree."""
    deals = decode_bri_part(block[:, :BRI_PART])
    skip = 1 if blind else 0
    try:
        shown = decode_dge_part(block[skip:, BRI_PART:TRAILER_AT])
    except RecordFault as fault:
        column = None if fault.column is None else BRI_PART + fault.column
        raise RecordFault(fault.row + skip, column, _("DGE part: {reason}").format(reason=fault.reason)) from None
    differ = np.flatnonzero((shown != deals[skip:]).any(axis=1))
    if differ.size:
        row = skip + int(differ[0])
        card = int(np.flatnonzero(shown[row - skip] != deals[row])[0])
        raise RecordFault(row, BRI_PART, _("the BRI and DGE parts disagree: {card} is with {bri} in the BRI part, "
                                           "{dge} in the DGE part").format(
            card=card_name(card), bri=SEATS[deals[row, card]], dge=SEATS[shown[row - skip, card]]))
    return deals


def _read_lines(stream: BinaryIO, path: str, head: bytes, first_board: int) -> Iterator[DealSet]:
    """The early variant: one 78-digit BRI line per board, CRLF between boards."""
    tail: list[bytes] = []

    def last_line(rest: bytes) -> bool:
        tail.append(rest)
        return len(rest) == BRI_PART

    def decode(block: ByteArray, first: int) -> DealSet:
        try:
            deals = decode_bri_part(np.ascontiguousarray(block[:, :BRI_PART]))
        except RecordFault as fault:
            raise fault_error(fault, path, first, LINE_RECORD, first_board=first_board) from None
        return DealSet.from_deals(deals, np.arange(first, first + len(deals)) + first_board)

    seen = 0
    for first, block in iter_records(stream, path, LINE_RECORD, initial=head, tail_ok=last_line):
        ends = np.flatnonzero((block[:, BRI_PART:] != np.frombuffer(b"\r\n", dtype=np.uint8)).any(axis=1))
        if ends.size:
            row = first + int(ends[0])
            raise FormatError(_("a BRI line must be 78 digits and CRLF"), path,
                              offset=row * LINE_RECORD + BRI_PART, board=row + first_board)
        yield decode(block, first)
        seen = first + len(block)
    if tail and tail[0]:
        yield decode(np.frombuffer(tail[0], dtype=np.uint8).reshape(1, BRI_PART), seen)


def write(stream: BinaryIO, deals: DealSet, *, blind: bool = False, copies: int = 0,
          trailer: str = "every", **options: Any) -> None:
    """Write a run of consecutive boards as DUP records, as Big Deal does (see the module docstring).

    `blind` blanks board 1's DGE part (the DOS program then shows no cards); `copies` goes in the
    trailer (Big Deal writes 0); `trailer` is ``every`` (on every board, as Jannersten describes and
    current Big Deal writes) or ``first`` (board 1 only, NUL bytes after, as Big Deal 1.2 wrote).
    """
    if options:
        raise UsageError(_("DUP files take blind, copies and trailer; got {options}").format(
            options=", ".join(sorted(options))))
    if trailer not in ("every", "first"):
        raise UsageError(_("DUP trailer must be 'every' or 'first'; got {trailer}").format(trailer=repr(trailer)))
    if not 0 <= copies <= 99:
        raise UsageError(_("DUP copies must be 0-99; got {copies}").format(copies=copies))
    if not len(deals):
        return
    boards = deals.boards
    if (np.diff(boards) != 1).any():
        raise FormatError(_("{format} holds consecutive boards only, in order; this set is not one run").format(
            format="DUP"))
    if boards[-1] > MAX_BOARD:
        raise FormatError(_("{format} holds boards 1-{limit} only; this run reaches board {board}").format(
            format="DUP", limit=MAX_BOARD, board=boards[-1]))
    ends = Trailer(True, False, 1, copies, len(deals)).encode()
    blank = int(np.flatnonzero(boards == 1)[0]) if blind and boards[0] == 1 else None
    for start in range(0, len(deals), CHUNK_BOARDS):
        part = deals.deals[start:start + CHUNK_BOARDS]
        block = np.empty((len(part), RECORD), dtype=np.uint8)
        block[:, :BRI_PART] = encode_bri_part(part)
        block[:, BRI_PART:TRAILER_AT] = encode_dge_part(part)
        block[:, TRAILER_AT:] = np.frombuffer(ends if trailer == "every" else _NO_TRAILER, dtype=np.uint8)
        if start == 0:
            block[0, TRAILER_AT:] = np.frombuffer(ends, dtype=np.uint8)
        if blank is not None and start <= blank < start + len(part):
            block[blank - start, BRI_PART:TRAILER_AT] = np.frombuffer(_BLIND_DGE, dtype=np.uint8)
        stream.write(block.tobytes())


def blinds_nothing(deals: DealSet) -> bool:
    """True if the blind variant of these boards shows every board's cards (board 1 is not in the run)."""
    return not len(deals) or int(deals.boards[0]) != 1
