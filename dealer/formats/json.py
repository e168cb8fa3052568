"""The project's own JSON deal file (``.json``), for tooling. Schema, version 1::

    {"format": "dealer-deals",          required, exactly this
     "version": 1,                      required, an integer; readers refuse other versions
     "event": "Club pairs",             optional string (default "")
     "metadata": {"key": "value"},      optional object of strings
     "boards": [                        required, after the four keys above; may be empty
       {"board": 1,                     required integer >= 1
        "dealer": "N",                  optional N | E | S | W (default: Law 2 for the board)
        "vulnerable": "None",           optional None | NS | EW | All (default: Law 2)
        "deal": "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"},
       ...]}

``deal`` is a PBN deal string: a first seat, then four hands clockwise, each ``S.H.D.C`` with ranks
``AKQJT98765432``; the writer starts with North. Other top-level keys are passed over; a board with
any other key is refused (a misspelt key must not silently become Law 2).

Streaming: the writer puts one board on each line; the reader parses the document incrementally
(any layout, any whitespace), holding one board at a time, so a file of any size reads in bounded
memory. That is why ``boards`` must come after ``format``, ``version``, ``event`` and ``metadata``
(every deal set chunk carries them). Keeps everything a `DealSet` holds.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import numpy as np

from dealer.core import structured
from dealer.core.boards import dealer_of, vulnerability_of
from dealer.core.cards import SEATS
from dealer.core.dealset import DealSet
from dealer.core.digits import TooManyDigits, decimal, whole
from dealer.core.errors import FormatError
from dealer.formats import board_sets
from dealer.formats._codes import hand_layout, parse_deal_strings
from dealer.formats._records import CHUNK_BOARDS, HIGHEST_BOARD, RecordFault, read_full, reject_options
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "json"
EXTENSIONS: Final = ("json",)
MAX_BOARD: Final = None
NUMBERED: Final = True
COUNTED: Final = True
BOARD_SET: Final = board_sets.NUMBERS
FORMAT_ID: Final = "dealer-deals"
VERSION: Final = 1
VUL_NAMES: Final = ("None", "NS", "EW", "All")
BOARD_KEYS: Final = frozenset({"board", "dealer", "vulnerable", "deal"})
_SEAT_NUMBER: Final = {seat: i for i, seat in enumerate(SEATS)}
_VUL_NUMBER: Final = {name: i for i, name in enumerate(VUL_NAMES)}
HEADER_KEYS: Final = ("format", "version", "event", "metadata")
READ_SIZE: Final = 1 << 16
MAX_VALUE: Final = 1 << 24  # one JSON value larger than this is refused, to bound memory


class _Scanner:
    """An incremental JSON reader over a byte stream: whitespace, single characters, whole values."""

    def __init__(self, stream: BinaryIO, path: str) -> None:
        self.stream = stream
        self.path = path
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.json = json.JSONDecoder(parse_int=whole, parse_float=decimal)
        self.text = ""
        self.pos = 0
        self.counted = 0  # newlines in text[:counted] are counted in line_no
        self.line_no = 1
        self.eof = False

    def line(self) -> int:
        """The line of the current position (positions only move forward)."""
        self.line_no += self.text.count("\n", self.counted, self.pos)
        self.counted = self.pos
        return self.line_no

    def error(self, reason: str) -> FormatError:
        return FormatError(reason, self.path, line=self.line())

    def _fill(self, size: int) -> bool:
        """Read more text; False at the end of the stream."""
        if self.eof:
            return False
        if self.pos > READ_SIZE:
            self.line()
            self.text, self.pos, self.counted = self.text[self.pos:], 0, 0
        data = read_full(self.stream, size)
        try:
            self.text += self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise self.error(_("not UTF-8 text: {reason}").format(reason=exc.reason)) from None
        self.eof = not data
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end)."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.text) or not self._fill(READ_SIZE):
                return self.text[self.pos:self.pos + 1]

    def expect(self, chars: str, what: str) -> str:
        ch = self.peek()
        if not ch or ch not in chars:
            said = (_("expected {what}, found {found}").format(what=what, found=repr(ch)) if ch
                    else _("expected {what}, found the end").format(what=what))
            raise self.error(said)
        self.pos += 1
        return ch

    def value(self) -> Any:
        """The next whole JSON value."""
        self.peek()
        size = READ_SIZE
        while True:
            try:
                obj, end = self.json.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if len(self.text) - self.pos > MAX_VALUE:
                    raise self.error(_("not JSON ({reason}) or a value over 16 MB").format(reason=exc.msg)) from None
                if not self._fill(size):
                    raise self.error(_("not JSON: {reason}").format(reason=exc.msg)) from None
                size *= 2
                continue
            except RecursionError:
                raise self.error(_("nested deeper than {most} levels").format(most=structured.MAX_DEPTH)) from None
            except TooManyDigits as exc:
                raise self.error(str(exc)) from None
            if end == len(self.text) and self._fill(READ_SIZE):
                continue  # a number may go on in the next block
            try:
                structured.check(obj)
            except structured.StructureError as exc:
                raise self.error(str(exc)) from None
            self.pos = end
            return obj


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a JSON deal file in chunks."""
    scan = _Scanner(stream, path)
    scan.expect("{", _("'{' starting the document"))
    header: dict[str, Any] = {}
    seen_boards = False
    if scan.peek() == "}":
        scan.pos += 1
    else:
        while True:
            key = scan.value()
            if not isinstance(key, str):
                raise scan.error(_("an object key must be a string"))
            if key in header or (key == "boards" and seen_boards):
                raise scan.error(_("key {key} given twice").format(key=repr(key)))
            scan.expect(":", "':'")
            if key == "boards":
                seen_boards = True
                yield from _boards(scan, _check_header(scan, header), report)
            else:
                header[key] = scan.value()
            if scan.expect(",}", _("',' or '}'")) == "}":
                break
    if scan.peek():
        raise scan.error(_("text after the JSON document"))
    if not seen_boards:
        raise scan.error(_("no 'boards' list"))


