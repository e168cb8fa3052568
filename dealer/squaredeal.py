"""SquareDeal commit-reveal: the .sqd/.sqk files of SquareDeal 2.x and the regeneration of sessions.

An organiser describes the event in a public ``.sqd`` file (``TN`` name, ``DI`` which delayed
information will be used, ``SN sessions:boards:prefix:description`` per phase), then *publishes*:
every session gets a random 60-character key in the secret ``.sqk`` file (``phase,session:key``,
CRLF line ends) and ``KH``, the SHA-256 of that file, goes into the ``.sqd``. Once the delayed value
``DV`` is public, each session's deals are Big Deal's stream (:mod:`dealer.engines.bigdeal`) for

    owner = the first half of the session key (the shorter half when the length is odd)
    seed  = RIPEMD-160(second half + base64(DV as stored) + "original" | "reserve")

exactly as SquareDeal calls ``bigdealx -W first -e second -e base64(DV) -e original``. An open-ended
phase (``SN 0:...``) has one key, ``phase,0``, and session n appends ``ses<n>`` to the seed text.
Board numbers only label deals: in a ``1-16,17-32`` phase, session 2 is the first 16 deals of its
own stream numbered 17-32. Sessions of one phase may be joined into one file (``FIN1-2``) when no board
number comes twice in the join, whether the phase fixes its boards or they are given at generation.
After the event the ``.sqk`` is revealed and anyone can regenerate.

Everything here is pure (text or bytes in) except :func:`read_sqd` and :func:`read_sqk`, the two
small readers every caller shares; writing files is the caller's business.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import numpy as np

from dealer.core.boards import Vulnerability, format_board_range
from dealer.core.cards import SEATS
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, UsageError, VerificationError
from dealer.engines import bigdeal
from dealer.language import _
from dealer.language.system import os_reason

KEY_LENGTH: Final = 60
KEY_ALPHABET: Final = string.ascii_lowercase + string.ascii_uppercase + string.digits
UNDEFINED: Final = "Tbd"  # SquareDeal's value for a name or description not yet given
FORMAT_VERSION: Final = "2.6"
GENERATOR: Final = "dealer squaredeal"
_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9#_\-]*$")
_RANGE = re.compile(r"^(\d+)-(\d+)$")


@dataclass(frozen=True)
class Phase:
    """One ``SN`` line: `sessions` sessions (0: open-ended), their boards, file prefix, description.

    `boards` is kept as the file has it: ``16``, ``1-16,17-32`` or ``?`` (given at generation).
    """

    sessions: int
    boards: str
    prefix: str
    description: str = ""

    @property
    def open_ended(self) -> bool:
        return self.sessions == 0

    def board_ranges(self, override: str | None = None) -> list[list[int]]:
        """Board numbers of each entry of the board list (``16`` means 1-16)."""
        text = override if self.boards == "?" else self.boards
        if text is None:
            raise UsageError(f"phase {self.prefix}: the number of boards is '?'; give it with --boards")
        return [_board_list(part) for part in translate_boards(text).split(",")]

    def session_boards(self, session: int, override: str | None = None) -> list[int]:
        """Board numbers of one session: entry (session-1) modulo the length of the board list."""
        ranges = self.board_ranges(override)
        return ranges[(session - 1) % len(ranges)]

    def session_name(self, first: int, last: int | None = None) -> str:
        """File name (without extension) of a session or of a joined run of sessions."""
        return sharp_fill(self.prefix, first, last)

    def line(self) -> str:
        return f"{self.sessions}:{self.boards}:{self.prefix}:{self.description}"


@dataclass(frozen=True)
class SquareDealEvent:
    """The contents of a ``.sqd`` file. `key_hash` is set once the event is published."""

    name: str = UNDEFINED
    delayed_info: str = UNDEFINED
    delayed_value: str | None = None
    phases: tuple[Phase, ...] = ()
    key_hash: str | None = None

    @property
    def published(self) -> bool:
        return self.key_hash is not None

    def key_idents(self) -> list[str]:
        """Key names ``phase,session`` in .sqk order; an open-ended phase has the one key ``phase,0``."""
        idents: list[str] = []
        for number, phase in enumerate(self.phases, start=1):
            sessions = [0] if phase.open_ended else range(1, phase.sessions + 1)
            idents.extend(f"{number},{s}" for s in sessions)
        return idents


@dataclass(frozen=True)
class SessionRef:
    """A session, or a run of sessions joined into one file, of one phase (numbers from 1)."""

    phase: int
    first: int
    last: int
    reserve: bool = False

    def sessions(self) -> range:
        return range(self.first, self.last + 1)


# --- board lists and file names --------------------------------------------------------------


def translate_boards(text: str) -> str:
    """SquareDeal's board list: ``3x7`` becomes ``1-7,8-14,15-21``; other forms are kept."""
    m = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", text.strip())
    if not m:
        return text.strip()
    count, size = int(m.group(1)), int(m.group(2))
    return ",".join(f"{(s - 1) * size + 1}-{s * size}" for s in range(1, count + 1))


