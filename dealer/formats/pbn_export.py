"""PBN writing: the export format of standard 2.1, whole games assembled as numpy byte arrays.

The file is ``% PBN 2.1`` and ``% EXPORT``, CRLF line ends, the 15 tags of the Mandatory Tag Set in
their order, then the supplemental ``Generator`` tag (export puts supplemental tags after the MTS,
sorted by name), an empty line before every game but the first, and after the last an escape line (2.4,
passed over by every reader) saying how many boards the file holds (`COUNT_MARK`: the one mark by which our
reader knows that no board of a file it wrote is missing). The deal starts with the dealer,
ranks descending. Event, Site and Date belong to the event and are ``?`` when unknown; the players,
Scoring, Declarer, Contract and Result do not apply to a dealing program and are ``""``, as the
standard asks of one.

Where Big Deal's PBN (``output.c``: ``init_pbn``, ``print_pbn``) differs for the same run, the standard is
explicit and ours follows it (sections of PBN 2.1):

- line ends: CRLF (2.3: "this end-of-line indicator equals the CRLF character-pair"); Big Deal writes
  C text mode, LF from its Unix build;
- games: "each game (except for the first) must start with an empty text line" (3); Big Deal ends every
  game with one, so its file also ends with an empty line;
- ``Generator``: a supplemental tag, after the 15 mandatory tags (3.4), in every game (3: "every game
  contains all its required data"); Big Deal writes it once, before the first game's Event, with a
  ``%`` line before;
- the players, Scoring, Declarer, Contract and Result: ``""`` (3.4: "when a tag value of a mandatory tag
  is inappropriate (e.g. a dealing program ...), then the tag is given as an empty string"); Big Deal
  writes ``"?"``;
- ``[Deal]`` starts with the dealer (3.4.11: "in export format ... <first> is equal to the dealer"); Big
  Deal always starts with North. The deal is the same.

Event, Site, Date, Board, Dealer and Vulnerable are the same as Big Deal's.

Every game is the same text but for four fields: the board number (1 to 19 digits), the dealer (one
letter), the vulnerability (``None``, ``NS``, ``EW`` or ``All``) and the 69-character deal. So a chunk
of games is built as one (n, width) byte array: a template row copied n times, then the four fields
written column-wise, the board number right-aligned in a field as wide as the chunk's widest and the
vulnerability left-aligned in four columns. A mask of the bytes that belong to each game (dropping
the unused columns of those two fields) then leaves the games back to back, in file order. Consecutive
boards of one number width need no mask: their games repeat one layout every 16 boards (Law 2's cycle of
vulnerabilities), so each game of a cycle is copied for all cycles at once, in two strided blocks.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

import numpy as np
import numpy.typing as npt

from dealer import __version__
from dealer.core import parallel
from dealer.core.boards import Vulnerability
from dealer.core.cards import SEATS
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.formats.pbn_deals import BLANK_DEAL_TEXT, put_deal_texts
from dealer.language import _

EXPORT_HEADER: Final = b"% PBN 2.1\r\n% EXPORT\r\n"
COUNT_MARK: Final = "% dealer: {} boards in this file, which ends here"
"""The escape line (standard 2.4: ignored by every reader) closing a file this program wrote: how many
boards it holds, so that a reader of ours can tell none is missing (`boards_marked`)."""
_COUNT_MARK_FOUND = re.compile(rb"\n% dealer: (\d{1,19}) boards in this file, which ends here\r?\n?\Z")
_MARK_TAIL: Final = 128  # bytes at the end of a file where its mark is looked for
GAME_SEPARATOR: Final = b"\r\n"  # the empty line before every game but the first
OPTIONS: Final = ("event", "site", "date", "generator")
_GAMES_PER_CHUNK: Final = 2048  # games built at once by one thread (measured, 100,000 boards on 2 threads: the
# chunk's arrays, ~0.6 MB each, are reused by the allocator from chunk to chunk, where those of 8192 games
# (2.5 MB) were fresh pages each time: 30,000 page faults and ~0.05 s of system time a run, against ~3,700)
_MAX_VALUE: Final = 200  # escaped; keeps every line within the standard's 255 characters
_DATE = re.compile(r"[0-9?]{4}\.[0-9?]{2}\.[0-9?]{2}")
_OTHER_DATES = re.compile(r"([0-9]{4})[-/]?([0-9]{2})[-/]?([0-9]{2})")

_VUL_WIDTH: Final = 4
_CYCLE: Final = 16  # Law 2: dealer and vulnerability repeat every 16 boards
_VUL_TEXT = np.array([list(Vulnerability(v).pbn.ljust(_VUL_WIDTH).encode("ascii")) for v in range(4)],
                     dtype=np.uint8)
_VUL_LENGTH = np.array([len(Vulnerability(v).pbn) for v in range(4)], dtype=np.uint8)
_SEAT_CODES = np.frombuffer(SEATS.encode("ascii"), dtype=np.uint8)
_MAX_DIGITS: Final = 19  # board numbers are int64
_POWERS_OF_TEN = np.array([10**k for k in range(_MAX_DIGITS)], dtype=np.int64)


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write `deals` in PBN 2.1 export format.

    Options: ``event``, ``site`` (text), ``date`` (``datetime.date`` or ``YYYY.MM.DD``), ``generator``
    (how the deals were made; never a seed). Defaults: the deal set's event and metadata, else ``?``;
    the generator defaults to this program.
    """
    write_parts(stream, [deals], **options)


