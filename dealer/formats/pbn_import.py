"""The PBN reader: any legal PBN file (import format, PBN 1.0 to 2.1) to deal sets, streamed.

The text is taken in blocks cut just after a semi-empty line, so a block holds whole games. One regular
expression lexes a block: tag pairs (only Event, Site, Date, Board, Dealer, Vulnerable, Deal and
Generator are kept), semi-empty lines, and everything to pass over whole - other tag pairs, ``{...}``
and ``;`` comments, ``%`` escape lines, strings and section data - so that a bracket or quote inside a
comment or string never counts. A brace comment may hold empty lines; if one runs past the cut, the
block waits for the next one. The deals of a block are decoded together (:mod:`.pbn_deals`).

Errors are `FormatError` naming the file, the line and, once known, the board. Token positions are only
worked out for an error, by lexing the block again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any, BinaryIO, Final, NoReturn

import numpy as np

from dealer.core.boards import dealers_of, vulnerabilities_of
from dealer.core.cards import RANKS, SEATS, DealArray, from_pbn
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, InvalidDealError
from dealer.formats.pbn_deals import DEAL_TEXT_LENGTH, parse_deal_texts
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport, Skipped
from dealer.language import N_, _, n_
from dealer.language.system import os_reason

BLOCK_SIZE: Final = 1 << 20  # bytes read at a time
MAX_PENDING: Final = 32 << 20  # longest text without a game boundary, or inside one comment

_WS = r"[ \t\v\f]*(?:\n[ \t\v\f]*)?"  # between the tokens of a tag pair: spaces, at most one line break
_STRING = r'[^"\\\n]*(?:\\.[^"\\\n]*)*'  # inside quotes; \" and \\ are escapes
_KEPT = "Vulnerable|Generator|Dealer|Event|Board|Site|Date|Deal"
_OTHER_TAG = rf'\[{_WS}(?!(?:{_KEPT}){_WS}")[A-Za-z0-9_]+{_WS}"{_STRING}"{_WS}\]'

# One token a match. Groups: 1, 2 = name and value of a kept tag; 3 = the '[' of a run of other tag
# pairs (passed over, but it makes a game; only its first character is captured, to keep the token
# small); 4 = a semi-empty line (it ends a game); 5 = a comment '{' never closed (the token runs to the
# end of the text, so that no later '{' is tried again: each is tried once); 6 = a character that starts
# nothing legal here. A comment, an escape line or a string matches without a group and is passed over;
# section data is skipped by the search. No pattern can backtrack far, so lexing stays linear in the text.
_LEXER = re.compile(
    rf'\[{_WS}({_KEPT}){_WS}"({_STRING})"{_WS}\]'
    rf"|(?=(\[))(?:{_OTHER_TAG}[ \t\v\f]*\n?)+"
    r"|^([ \t\v\f]*\n)"
    r"|^%[^\n]*"
    r"|;[^\n]*"
    r"|\{[^}]*\}"
    r"|(\{)[^}]*"
    rf'|"{_STRING}"'
    r'|([\[\]}"])',
    re.MULTILINE,
)
_Token = tuple[str, str, str, str, str, str]
_BAD_TOKEN: Final = {
    "[": N_('malformed tag pair (expected [Name "value"] on at most two lines)'),
    "]": N_("']' outside a tag pair"),
    "{": N_("comment '{' is never closed"),
    "}": N_("'}' outside a comment"),
    '"': N_("string without its closing quote on the same line"),
}
"""The reason a character that starts nothing legal is refused (said with `_`)."""
_EXERCISE_NUMBER = re.compile(r"\d{1,4}[-.]\d{1,4}")  # '1-1', '4.2': an exercise file's numbers, not boards
_BLANK_WITH_SPACES = re.compile(r"\n[ \t\v\f]+\n")
_ESCAPE = re.compile(r'\\([\\"])')  # the two escapes of a string: \" and \\
_UTF8_BOM: Final = b"\xef\xbb\xbf"

_LAW2: Final = -1  # dealer or vulnerability not given: Law 2 from the board number
_DEALER_CODES: Final = {"": _LAW2, "?": _LAW2, **{s: i for i, s in enumerate("NESW")},
                        **{s: i for i, s in enumerate("nesw")}}
_VULNERABILITY_CODES: Final = {"": _LAW2, "?": _LAW2, "None": 0, "Love": 0, "-": 0, "NS": 1, "EW": 2,
                               "All": 3, "Both": 3}
# any case (standard 3.11), and the N-S / E-W some scoring programs write
_VULNERABILITY_SPELLINGS: Final = {"none": 0, "love": 0, "-": 0, "ns": 1, "n-s": 1, "ew": 2, "e-w": 2,
                                   "all": 3, "both": 3, "": _LAW2, "?": _LAW2}
_METADATA_TAGS: Final = ("Site", "Date", "Generator")
_MAX_BOARD_NUMBER: Final = 2**63 - 1  # what a deal set holds


def read_pbn(stream: BinaryIO, path: str, options: ReadOptions = DEFAULT_OPTIONS,
             report: ReadReport | None = None, *, block_size: int = BLOCK_SIZE,
             max_pending: int = MAX_PENDING) -> Iterator[DealSet]:
    """Stream the boards of a PBN file in file order, one deal set per block of games.

    `options` say whether games without a deal and partial deals are skipped (into `report`) or refuse
    the file, and where a file without Board tags starts. `block_size` bytes are read at a time;
    `max_pending` bounds the text held while waiting for the end of a game or of a comment (both exist
    to be lowered by tests).
    """
    reader = _GameReader(path, max_pending, options, ReadReport() if report is None else report)
    for text, line, final in _blocks(stream, path, block_size, max_pending):
        chunk = reader.parse(text, line, final)
        if chunk is not None:
            yield chunk


def _blocks(stream: BinaryIO, path: str, block_size: int, max_pending: int,
            ) -> Iterator[tuple[str, int, bool]]:
    """(text, first line number, is last) for consecutive stretches of whole games.

    Text is decoded as ISO 8859-1 with every line end turned into LF. A stretch ends just after the
    last semi-empty line read so far, or at the end of the file.
    """
    pending = ""
    line = 1
    carry = b""
    first = True
    while True:
        raw = _read(stream, path, block_size)
        final = not raw
        data = carry + raw
        if first:
            if not final and len(data) < len(_UTF8_BOM) and _UTF8_BOM.startswith(data):
                carry = data  # a read shorter than the byte-order mark: wait for the rest of it
                continue
            data, first = data.removeprefix(_UTF8_BOM), False
        carry = b""
        if not final and data.endswith(b"\r"):  # a CR LF may straddle two reads
            data, carry = data[:-1], b"\r"
        start = len(pending)
        pending += data.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
        cut = len(pending) if final else _last_game_end(pending, start)
        if cut <= 0 and not final:
            if len(pending) > max_pending:
                raise FormatError(_("no empty line between games in {size}").format(size=_size(max_pending)), path,
                                  line)
            continue
        text, pending = pending[:cut], pending[cut:]
        yield text, line, final
        line += text.count("\n")
        if final:
            return


def _size(chars: int) -> str:
    if chars >= 1 << 20:
        return _("{size} MiB").format(size=chars >> 20)
    return n_("{count} characters", "{count} characters", chars).format(count=chars)  # English: one form, as ever


def _read(stream: BinaryIO, path: str, block_size: int) -> bytes:
    try:
        return stream.read(block_size) or b""
    except OSError as exc:
        raise FormatError(_("cannot read: {reason}").format(reason=os_reason(exc)), path) from exc


def _last_game_end(text: str, start: int) -> int:
    """Index just past the last semi-empty line of `text` that ends after `start`; 0 if none."""
    begin = max(start - 2, 0)
    best = text.rfind("\n\n", begin)
    best = best + 2 if best >= 0 else 0
    for m in _BLANK_WITH_SPACES.finditer(text, max(best - 1, begin)):
        best = max(best, m.end())
    return best


class _NeedMore(Exception):
    """A brace comment runs past the end of the block: lex it again joined to the next one."""

    def __init__(self, token: int) -> None:
        super().__init__(token)
        self.token = token


class _GameReader:
    """Games to boards across the blocks of one file; holds what carries from game to game."""

    def __init__(self, path: str, max_pending: int, options: ReadOptions, report: ReadReport) -> None:
        self.path = path
        self.max_pending = max_pending
        self.options = options
        self.report = report
        self.last: dict[str, str] = {}  # latest value of every kept tag ('#' copies it)
        self.sticky: dict[str, str] = {}  # tags once set with '##': later games keep their latest value
        self.event: str | None = None
        self.metadata: dict[str, str] = {}
        self.metadata_seen: set[str] = set()
        self.previous_board = (options.first_board or 1) - 1
        self.seen_board = False  # a game with a deal (or a Board tag) was read: the file's top is over
        self.pending = ""
        self.pending_line = 1

    def parse(self, text: str, line: int, final: bool) -> DealSet | None:
        """The boards of the whole games in `text`; None if it holds none or must wait for more text."""
        if self.pending:
            if not final and "}" not in text:  # the open comment goes on: nothing to lex again yet
                self._defer(self.pending + text, self.pending_line)
                return None
            text, line = self.pending + text, self.pending_line
            self.pending = ""
        state = self._state()
        try:
            return _Block(self, text, line).run(_LEXER.findall(text), final)
        except _NeedMore as more:
            self._restore(state)
            cut = _end_of_last_game_before(text, more.token)
            self._defer(text[cut:], line + text.count("\n", 0, cut))
            if not cut:
                return None
            return _Block(self, text[:cut], line).run(_LEXER.findall(text[:cut]), False)

    def _defer(self, text: str, line: int) -> None:
        if len(text) > self.max_pending:
            raise FormatError(_("comment '{{' not closed within {size}").format(size=_size(self.max_pending)),
                              self.path, line)
        self.pending, self.pending_line = text, line

    def _state(self) -> tuple[Any, ...]:
        report = self.report
        return (dict(self.last), dict(self.sticky), self.event, dict(self.metadata),
                set(self.metadata_seen), self.previous_board, self.seen_board, len(report.partial),
                len(report.results_only), len(report.unnumbered))

    def _restore(self, state: tuple[Any, ...]) -> None:
        (self.last, self.sticky, self.event, self.metadata, self.metadata_seen,
         self.previous_board, self.seen_board, partial, results_only, unnumbered) = state
        del self.report.partial[partial:]
        del self.report.results_only[results_only:]
        del self.report.unnumbered[unnumbered:]

    def note_metadata(self, values: dict[str, str]) -> None:
        """Keep the first Event, Site, Date and Generator of the file's top (up to its first board).

        Taken from the top only, so every chunk of a file carries the same event and metadata.
        """
        if self.event is None and "Event" in values:
            self.event = _free_text(values["Event"])
        for name in _METADATA_TAGS:
            if name in values and name not in self.metadata_seen:
                self.metadata_seen.add(name)
                text = _free_text(values[name])
                if text:
                    self.metadata[name.lower()] = text


def _end_of_last_game_before(text: str, token: int) -> int:
    """Index just past the last semi-empty line that comes before the `token`-th token; 0 if none."""
    end = 0
    for k, m in enumerate(_LEXER.finditer(text)):
        if k == token:
            break
        if m.group(4):
            end = m.end()
    return end


class _Block:
    """One stretch of whole games: tokens to per-board lists, then one deal set."""

    def __init__(self, reader: _GameReader, text: str, line: int) -> None:
        self.reader = reader
        self.text = text
        self.line = line
        self.boards: list[int] = []
        self.dealers: list[int] = []
        self.vulnerabilities: list[int] = []
        self.deals: list[str] = []
        self.deal_tokens: list[int] = []
        self._starts: list[int] | None = None  # start offset of every token, worked out when needed

    def run(self, tokens: list[_Token], final: bool) -> DealSet | None:
        try:
            self.read_games(tokens, final)
        except FormatError:
            self.deal_set()  # a bad deal earlier in the file is the first error, however blocks fall
            raise
        return self.deal_set()

    def read_games(self, tokens: list[_Token], final: bool) -> None:
        tags: dict[str, int] = {}  # kept tag name -> its token index; the first one counts
        start: int | None = None  # the game's first tag (kept or not): None while there is no game
        for k, (name, value, others, blank, open_brace, bad) in enumerate(tokens):
            if name:
                if name not in tags:
                    tags[name] = k
                elif name in ("Board", "Deal") and tokens[tags[name]][1] != value:
                    self.fail(k, _("a second {tag} tag in one game; games are separated by an empty line").format(
                        tag=name))
                start = k if start is None else start
            elif others:
                start = k if start is None else start
            elif blank:
                if start is not None:
                    self.finish_game(tags, tokens, start)
                    tags, start = {}, None
            elif open_brace:
                if not final:
                    raise _NeedMore(k)
                self.fail(k, _(_BAD_TOKEN["{"]))
            elif bad:
                self.fail(k, _(_BAD_TOKEN[bad]))
        if start is not None and final:
            self.finish_game(tags, tokens, start)

    def token_line(self, token: int) -> int:
        """The line of the `token`-th token of this block."""
        if self._starts is None:
            self._starts = [m.start() for m in _LEXER.finditer(self.text)]
        start = self._starts[token] if token < len(self._starts) else 0
        return self.line + self.text.count("\n", 0, start)

    def fail(self, token: int, reason: str, board: int | None = None) -> NoReturn:
        """Raise `FormatError` at the line of the `token`-th token of this block."""
        raise FormatError(reason, self.reader.path, self.token_line(token), board=board)

    def finish_game(self, tags: dict[str, int], tokens: list[_Token], start: int) -> None:
        """Resolve one game's kept tags and, if it has a deal, record its board."""
        values = {name: tokens[k][1] for name, k in tags.items()}
        reader = self.reader
        joined = "".join(values.values())
        if reader.sticky or "#" in joined or "\\" in joined:
            values = self.resolve(values)
        else:
            reader.last.update(values)
        if not reader.seen_board:  # the top of the file, up to its first board
            reader.note_metadata(values)
        deal = values.get("Deal", "")
        if len(deal) != DEAL_TEXT_LENGTH:
            deal = deal.strip()
            if not deal:
                self.no_deal(values, tags, start)
                return
        at = tags["Deal"]
        board = self.board_number(values.get("Board", ""), tags.get("Board", at))
        dealer = _DEALER_CODES.get(values.get("Dealer", ""))
        if dealer is None:
            dealer = self.dealer(values["Dealer"], tags.get("Dealer", at), board)
        vulnerability = _VULNERABILITY_CODES.get(values.get("Vulnerable", ""))
        if vulnerability is None:
            vulnerability = self.vulnerability(values["Vulnerable"], tags.get("Vulnerable", at), board)
        self.boards.append(board)
        self.dealers.append(dealer)
        self.vulnerabilities.append(vulnerability)
        self.deals.append(deal)
        self.deal_tokens.append(at)
        reader.previous_board = board
        reader.seen_board = True

    def no_deal(self, values: dict[str, str], tags: dict[str, int], start: int) -> None:
        """A game with tags but no deal: the file's header before any board, or else a results-only
        game (skipped if the options say so) or a game cut short - an error naming its line."""
        reader = self.reader
        if not reader.seen_board and "Board" not in values:
            return  # the file's header: Event, Site, Date, Generator, ... for the games below
        board_text = values.get("Board", "").strip()
        board = int(board_text) if board_text.isascii() and board_text.isdigit() and len(board_text) < 19 else None
        if reader.options.skip_results_only:
            reader.report.results_only.append(Skipped(board, _("line {line}").format(line=self.token_line(start)),
                                                      "no deal"))
            reader.seen_board = True
            return
        self.fail(start, _("a game with tags but no deal (results only, or the file is cut short); "
                           "--skip-results-only passes over games without a deal"), board)

    def resolve(self, values: dict[str, str]) -> dict[str, str]:
        """Tag values after unescaping and inheritance (PBN standard 4.8: '#' and '##')."""
        reader = self.reader
        resolved: dict[str, str] = {}
        for name, raw in values.items():
            value = _unescape(raw) if "\\" in raw else raw
            if value == "#":
                value = reader.last.get(name, "")
            elif value.startswith("##"):
                value = value[2:]
                reader.sticky[name] = value
            elif name in reader.sticky:
                reader.sticky[name] = value
            resolved[name] = value
        for name, value in reader.sticky.items():
            if name not in resolved and name != "Deal":
                resolved[name] = value
        reader.last.update(resolved)
        return resolved

    def board_number(self, value: str, token: int) -> int:
        text = value.strip()
        if text in ("", "?") or self.reader.options.number_in_order:
            self.reader.report.unnumbered.append(_("line {line}").format(line=self.token_line(token)))
            return self.reader.previous_board + 1
        if not (text.isascii() and text.isdigit() and len(text) < 20 and 0 < int(text) <= _MAX_BOARD_NUMBER):
            said = (_("board number {value} is not a positive integer; if the file's numbers name exercises, not "
                      "boards, --number-in-order numbers its games 1, 2, 3 … in the file's order (from --first-board "
                      "N)") if _EXERCISE_NUMBER.fullmatch(text)
                    else _("board number {value} is not a positive integer"))
            self.fail(token, said.format(value=_shown(value)))
        return int(text)

    def dealer(self, value: str, token: int, board: int) -> int:
        code = _DEALER_CODES.get(value.strip())
        if code is None:
            self.fail(token, _("dealer {value} is not N, E, S or W").format(value=_shown(value)), board)
        return code

    def vulnerability(self, value: str, token: int, board: int) -> int:
        code = _VULNERABILITY_SPELLINGS.get(value.strip().lower())
        if code is None:
            self.fail(token, _("vulnerability {value} is not None, NS, EW or All").format(value=_shown(value)), board)
        return code

    def deal_set(self) -> DealSet | None:
        """The block's boards as one deal set: deals decoded together, Law 2 where the file says nothing;
        partial deals dropped (into the report) when the options say so."""
        if not self.boards:
            return None
        deals, read_ok = parse_deal_texts(self.deals)
        keep = np.ones(len(self.boards), dtype=bool)
        for i in np.flatnonzero(~read_ok):
            deal = self.scalar_deal(int(i))
            if deal is None:
                keep[i] = False
            else:
                deals[i] = deal
        boards = np.array(self.boards, dtype=np.int64)
        given_dealers = np.array(self.dealers, dtype=np.int8)
        given_vuls = np.array(self.vulnerabilities, dtype=np.int8)
        dealers = np.where(given_dealers == _LAW2, dealers_of(boards), given_dealers).astype(np.uint8)
        vuls = np.where(given_vuls == _LAW2, vulnerabilities_of(boards), given_vuls).astype(np.uint8)
        reader = self.reader
        if reader.report.places is not None:
            reader.report.place_all([_("line {line}").format(line=self.token_line(t))
                                     for t, k in zip(self.deal_tokens, keep, strict=True) if k])
        return DealSet(boards[keep], deals[keep], dealers[keep], vuls[keep], reader.event or "",
                       dict(reader.metadata))

    def scalar_deal(self, i: int) -> DealArray | None:
        """One deal in a layout the bulk decoder does not take. A partial deal is None when the options
        skip them; else, and for anything that is not a deal at all, `FormatError`."""
        text = self.deals[i]
        try:
            return from_pbn(text)
        except InvalidDealError as exc:
            reason = str(exc)
        partial = partial_deal(text)
        if partial is None:
            reason = reason if len(reason) <= 160 else reason[:157] + "..."
            self.fail(self.deal_tokens[i], _("not a full deal: {reason}").format(reason=reason), self.boards[i])
        reader = self.reader
        if not reader.options.skip_partial:
            self.fail(self.deal_tokens[i], _("a partial deal ({what}): every board needs all 52 cards").format(
                what=partial), self.boards[i])
        reader.report.partial.append(Skipped(self.boards[i],
                                             _("line {line}").format(line=self.token_line(self.deal_tokens[i])),
                                             partial))
        return None