def _board_list(part: str) -> list[int]:
    part = part.strip()
    if part.isdigit() and int(part) > 0:
        return list(range(1, int(part) + 1))
    m = _RANGE.match(part)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < int(m.group(1)):
        raise UsageError(f"board list entry {part!r} is not N or N-M with 1 <= N <= M")
    return list(range(int(m.group(1)), int(m.group(2)) + 1))


def check_boards(text: str) -> str:
    """A board list as stored in the .sqd (``3x7`` translated), or `UsageError`."""
    boards = translate_boards(text)
    if boards != "?":
        for part in boards.split(","):
            _board_list(part)
    return boards


def sharp_fill(prefix: str, first: int, last: int | None = None) -> str:
    """Replace the run of ``#`` in a prefix by the session number, zero-padded to its length;
    a joined run of sessions gives ``first-last`` (``FIN#``, 1, 2 -> ``FIN1-2``)."""
    m = re.search(r"#+", prefix)
    if not m:
        return prefix
    width = len(m.group(0))
    number = f"{first:0{width}d}" if last is None else f"{first:0{width}d}-{last:0{width}d}"
    return prefix[: m.start()] + number + prefix[m.end():]


# --- the .sqd description file ---------------------------------------------------------------

_TAGS: Final = ("TN", "DI", "DV", "SN", "KH")


def parse_sqd(text: str, path: str = "<sqd>") -> SquareDealEvent:
    """An `SquareDealEvent` from the text of a .sqd file; `FormatError` naming the line for anything else."""
    values: dict[str, str] = {}
    phases: list[Phase] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        tag, value = line[:2], line[2:]
        if tag not in _TAGS or (value and not value.startswith(" ")):
            raise FormatError(f"not a SquareDeal line: {line[:40]!r}", path, line=number)
        value = value.lstrip(" ")
        if tag == "SN":
            phases.append(_parse_phase(value, path, number))
        elif tag in values:
            raise FormatError(f"second {tag} line", path, line=number)
        else:
            values[tag] = value
    key_hash = values.get("KH")
    if key_hash is not None and not re.fullmatch(r"[0-9a-f]{64}", key_hash):
        raise FormatError("KH is not a SHA-256 in 64 lower-case hex digits", path)
    return SquareDealEvent(values.get("TN", UNDEFINED), values.get("DI", UNDEFINED), values.get("DV"),
                 tuple(phases), key_hash)


def _parse_phase(value: str, path: str, line: int) -> Phase:
    fields = value.split(":")
    if len(fields) not in (3, 4):
        raise FormatError("SN needs sessions:boards:prefix:description", path, line=line)
    if not fields[0].isdigit():
        raise FormatError(f"SN: number of sessions {fields[0]!r} is not a number", path, line=line)
    if not fields[2]:
        raise FormatError("SN: empty file prefix", path, line=line)
    try:
        check_boards(fields[1])
    except UsageError as exc:
        raise FormatError(f"SN: {exc}", path, line=line) from None
    return Phase(int(fields[0]), fields[1], fields[2], fields[3] if len(fields) == 4 else "")


def format_sqd(event: SquareDealEvent) -> str:
    """The .sqd text of an event, as SquareDeal writes it (LF line ends)."""
    lines = [f"# Description file of tournament for program SquareDeal {FORMAT_VERSION} "
             f"(written by {GENERATOR})", "#", f"TN {event.name}", f"DI {event.delayed_info}"]
    if event.delayed_value is not None:
        lines.append(f"DV {event.delayed_value}")
    lines += ["# Description of phases of tournament",
              "# Per phase a line with SN nessions:nboards:filename:description"]
    lines += [f"SN {phase.line()}" for phase in event.phases]
    if event.key_hash is not None:
        lines.append(f"KH {event.key_hash}")
    else:
        lines += ["#", "# Until published this file may be edited if so wished"]
    return "\n".join(lines) + "\n"