def _check_header(scan: _Scanner, header: dict[str, Any]) -> tuple[str, dict[str, str]]:
    if header.get("format") != FORMAT_ID:
        raise scan.error(_("'format' must be {format} and come before 'boards'").format(format=repr(FORMAT_ID)))
    version = header.get("version")
    if type(version) is not int or version != VERSION:
        raise scan.error(_("'version' must be {version} and come before 'boards'; got {given}").format(
            version=VERSION, given=repr(version)))
    event = header.get("event", "")
    metadata = header.get("metadata", {})
    if not isinstance(event, str):
        raise scan.error(_("'event' must be a string"))
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise scan.error(_("'metadata' must be an object of strings"))
    return event, metadata


class _JsonChunk:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.boards: list[int] = []
        self.dealers: list[int] = []
        self.vuls: list[int] = []
        self.lines: list[int] = []


def _boards(scan: _Scanner, header: tuple[str, dict[str, str]], report: ReadReport | None,
            ) -> Iterator[DealSet]:
    scan.expect("[", _("'[' starting the boards"))
    chunk = _JsonChunk()
    if scan.peek() == "]":
        scan.pos += 1
        return
    while True:
        scan.peek()
        line = scan.line()
        _take(chunk, scan.value(), line, scan.path)
        if len(chunk.boards) == CHUNK_BOARDS:
            yield _deal_set(chunk, header, scan.path, report)
            chunk = _JsonChunk()
        if scan.expect(",]", _("',' or ']'")) == "]":
            break
    if chunk.boards:
        yield _deal_set(chunk, header, scan.path, report)


def _take(chunk: _JsonChunk, item: Any, line: int, path: str) -> None:
    if not isinstance(item, dict):
        raise FormatError(_("a board must be an object"), path, line=line)
    board = item.get("board")
    if type(board) is not int or not 1 <= board <= HIGHEST_BOARD:
        raise FormatError(_("'board' must be an integer from 1 to {most}; got {board}").format(
            most=HIGHEST_BOARD, board=repr(board))[:120], path, line=line)
    extra = item.keys() - BOARD_KEYS
    if extra:
        raise FormatError(_("unknown key {key}").format(key=repr(sorted(extra)[0])), path, line=line, board=board)
    dealer = _choice(item, "dealer", _SEAT_NUMBER, dealer_of(board), path, line, board)
    vul = _choice(item, "vulnerable", _VUL_NUMBER, int(vulnerability_of(board)), path, line, board)
    deal = item.get("deal")
    if not isinstance(deal, str):
        raise FormatError(_("'deal' must be a PBN deal string"), path, line=line, board=board)
    chunk.texts.append(deal)
    chunk.boards.append(board)
    chunk.dealers.append(dealer)
    chunk.vuls.append(vul)
    chunk.lines.append(line)


def _choice(item: dict[str, Any], key: str, names: dict[str, int], default: int, path: str, line: int,
            board: int) -> int:
    """The number of a named value (dealer, vulnerability), or `default` when the key is absent."""
    if key not in item:
        return default
    value = item[key]
    if not isinstance(value, str) or value not in names:
        raise FormatError(_("{key} must be {names}; got {value}").format(
            key=repr(key), names=", ".join(names), value=repr(value)), path, line=line, board=board)
    return names[value]


def _deal_set(chunk: _JsonChunk, header: tuple[str, dict[str, str]], path: str,
              report: ReadReport | None) -> DealSet:
    if report is not None:
        report.place_all([_("line {line}").format(line=n) for n in chunk.lines])
    try:
        deals = parse_deal_strings(chunk.texts)
    except RecordFault as fault:
        raise FormatError(_("deal: {reason}").format(reason=fault.reason), path, line=chunk.lines[fault.row],
                          board=chunk.boards[fault.row]) from None
    event, metadata = header
    return DealSet(np.array(chunk.boards, dtype=np.int64), deals, np.array(chunk.dealers),
                   np.array(chunk.vuls), event, dict(metadata))


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write the set as one JSON document, one board a line."""
    reject_options(NAME, options)
    head = json.dumps({"format": FORMAT_ID, "version": VERSION, "event": deals.event,
                       "metadata": deals.metadata}, ensure_ascii=False)
    stream.write((head[:-1] + ', "boards": [').encode("utf-8"))
    comma = ""
    for start in range(0, len(deals), CHUNK_BOARDS):
        end = start + CHUNK_BOARDS
        layout = hand_layout(deals.deals[start:end], (0, 1, 2, 3), (None, ord("."), ord("."), ord(".")),
                             ord(" "))
        out = []
        for hands, board, dealer, vul in zip(layout, deals.boards[start:end], deals.dealers[start:end],
                                             deals.vulnerabilities[start:end], strict=True):
            out.append(f'{comma}\n{{"board": {board}, "dealer": "{SEATS[dealer]}", "vulnerable": '
                       f'"{VUL_NAMES[vul]}", "deal": "N:{hands.tobytes().decode("ascii")}"}}')
            comma = ","
        stream.write("".join(out).encode("ascii"))
    stream.write(b"\n]}\n")
