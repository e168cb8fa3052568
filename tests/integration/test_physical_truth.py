"""Physical truth before dealing, through the product's dealing run, judged by the simulator's ledger.

Each case is a board the world spoils before (or instead of) dealing: cards left in it, a board dealt in
an earlier session, a board swapped after its label was read (seen by the host, or only by the machine
refusing the start) or while the controller was down, a board turned with a readable label, a label
that never reads, an undetected double feed; and reports of the machine that do not match what was
asked. Each must end with no wrong board verified and no board dealt on top (the ledger: every dealing
into an empty, straight board of the deal's number), and one clear line naming the Law.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer.core.cards import pack
from dealer.core.errors import DealerError
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine, OperatorPrompt
from dealer.dealing.recheck import check_boards
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal.store import JobState
from firmware_protocol.labels import BoardLabel
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from hil.physical import LabelState, PhysicalBoard
from hil.scenarios import by_name
from tests.support.loopback_run import deals_for, run_on_loopback
from tests.support.physical_truth import RunRecord, check_physical_truth, hands_of_deal

DEALS = deals_for((1, 2, 3))


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


def label(board: int) -> str:
    return BoardLabel.for_board("A", board).payload()


def board_named(loop: Loopback, board: int) -> PhysicalBoard:
    return next(b for b in loop.device.room.rack.in_use() if b.label.decode() == label(board))


def lines_with(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if all(w in line for w in words)]


def run_scenario(name: str, tmp_path: Path) -> tuple[RunResult, str, Loopback, RunRecord]:
    scenario = by_name(name)
    with Loopback(scenario.sim_config(seed=3)) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db")
        run = check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, tmp_path / "j.db",
                                   result.run_id)
    return result, text, loop, run


# --- a board that is not empty --------------------------------------------------------------------


@pytest.mark.parametrize(("name", "cards"), [("leftover_cards", 3), ("already_dealt", 52)])
def test_cards_found_in_a_board_before_dealing_are_taken_out_first(name: str, cards: int, tmp_path: Path) -> None:
    result, text, loop, run = run_scenario(name, tmp_path)
    assert result.complete, text
    (line,) = lines_with(text, "board A 2 still holds cards")  # the operator's step: empty it, never a Law fault
    assert line.endswith(": empty it") and "F4" not in text and "Law 13C" not in text, text
    assert [n for ident, n in loop.device.ledger.emptied if ident == board_named(loop, 2).ident] == [cards]
    assert loop.device.ledger.times_dealt(label(2)) == 1  # emptied, then dealt once, into an empty board
    assert run.kinds(2).count("board-refused") == 1


def test_another_boards_deal_found_before_dealing_stops_the_run(tmp_path: Path) -> None:
    # board 2 holds board 3's deal (dealt out of order in an earlier run): a sequence offset, Law 6D1/6F
    config = SimConfig(seed=3)
    with Loopback(config) as loop:
        rack = loop.device.room.rack
        spoiled = rack.find_number("A", 2)
        assert spoiled is not None
        cards = loop.device.room.packs.fresh_pack()
        for card in cards:
            spoiled.pockets[int(DEALS.deals[2][card.index])].append(card)
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db")
        run = check_physical_truth(loop.device.ledger, rack, DEALS, tmp_path / "j.db", result.run_id)
        assert loop.device.ledger.times_dealt(label(2)) == 0 and loop.device.ledger.times_dealt(label(3)) == 0
    assert result.stopped and not result.complete
    (line,) = lines_with(text, "board 2", "REFUSED")
    assert "F7 another board's deal (Law 6D1/6F, Law 87)" in line and "deal of board 3" in line
    assert run.job(2).state is JobState.FAULTED and run.job(3).state is JobState.PLANNED


# --- a board that moves after its label was read -----------------------------------------------------


class SwappingMachine(Machine):
    """A machine whose operator swaps board 2 for board 3 at a chosen moment, once: as the host looks for
    board movements after the check (`where` "check"), or as StartDeal goes out (`where` "start", the host
    cannot have heard of it: only the machine's refusal tells)."""

    def __init__(self, url: str, loop: Loopback, where: str) -> None:
        super().__init__(url, opener=loopback_opener(loop), clock=loop.clock,
                         sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        self.loop, self.where, self.swapped = loop, where, False

    def _swap(self) -> None:
        room = self.loop.device.room
        if self.swapped or room.slot is None or room.slot.board.label.decode() != label(2):
            return
        self.swapped = True
        now = self.loop.clock()
        board = room.take_out(now)
        assert board is not None
        room.insert(room.rack.neighbour(board), now)

    def board_moved(self) -> bool:
        if self.where == "check":
            self._swap()
        return super().board_moved()

    def start_deal(self, job: int, timeout: float = 5.0) -> bool:
        if self.where == "start":
            self._swap()
        return super().start_deal(job, timeout)


def deal_with(loop: Loopback, journal: Path, factory: Any, **options: Any) -> tuple[RunResult, str]:
    out = io.StringIO()
    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                      limits=RunLimits(board_timeout=120, deal_timeout=120), **options)
    return deal_session(DEALS, "session.pbn", opts), out.getvalue()


@pytest.mark.parametrize("where", ["during the check", "check", "start"])
def test_a_board_swapped_after_its_label_was_read_is_checked_again_not_dealt(where: str, tmp_path: Path) -> None:
    if where == "during the check":  # the operator's own swap, from the fault plan: during the recount
        result, text, loop, run = run_scenario("swap_after_check", tmp_path)
    else:
        with Loopback(SimConfig(seed=3)) as loop:
            machines: list[SwappingMachine] = []

            def factory(url: str) -> Machine:
                machines.append(SwappingMachine(url, loop, where))
                return machines[-1]

            result, text = deal_with(loop, tmp_path / "j.db", factory)
            run = check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, tmp_path / "j.db",
                                       result.run_id)
            assert machines[0].swapped
    assert result.complete, text
    assert lines_with(text, "board 2", "moved")
    (refused,) = lines_with(text, "board 2", "REFUSED")
    assert "F8 wrong board (Law 2)" in refused and "the board is board 1 of set A" in refused  # dealt already
    assert loop.device.ledger.times_dealt(label(2)) == 1 and loop.device.ledger.times_dealt(label(1)) == 1
    if where == "start":
        assert "start-cancelled" in run.kinds(2)  # the machine refused to deal into a board not read