def write_parts(stream: BinaryIO, parts: Iterable[DealSet], *, threads: int | None = None, **options: Any) -> None:
    """Write deal sets one after another as one PBN file, each dropped once written (a file of any size
    in bounded memory). The options are :func:`write`'s; their defaults come from the first set.

    Chunks of games are built on `threads` threads (default: one a CPU) and written in file order."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise UsageError(_("PBN has no option {unknown}; options: {options}").format(
            unknown=", ".join(sorted(unknown)), options=", ".join(OPTIONS)))
    workers = parallel.thread_count(threads)
    stream.write(EXPORT_HEADER)
    layout: GameLayout | None = None
    skip = len(GAME_SEPARATOR)  # no empty line before the first game
    written = 0
    for deals in parts:
        layout = layout or game_layout(deals, options)
        for games in parallel.iter_spans(_chunk_builder(layout, deals), len(deals), _GAMES_PER_CHUNK, workers):
            stream.write(games[skip:].data)
            skip = 0
        written += len(deals)
    stream.write(GAME_SEPARATOR + COUNT_MARK.format(written).encode("ascii") + b"\r\n")


def boards_marked(path: str | Path) -> int | None:
    """The boards a PBN file says it holds in the mark this program ends its files with (`COUNT_MARK`), None
    for a file without it (written elsewhere, edited, or cut short)."""
    try:
        with open(path, "rb") as stream:
            stream.seek(0, 2)
            size = stream.tell()
            stream.seek(max(0, size - _MARK_TAIL))
            tail = stream.read()
    except OSError:
        return None
    found = _COUNT_MARK_FOUND.search(tail)
    return None if found is None else int(found.group(1))


def _chunk_builder(layout: GameLayout, deals: DealSet) -> Callable[[int, int], npt.NDArray[np.uint8]]:
    """The games of boards first..last-1 of `deals`, as a function of (first, last)."""

    def build(first: int, last: int) -> npt.NDArray[np.uint8]:
        part = slice(first, last)
        return layout.games(deals.boards[part], deals.dealers[part], deals.vulnerabilities[part], deals.deals[part])

    return build


@dataclass(frozen=True)
class GameLayout:
    """The fixed text of a game in export form, around its four fields (board, dealer, vulnerability,
    deal); the texts are ISO 8859-1 bytes, each game preceded by the empty line."""

    before_board: bytes
    before_dealer: bytes
    before_vulnerability: bytes
    before_deal: bytes
    after_deal: bytes

    def games(self, boards: npt.NDArray[np.int64], dealers: npt.NDArray[np.uint8],
              vuls: npt.NDArray[np.uint8], deals: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        """The games of these boards back to back, each preceded by the empty line, as a byte array."""
        n = len(boards)
        digits = _digit_counts(boards)
        board_width = int(digits.max()) if n else 1
        pieces = (self.before_board, b"0" * board_width, self.before_dealer, b"?", self.before_vulnerability,
                  b" " * _VUL_WIDTH, self.before_deal, BLANK_DEAL_TEXT, self.after_deal)
        starts = np.cumsum([0, *(len(p) for p in pieces)])
        board_col, dealer_col, vul_col, deal_col = (int(starts[i]) for i in (1, 3, 5, 7))
        rows = np.empty((n, int(starts[-1])), dtype=np.uint8)
        rows[:] = np.frombuffer(b"".join(pieces), dtype=np.uint8)
        _put_board_numbers(boards, rows[:, board_col:board_col + board_width])
        rows[:, dealer_col] = _SEAT_CODES[dealers]
        rows[:, vul_col:vul_col + _VUL_WIDTH] = _VUL_TEXT[vuls]
        put_deal_texts(deals, dealers, rows, deal_col)
        if n and n % _CYCLE == 0 and int(digits.min()) == board_width:
            cycled = _games_of_cycles(rows, _VUL_LENGTH[vuls], vul_col)
            if cycled is not None:
                return cycled
        keep = np.ones_like(rows, dtype=bool)
        keep[:, board_col:board_col + board_width] = (
            np.arange(board_width)[::-1] < digits[:, None])  # digits are right-aligned
        keep[:, vul_col:vul_col + _VUL_WIDTH] = np.arange(_VUL_WIDTH) < _VUL_LENGTH[vuls][:, None]
        games: npt.NDArray[np.uint8] = rows[keep]
        return games


def _games_of_cycles(rows: npt.NDArray[np.uint8], vul_lengths: npt.NDArray[np.uint8],
                     vul_col: int) -> npt.NDArray[np.uint8] | None:
    """The games of `rows` back to back, copied in blocks rather than through a mask, where every board
    number fills its field and the vulnerabilities repeat every 16 rows (Law 2's cycle, on consecutive
    boards): then every 16 games have the same layout, and game k of each cycle is two strided copies,
    its row up to its vulnerability's end and from the field's end on. None where the lengths do not
    repeat."""
    cycle = vul_lengths.reshape(-1, _CYCLE)
    if not (cycle == cycle[0]).all():
        return None
    width = rows.shape[1]
    heads = [vul_col + int(length) for length in cycle[0]]
    tail = width - vul_col - _VUL_WIDTH
    out = np.empty((len(cycle), sum(heads) + _CYCLE * tail), dtype=np.uint8)
    at = 0
    for k, head in enumerate(heads):
        out[:, at:at + head] = rows[k::_CYCLE, :head]
        out[:, at + head:at + head + tail] = rows[k::_CYCLE, width - tail:]
        at += head + tail
    games: npt.NDArray[np.uint8] = out.reshape(-1)
    return games


def _digit_counts(boards: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Decimal digits of each board number (numbers >= 1)."""
    counts: npt.NDArray[np.int64] = np.searchsorted(_POWERS_OF_TEN, boards, side="right")
    return counts


