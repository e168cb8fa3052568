"""Borel (``.bhg``): one line of 52 letters a board, after an empty first line.

Each letter is a card: ``A``-``Z`` = cards 1-26 (spade ace .. heart two), ``a``-``z`` = cards 27-52
(diamond ace .. club two). A line holds four hands of 13 letters, the dealer's hand first, then
clockwise; the dealer is the Law 2 dealer of the board's real number ((board - 1) mod 4), so the
letters can only be read knowing which board a line is.

Two writers, two ways of saying it. Big Deal (``output.c``) writes an empty line, then the run's boards
one a line, each turned by its own board number: a run of boards 5-20 starts at the file's second line.
deal-convert writes line n for board n - line 0 empty, an empty line for every board not in the set -
so its empty lines carry the positions. The reader takes both: when empty lines stand between the first
line and a board (or between boards), the file carries positions and line n (counting the first line as
0) is board n; otherwise the boards follow one another from the first board (1, or ``--first-board``;
a position-carrying file refuses a ``--first-board`` that disagrees with it). LF or CRLF line ends.

The writer writes one run as Big Deal does, byte for byte: an empty line, then each board's line starting
with the hand of its number's Law 2 dealer, LF line ends (a run not from board 1 reads back right with
``--first-board``). Any other set, in ascending order, it writes in deal-convert's positional form, which
reads back as it is; see :mod:`dealer.formats.board_sets` for the sets it refuses.

Keeps: the deals, in order, and their board numbers when written by position. Loses: board numbers of a
run, dealer and vulnerability (Law 2 from the number), event. The reader checks every letter and that each card is
held once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.cards import card_name
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import board_sets
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
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "bhg"
EXTENSIONS: Final = ("bhg",)
MAX_BOARD: Final = None
NUMBERED: Final = False
COUNTED: Final = False
BOARD_SET: Final = board_sets.POSITIONS
_CARD_OF_BYTE: Final = np.full(256, -1, dtype=np.int16)
_CARD_OF_BYTE[ord("A"):ord("Z") + 1] = np.arange(26)
_CARD_OF_BYTE[ord("a"):ord("z") + 1] = np.arange(26, 52)
_LETTERS: Final = np.frombuffer(bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1)),
                                dtype=np.uint8)


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a Borel file in chunks: by position when the file carries positions, else from the first
    board (see the module docstring)."""
    first_board = options.first_board or 1
    lines: list[bytes] = []
    numbers: list[int] = []
    boards: list[int] = []
    positional = False
    empty_before = 0  # empty lines since the last board (the file's first line not counted)
    seen = 0
    first_line = 0
    for number, line in iter_lines(stream, path):
        if not line.strip():
            if number > 1:
                empty_before += 1
            continue
        if empty_before and not positional:
            # positions: line n is board n; the boards before the gap must already be where they say
            positional = True
            if report is not None:
                report.by_position = True
            if (seen and first_line != first_board + 1) or (
                    not seen and options.first_board is not None and options.first_board != number - 1):
                said = (_("the file's empty lines place board {board} at its line position, which disagrees with "
                          "the first board {first}") if not seen
                        else _("the file's empty lines place the boards before it at its line position, which "
                               "disagrees with the first board {first}"))
                raise FormatError(said.format(board=number - 1, first=first_board), path, line=number)
        if not seen:
            first_line = number
        board = number - 1 if positional else first_board + seen
        empty_before = 0
        if len(line) != 52:
            raise FormatError(_("a board is 52 letters; this line has {count} bytes").format(count=len(line)), path,
                              line=number, board=board)
        lines.append(line)
        numbers.append(number)
        boards.append(board)
        seen += 1
        if len(lines) == CHUNK_BOARDS:
            yield _decode(lines, numbers, boards, path, report)
            lines, numbers, boards = [], [], []
    if lines:
        yield _decode(lines, numbers, boards, path, report)


def _decode(lines: list[bytes], numbers: list[int], boards: list[int], path: str,
            report: ReadReport | None) -> DealSet:
    board_array = np.array(boards, dtype=np.int64)
    letters = np.frombuffer(b"".join(lines), dtype=np.uint8).reshape(-1, 52)
    cards = _CARD_OF_BYTE[letters]
    try:
        deals = _deals_of(cards, board_array)
    except RecordFault as fault:
        raise FormatError(fault.reason, path, line=numbers[fault.row], board=boards[fault.row]) from None
    if report is not None:
        report.place_all([_("line {line}").format(line=n) for n in numbers])
    return DealSet.from_deals(deals, board_array)


def _deals_of(cards: np.ndarray, boards: np.ndarray) -> ByteArray:
    bad = cards < 0
    if bad.any():
        row, k = (int(v[0]) for v in np.nonzero(bad))
        raise RecordFault(row, k, _("character {position} is not a letter A-Z or a-z").format(position=k + 1))
    n = len(cards)
    seats = ((boards[:, None] - 1 + np.arange(52)[None, :] // 13) % 4).astype(np.uint8)
    deals = np.full((n, 52), UNSET, dtype=np.uint8)
    deals[np.arange(n)[:, None], cards] = seats
    try:
        check_batch(deals)
    except RecordFault as fault:
        twice = duplicate_card(cards[fault.row])
        raise RecordFault(fault.row, None, fault.reason if twice is None
                          else _("{card} is given twice").format(card=card_name(twice))) from None
    return deals


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write an empty line, then each deal as 52 letters starting with the hand of the Law 2 dealer of its
    board number: one run as Big Deal writes it, any other set (ascending) with an empty line for every
    board number it skips, as deal-convert does, so that line n is board n."""
    reject_options(NAME, options)
    stream.write(b"\n")
    if len(board_sets.merged(board_sets.spans_of(deals.boards))) <= 1:
        _write_lines(stream, deals)
        return
    why = board_sets.set_problem(BOARD_SET, NAME, board_sets.spans_of(deals.boards))
    if why is not None:
        raise FormatError(why)
    previous = 0
    for first, last in board_sets.spans_of(deals.boards):
        stream.write(b"\n" * (first - previous - 1))
        rows = np.flatnonzero((deals.boards >= first) & (deals.boards <= last))
        _write_lines(stream, DealSet(deals.boards[rows], deals.deals[rows], deals.dealers[rows],
                                     deals.vulnerabilities[rows]))
        previous = last


def _write_lines(stream: BinaryIO, deals: DealSet) -> None:
    for start in range(0, len(deals), CHUNK_BOARDS):
        part = deals.deals[start:start + CHUNK_BOARDS]
        order = cards_by_seat(part)  # N, E, S, W hands, 13 cards each
        dealer = (deals.boards[start:start + CHUNK_BOARDS] - 1) % 4
        columns = ((dealer[:, None] * 13 + np.arange(52)[None, :]) % 52)
        block = np.empty((len(part), 53), dtype=np.uint8)
        block[:, :52] = _LETTERS[np.take_along_axis(order, columns, axis=1)]
        block[:, 52] = ord("\n")
        stream.write(block.tobytes())
