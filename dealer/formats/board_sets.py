"""Which sets of boards each format can carry (its ``BOARD_SET``), and the one line that refuses a set it
cannot. A set is checked from its spans (first, last), so a run of a million boards costs nothing; formats
other than `NUMBERS` give every board Law 2's dealer and vulnerability, so they refuse a set off Law 2 too.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Final

import numpy as np

from dealer.core.boards import format_board_spans
from dealer.core.dealset import DealSet
from dealer.language import _, n_

NUMBERS: Final = "numbers"
"""Every board's number, dealer and vulnerability: PBN, CSV, LIN, JSON."""
ONE_RUN: Final = "one run"
"""No board numbers, or a Duplimate's run: one run of consecutive boards, read back from its first board with
``--first-board``."""
POSITIONS: Final = "positions"
"""BHG: a run as Big Deal writes it, any other set in ascending order by line position, as deal-convert does."""
BYTE_NUMBERS: Final = "byte numbers"
"""CDS: a board number's low 8 bits, read back counting the wraps from 255 to 0."""

POSITIONS_MAX: Final = 1_000_000
"""The highest board a BHG file of a set with gaps reaches: one line a board number, empty or not."""

ANY_SET: Final = "PBN, CSV, LIN or JSON"
"""The formats that carry any set of boards with their dealers and vulnerabilities."""

Spans = Sequence[tuple[int, int]]


def spans_of(boards: Sequence[int] | np.ndarray) -> list[tuple[int, int]]:
    """The runs (first, last) of board numbers in the order given."""
    numbers = np.asarray(boards, dtype=np.int64)
    if not numbers.size:
        return []
    breaks = np.flatnonzero(np.diff(numbers) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks - 1, [numbers.size - 1]))
    return [(int(numbers[a]), int(numbers[b])) for a, b in zip(starts, ends, strict=True)]


def merged(spans: Spans) -> list[tuple[int, int]]:
    """Spans with the ones that follow on joined: [(1, 16), (17, 20)] is [(1, 20)]."""
    out: list[tuple[int, int]] = []
    for first, last in spans:
        if out and first == out[-1][1] + 1:
            out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return out


def ascending(spans: Spans) -> bool:
    return all(b[0] > a[1] for a, b in zip(spans, spans[1:], strict=False))


def cds_reading(spans: Spans) -> int | None:
    """The first board a CDS file of these boards would read back under another number, or None.

    The reader numbers a board byte + 256 x (wraps from 255 to 0 so far) and refuses a 0 that follows
    no 255; within a run the numbers wrap as the reader counts, so only the first board of each run
    can go wrong."""
    wraps, previous = 0, -1
    for first, last in merged(spans):
        byte = first % 256
        if byte == 0 and previous != 255:
            return first
        if byte == 0:
            wraps += 1
        if byte + 256 * wraps != first:
            return first
        wraps = last // 256
        previous = last % 256
    return None


def problem(module: ModuleType, spans: Spans) -> str | None:
    """Why a file of `module`'s format cannot carry the boards of `spans` as they are, or None (one
    clause: what the format holds and what this set is, then which formats hold it)."""
    return set_problem(module.BOARD_SET, module.NAME, spans)


def set_problem(kind: str, format_name: str, spans: Spans) -> str | None:
    """:func:`problem` for a format that carries sets of `kind` (`NUMBERS`, `ONE_RUN`, ...)."""
    name = format_name.upper()
    runs = merged(spans)
    shown = format_board_spans(runs)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    if kind == ONE_RUN and len(runs) > 1:
        return _("{format} holds one run of consecutive boards (it numbers no board); boards {boards} are not one "
                 "run: write {formats}, BHG, or one file a run").format(format=name, boards=shown, formats=ANY_SET)
    if kind == POSITIONS and len(runs) > 1:
        if not ascending(runs):
            return _("{format} holds boards in ascending order (a line's place is its number); boards {boards} are "
                     "not: write {formats}").format(format=name, boards=shown, formats=ANY_SET)
        if runs[-1][1] > POSITIONS_MAX:
            return _("{format} holds a set with gaps by line position, one line a board number, up to board "
                     "{most:,}; boards {boards} reach {last:,}: write {formats}, or one file a run").format(
                format=name, most=POSITIONS_MAX, boards=shown, last=runs[-1][1], formats=ANY_SET)
    if kind == BYTE_NUMBERS:
        wrong = cds_reading(runs)
        if wrong is not None:
            return _("{format} holds a board's number as one byte (mod 256), counting each wrap from 255 to 0; "
                     "board {board} of boards {boards} would read back under another number: write {formats}").format(
                format=name, board=wrong, boards=shown, formats=ANY_SET)
    return None


def law2_problem(module: ModuleType, deals: DealSet) -> str | None:
    """Why a file of `module`'s format would give some board of `deals` another dealer or
    vulnerability, or None."""
    if module.BOARD_SET == NUMBERS or not len(deals):
        return None
    off = np.flatnonzero(~deals.conforms_to_law2())
    if not off.size:
        return None
    board = int(deals.boards[off[0]])
    return n_("{format} gives every board Law 2's dealer and vulnerability; board {board} has another ({count} board "
              "in all): write {formats}, which keep them",
              "{format} gives every board Law 2's dealer and vulnerability; board {board} has another ({count} boards "
              "in all): write {formats}, which keep them", int(off.size)).format(
        format=module.NAME.upper(), board=board, count=int(off.size), formats=ANY_SET)
