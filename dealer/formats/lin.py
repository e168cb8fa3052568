"""BBO LIN deal lines (``.lin``): ``key|value|`` pairs, one board a line as Big Deal writes them::

    qx|o1|md|3SAJ9HK9542DQCAK93,S...,S...|rh||ah|Board 1|sv|o|pg||

``qx`` names the room and board (``o1`` open room, ``c1`` closed), ``ah`` the title (``Board 1``),
``sv`` the vulnerability (``o``/``0``/``-`` none, ``n`` NS, ``e`` EW, ``b`` both), and ``md`` the
deal: the dealer as a digit (1 = S, 2 = W, 3 = N, 4 = E) followed by the South, West, North and East
hands (``S..H..D..C..``), comma-separated; one hand may be left out or empty, it holds the rest.
The reader takes whole BBO files too: a board starts at each ``qx`` or ``md``, other keys (names,
bidding, play, comments) are passed over, and lines may break after any ``|``. A board without a
number is the previous one plus 1 (the first is 1, or ``--first-board``); without ``sv`` or a dealer
digit it gets Law 2.

Keeps: deals, board numbers, dealers and vulnerabilities. Loses: event. The writer writes Big Deal's
line, three hands (East implied), except ``sv|o`` for none as BBO writes (Big Deal writes ``0``,
which some readers refuse). The reader checks every hand, that board numbers in ``qx`` and ``ah``
agree, and the dealer and vulnerability codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Final

import numpy as np
import numpy.typing as npt

from dealer.core.boards import Vulnerability, dealers_of, vulnerabilities_of
from dealer.core.cards import RANKS
from dealer.core.dealset import DealSet
from dealer.core.digits import TooManyDigits, whole
from dealer.core.errors import FormatError
from dealer.formats import board_sets
from dealer.formats._codes import hand_layout, parse_hand
from dealer.formats._records import (
    CHUNK_BOARDS,
    MAX_LINE,
    UNSET,
    RecordFault,
    check_batch,
    iter_lines,
    reject_options,
)
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.language import _

NAME: Final = "lin"
EXTENSIONS: Final = ("lin",)
MAX_BOARD: Final = None
NUMBERED: Final = True
COUNTED: Final = False
BOARD_SET: Final = board_sets.NUMBERS
SEAT_OF_DIGIT: Final = {"1": 2, "2": 3, "3": 0, "4": 1}  # LIN dealer digit -> seat N=0 E=1 S=2 W=3
MD_SEATS: Final = (2, 3, 0, 1)  # md hands are S, W, N, E
VUL_CODES: Final = "oneb"
_QX: Final = re.compile(r"[oOcC]?(\d{1,9})")
_AH: Final = re.compile(r"\s*board\s+(\d{1,9})\s*", re.IGNORECASE)
# the usual md: a dealer digit, then three or four hands S..H..D..C.. in upper case, comma-separated
_HAND: Final = "S[AKQJT2-9]*H[AKQJT2-9]*D[AKQJT2-9]*C[AKQJT2-9]*"
USUAL_MD: Final = re.compile(rf"\s*[1-4]?({_HAND},{_HAND},{_HAND}(?:,|,{_HAND})?)\s*")
_HAND_TEXT: Final = 17  # a whole hand: four suit letters and 13 ranks
USUAL_LENGTHS: Final = (3 * _HAND_TEXT + 2, 3 * _HAND_TEXT + 3, 4 * _HAND_TEXT + 3)
_SUIT_OF_LETTER = np.full(256, UNSET, dtype=np.uint8)
_SUIT_OF_LETTER[list(b"SHDC")] = np.arange(4)
_RANK_OF_BYTE = np.full(256, UNSET, dtype=np.uint8)
_RANK_OF_BYTE[list(RANKS.encode("ascii"))] = np.arange(13)


@dataclass
class _Board:
    """The keys of one board seen so far, with the line of its md (or of its first key)."""

    md: str | None = None
    line: int = 0
    qx: str | None = None
    ah: str | None = None
    sv: str | None = None


def _pairs(stream: BinaryIO, path: str) -> Iterator[tuple[str, str, int]]:
    """(key in lower case, value, line) for every ``key|value|`` pair; lines may break after a '|'."""
    key: str | None = None
    carry = ""
    number = 0
    for number, raw in iter_lines(stream, path):
        parts = raw.decode("utf-8", errors="replace").split("|")
        parts[0] = carry + parts[0]
        carry = parts.pop()
        if len(carry) > MAX_LINE:
            raise FormatError(_("no '|' in over {most} bytes").format(most=MAX_LINE), path, line=number)
        for part in parts:
            if key is None:
                key = part.strip().lower()
            else:
                yield key, part, number
                key = None
    if key is not None:
        yield key, carry, number
    elif carry.strip():
        raise FormatError(_("text {text} after the last '|'").format(text=repr(carry[:20])), path, line=number)


def read(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
         report: ReadReport | None = None) -> Iterator[DealSet]:
    """Boards of a LIN file in chunks (a board without a number follows the previous one; the first is 1,
    or the first board of the options)."""
    chunk = _LinChunk(path, (options.first_board or 1) - 1, report)
    try:
        yield from _read_boards(stream, path, chunk)
    except FormatError:
        chunk.check_pending()  # a bad deal on an earlier board is the first error
        raise


def _read_boards(stream: BinaryIO, path: str, chunk: _LinChunk) -> Iterator[DealSet]:
    board: _Board | None = None
    for key, value, line in _pairs(stream, path):
        if board is not None and _starts_next_board(board, key):
            chunk.add(board)
            board = None
        if key not in ("qx", "md", "ah", "sv"):
            continue
        board = board or _Board(line=line)
        if key == "md":
            board.md, board.line = value, line
        elif getattr(board, key) is None:
            setattr(board, key, value)
        if len(chunk.boards) >= CHUNK_BOARDS:
            yield chunk.take()
    if board is not None:
        chunk.add(board)
    if chunk.boards:
        yield chunk.take()


def _starts_next_board(board: _Board, key: str) -> bool:
    """An md after the board's md, or a qx after its md or qx, begins the next board."""
    return (key == "md" and board.md is not None) or (
        key == "qx" and (board.md is not None or board.qx is not None))


