"""Board labels (PROTOCOL.md section 12): `SET:BOARD:DV:C`, with the Law 2 marks and the check."""

from __future__ import annotations

import re

_VALUES = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:"
_CHECKS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*"
_PATTERN = re.compile(r"([A-Z0-9]{1,12}):([1-9][0-9]{0,3}):([NESW])([0NEB]):([0-9A-Z*])")


def check_character(text: str) -> str:
    """sum(i * v(c_i)) mod 37 over the characters, i from 1, read in `0-9A-Z*`."""
    return _CHECKS[sum(i * _VALUES.index(c) for i, c in enumerate(text, start=1)) % 37]


def dealer_of(board: int) -> str:
    """Law 2: dealer N E S W on boards 1 2 3 4, mod 4."""
    return "NESW"[(board - 1) % 4]


def vulnerability_of(board: int) -> str:
    """Law 2: 0 (none), N (NS), E (EW) or B (both), repeating every 16 boards."""
    pattern = "0NEBNEB0EB0NB0NE"
    return pattern[(board - 1) % 16]


def make_label(board_set: str, board: int) -> str:
    """The label printed on board `board` of set `board_set`."""
    if not re.fullmatch(r"[A-Z0-9]{1,12}", board_set) or not 1 <= board <= 9999:
        raise ValueError(f"no label for board {board} of set {board_set!r}")
    text = f"{board_set}:{board}:{dealer_of(board)}{vulnerability_of(board)}:"
    return text + check_character(text)


def parse_label(label: str) -> tuple[str, int] | None:
    """(set, board) of a well-formed label whose check holds, else None."""
    found = _PATTERN.fullmatch(label)
    if not found or check_character(label[:-1]) != label[-1]:
        return None
    return found.group(1), int(found.group(2))
