"""`dealer.dealing.recheck.check_boards` (what `dealer check` does) against the simulated machine in virtual time."""

from __future__ import annotations

import io
from typing import Any

from dealer.core.dealset import DealSet
from dealer.dealing.machine import Machine
from dealer.dealing.recheck import check_boards
from dealer.dealing.sim_ports import loopback_opener
from dealer.verify.board_check import FaultCategory
from hil import Loopback, SimConfig
from tests.support.deals import random_deals
from tests.support.loopback_run import run_on_loopback

BOARD_TIMEOUT = 600.0


def machine(loop: Loopback) -> Machine:
    clock: Any = loop.clock
    return Machine("loop://machine", opener=loopback_opener(loop), clock=loop.clock, sleep=clock.sleep)


def test_boards_dealt_earlier_are_recounted_and_verified_without_waiting_for_the_operator(tmp_path: Any) -> None:
    deals = DealSet.from_deals(random_deals(2, 3), [1, 2, 3])
    with Loopback(SimConfig(seed=2)) as loop:
        result, _ = run_on_loopback(loop, deals, tmp_path / "j.db")
        assert result.complete
        start = loop.clock()
        out = io.StringIO()
        reports = check_boards(deals, "loop://machine", "A", board_timeout=BOARD_TIMEOUT, out=out,
                               machine=machine(loop))
        took = loop.clock() - start  # machine time (virtual): recounts and the operator's swaps only
        recounts = sum(1 for r in loop.device.ledger.records)
    assert [r.ok for r in reports] == [True, True, True]
    assert [r.board for r in reports] == [1, 2, 3]
    assert recounts == 3  # nothing was dealt again
    assert took < BOARD_TIMEOUT, f"the check sat idle: {took:.0f} s of machine time for 3 boards"
    assert out.getvalue().count("[loop://machine]") == 3


def test_a_board_never_dealt_is_reported_empty() -> None:
    deals = DealSet.from_deals(random_deals(2, 2), [4, 5])
    with Loopback(SimConfig(seed=2)) as loop:
        reports = check_boards(deals, "loop://machine", "A", board_timeout=BOARD_TIMEOUT, quiet=True,
                               machine=machine(loop))
    assert [r.ok for r in reports] == [False, False]
    assert all(r.fault(FaultCategory.F1) is not None for r in reports)


def test_another_board_found_in_the_machine_is_refused_and_the_right_one_asked_for(tmp_path: Any) -> None:
    deals = DealSet.from_deals(random_deals(2, 2), [1, 2])
    with Loopback(SimConfig(seed=2)) as loop:
        result, _ = run_on_loopback(loop, deals, tmp_path / "j.db")
        assert result.complete
        room = loop.device.room
        other = room.rack.find_number("A", 3)
        assert other is not None and room.slot is None
        room.insert(other, loop.clock())  # someone puts another board in, unasked
        slot = loop.device.room.slot
        assert slot is not None and slot.board.number == 3
        out = io.StringIO()
        reports = check_boards(deals, "loop://machine", "A", board_timeout=BOARD_TIMEOUT, out=out,
                               machine=machine(loop))
    assert [r.ok for r in reports] == [True, True]
    refused = [line for line in out.getvalue().splitlines() if "REFUSED" in line]
    assert len(refused) == 1
    assert refused[0].startswith("[loop://machine] board 1: REFUSED F8") and "board 3 of set A" in refused[0]
