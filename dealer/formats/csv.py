"""Big Deal's CSV (``.csv``): one line of 18 quoted fields a board, for database import.

Fields: the 16 suit holdings N spades, N hearts, N diamonds, N clubs, then E, S and W likewise (ranks
``AKQJT98765432``, a void is empty), the board number, and ``dealer/vulnerability`` with the
vulnerability ``-``, ``NS``, ``EW`` or ``All`` (e.g. ``"1","N/-"``). Big Deal writes LF line ends.

Keeps: deals, board numbers, dealers and vulnerabilities as the file gives them. Loses: event. The
reader takes quoted or bare fields and CRLF or LF, and checks every rank, that each card is held
once and each hand has 13 cards, the board number and the dealer and vulnerability names. Lines of
the 16 holdings alone (no board number, dealer or vulnerability) are read too: each is the board after
the previous line's (the first is board 1, or ``--first-board``), with Law 2 dealer and vulnerability.
All lines of a file have one layout, and a line of holdings alone ends with a line end: so a full line
cut short after its holdings is refused, not read as another board.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.boards import Vulnerability, dealers_of, vulnerabilities_of
from dealer.core.cards import SEATS
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import board_sets
from dealer.formats._codes import hand_layout, parse_deal_strings, place_suit
from dealer.formats._records import CHUNK_BOARDS, MAX_LINE, UNSET, RecordFault, reject_options
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "csv"
EXTENSIONS: Final = ("csv",)
MAX_BOARD: Final = None
NUMBERED: Final = True
COUNTED: Final = False
BOARD_SET: Final = board_sets.NUMBERS
FIELDS: Final = 18
HOLDINGS: Final = 16
VUL_TEXT: Final = ("-", "NS", "EW", "All")
_SEP: Final = 1  # placeholder byte between holdings in the vectorised layout


class _CsvChunk:
    """Boards read so far in one chunk, with the line each came from."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.holdings: list[list[str]] = []
        self.boards: list[int] = []
        self.dealers: list[int] = []
        self.vuls: list[int] = []
        self.lines: list[int] = []

    def deal_set(self, path: str, report: ReadReport | None) -> DealSet:
        if report is not None:
            report.place_all([_("line {line}").format(line=n) for n in self.lines])
        try:
            deals = parse_deal_strings(self.texts)
        except RecordFault as fault:
            row = fault.row
            raise FormatError(_holding_fault(self.holdings[row]) or fault.reason, path,
                              line=self.lines[row], board=self.boards[row]) from None
        return DealSet(np.array(self.boards), deals, np.array(self.dealers), np.array(self.vuls))


class _Lines:
    """The lines of a text stream for the csv module, noting whether the last one given ended with a
    line end (a file cut inside a line does not)."""

    def __init__(self, text: io.TextIOWrapper) -> None:
        self.text = text
        self.ended = True

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = self.text.readline(MAX_LINE + 1)
        if not line:
            raise StopIteration
        self.ended = line.endswith(("\n", "\r"))
        return line


def _holding_fault(holdings: list[str]) -> str | None:
    """The reason 16 suit holdings are not a deal, naming the hand and suit where it can."""
    deal = bytearray([UNSET] * 52)
    for k, ranks in enumerate(holdings):
        why = place_suit(deal, k // 4, k % 4, ranks)
        if why:
            return f"{SEATS[k // 4]} {'SHDC'[k % 4]}: {why}"
    return None


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a CSV file in chunks, as the file numbers them."""
    text = io.TextIOWrapper(stream, encoding="latin-1", newline="")
    previous = (options.first_board or 1) - 1
    lines = _Lines(text)
    try:
        rows = csv.reader(lines, strict=True)
        chunk = _CsvChunk()
        layout: int | None = None  # fields a line, as the first line has them
        while True:
            try:
                row = next(rows)
            except StopIteration:
                break
            except csv.Error as exc:
                raise FormatError(_("not CSV: {reason}").format(reason=exc), path, line=rows.line_num) from None
            if not row or row == [""]:
                continue
            if len(row) not in (FIELDS, HOLDINGS):
                raise FormatError(_("a board is {fields} fields (or the {holdings} holdings alone); this line has "
                                    "{count}").format(fields=FIELDS, holdings=HOLDINGS, count=len(row)),
                                  path, line=rows.line_num)
            if len(row) == HOLDINGS and not lines.ended:
                raise FormatError(_("the file ends inside a line (a line of holdings alone ends with a line end)"),
                                  path, line=rows.line_num)
            if layout is None:
                layout = len(row)
            elif len(row) != layout:
                raise FormatError(_("a line of {count} fields after lines of {layout}").format(
                    count=len(row), layout=layout), path, line=rows.line_num)
            previous = _take(chunk, row, rows.line_num, path, previous)
            if len(chunk.boards) == CHUNK_BOARDS:
                yield chunk.deal_set(path, report)
                chunk = _CsvChunk()
        if chunk.boards:
            yield chunk.deal_set(path, report)
    finally:
        text.detach()


def _take(chunk: _CsvChunk, row: list[str], line: int, path: str, previous: int) -> int:
    """Add one line's board (of 18 or 16 fields) to the chunk; returns its board number."""
    if any(len(field) > MAX_LINE for field in row):
        raise FormatError(_("field too long"), path, line=line)
    if len(row) == HOLDINGS:
        board = previous + 1
        _add(chunk, row, line, board, int(dealers_of(board)), int(vulnerabilities_of(board)))
        return board
    board_text = row[16].strip()
    if not (board_text.isascii() and board_text.isdigit() and len(board_text) <= 9) or int(board_text) < 1:
        raise FormatError(_("board number {board} is not a number from 1").format(board=repr(row[16])), path,
                          line=line)
    board = int(board_text)
    dealer_text, slash, vul_text = row[17].partition("/")
    dealer = SEATS.find(dealer_text.strip().upper()) if len(dealer_text.strip()) == 1 else -1
    try:
        vul = Vulnerability.from_text(vul_text)
    except ValueError:
        vul = None
    if not slash or dealer < 0 or vul is None:
        raise FormatError(_("{text} is not dealer/vulnerability such as 'N/-' or 'E/NS'").format(text=repr(row[17])),
                          path, line=line, board=board)
    _add(chunk, row, line, board, dealer, int(vul))
    return board


def _add(chunk: _CsvChunk, row: list[str], line: int, board: int, dealer: int, vul: int) -> None:
    holdings = [field.strip() for field in row[:16]]
    chunk.texts.append("N:" + " ".join(".".join(holdings[h:h + 4]) for h in range(0, 16, 4)))
    chunk.holdings.append(holdings)
    chunk.boards.append(board)
    chunk.dealers.append(dealer)
    chunk.vuls.append(vul)
    chunk.lines.append(line)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write one quoted line per board, as Big Deal does."""
    reject_options(NAME, options)
    for start in range(0, len(deals), CHUNK_BOARDS):
        end = start + CHUNK_BOARDS
        layout = hand_layout(deals.deals[start:end], (0, 1, 2, 3), (None, _SEP, _SEP, _SEP), _SEP)
        out = []
        for holdings, board, dealer, vul in zip(layout, deals.boards[start:end], deals.dealers[start:end],
                                                deals.vulnerabilities[start:end], strict=True):
            fields = holdings.tobytes().replace(b"\x01", b'","').decode("ascii")
            out.append(f'"{fields}","{board}","{SEATS[dealer]}/{VUL_TEXT[vul]}"\n')
        stream.write("".join(out).encode("ascii"))