# --- the .sqk key file -----------------------------------------------------------------------


def _key_lines(data: bytes) -> list[bytes]:
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def key_file_hash(data: bytes) -> str:
    """KH: SHA-256 (hex) of the key file taken with CRLF line ends, whatever ends it has on disk."""
    return hashlib.sha256(b"".join(line + b"\r\n" for line in _key_lines(data))).hexdigest()


def parse_sqk(data: bytes, path: str = "<sqk>") -> dict[str, str]:
    """Session keys by name (``phase,session``) from the bytes of a .sqk file."""
    keys: dict[str, str] = {}
    for number, raw in enumerate(_key_lines(data), start=1):
        try:
            line = raw.decode("ascii")
        except UnicodeDecodeError:
            raise FormatError("key lines are ASCII", path, line=number) from None
        ident, sep, key = line.partition(":")
        if not sep or not re.fullmatch(r"\d+,\d+", ident) or not key or ":" in key:
            raise FormatError("a key line is phase,session:key", path, line=number)
        if ident in keys:
            raise FormatError(f"second key for session {ident}", path, line=number)
        keys[ident] = key
    return keys


def format_sqk(keys: Mapping[str, str]) -> bytes:
    """The .sqk bytes: ``phase,session:key`` lines with CRLF ends, in the order given."""
    return b"".join(f"{ident}:{key}\r\n".encode("ascii") for ident, key in keys.items())


def check_keys(event: SquareDealEvent, data: bytes, path: str = "<sqk>") -> dict[str, str]:
    """The keys of a published event, after checking the key file against KH and completeness."""
    if not event.published:
        raise UsageError("the event is not published yet: it has no key hash KH")
    if key_file_hash(data) != event.key_hash:
        raise VerificationError(f"{path}: the key file does not match the key hash KH of the event")
    keys = parse_sqk(data, path)
    missing = [ident for ident in event.key_idents() if ident not in keys]
    if missing:
        raise FormatError(f"no key for session {missing[0]}", path)
    return keys


# --- preparing and publishing ----------------------------------------------------------------


def new_event(name: str | None = None, delayed_info: str | None = None) -> SquareDealEvent:
    """A new, unpublished event."""
    return SquareDealEvent(_one_line(name or UNDEFINED, "event name"),
                 canonical_text(delayed_info) if delayed_info else UNDEFINED)


def _one_line(text: str, what: str) -> str:
    if "\n" in text or "\r" in text:
        raise UsageError(f"the {what} must be one line")
    return text.strip()


def canonical_text(text: str) -> str:
    """Delayed information as SquareDeal 2.6 keeps it: no outer spaces, inner whitespace one space."""
    return re.sub(r"\s+", " ", text.strip())


def canonical_delayed_value(text: str) -> str:
    """The delayed value as SquareDeal 2.6 stores it: `canonical_text` and, inside numbers, no
    '.' or ',' (``43,275.91`` and ``43275.91`` both become ``4327591``)."""
    return re.sub(r"(?<=[0-9])[.,](?=[0-9])", "", canonical_text(text))


def add_phase(event: SquareDealEvent, sessions: int, boards: str, prefix: str,
              description: str = "") -> SquareDealEvent:
    """The event with one more phase, checked and completed as SquareDeal does: a prefix without
    ``#`` gets as many as the session count has digits, a description without one gets `` #/N``."""
    if event.published:
        raise UsageError("the event is published: its phases can no longer change")
    if sessions < 0:
        raise UsageError("the number of sessions is 0 (open-ended) or more")
    stored_boards = check_boards(boards)
    if not _PREFIX.match(prefix) or len(re.findall(r"#+", prefix)) > 1:
        raise UsageError(f"file prefix {prefix!r}: a letter, then letters, digits, _ - and one run of #")
    if sessions != 1 and "#" not in prefix:
        prefix += "#" * max(len(str(sessions)), 1)
    if any(phase.prefix == prefix for phase in event.phases):
        raise UsageError(f"file prefix {prefix!r} is already used by another phase")
    text = _one_line(description, "description").replace(":", "")
    if sessions != 1 and "#" not in text:
        text = f"{text} #/{sessions}".strip() if sessions else f"{text} #".strip()
    return replace(event, phases=(*event.phases, Phase(sessions, stored_boards, prefix, text)))


