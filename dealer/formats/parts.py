"""A session cut into parts a format can hold, for the formats that hold one run of boards 1-99 (DUP, DLM).

A part is one run of consecutive boards of at most the format's highest board in count. The boards up
to that highest board keep their numbers (one part, or one per run if the session has gaps); the rest
are cut into parts of as many boards as the format holds, each numbered from 1 in its file - the
Duplimate deals a file's boards as 1..n - and the part says which boards of the session it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dealer.core.boards import format_board_range
from dealer.core.dealset import DealSet
from dealer.language import _


@dataclass(frozen=True)
class Part:
    """One file's worth of boards: the session's boards it holds, and the deals as written (renumbered
    from 1 when the session's numbers go past what the format holds)."""

    session_boards: list[int]
    deals: DealSet

    @property
    def renumbered(self) -> bool:
        return [int(b) for b in self.deals.boards] != self.session_boards

    def describe(self) -> str:
        """'boards 1-99', or 'boards 100-120 as boards 1-21'."""
        text = _boards(self.session_boards)
        if self.renumbered:
            text = _("{boards} as {written}").format(boards=text, written=_boards(self.deals.boards.tolist()))
        return text


def _boards(boards: list[int]) -> str:
    """'board 7' or 'boards 1-16' (the noun by how many, not by the last number: no count is shown)."""
    said = _("board {boards}") if len(boards) == 1 else _("boards {boards}")
    return said.format(boards=format_board_range(boards))


def fits(deals: DealSet, highest: int) -> bool:
    """True if the boards are one run of consecutive boards ending at `highest` at most."""
    return not len(deals) or (bool((np.diff(deals.boards) == 1).all()) and int(deals.boards[-1]) <= highest)


def cut(deals: DealSet, highest: int) -> list[Part]:
    """The parts of a session for a format that holds one run of boards 1..`highest` (see the module)."""
    boards = deals.boards
    breaks = np.flatnonzero(np.diff(boards) != 1) + 1
    parts: list[Part] = []
    for run in np.split(np.arange(len(deals)), breaks):
        low = run[boards[run] <= highest]
        if low.size:
            parts.append(_part(deals, low, renumber=False))
        high = run[boards[run] > highest]
        for start in range(0, len(high), highest):
            parts.append(_part(deals, high[start:start + highest], renumber=True))
    return parts


def _part(deals: DealSet, rows: np.ndarray, *, renumber: bool) -> Part:
    boards = [int(b) for b in deals.boards[rows]]
    chosen = deals.select(boards)
    return Part(boards, chosen.renumbered(np.arange(1, len(rows) + 1)) if renumber else chosen)
