"""PBN (Portable Bridge Notation, 1.0 to 2.1): the format module - read any legal file, write strict export.

Reading (:mod:`dealer.formats.pbn_import`) takes the import format in all its freedom: ``%`` escape
lines, ``{...}`` and ``;`` comments, tag pairs in any order with escaped quotes and backslashes,
auction, play and supplemental sections (passed over), games separated by semi-empty lines, LF, CRLF or
CR line ends, ISO 8859-1 text (a UTF-8 byte-order mark is dropped; free-text values that are valid UTF-8
are read as UTF-8). Of each game it keeps Board, Dealer, Vulnerable and Deal: dealer and vulnerability
as the file gives them (even against Law 2), or by Law 2 from the board number when absent or ``?``; a
board number absent or ``?`` follows the previous board (the first is 1, or ``--first-board``). Tag
value inheritance (standard 4.8) is honoured: ``#`` repeats the previous value of the tag, ``##text``
sets a value later games keep until they give their own.

A game without a deal (no Deal tag, or an empty one) before the first board and without a Board tag is
the file's header and is passed over. Any other game with tags and no deal is refused, naming its line:
it is a results-only game (the deal given in an earlier game, as vugraph files write the second room)
or a game cut short, and silently losing a board is worse than refusing the file; the option
``skip_results_only`` passes over such games and lists them. A Deal with one unknown hand ``-`` and three
complete hands is completed. A partial deal - ``?``, two or more ``-`` hands, or hands short of 13
cards, with no card twice - refuses the file naming its board, unless the option ``skip_partial`` skips
it (listed in the report); anything else that is not a full deal is always an error. So is a second,
different Board or Deal tag in one game: the standard would ignore it, but it means games not separated
by an empty line. Board numbers that repeat (one game per table) are left to
:func:`dealer.formats.read_file`.

The first Event tag at the top of the file (up to its first board) becomes the deal set's event; the
first Site, Date and Generator there go into its metadata (``site``, ``date``, ``generator``).

Writing gives the export format of standard 2.1 (:mod:`dealer.formats.pbn_export`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Final

from dealer.core.dealset import DealSet
from dealer.formats import board_sets, pbn_export
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport

NAME: Final = "pbn"
EXTENSIONS: Final = ("pbn",)
MAX_BOARD: Final = None
NUMBERED: Final = True
COUNTED: Final = False
BOARD_SET: Final = board_sets.NUMBERS


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Stream the boards of a PBN file in file order (see :mod:`dealer.formats.pbn_import`)."""
    from dealer.formats.pbn_import import read_pbn  # here: writing a file needs none of the reader

    return read_pbn(stream, path, options, report)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write `deals` in PBN 2.1 export format (options: see :func:`dealer.formats.pbn_export.write`)."""
    pbn_export.write(stream, deals, **options)


def write_parts(stream: BinaryIO, parts: Iterable[DealSet], *, threads: int | None = None, **options: Any) -> None:
    """Write deal sets one after another as one PBN file, in bounded memory, building its text on
    `threads` threads (see :func:`dealer.formats.pbn_export.write_parts`)."""
    pbn_export.write_parts(stream, parts, threads=threads, **options)
