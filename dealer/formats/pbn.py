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

Writing gives the export format of standard 2.1: ``% PBN 2.1`` and ``% EXPORT``, CRLF line ends, the 15
tags of the Mandatory Tag Set in their order, then the supplemental ``Generator`` tag (export puts
supplemental tags after the MTS, sorted by name), an empty line before every game but the first. The deal
starts with the dealer, ranks descending. Event, Site and Date belong to the event and are ``?`` when
unknown; the players, Scoring, Declarer, Contract and Result do not apply to a dealing program and are
``""``, as the standard asks of one.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np
import numpy.typing as npt

from dealer import __version__
from dealer.boards import Vulnerability
from dealer.cards import SEATS
from dealer.dealset import DealSet
from dealer.errors import UsageError
from dealer.formats.pbn_deals import DEAL_TEXT_LENGTH, deal_texts
from dealer.formats.pbn_import import read_pbn

NAME: Final = "pbn"
EXTENSIONS: Final = ("pbn",)
MAX_BOARD: Final = None


def read(stream: BinaryIO, path: str) -> Iterator[DealSet]:
    """Stream the boards of a PBN file in file order (see :mod:`dealer.formats.pbn_import`)."""
    return read_pbn(stream, path)


# --- writing -------------------------------------------------------------------------------------

EXPORT_HEADER: Final = "% PBN 2.1\r\n% EXPORT\r\n"
_GAMES_PER_WRITE: Final = 8192
_MAX_VALUE: Final = 200  # escaped; keeps every line within the standard's 255 characters
_DATE = re.compile(r"[0-9?]{4}\.[0-9?]{2}\.[0-9?]{2}")
_OTHER_DATES = re.compile(r"([0-9]{4})[-/]?([0-9]{2})[-/]?([0-9]{2})")
_OPTIONS: Final = ("event", "site", "date", "generator")


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write `deals` in PBN 2.1 export format.

    Options: ``event``, ``site`` (text), ``date`` (``datetime.date`` or ``YYYY.MM.DD``), ``generator``
    (how the deals were made; never a seed). Defaults: the deal set's event and metadata, else ``?``;
    the generator defaults to this program.
    """
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise UsageError(f"PBN has no option {', '.join(sorted(unknown))}; options: {', '.join(_OPTIONS)}")
    head, middles, tail = _game_template(deals, options)
    stream.write(EXPORT_HEADER.encode("ascii"))
    for start in range(0, len(deals), _GAMES_PER_WRITE):
        part = slice(start, start + _GAMES_PER_WRITE)
        text = _games_text(deals.boards[part], deals.dealers[part], deals.vulnerabilities[part],
                           _deal_column(deals, part), head, middles, tail)
        stream.write((("\r\n" if start else "") + text).encode("latin-1"))


def _deal_column(deals: DealSet, part: slice) -> str:
    """The dealer-first Deal values of a slice of boards, concatenated (69 characters each)."""
    return deal_texts(deals.deals[part], deals.dealers[part]).tobytes().decode("ascii")


def _games_text(boards: npt.NDArray[np.int64], dealers: npt.NDArray[np.uint8],
                vuls: npt.NDArray[np.uint8], deal_text: str, head: str, middles: list[str], tail: str) -> str:
    """The text of consecutive games, an empty line between them."""
    width = DEAL_TEXT_LENGTH
    keys = (dealers.astype(np.intp) * 4 + vuls).tolist()
    return "\r\n".join(
        f"{head}{board}{middles[key]}{deal_text[i * width:(i + 1) * width]}{tail}"
        for i, (board, key) in enumerate(zip(boards.tolist(), keys, strict=True)))


def _game_template(deals: DealSet, options: dict[str, Any]) -> tuple[str, list[str], str]:
    """The fixed text around each game's board number and Deal value; middles by dealer*4+vulnerability."""
    meta = deals.metadata
    event = _option_or(options, "event", deals.event)
    site = _option_or(options, "site", meta.get("site", ""))
    generator = _option_or(options, "generator", meta.get("generator", "")) or f"dealer {__version__}"
    date = _export_date(options.get("date", meta.get("date", "")), strict="date" in options)
    head = _tags(("Event", event or "?"), ("Site", site or "?"), ("Date", date or "?")) + '[Board "'
    players = _tags(("West", ""), ("North", ""), ("East", ""), ("South", ""))
    middles = [
        '"]\r\n' + players + _tags(("Dealer", SEATS[d]), ("Vulnerable", Vulnerability(v).pbn)) + '[Deal "'
        for d in range(4) for v in range(4)
    ]
    tail = '"]\r\n' + _tags(("Scoring", ""), ("Declarer", ""), ("Contract", ""), ("Result", ""),
                            ("Generator", generator))
    return head, middles, tail


def _tags(*pairs: tuple[str, str]) -> str:
    return "".join(f'[{name} "{value}"]\r\n' for name, value in pairs)


def _option_or(options: dict[str, Any], name: str, default: str) -> str:
    """An escaped tag value: the option if given (refused if PBN cannot hold it), else `default` made fit."""
    if name in options:
        return _export_value(str(options[name]), name, strict=True)
    return _export_value(default, name, strict=False)


def _export_value(value: str, what: str, *, strict: bool) -> str:
    """A tag value of ISO 8859-1 printing characters with quotes and backslashes escaped.

    Tabs and line breaks become spaces. Otherwise, with `strict` a value PBN cannot hold is a
    `UsageError`; without it, other characters become '?' and the value is cut to fit a line.
    """
    text = "".join(" " if ord(c) < 32 else c for c in value).strip()
    fits = "".join(c if 32 <= ord(c) <= 126 or 160 <= ord(c) <= 255 else "?" for c in text)
    if strict and fits != text:
        raise UsageError(f"{what} {_short(text)} has characters PBN cannot hold (ISO 8859-1 only)")
    escaped = _escape(fits)
    if len(escaped) > _MAX_VALUE:
        if strict:
            raise UsageError(f"{what} is longer than PBN's lines allow ({_MAX_VALUE} characters, escaped)")
        fits = fits[:_MAX_VALUE]
        while len(_escape(fits)) > _MAX_VALUE:
            fits = fits[:-1]
        escaped = _escape(fits)
    return escaped


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _export_date(value: Any, *, strict: bool) -> str:
    """A date as YYYY.MM.DD ('?' for unknown digits); other spellings of a date are normalised."""
    if isinstance(value, dt.date):
        return f"{value.year:04d}.{value.month:02d}.{value.day:02d}"
    text = str(value).strip()
    if text in ("", "?") or _DATE.fullmatch(text):
        return text
    m = _OTHER_DATES.fullmatch(text)
    if m:
        return ".".join(m.groups())
    if strict:
        raise UsageError(f"date {_short(text)} is not YYYY.MM.DD")
    return "?"

