"""The host's dealing run (dealer.dealing.run) against every hil scenario, in memory and virtual time.

Each scenario must end with every board verified or with a named fault report; what the run saw
(machine faults, verifier faults by their fault-table code, refused boards, redeals, restarts,
reconnections) must be what the scenario expects; and the simulator's ledger - what physically
happened - must agree with the journal: a board reported verified holds exactly its deal, each board
was dealt into exactly as often as the journal says the run started dealing it, and every dealing went
into an empty board lying straight that carries the number of its deal (`tests.support.physical_truth`).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dealer.core.dealset import DealSet
from dealer.dealing.journal import JobState
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.dealing.sim_ports import loopback_opener
from hil.loopback import Loopback
from hil.physical import PhysicalBoard
from hil.scenarios import SCENARIOS, Scenario
from tests.support.physical_truth import check_physical_truth
from tests.support.scenario_view import expectation_view, journal_view
from tests.unit.test_cards import random_deals


def deals_for(boards: tuple[int, ...], seed: int = 5) -> DealSet:
    return DealSet.from_deals(random_deals(seed, len(boards)), list(boards))


def run_on_loopback(loop: Loopback, deals: DealSet, journal: Path,
                    machines: list[Machine] | None = None, **options: Any) -> tuple[RunResult, str]:
    """Deal `deals` on the loopback's machine; the Machine objects made are appended to `machines`."""
    out = io.StringIO()

    def factory(url: str) -> Machine:
        m = Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                    sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        if machines is not None:
            machines.append(m)
        return m

    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                      board_timeout=120, deal_timeout=120, **options)
    return deal_session(deals, "scenario.pbn", opts), out.getvalue()


def hands_of(deal: np.ndarray) -> list[list[int]]:
    return [sorted(int(c) for c in np.flatnonzero(deal == s)) for s in range(4)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_scenario_ends_as_expected_and_agrees_with_the_ledger(scenario: Scenario, tmp_path: Path) -> None:
    deals = deals_for(scenario.boards)
    machines: list[Machine] = []
    with Loopback(scenario.sim_config(seed=3)) as loop:
        result, text = run_on_loopback(loop, deals, tmp_path / "j.db", machines)
        ledger = loop.device.ledger
        check_physical_truth(ledger, loop.device.room.rack, deals, tmp_path / "j.db", result.run_id)
        held: dict[int, PhysicalBoard] = {}
        for b in loop.device.room.rack.in_use():
            name = b.label.decode()
            if name.startswith("A:") and b.card_count:
                held[int(name.split(":")[1])] = b
    seen = journal_view(tmp_path / "j.db", result.run_id)
    for board, state in seen["states"].items():
        want = hands_of(deals.deals[deals.index_of(board)])
        if state is JobState.VERIFIED:
            assert [sorted(h) for h in held[board].hands()] == want, f"board {board}: verified but differs"
        elif state is JobState.PLANNED:
            assert result.stopped, f"board {board} left planned though the run did not stop:\n{text}"
        else:
            assert state is JobState.FAULTED, f"board {board} ended {state}:\n{text}"
        label = held[board].label if board in held else None
        if label is not None:
            assert ledger.times_dealt(label) == seen["starts"][board], f"board {board}: ledger vs journal"
    summary, dealt = expectation_view(seen, result.complete, machines)
    assert scenario.expect.mismatches(summary, dealt, exact=True) == [], text
