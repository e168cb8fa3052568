"""Duplimate DLM (``.dlm``, the Windows version): an INI-style text file of at most 99 boards.

The ``[Document]`` section (any case) holds::

    Headline=<text>            Status=Show|Sealed        Duplicates=<n>
    From board=<n>             To board=<n>              (both 1-99)
    Next board to duplimate=0  PrintOuts=0               Crypto key=0
    Checksum=<Duplicates xor From board xor To board, xor 1 more if Status=Show>
    Duplicates NN=0            Board NN=<26 letters a-p><3 digits>     for every NN from 01 to 99

Letter i of a board string holds cards 2i and 2i+1 (spade ace first) as ``'a' + 4*seat(2i) +
seat(2i+1)``, seats N=0 E=1 S=2 W=3; its 3 digits are the board number xor every letter's byte.
Boards outside From-To carry a filler deal (Big Deal's: N all spades, E hearts, S diamonds, W
clubs) or anything at all; other sections (``[STARTUP]``), ``Property NN`` and ``Dealing method``
lines seen in real files are passed over.

Keeps: the deals of boards From-To (consecutive, 1-99), the headline as the event, whether the file
is sealed (metadata ``sealed`` = ``yes``). Loses: dealer and vulnerability other than Law 2. The
reader checks the header checksum, every listed board's checksum and deal, and refuses files with a
non-zero crypto key (their board strings are not plain deals).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core.dealset import DealSet
from dealer.core.digits import TooManyDigits, whole
from dealer.core.errors import FormatError, UsageError
from dealer.formats import board_sets
from dealer.formats._records import ByteArray, RecordFault, check_batch, iter_lines
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "dlm"
EXTENSIONS: Final = ("dlm",)
MAX_BOARD: Final = 99
NUMBERED: Final = True
COUNTED: Final = True
BOARD_SET: Final = board_sets.ONE_RUN
ENCODING: Final = "cp1252"
FILLER: Final = "aaaaaabffffffkkkkkklpppppp"
_BOARD_VALUE: Final = re.compile(r"([a-p]{26})(\d{3})")
_NUMBERED_KEY: Final = re.compile(r"(board|duplicates|property) (\d{1,2})")
_HEADER_KEYS: Final = ("headline", "status", "duplicates", "from board", "to board", "checksum",
                       "crypto key", "next board to duplimate", "printouts", "dealing method")


@dataclass
class _Document:
    """What the [Document] section says, with the line of each value."""

    header: dict[str, tuple[str, int]] = field(default_factory=dict)
    boards: dict[int, tuple[str, int]] = field(default_factory=dict)
    seen: bool = False
    end: int = 0  # the last line of the file: where what is missing should have been by


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """The boards From-To of a DLM file, checked."""
    doc = _parse(stream, path)
    if not doc.seen:
        raise FormatError(_("no [Document] section"), path, line=doc.end)
    status = _text(doc, "status", path).lower()
    if status not in ("show", "sealed"):
        raise FormatError(_("Status must be Show or Sealed, not {status}").format(status=repr(doc.header["status"][0])),
                          path, line=doc.header["status"][1])
    low, high = _number(doc, "from board", path), _number(doc, "to board", path)
    if not 1 <= low <= high <= MAX_BOARD:
        raise FormatError(_("boards {low}-{high} are not a range within 1-99").format(low=low, high=high), path,
                          line=doc.header["to board"][1])
    _check_header(doc, low, high, status == "show", path)
    deals = _board_deals(doc, path)
    chosen = list(range(low, high + 1))
    missing = [b for b in chosen if b not in deals]
    if missing:
        raise FormatError(_("no 'Board {board:02d}' line (the file ends here)").format(board=missing[0]), path,
                          line=doc.end, board=missing[0])
    headline = doc.header.get("headline", ("", 0))[0]
    yield DealSet.from_deals(np.stack([deals[b] for b in chosen]), chosen, event=headline,
                             metadata={"sealed": "yes"} if status == "sealed" else None)


def _parse(stream: BinaryIO, path: str) -> _Document:
    doc = _Document()
    section = ""
    for number, raw in iter_lines(stream, path):
        doc.end = number
        line = raw.decode(ENCODING, errors="replace").strip()
        if number == 1:
            line = line.lstrip("\ufeff")
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip().lower()
            if section == "document":
                if doc.seen:
                    raise FormatError(_("a second [Document] section"), path, line=number)
                doc.seen = True
            continue
        if not section:
            raise FormatError(_("text before the [Document] section"), path, line=number)
        if section == "document":
            _take(doc, line, number, path)
    return doc


def _take(doc: _Document, line: str, number: int, path: str) -> None:
    key, sep, value = line.partition("=")
    if not sep:
        raise FormatError(_("{text} is not 'name=value'").format(text=repr(line[:40])), path, line=number)
    key = " ".join(key.split()).lower()
    value = value.strip()
    numbered = _NUMBERED_KEY.fullmatch(key)
    if numbered:
        if numbered.group(1) != "board":
            return
        try:
            board = whole(numbered.group(2))
        except TooManyDigits as exc:
            raise FormatError(str(exc), path, line=number) from None
        if not 1 <= board <= MAX_BOARD:
            raise FormatError(_("board {board} outside 1-99").format(board=board), path, line=number)
        if board in doc.boards:
            raise FormatError(_("board {board} listed twice").format(board=board), path, line=number, board=board)
        doc.boards[board] = (value, number)
    elif key in _HEADER_KEYS:
        if key in doc.header:
            raise FormatError(_("{key} given twice").format(key=repr(key)), path, line=number)
        doc.header[key] = (value, number)


def _text(doc: _Document, key: str, path: str) -> str:
    if key not in doc.header:
        raise FormatError(_("the [Document] section has no {key} line (the file ends here)").format(key=repr(key)),
                          path, line=doc.end)
    return doc.header[key][0]


def _number(doc: _Document, key: str, path: str) -> int:
    text = _text(doc, key, path)
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        raise FormatError(_("{key} {text} is not a number").format(key=key, text=repr(text)), path,
                          line=doc.header[key][1])
    return int(text)


def _check_header(doc: _Document, low: int, high: int, show: bool, path: str) -> None:
    expected = _number(doc, "duplicates", path) ^ low ^ high ^ (1 if show else 0)
    if _number(doc, "checksum", path) != expected:
        raise FormatError(_("header checksum is {checksum}, the header gives {expected}").format(
            checksum=doc.header["checksum"][0], expected=expected), path, line=doc.header["checksum"][1])
    if "crypto key" in doc.header and _number(doc, "crypto key", path) != 0:
        raise FormatError(_("boards are encrypted (Crypto key is not 0); cannot read them"), path,
                          line=doc.header["crypto key"][1])


def _board_deals(doc: _Document, path: str) -> dict[int, ByteArray]:
    """Every listed board's deal, its checksum verified."""
    numbers = sorted(doc.boards)
    letters = []
    for board in numbers:
        value, line = doc.boards[board]
        m = _BOARD_VALUE.fullmatch(value)
        if not m:
            raise FormatError(_("a board is 26 letters a-p and a 3-digit checksum"), path, line=line,
                              board=board)
        if board_checksum(board, m.group(1)) != int(m.group(2)):
            raise FormatError(_("board checksum is {checksum}, the letters give {expected:03d}").format(
                checksum=m.group(2), expected=board_checksum(board, m.group(1))), path, line=line, board=board)
        letters.append(m.group(1).encode("ascii"))
    if not numbers:
        return {}
    deals = decode_letters(np.frombuffer(b"".join(letters), dtype=np.uint8).reshape(-1, 26))
    try:
        check_batch(deals)
    except RecordFault as fault:
        board = numbers[fault.row]
        raise FormatError(fault.reason, path, line=doc.boards[board][1], board=board) from None
    return dict(zip(numbers, deals, strict=True))