class _LinChunk:
    """Boards decoded so far in one chunk."""

    def __init__(self, path: str, previous: int = 0, report: ReadReport | None = None) -> None:
        self.path = path
        self.previous = previous
        self.report = report
        self._reset()

    def _reset(self) -> None:
        self.deals = bytearray()
        self.boards: list[int] = []
        self.dealers: list[int | None] = []
        self.vuls: list[int | None] = []
        self.lines: list[int] = []
        self.pending: dict[int, list[tuple[int, str]]] = {}  # md length -> (row, md) in the usual layout

    def add(self, board: _Board) -> None:
        if board.md is None:
            raise FormatError(_("a board without md (its deal)"), self.path, line=board.line)
        number = self._number(board)
        row = len(self.boards)
        self.boards.append(number)
        self.lines.append(board.line)
        self.previous = number
        usual = USUAL_MD.fullmatch(board.md)
        if usual and len(usual.group(1)) in USUAL_LENGTHS:  # decoded in a batch when the chunk is taken
            self.deals += bytes(52)
            self.pending.setdefault(len(usual.group(1)), []).append((row, usual.group(1)))
        else:
            self.deals += self._deal(board.md, board.line, number)
        self.dealers.append(self._dealer(board.md, board.line, number))
        self.vuls.append(self._vul(board.sv, board.line, number))

    def check_pending(self) -> None:
        """Decode the deals left for the batch decoder into place; one it cannot read goes to the
        one-board reader, which raises `FormatError` if it is wrong."""
        deals = np.frombuffer(self.deals, dtype=np.uint8).reshape(-1, 52)  # a view: written in place
        left: list[tuple[int, str]] = []
        for items in self.pending.values():
            decoded, ok = decode_usual_hands([md for _, md in items])
            rows = np.array([row for row, _ in items], dtype=np.intp)
            deals[rows[ok]] = decoded[ok]
            left += [item for item, good in zip(items, ok.tolist(), strict=True) if not good]
        self.pending = {}
        for row, md in sorted(left):
            deals[row] = np.frombuffer(self._deal(md, self.lines[row], self.boards[row]), dtype=np.uint8)

    def _number(self, board: _Board) -> int:
        numbers = []
        for text, pattern, what in ((board.qx, _QX, "qx"), (board.ah, _AH, "ah")):
            if text is None or not text.strip():
                continue
            m = pattern.match(text.strip()) if what == "qx" else pattern.fullmatch(text)
            if m is None and what == "qx":
                raise FormatError(_("qx {text} is not a room and board number").format(text=repr(text)), self.path,
                                  line=board.line)
            if m is not None:
                try:
                    numbers.append(whole(m.group(1)))
                except TooManyDigits as exc:
                    raise FormatError(str(exc), self.path, line=board.line) from None
        if len(set(numbers)) > 1:
            raise FormatError(_("qx and ah give different board numbers {first} and {second}").format(
                first=numbers[0], second=numbers[1]), self.path, line=board.line)
        number = numbers[0] if numbers else self.previous + 1
        if number < 1:
            raise FormatError(_("board number 0"), self.path, line=board.line)
        return number

    def _deal(self, md: str, line: int, number: int) -> bytearray:
        text = md.strip()
        if text[:1].isdigit():
            text = text[1:]
        hands = text.split(",")
        if len(hands) > 4:
            raise FormatError(_("md has {count} hands").format(count=len(hands)), self.path, line=line, board=number)
        hands += [""] * (4 - len(hands))
        deal = bytearray([UNSET] * 52)
        empty = [seat for seat, hand in zip(MD_SEATS, hands, strict=True) if not hand.strip()]
        if len(empty) > 1:
            raise FormatError(_("md needs at least three hands"), self.path, line=line, board=number)
        for seat, hand in zip(MD_SEATS, hands, strict=True):
            why = parse_hand(deal, seat, hand.strip(), "SHDC")
            if why:
                raise FormatError(_("md: {reason}").format(reason=why), self.path, line=line, board=number)
        if empty:
            deal = bytearray(empty[0] if c == UNSET else c for c in deal)
        return deal

    def _dealer(self, md: str, line: int, number: int) -> int | None:
        digit = md.strip()[:1]
        if not digit.isdigit():
            return None
        if digit not in SEAT_OF_DIGIT:
            raise FormatError(_("dealer digit {digit} is not 1-4").format(digit=digit), self.path, line=line,
                              board=number)
        return SEAT_OF_DIGIT[digit]

    def _vul(self, sv: str | None, line: int, number: int) -> int | None:
        if sv is None or not sv.strip():
            return None
        try:
            return int(Vulnerability.from_text(sv))
        except ValueError:
            raise FormatError(_("sv {text} is not a vulnerability (o, n, e, b)").format(text=repr(sv)), self.path,
                              line=line, board=number) from None

    def take(self) -> DealSet:
        self.check_pending()
        deals = np.frombuffer(bytes(self.deals), dtype=np.uint8).reshape(-1, 52)
        try:
            check_batch(deals)
        except RecordFault as fault:
            raise FormatError(_("md: {reason}").format(reason=fault.reason), self.path, line=self.lines[fault.row],
                              board=self.boards[fault.row]) from None
        boards = np.array(self.boards, dtype=np.int64)
        law_dealers, law_vuls = dealers_of(boards), vulnerabilities_of(boards)
        dealers = [law if d is None else d for d, law in zip(self.dealers, law_dealers, strict=True)]
        vuls = [law if v is None else v for v, law in zip(self.vuls, law_vuls, strict=True)]
        result = DealSet(boards, deals, np.array(dealers), np.array(vuls))
        if self.report is not None:
            self.report.place_all([_("line {line}").format(line=n) for n in self.lines])
        self._reset()
        return result


