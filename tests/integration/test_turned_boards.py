"""Boards dealt straight and then put in turned for `dealer check` (PROTOCOL.md 12.1): on a machine that
reads every edge each is named turned, in words (F6), asked for again and verified once straight; never
reported as cards in wrong pockets. On a machine with one reader the turned board's label is not read
(F8), and it is asked for again too.

The boards are dealt by the dealing run; the plan makes the operator put the first board the check asks
for in turned. Which insertion that is, a first run with the same seed counts (the simulation is
deterministic), so the plan names the check's own insertions.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.dealing.machine import Machine
from dealer.dealing.recheck import check_boards
from dealer.dealing.sim_ports import loopback_opener
from dealer.verify import VerificationReport
from firmware_protocol import Capability
from hil.config import DEFAULT_CAPABILITIES, SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for, run_on_loopback

DEALS = deals_for((1, 2, 3))
SEED = 5


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


def _insertions_of_the_deal(tmp_path: Path) -> int:
    with Loopback(SimConfig(seed=SEED, reads_every_edge=True)) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "count.db")
        assert result.complete, text
        return loop.device.engine.insertions


def _deal_then_check(tmp_path: Path, turns: dict[int, int], every_edge: bool) -> tuple[list[VerificationReport], str]:
    """Deal boards 1-3, then check them; the check's `n`-th insertion is turned `turns[n]` quarter turns."""
    dealt = _insertions_of_the_deal(tmp_path)
    plan = FaultPlan.of(*({"kind": "rotated_board", "insertion": dealt + n, "turns": k} for n, k in turns.items()))
    with Loopback(SimConfig(seed=SEED, faults=plan, reads_every_edge=every_edge)) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db", replay=True)  # the same deals again
        assert result.complete, text
        assert loop.device.engine.insertions == dealt
        out = io.StringIO()
        checker = Machine("loop://sim", opener=loopback_opener(loop), clock=loop.clock,
                          sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        reports = check_boards(DEALS, "loop://sim", "A", out=out, machine=checker)
    return reports, out.getvalue()


def test_boards_put_in_turned_1_2_and_3_quarter_turns_are_named_turned_in_words(tmp_path: Path) -> None:
    # board 1 is the check's 1st insertion, board 2 its 3rd and board 3 its 5th (each refused once)
    reports, text = _deal_then_check(tmp_path, {1: 1, 3: 2, 5: 3}, every_edge=True)
    lines = text.splitlines()
    refused = [line for line in lines if "REFUSED" in line]
    assert len(refused) == 3, text
    words = {1: "a quarter anticlockwise", 2: "half round", 3: "a quarter clockwise"}
    under = {1: "West", 2: "South", 3: "East"}
    for board, line in zip((1, 2, 3), refused, strict=True):
        assert f"board {board}: REFUSED F6 " in line
        assert f"board {board} lies turned {words[board]} in the machine (its North pocket under the " \
               f"machine's {under[board]})" in line
        assert "turn it so that its North pocket is under the machine's North" in line
    assert [r.ok for r in reports] == [True, True, True], text
    assert not any(word in text for word in ("wrong pocket:", "hands rotated", "F2 ", "F3 ", "in the wrong pockets:"))


def test_a_board_turned_every_time_it_is_asked_for_is_named_turned_and_not_passed(tmp_path: Path) -> None:
    reports, text = _deal_then_check(tmp_path, {1: 1, 2: 1, 3: 1, 4: 1}, every_edge=True)
    first = reports[0]
    assert not first.ok and first.primary is not None and first.primary.details["problem"] == "turned"
    assert "hands rotated" not in first.summary() and "a quarter anticlockwise" in first.summary()
    assert [r.ok for r in reports[1:]] == [True, True], text


def test_on_a_machine_with_one_reader_the_turned_board_is_a_label_not_read_and_asked_for_again(
        tmp_path: Path) -> None:
    reports, text = _deal_then_check(tmp_path, {1: 1}, every_edge=False)
    (refused,) = [line for line in text.splitlines() if "REFUSED" in line]
    assert "board 1: REFUSED F8 " in refused and "board label not read" in refused
    assert [r.ok for r in reports] == [True, True, True], text
    assert "hands rotated" not in text and "wrong pockets:" not in text


NO_EJECT = int(DEFAULT_CAPABILITIES) & ~int(Capability.EJECT)
"""A machine that cannot push boards out: the operator takes each one out when asked (REMOVE_BOARD)."""


def _prompts(loop: Loopback) -> list[str]:
    return [line.split(": ", 1)[0].removeprefix("prompt ") for line in loop.device.operator.log
            if line.startswith("prompt ")]


def test_a_board_put_in_turned_on_a_machine_that_cannot_push_it_out_is_taken_out_and_dealt_straight(
        tmp_path: Path) -> None:
    """An INSERT_BOARD for the board in the machine asks nothing (PROTOCOL.md 7.2): the host asks for the
    turned board to be taken out (REMOVE_BOARD), then for it again; and takes each finished board out
    before asking for the next, so that no board is refused for being the one before."""
    plan = FaultPlan.of({"kind": "rotated_board", "insertion": 1, "turns": 1, "readable": True})
    with Loopback(SimConfig(seed=SEED, faults=plan, capabilities=NO_EJECT)) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db")
        prompts = _prompts(loop)
    assert result.complete, text
    refused = [line for line in text.splitlines() if "REFUSED" in line]
    assert len(refused) == 1 and "board 1: REFUSED F6 board turned" in refused[0], text
    assert prompts == ["INSERT_BOARD", "REMOVE_BOARD", "INSERT_BOARD"] + ["REMOVE_BOARD", "INSERT_BOARD"] * 2, prompts
    assert "F6 hands in wrong pockets" not in text + result.summary
    assert "faults caught: F6 board turned (Law 6D1/6F, Law 87) x1" in result.summary


def test_dealer_check_on_a_machine_that_cannot_push_boards_out_asks_for_each_to_be_taken_out(tmp_path: Path) -> None:
    """`dealer check` on a machine with no EJECT: a turned board is asked to be taken out before it is asked
    for again, and each board checked is taken out before the next is asked for."""
    dealt = _insertions_of_the_deal(tmp_path)
    plan = FaultPlan.of({"kind": "rotated_board", "insertion": dealt + 1, "turns": 2, "readable": True})
    with Loopback(SimConfig(seed=SEED, faults=plan, reads_every_edge=True, capabilities=NO_EJECT)) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db", replay=True)
        assert result.complete, text
        out = io.StringIO()
        checker = Machine("loop://sim", opener=loopback_opener(loop), clock=loop.clock,
                          sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        reports = check_boards(DEALS, "loop://sim", "A", out=out, machine=checker)
    refused = [line for line in out.getvalue().splitlines() if "REFUSED" in line]
    # the dealing left board 3 in (this machine cannot push it out): the check finds it first, has it taken
    # out, then finds board 1 turned, has it taken out and put in straight
    assert len(refused) == 2, out.getvalue()
    assert "board 1: REFUSED F8 wrong board (Law 2): the board is board 3 of set A" in refused[0]
    assert "board 1: REFUSED F6 board turned" in refused[1] and "half round" in refused[1]
    assert [r.ok for r in reports] == [True, True, True], out.getvalue()
    assert _prompts(loop)[-8:] == ["REMOVE_BOARD", "INSERT_BOARD", "REMOVE_BOARD", "INSERT_BOARD"] * 2
