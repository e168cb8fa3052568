"""Boards (Law 2): board number -> dealer and vulnerability, one board or an array of them; board ranges
and set names. The scalar rule is the board label's (`firmware_protocol.labels`); the array forms follow
it and are tested against it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import IntEnum
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.errors import UsageError
from dealer.language import N_, _
from firmware_protocol.labels import MAX_BOARD, MAX_SET_LENGTH, law2_dealer, law2_vulnerability, valid_set_name


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
        raise ValueError(_("not a vulnerability: {text}").format(text=repr(text)))


_VUL_NAMES: Final = {
    Vulnerability.NONE: {"NONE", "LOVE", "-", "0", "O", "Z"},
    Vulnerability.NS: {"NS", "N-S", "N/S", "N"},
    Vulnerability.EW: {"EW", "E-W", "E/W", "E"},
    Vulnerability.BOTH: {"ALL", "BOTH", "B"},
}


def dealer_of(board: int) -> int:
    """Dealer seat (0..3 = N E S W) of a board number >= 1."""
    _check_board(board)
    return law2_dealer(int(board))


def vulnerability_of(board: int) -> Vulnerability:
    """Vulnerability of a board number >= 1 (Law 2, 16-board cycle)."""
    _check_board(board)
    return Vulnerability(law2_vulnerability(int(board)))


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
        raise ValueError(_("board numbers start at 1; got {board}").format(board=repr(board)))


_SET_NAME_RULE: Final = N_("1-{most} letters or digits")


def set_name_rule() -> str:
    """What a board set's name may be, in the language spoken."""
    return _(_SET_NAME_RULE).format(most=MAX_SET_LENGTH)

MAX_COPIES: Final = 99
"""The most copies of a board one run deals (Law 6F): more sections than any room holds at once."""
LABEL_LIMIT: Final = N_("the highest a board label carries")


def set_name_problem(name: str) -> str | None:
    """Why `name` (as given; letters are taken in capitals) cannot name a board set, or None if it can.
    The one rule for every board set a command or a plan names: the label grammar's
    (`firmware_protocol.labels`)."""
    if valid_set_name(name.strip().upper()):
        return None
    return _("board set name {name} must be 1-{most} letters or digits (it is printed in the board labels)").format(
        name=repr(name), most=MAX_SET_LENGTH)


def copy_set_names(name: str, copies: int, *, numbered: bool = False) -> tuple[str, ...]:
    """The board sets `copies` copies of each board go into: `name` itself for one copy (unless
    `numbered`), else `name` + copy number (A1, A2, ...). Raises `UsageError` for fewer than 1 copy and
    for a set name that breaks the label rule (`set_name_problem`), a numbered one too (a 12-character
    name has no room for its copy number)."""
    if copies < 1:
        raise UsageError(_("--copies must be at least 1; got {copies}").format(copies=copies))
    if copies > MAX_COPIES:
        shown = str(copies) if copies < 10 ** 12 else _("{start}... ({digits} digits)").format(
            start=str(copies)[:6], digits=len(str(copies)))
        raise UsageError(_("{copies} copies of each board: a run deals at most {most} copies").format(
            copies=shown, most=MAX_COPIES))
    base = name.strip().upper()
    names = (base,) if copies == 1 and not numbered else tuple(f"{base}{c}" for c in range(1, copies + 1))
    problem = set_name_problem(base)
    if problem is not None:
        raise UsageError(problem)
    for copy, made in enumerate(names, start=1):
        if set_name_problem(made) is not None:
            raise UsageError(_("board set name {name} leaves no room for the copy number: copy {copy} of {copies} "
                               "goes into set {made}, and a set name must be 1-{most} letters or digits; use a "
                               "shorter name").format(name=repr(base), copy=copy, copies=copies, made=made,
                                                      most=MAX_SET_LENGTH))
    return names


def check_labelled(boards: Sequence[int]) -> None:
    """Refuse board numbers a board label cannot carry (1 to `MAX_BOARD`)."""
    over = [int(b) for b in boards if int(b) > MAX_BOARD]
    if over:
        raise UsageError(_("board {board}: a board label carries board numbers up to {most}").format(
            board=over[0], most=MAX_BOARD))


_RANGE_PART = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_board_range(text: str, *, most: int = MAX_BOARD, limit: str = LABEL_LIMIT) -> list[int]:
    """Board numbers from a range text: '1-32', '5-20', '7', or a comma list of those ('1-16,21').

    Raises `UsageError` for empty parts, board 0, descending ranges, repeated boards, and, before any list
    is made, a board beyond `most` (`limit` says what that bound is: a label's, a file's last board).
    """
    spans = parse_board_spans(text)
    beyond = max(hi for _, hi in spans)
    if beyond > most:
        raise UsageError(_("board range {text}: board {board} is beyond {most}, {limit}").format(
            text=repr(text), board=beyond, most=most, limit=_(limit)))
    return [board for lo, hi in spans for board in range(lo, hi + 1)]


def parse_file_boards(text: str, last: int, name: str) -> list[int]:
    """The boards of a range text that names boards of the file `name`, whose last board is `last`: boards
    beyond it are refused (`UsageError`: "s.pbn: has no board 121-125") before any list is made."""
    beyond = [(max(lo, last + 1), hi) for lo, hi in parse_board_spans(text) if hi > last]
    if beyond:
        raise UsageError(_("{file}: has no board {boards}").format(file=name, boards=format_board_spans(beyond)))
    return parse_board_range(text, most=last)


def parse_board_spans(text: str) -> list[tuple[int, int]]:
    """The spans (first, last), both included, of a range text, in the order given: the boards of
    :func:`parse_board_range` without a list of them all (a million boards are two numbers)."""
    spans: list[tuple[int, int]] = []
    for part in text.split(","):
        m = _RANGE_PART.match(part)
        if not m:
            raise UsageError(_("board range {text}: {part} is not N or N-M").format(
                text=repr(text), part=repr(part.strip())))
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if lo < 1:
            raise UsageError(_("board range {text}: boards start at 1").format(text=repr(text)))
        if hi < lo:
            raise UsageError(_("board range {text}: {first}-{last} runs backwards").format(
                text=repr(text), first=lo, last=hi))
        spans.append((lo, hi))
    ordered = sorted(spans)
    if any(lo <= prev_hi for (_, prev_hi), (lo, _) in zip(ordered, ordered[1:], strict=False)):
        raise UsageError(_("board range {text} names a board twice").format(text=repr(text)))
    return spans


def format_board_spans(spans: Sequence[tuple[int, int]]) -> str:
    """The shortest range text for boards given as spans (first, last) in order: what
    :func:`format_board_range` gives for the boards of the spans."""
    merged: list[list[int]] = []
    for lo, hi in spans:
        if merged and lo == merged[-1][1] + 1:
            merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in merged)


def format_board_range(boards: Sequence[int]) -> str:
    """The shortest range text for a list of board numbers, e.g. [1,2,3,7] -> '1-3,7'."""
    nums = np.asarray(boards, dtype=np.int64).reshape(-1)
    if not nums.size:
        return ""
    cuts = np.flatnonzero(np.diff(nums) != 1) + 1  # where a run of consecutive numbers ends
    firsts = nums[np.concatenate(([0], cuts))].tolist()
    lasts = nums[np.concatenate((cuts - 1, [len(nums) - 1]))].tolist()
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(firsts, lasts, strict=True))
