"""A board holding a deal the file does not hold (another session's, another file's) is said to be one, and
never given a redeal from the file; a board of the file's own deal with hands or some cards out of place is
still told what to put right."""

from __future__ import annotations

import numpy as np

from dealer.core.dealset import DealSet
from dealer.verify.board_check import Action, BoardRecount, FaultCategory, verify_board
from firmware_protocol.labels import BoardLabel
from tests.support.deals import random_deals

TUESDAY = DealSet.from_deals(random_deals(11, 16))
"""The file the director names."""
MONDAY = DealSet.from_deals(random_deals(12, 16))
"""The session these boards were really dealt from."""


def check(board: int, holding: np.ndarray) -> tuple[str, ...]:
    report = verify_board(TUESDAY.deals[board - 1], BoardRecount.of_deal(holding), board=board, set_name="A",
                          label=BoardLabel.for_board("A", board).payload(), session=TUESDAY)
    return tuple(f.action.name for f in report.faults)


def test_every_board_of_another_session_is_called_another_deal_and_no_redeal() -> None:
    for board in range(1, 17):
        report = verify_board(TUESDAY.deals[board - 1], BoardRecount.of_deal(MONDAY.deals[board - 1]),
                              board=board, set_name="A", label=BoardLabel.for_board("A", board).payload(),
                              session=TUESDAY)
        (fault,) = report.faults
        assert fault.code is FaultCategory.F7 and fault.action is Action.CHECK_SOURCE and fault.other_deal
        assert "redeal the same deal" not in report.summary(blind=True) + report.summary()
        assert "different deal" in fault.message and "does not hold" in fault.title()


def test_a_board_of_the_files_own_deal_turned_or_with_cards_swapped_is_no_other_deal() -> None:
    deal = TUESDAY.deals[2].copy()
    turned = (deal + 1) % 4
    assert check(3, turned) == ("REPOCKET",)
    swapped = deal.copy()
    north, east = np.flatnonzero(deal == 0)[:6], np.flatnonzero(deal == 1)[:6]
    swapped[north], swapped[east] = 1, 0  # twelve cards exchanged: still the file's deal, badly put
    assert check(3, swapped) == ("REDEAL_SAME_DEAL",)
    assert check(3, TUESDAY.deals[6]) == ("STOP_BATCH",)  # board 7's deal of the same file: a sequence offset


def test_two_unrelated_deals_never_agree_on_as_many_cards_as_a_board_with_cards_out_of_place() -> None:
    """The bound the decision rests on: 2,000 random pairs of deals, each board called another deal."""
    ones, others = random_deals(21, 2000), random_deals(22, 2000)
    for mine, theirs in zip(ones, others, strict=True):
        report = verify_board(mine, BoardRecount.of_deal(theirs), board=1, set_name="A",
                              label=BoardLabel.for_board("A", 1).payload())
        assert [f.action for f in report.faults] == [Action.CHECK_SOURCE]


def test_a_board_the_machine_has_just_dealt_with_its_selector_slipped_is_redealt_never_another_deal() -> None:
    """From its 20th card on, the selector put every card one pocket on: most cards lie away from the file's
    deal, as another deal's would. Known to be this dealing's work, it is put right, never a question of files."""
    deal = TUESDAY.deals[4]
    slipped = deal.copy()
    slipped[20:] = (deal[20:] + 1) % 4
    label = BoardLabel.for_board("A", 5).payload()
    recount = BoardRecount.from_hands([[int(c) for c in np.flatnonzero(slipped == s)] for s in range(4)])
    checked = verify_board(deal, recount, board=5, set_name="A", label=label, session=TUESDAY)
    assert [f.action for f in checked.faults] == [Action.CHECK_SOURCE]  # boards of unknown origin: which file?
    dealt = verify_board(deal, recount, board=5, set_name="A", label=label, session=TUESDAY, just_dealt=True)
    assert dealt.faults and Action.CHECK_SOURCE not in [f.action for f in dealt.faults]
    assert FaultCategory.F7 not in [f.code for f in dealt.faults]  # the run goes on: this board is put right
