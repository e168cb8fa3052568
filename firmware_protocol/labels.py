"""Board labels: the barcode payload on every board, part of the machine contract (PROTOCOL.md §12).

A controller reads a board's label before dealing into it, and a simulated or real machine prints, reads
and reports it: the grammar, its check character and the Law 2 marks of PROTOCOL.md §12 are coded here
once, for host and device alike. Seats 0..3 are N E S W and vulnerabilities 0..3 none, NS, EW, both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

SEAT_LETTERS: Final = "NESW"
VULNERABILITY_MARKS: Final = "0NEB"
"""The vulnerability mark of a label, indexed by vulnerability 0..3 (none, NS, EW, both)."""
MAX_SET_LENGTH: Final = 12
MAX_BOARD: Final = 9999

_VALUE_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:"
_CHECK_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*"
_SET = re.compile(r"[A-Z0-9]{1,12}")
_LABEL = re.compile(r"([A-Z0-9]{1,12}):([1-9][0-9]{0,3}):([NESW])([0NEB]):([0-9A-Z*])")


def law2_dealer(board: int) -> int:
    """The dealer (0..3 = N E S W) Law 2 gives board number `board` (>= 1)."""
    if board < 1:
        raise ValueError(f"board numbers start at 1; got {board!r}")
    return (board - 1) % 4


def law2_vulnerability(board: int) -> int:
    """The vulnerability (0..3 = none, NS, EW, both) Law 2 gives board number `board` (>= 1)."""
    if board < 1:
        raise ValueError(f"board numbers start at 1; got {board!r}")
    m = (board - 1) % 16
    return (m % 4 + m // 4) % 4


def valid_set_name(name: str) -> bool:
    """True if `name` can stand in a label as a board set: 1 to 12 of A-Z and 0-9."""
    return _SET.fullmatch(name) is not None


def check_character(text: str) -> str:
    """The label check character of `text` (characters from 0-9, A-Z and ':'), ISO 7064 MOD 37-style."""
    total = 0
    for i, ch in enumerate(text, start=1):
        v = _VALUE_ALPHABET.find(ch)
        if v < 0:
            raise ValueError(f"{ch!r} cannot appear in a board label")
        total += i * v
    return _CHECK_ALPHABET[total % 37]


@dataclass(frozen=True)
class BoardLabel:
    """What a board's barcode says: its set, its number, and the dealer (0..3) and vulnerability (0..3)
    marked on it."""

    set_name: str
    board: int
    dealer: int
    vulnerability: int

    @classmethod
    def for_board(cls, set_name: str, board: int) -> BoardLabel:
        """The label of a Law 2 conforming board."""
        return cls(set_name.upper(), board, law2_dealer(board), law2_vulnerability(board))

    @property
    def conforms(self) -> bool:
        """True if the marked dealer and vulnerability are those Law 2 gives the board number."""
        return self.dealer == law2_dealer(self.board) and self.vulnerability == law2_vulnerability(self.board)

    def payload(self) -> str:
        """The barcode payload, with its check character."""
        if not valid_set_name(self.set_name) or not 1 <= self.board <= MAX_BOARD:
            raise ValueError(f"cannot label set {self.set_name!r} board {self.board}")
        body = f"{self.set_name}:{self.board}:{SEAT_LETTERS[self.dealer]}{VULNERABILITY_MARKS[self.vulnerability]}:"
        return body + check_character(body)

    @classmethod
    def parse(cls, payload: str) -> BoardLabel:
        """Parse a payload; raises `ValueError` naming what is wrong (grammar or check character)."""
        m = _LABEL.fullmatch(payload)  # nothing before or after: not even a line end (PROTOCOL.md 12)
        if not m:
            raise ValueError(f"board label {payload!r} does not follow SET:BOARD:DV:C")
        if check_character(payload[:-1]) != payload[-1]:
            raise ValueError(f"board label {payload!r}: check character is wrong")
        return cls(m.group(1), int(m.group(2)), SEAT_LETTERS.index(m.group(3)),
                   VULNERABILITY_MARKS.index(m.group(4)))