def partial_deal(text: str) -> str | None:
    """What a well-formed PBN deal text lacks, if all it lacks is cards (``?``, ``-`` hands, short hands):
    a partial deal. None if the text is not a deal at all (bad syntax, a card twice, a hand over 13)."""
    body = text.strip()
    if body == "?":
        return _("the deal is unknown ('?')")
    first, sep, rest = body.partition(":")
    hands = rest.split()
    if not sep or len(first.strip()) != 1 or first.strip().upper() not in SEATS or len(hands) != 4:
        return None
    seat0 = SEATS.index(first.strip().upper())
    seen: set[int] = set()
    short: list[str] = []
    for k, hand in enumerate(hands):
        seat = SEATS[(seat0 + k) % 4]
        if hand == "-":
            short.append(_("{seat} unknown").format(seat=seat))
            continue
        suits = hand.split(".")
        if len(suits) != 4:
            return None
        count = 0
        for suit, ranks in enumerate(suits):
            for ch in ranks.upper():
                rank = RANKS.find(ch)
                if rank < 0 or suit * 13 + rank in seen:
                    return None
                seen.add(suit * 13 + rank)
                count += 1
        if count > 13:
            return None
        if count < 13:
            short.append(n_("{seat} {count} cards", "{seat} {count} cards",  # English: one form, as ever
                            count).format(seat=seat, count=count))
    return f"{', '.join(short)}" if short and len(seen) < 52 else None


def _shown(value: str) -> str:
    """A value quoted for a message, cut short if long."""
    return repr(value if len(value) <= 40 else value[:37] + "...")


@functools.lru_cache(maxsize=256)
def _unescape(raw: str) -> str:
    return _ESCAPE.sub(r"\1", raw)


def _free_text(value: str) -> str:
    """A free-text tag value: '?' (unknown) becomes empty; a value that is valid UTF-8 is read as UTF-8."""
    text = value.strip()
    if text == "?":
        return ""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return text
