"""What a dealing run asks for: one copy of one board, into one physical board set.

Pure and tiny on purpose: the plan (:mod:`dealer.plan`) makes these and the journal
(:mod:`dealer.journal.store`) records them, and neither should import the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JobPlan:
    """What a run wants dealt: one row per copy of a board, in dealing order.

    `set_name` is the physical board set the copy goes into (its labels say `SET:BOARD:..`).
    """

    board: int
    copy: int = 1
    section: str = ""
    set_name: str = ""