def _put_board_numbers(boards: npt.NDArray[np.int64], field: npt.NDArray[np.uint8]) -> None:
    """Write the decimal digits of each board number right-aligned into its row of `field`."""
    rest = boards.copy()
    for column in range(field.shape[1] - 1, -1, -1):
        rest, digit = np.divmod(rest, 10)
        field[:, column] = digit + ord("0")


def game_layout(deals: DealSet, options: dict[str, Any]) -> GameLayout:
    """The fixed text of the games of `deals` with these options (see :func:`write`)."""
    meta = deals.metadata
    event = _option_or(options, "event", deals.event)
    site = _option_or(options, "site", meta.get("site", ""))
    generator = _option_or(options, "generator", meta.get("generator", "")) or f"dealer {__version__}"
    date = _export_date(options.get("date", meta.get("date", "")), strict="date" in options)
    end = '"]\r\n'
    players = _tags(("West", ""), ("North", ""), ("East", ""), ("South", ""))
    texts = (
        "\r\n" + _tags(("Event", event or "?"), ("Site", site or "?"), ("Date", date or "?")) + '[Board "',
        end + players + '[Dealer "',
        end + '[Vulnerable "',
        end + '[Deal "',
        end + _tags(("Scoring", ""), ("Declarer", ""), ("Contract", ""), ("Result", ""),
                    ("Generator", generator)),
    )
    return GameLayout(*(text.encode("latin-1") for text in texts))


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
        raise UsageError(_("{what} {value} has characters PBN cannot hold (ISO 8859-1 only)").format(
            what=what, value=_short(text)))
    escaped = _escape(fits)
    if len(escaped) > _MAX_VALUE:
        if strict:
            raise UsageError(_("{what} is longer than PBN's lines allow ({most} characters, escaped)").format(
                what=what, most=_MAX_VALUE))
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
        raise UsageError(_("date {value} is not YYYY.MM.DD").format(value=_short(text)))
    return "?"
