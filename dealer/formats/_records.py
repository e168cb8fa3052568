"""Shared plumbing of the deal-file readers: fixed-size records read in bounded chunks, text lines with
their numbers, and the batch check that names the first bad board of a chunk.

A decoder that finds a fault in a chunk raises :class:`RecordFault` (row, byte within the record,
reason); the format module turns it into a `FormatError` naming the file, board and absolute offset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import BinaryIO, Final

import numpy as np
import numpy.typing as npt

from dealer.core.cards import SEATS, card_name
from dealer.core.errors import FormatError, UsageError
from dealer.language import _

CHUNK_BOARDS: Final = 8192
HIGHEST_BOARD: Final = 999_999_999  # board numbers in text formats: at most 9 digits
MAX_LINE: Final = 1 << 20  # a text line longer than this is not a deal file

ByteArray = npt.NDArray[np.uint8]
UNSET: Final = 255  # a card no hand holds yet


class RecordFault(Exception):
    """A fault inside a decoded chunk: `row` of the chunk, `column` byte within the record (or None)."""

    def __init__(self, row: int, column: int | None, reason: str) -> None:
        super().__init__(reason)
        self.row = row
        self.column = column
        self.reason = reason


def read_full(stream: BinaryIO, size: int) -> bytes:
    """Up to `size` bytes, fewer only at the end of the stream (a raw stream may return short reads)."""
    parts: list[bytes] = []
    remaining = size
    while remaining > 0:
        data = stream.read(remaining)
        if not data:
            break
        parts.append(data)
        remaining -= len(data)
    return b"".join(parts)


def iter_records(
    stream: BinaryIO, path: str, size: int, *, start: int = 0, chunk: int = CHUNK_BOARDS,
    tail_ok: Callable[[bytes], bool] | None = None, initial: bytes = b"",
) -> Iterator[tuple[int, ByteArray]]:
    """Chunks of whole records: (index of the chunk's first record, (k, size) uint8 array).

    `start` is the byte offset of record 0 in the file. Bytes left over at the end that do not make a
    whole record raise `FormatError`, unless `tail_ok` accepts them (e.g. a final newline).
    `initial` holds bytes already read from the stream (they come first).
    """
    index = 0
    pending = initial
    while True:
        data = pending + read_full(stream, size * chunk - len(pending))
        pending = b""
        whole = len(data) // size
        if whole:
            block = np.frombuffer(data, dtype=np.uint8, count=whole * size).reshape(whole, size)
            yield index, block
            index += whole
        rest = data[whole * size:]
        if len(data) < size * chunk:  # end of stream
            if rest and not (tail_ok and tail_ok(rest)):
                raise FormatError(_("file ends {count} bytes into record {record} (records are {size} "
                                    "bytes)").format(count=len(rest), record=index + 1, size=size),
                                  path, offset=start + index * size)
            return


def iter_lines(stream: BinaryIO, path: str) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, line without its end) for each line; CRLF, LF and a last line without end."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise FormatError(_("line longer than {most} bytes").format(most=MAX_LINE), path, line=number)
        yield number, line.rstrip(b"\r\n")


def seat_counts(deals: ByteArray) -> npt.NDArray[np.intp]:
    """Per row, how many cards each seat holds, and in column 4 how many no seat holds: shape (n, 5)."""
    n = len(deals)
    values = np.minimum(deals, 4).astype(np.intp) + 5 * np.arange(n, dtype=np.intp)[:, None]
    return np.bincount(values.ravel(), minlength=5 * n).reshape(n, 5)


def check_batch(deals: ByteArray) -> None:
    """Raise `RecordFault` for the first row that is not a deal (a card held twice or by no one,
    a hand without 13 cards); rows hold seats 0..3, or UNSET for a card no hand named."""
    counts = seat_counts(deals)
    bad = np.flatnonzero((counts[:, :4] != 13).any(axis=1) | (counts[:, 4] != 0))
    if bad.size:
        row = int(bad[0])
        raise RecordFault(row, None, describe_counts(deals[row], counts[row]))


def describe_counts(deal: ByteArray, counts: npt.NDArray[np.intp]) -> str:
    """Why one row is not a deal, in words."""
    missing = [card_name(int(c)) for c in np.flatnonzero(deal == UNSET)]
    sizes = ", ".join(f"{SEATS[s]} {int(counts[s])}" for s in range(4))
    if missing:
        return _("no hand holds {cards} ({sizes} cards)").format(
            cards=" ".join(missing[:4]) + (" ..." if len(missing) > 4 else ""), sizes=sizes)
    return _("every hand needs 13 cards ({sizes})").format(sizes=sizes)


def duplicate_card(cards: npt.NDArray[np.integer]) -> int | None:
    """The first card index (in sorted order) that occurs twice in `cards`, or None."""
    ordered = np.sort(cards)
    twice = np.flatnonzero(ordered[1:] == ordered[:-1])
    return int(ordered[twice[0]]) if twice.size else None


def fault_error(fault: RecordFault, path: str, first: int, size: int, *, start: int = 0,
                boards: npt.NDArray[np.int64] | None = None, first_board: int = 1) -> FormatError:
    """The `FormatError` for a fault in a chunk of fixed-size records whose first record is number
    `first` (from 0) of the file; the board is `boards[row]` if given, else `first_board + first + row`."""
    record = first + fault.row
    offset = start + record * size + (fault.column or 0)
    board = int(boards[fault.row]) if boards is not None else first_board + record
    return FormatError(fault.reason, path, offset=offset, board=board)


def filler_fault(block: ByteArray, begin: int, allowed: bytes, what: str) -> None:
    """Raise `RecordFault` if bytes `begin:` of any record hold anything but the `allowed` bytes."""
    filler = block[:, begin:]
    bad = ~np.isin(filler, np.frombuffer(allowed, dtype=np.uint8))
    if bad.any():
        row, k = (int(v[0]) for v in np.nonzero(bad))
        raise RecordFault(row, begin + k, _("byte {byte:#04x} in the filler; {why}").format(
            byte=int(filler[row, k]), why=what))


def reject_options(name: str, options: dict[str, object]) -> None:
    """Writers without options refuse any they are given (`UsageError`), rather than ignore them."""
    if options:
        raise UsageError(_("{format} files take no options; got {options}").format(
            format=name.upper(), options=", ".join(sorted(options))))
