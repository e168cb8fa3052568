"""One board's life on a machine, the pieces both its stages share: the dealing (`station`) and the
settling after a crash (`recovery`).

How many failed checks of a board end the asking (`MAX_BOARD_CHECKS`, then `GaveUp`), a double feed
(`DoubleFeed`), the job number on the wire (`wire_job`), the prompt that puts a machine fault right and what
the journal records of that fault, and a board's copy in progress lines.

May import `dealer.dealing.machine` and `dealer.journal`; never `station` or `recovery`, which import it.
"""

from __future__ import annotations

from dealer.dealing.machine import DealingFault, MachineFaultKind, OperatorPrompt
from dealer.journal import events
from dealer.journal.events import Interruption
from dealer.journal.store import Job

MAX_BOARD_CHECKS = 3
"""Checks of a job's board that may fail in a row (wrong, unreadable or turned, cards in it, moved) before
the run stops asking and leaves the job to the director."""


class DoubleFeed(Exception):
    """The pack ran out before 52 cards while the board holds more cards than the machine dealt: two cards
    went in at once, unnoticed."""

    def __init__(self, cards_dealt: int, in_board: int) -> None:
        self.cards_dealt = cards_dealt
        self.in_board = in_board
        super().__init__(f"the pack ran out after {cards_dealt} cards but the board holds {in_board}: "
                         "two cards went in at once (a double feed the machine did not see)")


class GaveUp(Exception):
    """A job's board failed its checks too often: the job is FAULTED, for the director."""


def put_right_prompt(kind: MachineFaultKind) -> OperatorPrompt | None:
    """The prompt that asks the operator to put a resumable machine fault right (None: nothing to do)."""
    if kind is MachineFaultKind.BOARD_REMOVED:
        return OperatorPrompt.INSERT_BOARD
    if kind is MachineFaultKind.EMPTY_HOPPER:
        return OperatorPrompt.FIX_PACK
    return None if kind is MachineFaultKind.POWER_LOSS else OperatorPrompt.CLEAR_PATH


def wire_job(job: Job) -> int:
    """The 16-bit job number sent to the machine (never 0)."""
    return job.id % 0xFFFF + 1


def fault_note(fault: DealingFault, after: Interruption | None = None) -> events.MachineFaultResumed:
    """What the journal records of a machine fault that is put right and dealt on (never a card: not the
    detail of a DUPLICATE_CARD, which is the card read twice); `after`: the interruption that caused it."""
    prompt = put_right_prompt(fault.kind)
    detail = None if fault.kind is MachineFaultKind.DUPLICATE_CARD else fault.detail
    return events.MachineFaultResumed(code=fault.code or 0, name=fault.name, machine_detail=detail,
                                      prompt=prompt.value if prompt is not None else None, after=after)


def copy_text(job: Job) -> str:
    """" copy k" for a second or later copy of a board, else nothing (for progress lines)."""
    return f" copy {job.copy}" if job.copy > 1 else ""