def board_checksum(board: int, letters: str) -> int:
    """A board string's checksum: the board number xor the byte of every letter."""
    total = board
    for ch in letters.encode("ascii"):
        total ^= ch
    return total


def decode_letters(letters: ByteArray) -> ByteArray:
    """(n, 52) seats from (n, 26) letters a-p."""
    value = letters.astype(np.uint8) - ord("a")
    deals = np.empty((len(letters), 52), dtype=np.uint8)
    deals[:, 0::2] = value >> 2
    deals[:, 1::2] = value & 3
    return deals


def encode_letters(deals: ByteArray) -> ByteArray:
    """(n, 26) letters a-p of (n, 52) deals."""
    return (deals[:, 0::2] * 4 + deals[:, 1::2] + ord("a")).astype(np.uint8)


def write(stream: BinaryIO, deals: DealSet, *, blind: bool = False, headline: str | None = None,
          duplicates: int = 0, newline: str = "\n", **options: Any) -> None:
    """Write consecutive boards 1-99 as a DLM file listing boards 01-99, as Big Deal does.

    `blind` writes Status=Sealed; `headline` defaults to the set's event; `duplicates` goes in the
    header (Big Deal writes 0); `newline` is LF as Big Deal writes on Unix, or CRLF as on Windows.
    """
    if options:
        raise UsageError(_("DLM files take blind, headline, duplicates and newline; got {options}").format(
            options=", ".join(sorted(options))))
    if newline not in ("\r\n", "\n"):
        raise UsageError(_("DLM newline must be CRLF or LF"))
    if not len(deals):
        raise FormatError(_("a DLM file needs at least one board"))
    boards = deals.boards
    if (np.diff(boards) != 1).any():
        raise FormatError(_("{format} holds consecutive boards only, in order; this set is not one run").format(
            format="DLM"))
    if boards[-1] > MAX_BOARD:
        raise FormatError(_("{format} holds boards 1-{limit} only; this run reaches board {board}").format(
            format="DLM", limit=MAX_BOARD, board=boards[-1]))
    low, high = int(boards[0]), int(boards[-1])
    text = " ".join((deals.event if headline is None else headline).split())
    lines = ["[Document]", f"Headline={text}", f"Status={'Sealed' if blind else 'Show'}",
             f"Duplicates={duplicates}", f"From board={low}", f"To board={high}",
             "Next board to duplimate=0", "PrintOuts=0", "Crypto key=0",
             f"Checksum={duplicates ^ low ^ high ^ (0 if blind else 1)}"]
    strings = [row.tobytes().decode("ascii") for row in encode_letters(deals.deals)]
    for board in range(1, MAX_BOARD + 1):
        letters = strings[board - low] if low <= board <= high else FILLER
        check = board_checksum(board, letters)
        lines += [f"Duplicates {board:02d}=0", f"Board {board:02d}={letters}{check:03d}"]
    stream.write((newline.join(lines) + newline).encode(ENCODING, errors="replace"))
