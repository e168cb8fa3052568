"""Big Deal's deal numbers (``.goe``, "goedel"): one line a board, the deal's number in Big Deal's own
numbering (:mod:`dealer.core.godel`), in decimal with commas between groups of three digits.

Big Deal (``output.c``: ``print_goedel``) writes 29 digit places and the 9 separators between them, 38
characters, right-aligned: leading zeros and the commas before the first digit are spaces. This is what
SquareDeal events publish beside the PBN files, so a published ``.goe`` can be checked like a PBN file.
The writer writes Big Deal's bytes (LF line ends). The reader takes any line of digits, with or without
the commas (each group of three after the first), spaces around, LF or CRLF; empty lines are passed over.
Every number must end with a line end: a file cut inside the last number would otherwise give another,
valid, number - another deal.

No board numbers: boards read are numbered from the first board (1, or ``--first-board``) with Law 2
dealer and vulnerability. Keeps: the deals, in order. Loses: board numbers, dealer, vulnerability,
event. The reader checks that every number is below the number of deals,
53,644,737,765,488,792,839,237,440,000.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core import godel
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import board_sets
from dealer.formats._records import CHUNK_BOARDS, MAX_LINE, reject_options
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "goe"
EXTENSIONS: Final = ("goe",)
MAX_BOARD: Final = None
NUMBERED: Final = False
COUNTED: Final = False
BOARD_SET: Final = board_sets.ONE_RUN
WIDTH: Final = 38  # 29 digits and 9 separators
_NUMBER: Final = re.compile(rb"[ \t]*(\d{1,3}(?:,\d{3})*|\d+)[ \t]*")


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a Gödel-number file in chunks, numbered from the first board."""
    next_board = options.first_board or 1
    numbers: list[int] = []
    lines: list[int] = []
    line_number = 0
    while raw := stream.readline(MAX_LINE + 1):
        line_number += 1
        if len(raw) > MAX_LINE:
            raise FormatError(_("line longer than {most} bytes").format(most=MAX_LINE), path, line=line_number)
        line = raw.rstrip(b"\r\n")
        if not line.strip():
            continue
        if line == raw:  # a number without its line end: cut short, or another number than written
            raise FormatError(_("the file ends inside a line (every number ends with a line end)"), path,
                              line=line_number, board=next_board + len(numbers))
        m = _NUMBER.fullmatch(line)
        if m is None or len(m.group(1)) > WIDTH:
            raise FormatError(_("a line is one deal number: digits, commas between groups of three"), path,
                              line=line_number, board=next_board + len(numbers))
        value = int(m.group(1).replace(b",", b""))
        if value >= godel.DEAL_COUNT:
            raise FormatError(_("{value} is not a deal number (there are {deals:,} deals)").format(
                value=value, deals=godel.DEAL_COUNT), path,
                              line=line_number, board=next_board + len(numbers))
        numbers.append(value)
        lines.append(line_number)
        if len(numbers) == CHUNK_BOARDS:
            yield _deal_set(numbers, lines, next_board, report)
            next_board += len(numbers)
            numbers, lines = [], []
    if numbers:
        yield _deal_set(numbers, lines, next_board, report)


def _deal_set(numbers: list[int], lines: list[int], first_board: int, report: ReadReport | None) -> DealSet:
    if report is not None:
        report.place_all([_("line {line}").format(line=n) for n in lines])
    return DealSet.from_deals(godel.numbers_to_deals(numbers), np.arange(len(numbers)) + first_board)


def format_number(number: int) -> str:
    """One deal number as Big Deal writes it: commas between groups, right-aligned in 38 characters."""
    return f"{number:,}".rjust(WIDTH)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write every deal's number, one a line, in set order."""
    reject_options(NAME, options)
    for start in range(0, len(deals), CHUNK_BOARDS):
        numbers = godel.deals_to_numbers(deals.deals[start:start + CHUNK_BOARDS])
        stream.write("".join(format_number(n) + "\n" for n in numbers).encode("ascii"))