def make_key(choose: Callable[[str], str] = secrets.choice) -> str:
    """A new session key: 60 letters and digits from the OS CSPRNG (about 357 bits)."""
    return "".join(choose(KEY_ALPHABET) for _ in range(KEY_LENGTH))


def publish(event: SquareDealEvent, key_maker: Callable[[], str] = make_key) -> tuple[SquareDealEvent, bytes]:
    """Draw a key for every session; return the published event (with KH) and the .sqk bytes."""
    if event.published:
        raise UsageError("the event is already published")
    for value, what in ((event.name, "event name"), (event.delayed_info, "delayed information")):
        if value == UNDEFINED or not value:
            raise UsageError(f"the {what} is not set; it must be before publishing")
    if not event.phases:
        raise UsageError("the event has no phases; add one before publishing")
    keys: dict[str, str] = {}
    for ident in event.key_idents():
        key = key_maker()
        if key in keys.values():
            raise UsageError("two sessions drew the same key; publish again")
        keys[ident] = key
    data = format_sqk(keys)
    return replace(event, key_hash=key_file_hash(data)), data


def set_delayed_value(event: SquareDealEvent, value: str) -> SquareDealEvent:
    """The event with its delayed value DV recorded (canonical form; see `canonical_delayed_value`)."""
    if not event.published:
        raise UsageError("publish the event before recording the delayed value")
    canonical = canonical_delayed_value(value)
    if not canonical:
        raise UsageError("the delayed value is empty")
    return replace(event, delayed_value=canonical)


# --- sessions: names, seeds, deals -----------------------------------------------------------

RESERVE_SUFFIX: Final = "reserve"


def resolve_session(event: SquareDealEvent, name: str) -> SessionRef:
    """The session (or joined run, ``FIN1-2``) a file name stands for; ``...reserve`` is a reserve set.

    The name must be exactly what SquareDeal makes of the phase's prefix (``OPRR05``, not ``OPRR5``).
    """
    base = name.removesuffix(RESERVE_SUFFIX)
    reserve = base != name
    found = [ref for index, phase in enumerate(event.phases, start=1)
             if (ref := _match_phase(phase, index, base, reserve)) is not None]
    if not found:
        raise UsageError(f"{name!r} names no session of this event")
    if len(found) > 1:
        raise UsageError(f"{name!r} could be a session of phases {found[0].phase} and {found[1].phase}")
    ref = found[0]
    if ref.last > ref.first:
        _check_joinable(event.phases[ref.phase - 1], ref, name)
    return ref


def _match_phase(phase: Phase, index: int, base: str, reserve: bool) -> SessionRef | None:
    m = re.search(r"#+", phase.prefix)
    if m is None:
        return SessionRef(index, 1, 1, reserve) if base == phase.prefix and phase.sessions <= 1 else None
    head, tail = re.escape(phase.prefix[: m.start()]), re.escape(phase.prefix[m.end():])
    found = re.fullmatch(f"{head}(\\d+)(?:-(\\d+))?{tail}", base)
    if not found:
        return None
    first = int(found.group(1))
    last = int(found.group(2)) if found.group(2) else first
    if base != phase.session_name(first, last if found.group(2) else None):
        return None
    if first < 1 or last < first or (not phase.open_ended and last > phase.sessions):
        return None
    return SessionRef(index, first, last, reserve)


def _check_joinable(phase: Phase, ref: SessionRef, name: str, override: str | None = None) -> None:
    """The one rule for joining sessions into one file, in a phase of fixed boards or of boards given at
    generation (``?`` with `override`): no board number may come twice. Raises `UsageError` naming the
    sessions that share a board."""
    if phase.boards == "?" and override is None:
        return  # the boards are known only at generation; checked then
    holder: dict[int, int] = {}
    for session in ref.sessions():
        for board in phase.session_boards(session, override):
            if board in holder:
                shared = sorted(set(phase.session_boards(holder[board], override))
                                & set(phase.session_boards(session, override)))
                raise UsageError(f"{name!r}: sessions {holder[board]} and {session} both hold board"
                                 f"{'s' if len(shared) > 1 else ''} {format_board_range(shared)}; a joined "
                                 "file holds each board once, so these sessions are not joined")
            holder[board] = session