class Killed(DealerError):
    """The controller dies (as if killed) just before StartDeal of board 2: DEALING is journaled."""


def test_a_board_swapped_while_the_controller_was_down_is_found_by_its_label_on_resume(tmp_path: Path) -> None:
    with Loopback(SimConfig(seed=3)) as loop:
        def dying(url: str) -> Machine:
            class Dying(Machine):
                def start_deal(self, job: int, timeout: float = 5.0) -> bool:
                    if loop.device.firmware.dealing and loop.device.firmware.dealing.board_number == 2:
                        raise Killed("killed")
                    return super().start_deal(job, timeout)
            return Dying(url, opener=loopback_opener(loop), clock=loop.clock,
                         sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        first, _ = deal_with(loop, tmp_path / "j.db", dying)
        assert first.errors and "killed" in first.errors[0]
        room = loop.device.room
        assert room.slot is not None and room.slot.board.label.decode() == label(2)
        board2 = room.take_out(loop.clock())  # while the controller is down, the operator swaps boards
        assert board2 is not None
        room.insert(room.rack.neighbour(board2), loop.clock())
        second, text = run_on_loopback(loop, DEALS, tmp_path / "j.db", resume=True)
        run = check_physical_truth(loop.device.ledger, room.rack, DEALS, tmp_path / "j.db", second.run_id)
        assert loop.device.ledger.times_dealt(label(2)) == 1 and loop.device.ledger.times_dealt(label(1)) == 1
    assert second.complete, text
    (refused,) = lines_with(text, "board 2", "REFUSED")
    assert "F8 wrong board (Law 2)" in refused and "the board is board 1 of set A" in refused  # dealt already
    assert "resume-uncertain" in run.kinds(2)


# --- a board turned, a label never read ----------------------------------------------------------------


def test_a_turned_board_with_a_readable_label_is_refused_before_dealing(tmp_path: Path) -> None:
    result, text, loop, _ = run_scenario("turned_readable", tmp_path)
    assert result.complete, text
    (refused,) = lines_with(text, "board 2", "REFUSED")
    assert "F6 board turned (Law 6D1/6F, Law 87)" in refused and "turned a quarter anticlockwise" in refused
    assert all(r.turns == 0 for r in loop.device.ledger.records)
    assert [sorted(h) for h in board_named(loop, 2).hands()] == hands_of_deal(DEALS.deals[1])


def test_a_label_that_never_reads_is_refused_three_times_then_left_to_the_director(tmp_path: Path) -> None:
    scenario = by_name("never_readable")
    with Loopback(scenario.sim_config(seed=3)) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db")
        run = check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, tmp_path / "j.db",
                                   result.run_id)
        board2 = board_named(loop, 2)
        assert loop.device.ledger.times_dealt(label(2)) == 0 and board2.insertions == 3
        assert result.unresolved == ["board 2 copy 1: faulted"] and result.verified == 2
        (given_up,) = lines_with(text, "board 2", "NOT DEALT")
        assert "after 3 failed checks before dealing: F8 wrong board (Law 2): board label not read" in given_up
        assert "left for the director" in given_up
        kinds = run.kinds(2)
        assert kinds.count("board-refused") == 3 and kinds.count("board-given-up") == 1
        assert len(kinds) == 5  # loaded, three refusals, given up: a count, not a row per attempt
        board2.label_state = LabelState.OK  # the director has the label replaced; the run resumes
        again, text2 = run_on_loopback(loop, DEALS, tmp_path / "j.db", resume=True)
        check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, tmp_path / "j.db", again.run_id)
        assert loop.device.ledger.times_dealt(label(2)) == 1
    assert again.complete, text2


