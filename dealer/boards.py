"""Boards (Law 2): board number -> dealer and vulnerability; board ranges; board-label barcode payloads.

Law 2: dealer N E S W on boards 1 2 3 4 (mod 4); vulnerability None on 1 8 11 14, NS on 2 5 12 15,
EW on 3 6 9 16, Both on 4 7 10 13; the pattern repeats every 16 boards.

Board label payload (Code 128, printable ASCII), defined here once for the whole project::

    payload  = set ":" board ":" dealer vul ":" check
    set      = 1..12 of [A-Z0-9]          the physical board set, e.g. RED or C1
    board    = 1..9999, no leading zero   the number printed on the board
    dealer   = N | E | S | W              the dealer marked on the board
    vul      = 0 | N | E | B              vulnerability marked: none, NS, EW, both
    check    = one of [0-9A-Z*]           ISO 7064 MOD 37-style check over all preceding characters

e.g. ``RED:17:N0:`` + check. The marked dealer and vulnerability let a controller spot a board that
breaks Law 2 before dealing into it. The check character is ``sum(i * v(c_i)) mod 37`` over the
characters before it (i from 1, v = index in ``0-9A-Z:``), written as ``0-9A-Z*``: it catches every
single-character error and every swap of two neighbours.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.cards import SEATS
from dealer.errors import UsageError


class Vulnerability(IntEnum):
    """Who is vulnerable on a board. Values are the order of the Law 2 cycle."""

    NONE = 0
    NS = 1
    EW = 2
    BOTH = 3

    @property
    def pbn(self) -> str:
        """The PBN export name: None, NS, EW, All."""
        return ("None", "NS", "EW", "All")[self]

    @classmethod
    def from_text(cls, text: str) -> Vulnerability:
        """Parse any name PBN and Duplimate files use: None/Love/-/0, NS, EW, All/Both/B."""
        key = text.strip().upper()
        for vul, names in _VUL_NAMES.items():
            if key in names:
                return vul
        raise ValueError(f"not a vulnerability: {text!r}")


_VUL_NAMES: Final = {
    Vulnerability.NONE: {"NONE", "LOVE", "-", "0", "O", "Z"},
    Vulnerability.NS: {"NS", "N-S", "N/S", "N"},
    Vulnerability.EW: {"EW", "E-W", "E/W", "E"},
    Vulnerability.BOTH: {"ALL", "BOTH", "B"},
}


def dealer_of(board: int) -> int:
    """Dealer seat (0..3 = N E S W) of a board number >= 1."""
    _check_board(board)
    return (board - 1) % 4


def vulnerability_of(board: int) -> Vulnerability:
    """Vulnerability of a board number >= 1 (Law 2, 16-board cycle)."""
    _check_board(board)
    m = (board - 1) % 16
    return Vulnerability((m % 4 + m // 4) % 4)


def dealers_of(boards: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Dealer seats for an array of board numbers (vectorised :func:`dealer_of`)."""
    b = np.asarray(boards, dtype=np.int64)
    return ((b - 1) % 4).astype(np.uint8)


def vulnerabilities_of(boards: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Vulnerability values for an array of board numbers (vectorised :func:`vulnerability_of`)."""
    m = (np.asarray(boards, dtype=np.int64) - 1) % 16
    return ((m % 4 + m // 4) % 4).astype(np.uint8)


def _check_board(board: int) -> None:
    if not isinstance(board, int | np.integer) or board < 1:
        raise ValueError(f"board numbers start at 1; got {board!r}")


_RANGE_PART = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_board_range(text: str) -> list[int]:
    """Board numbers from a range text: '1-32', '5-20', '7', or a comma list of those ('1-16,21').

    Raises `UsageError` for empty parts, board 0, descending ranges or repeated boards.
    """
    spans: list[tuple[int, int]] = []
    for part in text.split(","):
        m = _RANGE_PART.match(part)
        if not m:
            raise UsageError(f"board range {text!r}: {part.strip()!r} is not N or N-M")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if lo < 1:
            raise UsageError(f"board range {text!r}: boards start at 1")
        if hi < lo:
            raise UsageError(f"board range {text!r}: {lo}-{hi} runs backwards")
        spans.append((lo, hi))
    ordered = sorted(spans)
    if any(lo <= prev_hi for (_, prev_hi), (lo, _) in zip(ordered, ordered[1:], strict=False)):
        raise UsageError(f"board range {text!r} names a board twice")
    return [board for lo, hi in spans for board in range(lo, hi + 1)]


def format_board_range(boards: Sequence[int]) -> str:
    """The shortest range text for a list of board numbers, e.g. [1,2,3,7] -> '1-3,7'."""
    nums = np.asarray(boards, dtype=np.int64).reshape(-1)
    if not nums.size:
        return ""
    cuts = np.flatnonzero(np.diff(nums) != 1) + 1  # where a run of consecutive numbers ends
    firsts = nums[np.concatenate(([0], cuts))].tolist()
    lasts = nums[np.concatenate((cuts - 1, [len(nums) - 1]))].tolist()
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(firsts, lasts, strict=True))


# --- board labels ---------------------------------------------------------------------------

_VALUE_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:"
_CHECK_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*"
_VUL_CODES: Final = "0NEB"
_LABEL = re.compile(r"^([A-Z0-9]{1,12}):([1-9][0-9]{0,3}):([NESW])([0NEB]):([0-9A-Z*])$")


def check_character(text: str) -> str:
    """The label check character of `text` (characters from 0-9, A-Z and ':')."""
    total = 0
    for i, ch in enumerate(text, start=1):
        v = _VALUE_ALPHABET.find(ch)
        if v < 0:
            raise ValueError(f"{ch!r} cannot appear in a board label")
        total += i * v
    return _CHECK_ALPHABET[total % 37]


@dataclass(frozen=True)
class BoardLabel:
    """What a board's barcode says: its set, its number, and the dealer and vulnerability marked on it."""

    set_name: str
    board: int
    dealer: int
    vulnerability: Vulnerability

    @classmethod
    def for_board(cls, set_name: str, board: int) -> BoardLabel:
        """The label of a Law 2 conforming board."""
        return cls(set_name.upper(), board, dealer_of(board), vulnerability_of(board))

    @property
    def conforms(self) -> bool:
        """True if the marked dealer and vulnerability are those Law 2 gives the board number."""
        return self.dealer == dealer_of(self.board) and self.vulnerability == vulnerability_of(self.board)

    def payload(self) -> str:
        """The barcode payload, with its check character."""
        body = f"{self.set_name}:{self.board}:{SEATS[self.dealer]}{_VUL_CODES[self.vulnerability]}:"
        if not re.fullmatch(r"[A-Z0-9]{1,12}", self.set_name) or not 1 <= self.board <= 9999:
            raise ValueError(f"cannot label set {self.set_name!r} board {self.board}")
        return body + check_character(body)

    @classmethod
    def parse(cls, payload: str) -> BoardLabel:
        """Parse a payload; raises `ValueError` naming what is wrong (grammar or check character)."""
        m = _LABEL.match(payload)
        if not m:
            raise ValueError(f"board label {payload!r} does not follow SET:BOARD:DV:C")
        body = payload[:-1]
        if check_character(body) != payload[-1]:
            raise ValueError(f"board label {payload!r}: check character is wrong")
        return cls(m.group(1), int(m.group(2)), SEATS.index(m.group(3)),
                   Vulnerability(_VUL_CODES.index(m.group(4))))
