"""The host's dealing run (dealer.dealing.run) against every hil scenario, in memory and virtual time.

Each scenario must end with every board verified or with a named fault report; what the run saw
(machine faults, verifier faults by their fault-table code, refused boards, redeals, restarts,
reconnections) must be what the scenario expects; and the simulator's ledger - what physically
happened - must agree with the journal: a board reported verified holds exactly its deal, each board
was dealt into exactly as often as the journal says the run started dealing it, and every dealing went
into an empty board lying straight that carries the number of its deal (`tests.support.physical_truth`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.dealing.machine import Machine
from dealer.journal.store import JobState
from firmware_protocol.labels import BoardLabel
from hil.loopback import Loopback
from hil.physical import PhysicalBoard
from hil.scenarios import SCENARIOS, Scenario
from tests.support.deals import hands_of
from tests.support.loopback_run import deals_for, run_on_loopback
from tests.support.physical_truth import check_physical_truth
from tests.support.scenario_view import expectation_view, journal_view


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
        label = BoardLabel.for_board("A", board).payload()
        assert ledger.times_dealt(label) == seen["starts"][board], f"board {board}: ledger vs journal"
    summary, dealt = expectation_view(seen, result.complete, machines)
    assert scenario.expect.mismatches(summary, dealt, exact=True) == [], text