def decode_usual_hands(bodies: list[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Deals of md texts (without the dealer digit) of one length in the usual layout: three or four
    comma-separated hands of 17 characters, S W N E, each S..H..D..C.. with its suits in that order; a
    hand left out is East's. Returns the deals and a mask of the texts read; the others (hands of
    other lengths, a card given twice) are left to the one-board reader."""
    m = len(bodies)
    raw = np.frombuffer("".join(bodies).encode("ascii"), dtype=np.uint8).reshape(m, -1)
    count = 4 if raw.shape[1] == USUAL_LENGTHS[2] else 3
    grid = np.full((m, count * (_HAND_TEXT + 1)), ord(","), dtype=np.uint8)  # each hand and its comma
    grid[:, : raw.shape[1]] = raw
    cells = grid.reshape(m, count, _HAND_TEXT + 1)
    # the commas between hands where hands of 17 characters put them, and no comma elsewhere
    ok = (cells[:, :, _HAND_TEXT] == ord(",")).all(axis=1) & (cells[:, :, :_HAND_TEXT] != ord(",")).all(axis=(1, 2))
    cells = cells[ok, :, :_HAND_TEXT]
    letter = _SUIT_OF_LETTER[cells] != UNSET
    suit = np.cumsum(letter, axis=2, dtype=np.uint8) - np.uint8(1)  # letters come in the order S H D C
    cards = (suit * np.uint8(13) + _RANK_OF_BYTE[cells])[~letter].reshape(-1, count, 13)
    seats = np.broadcast_to(np.array(MD_SEATS[:count], dtype=np.uint8)[None, :, None], cards.shape)
    deals = np.full((len(cards), 52), UNSET, dtype=np.uint8)
    flat = (len(cards), count * 13)
    np.put_along_axis(deals, cards.reshape(flat).astype(np.intp), seats.reshape(flat), axis=1)
    whole = (deals != UNSET).sum(axis=1) == 13 * count  # no card given twice
    deals[deals == UNSET] = MD_SEATS[3]  # the hand left out, if any
    out = np.zeros((m, 52), dtype=np.uint8)
    out[ok] = deals
    ok[ok] = whole
    return out, ok


def write(stream: BinaryIO, deals: DealSet, **options: Any) -> None:
    """Write one Big Deal style LIN line per board."""
    reject_options(NAME, options)
    for start in range(0, len(deals), CHUNK_BOARDS):
        end = start + CHUNK_BOARDS
        layout = hand_layout(deals.deals[start:end], (2, -1, 0, 1), b"SHDC", ord(","))
        out = []
        for hands, board, dealer, vul in zip(layout, deals.boards[start:end], deals.dealers[start:end],
                                             deals.vulnerabilities[start:end], strict=True):
            digit = (int(dealer) + 2) % 4 + 1
            out.append(f"qx|o{board}|md|{digit}{hands.tobytes().decode('ascii')}|rh||ah|Board {board}"
                       f"|sv|{VUL_CODES[vul]}|pg||\n")
        stream.write("".join(out).encode("ascii"))