# --- an undetected double feed --------------------------------------------------------------------------


def test_an_undetected_double_feed_is_named_by_its_law_and_the_board_redealt(tmp_path: Path) -> None:
    result, text, loop, run = run_scenario("double_feed_unseen", tmp_path)
    assert result.complete, text
    (feed,) = lines_with(text, "board 1", "two cards fed at once")
    assert "ran out after 51 cards but the board holds 52" in feed
    (named,) = lines_with(text, "board 1", "FAULT:")
    assert "F2 card in wrong pocket (Law 13A1)" in named
    assert not any("FIX_PACK" in entry for entry in loop.device.operator.log)  # no prompt that cannot help
    assert loop.device.ledger.times_dealt(label(1)) == 2
    assert run.kinds(1)[:6] == ["loaded", "scanned", "dealing", "double-feed", "recount-fault", "redeal"]


# --- reports that do not match what was asked ----------------------------------------------------------


@pytest.mark.parametrize(("name", "problem"), [  # board 1's first dealing is the journal's first: job 1
    ("recount_fifth_pocket", "the recount of job 1 has 5 pockets [13, 13, 13, 13, 3]; the machine has 4"),
    ("deal_done_other_job", "the end of dealing of job 2 came while waiting for the dealing of job 1"),
    ("recount_other_job", "the recount of job 2 came while waiting for the recount of job 1"),
    ("fault_other_job", "a fault of job 2 came while waiting for the dealing of job 1"),
    ("deal_done_miscount", "the machine counted [13, 14, 12, 13] cards into the pockets but the recount found "
                           "[13, 13, 13, 13]"),
])
def test_a_report_that_does_not_match_the_request_is_a_protocol_fault(name: str, problem: str,
                                                                        tmp_path: Path) -> None:
    result, text, loop, run = run_scenario(name, tmp_path)
    assert result.complete, text
    (line,) = lines_with(text, "board 1", "the machine's report did not match the request")
    assert problem in line and "nothing is verified on it" in line
    kinds = run.kinds(1)
    assert kinds.index("protocol-fault") < kinds.index("verified")  # faulted first, verified only after a redeal
    assert kinds.count("verified") == 1 and kinds.count("redeal") == 1
    assert loop.device.ledger.times_dealt(label(1)) == 2


def test_a_board_dealt_turned_elsewhere_is_named_f6_by_dealer_check_never_verified() -> None:
    deals = deals_for((1,))
    plan = FaultPlan.of({"kind": "rotated_board", "insertion": 1, "turns": 1, "readable": True})
    with Loopback(SimConfig(seed=3, faults=plan)) as loop:
        with Machine("loop://sim", opener=loopback_opener(loop), clock=loop.clock,
                     sleep=loop.clock.sleep) as m:  # type: ignore[attr-defined]
            m.connect()  # a host that checks nothing deals board 1 into the board lying turned
            m.load(1, 1, bytes(pack(deals.deals[0:1])[0]))
            m.display(OperatorPrompt.INSERT_BOARD, 1, BoardLabel.for_board("A", 1).payload(), "insert board A 1")
            assert m.wait_board(True, 30.0) and m.read_board().turns == 1
            m.deal(1, 60.0)
            m.eject_board()
        checker = Machine("loop://sim", opener=loopback_opener(loop), clock=loop.clock,
                          sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        (report,) = check_boards(deals, "loop://sim", "A", out=io.StringIO(), machine=checker)
    assert not report.ok and report.primary is not None  # read straight now, in the board's own pockets:
    assert report.primary.code.value == "F6" and report.primary.details["rotation"] == 1  # N's hand in E
