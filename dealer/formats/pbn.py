"""PBN (Portable Bridge Notation, 1.0 to 2.1): the format module - read any legal file, write strict export.

Reading (:mod:`dealer.formats.pbn_import`) takes the import format in all its freedom: ``%`` escape
lines, ``{...}`` and ``;`` comments, tag pairs in any order with escaped quotes and backslashes,
auction, play and supplemental sections (passed over), games separated by semi-empty lines, LF, CRLF or
CR line ends, ISO 8859-1 text (a UTF-8 byte-order mark is dropped; free-text values that are valid UTF-8
are read as UTF-8). Of each game it keeps Board, Dealer, Vulnerable and Deal: dealer and vulnerability
as the file gives them (even against Law 2), or by Law 2 from the board number when absent or ``?``; a
board number absent or ``?`` follows the previous board. Tag value inheritance (standard 4.8) is
honoured: ``#`` repeats the previous value of the tag, ``##text`` sets a value later games keep until
they give their own. A game without a deal (no Deal tag, or an empty one) is a header and is skipped; a
Deal with one unknown hand ``-`` and three complete hands is completed; anything else that is not a full
deal is an error. So is a second, different Board or Deal tag in one game: the standard would ignore it,
but it means games not separated by an empty line, and silently losing a board is worse than refusing
the file. The first Event tag at the top of the file (up to its first board) becomes the deal set's
event; the first Site, Date and Generator there go into its metadata (``site``, ``date``, ``generator``).

Writing gives the export format of standard 2.1 (:mod:`dealer.formats.pbn_export`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Final

from dealer.core.dealset import DealSet
from dealer.formats import pbn_export

NAME: Final = "pbn"
EXTENSIONS: Final = ("pbn",)
MAX_BOARD: Final = None


def read(stream: BinaryIO, path: str) -> Iterator[DealSet]:
    """Stream the boards of a PBN file in file order (see :mod:`dealer.formats.pbn_import`)."""
    from dealer.formats.pbn_import import read_pbn  # here: writing a file needs none of the reader

    return read_pbn(stream, path)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write `deals` in PBN 2.1 export format (options: see :func:`dealer.formats.pbn_export.write`)."""
    pbn_export.write(stream, deals, **options)


def write_parts(stream: BinaryIO, parts: Iterable[DealSet], *, threads: int | None = None, **options: Any) -> None:
    """Write deal sets one after another as one PBN file, in bounded memory, building its text on
    `threads` threads (see :func:`dealer.formats.pbn_export.write_parts`)."""
    pbn_export.write_parts(stream, parts, threads=threads, **options)