def session_seed(key: str, delayed_value: str, reserve: bool = False,
                 open_session: int | None = None) -> tuple[bytes, str]:
    """Big Deal's seed and owner string for one session key (see the module docstring)."""
    half = len(key) // 2
    dv64 = base64.b64encode(delayed_value.encode("utf-8", "surrogateescape")).decode("ascii")
    text = key[half:] + dv64 + (RESERVE_SUFFIX if reserve else "original")
    if open_session is not None:
        text += f"ses{open_session}"
    return bigdeal.rmd160(text.encode("utf-8")), key[:half]


def session_deals(event: SquareDealEvent, keys: Mapping[str, str], ref: SessionRef,
                  boards: str | None = None) -> DealSet:
    """The deals of a session or joined run, numbered as the phase says.

    `boards` gives the board list of a phase whose count is ``?``.
    """
    if event.delayed_value is None:
        raise UsageError("the delayed value DV is not set yet")
    phase = event.phases[ref.phase - 1]
    if ref.last > ref.first:
        _check_joinable(phase, ref, file_name(event, ref), boards)
    parts = []
    for session in ref.sessions():
        ident = f"{ref.phase},{0 if phase.open_ended else session}"
        seed, owner = session_seed(keys[ident], event.delayed_value, ref.reserve,
                                   session if phase.open_ended else None)
        numbers = phase.session_boards(session, boards)
        deals = bigdeal.BigDealEngine(seed, owner).deals(len(numbers))
        parts.append(DealSet.from_deals(deals, numbers, metadata={"generator": GENERATOR}))
    return DealSet.concat(parts)


def file_name(event: SquareDealEvent, ref: SessionRef) -> str:
    """The file name (no extension) SquareDeal gives a session or joined run."""
    phase = event.phases[ref.phase - 1]
    name = phase.session_name(ref.first, ref.last if ref.last > ref.first else None)
    return name + RESERVE_SUFFIX if ref.reserve else name


def first_difference(expected: DealSet, found: DealSet) -> str | None:
    """None if `found` holds the same boards as `expected`, in order, each with the same deal, dealer and
    vulnerability (every field the published session fixes); else the first board and field that
    differ, in one line."""
    for i in range(min(len(expected), len(found))):
        board = int(expected.boards[i])
        if int(found.boards[i]) != board:
            return f"board {board}: the board number differs (the file has board {int(found.boards[i])} in its place)"
        if not np.array_equal(expected.deals[i], found.deals[i]):
            return f"board {board}: the deal differs"
        if found.dealers[i] != expected.dealers[i]:
            return (f"board {board}: the dealer differs (the file has {SEATS[int(found.dealers[i])]}, the session "
                    f"{SEATS[int(expected.dealers[i])]})")
        if found.vulnerabilities[i] != expected.vulnerabilities[i]:
            return (f"board {board}: the vulnerability differs (the file has "
                    f"{Vulnerability(int(found.vulnerabilities[i])).pbn}, the session "
                    f"{Vulnerability(int(expected.vulnerabilities[i])).pbn})")
    if len(found) != len(expected):
        shown = format_board_range([int(b) for b in expected.boards])
        return f"the file holds {len(found)} boards; the session has {len(expected)} ({shown})"
    return None


# --- reading the files ----------------------------------------------------------------------


def read_sqd(path: str | Path) -> SquareDealEvent:
    """The event in a .sqd file; `FormatError` naming the file if it cannot be read or parsed."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError(_("cannot read: {reason}").format(reason=os_reason(exc)), path) from exc
    return parse_sqd(data.decode("utf-8", "surrogateescape"), str(path))


def read_sqk(event: SquareDealEvent, path: str | Path) -> dict[str, str]:
    """The session keys in a .sqk file, checked against the event's key hash KH."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError(_("cannot read: {reason}").format(reason=os_reason(exc)), path) from exc
    return check_keys(event, data, str(path))
