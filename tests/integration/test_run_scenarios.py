"""The host's dealing run (dealer.dealing.run) against every hil scenario, in memory and virtual time.

Each scenario must end with every board verified or with a named fault report; what the run saw
(machine faults, verifier faults by their fault-table code, refused boards, redeals, restarts,
reconnections) must be what the scenario expects; and the simulator's ledger - what physically
happened - must agree with the journal: a board reported verified holds exactly its deal, and each
board was dealt into exactly as often as the journal says the run started dealing it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dealer.dealing.journal import JobState, Journal
from dealer.dealing.machine import Machine
from firmware_protocol.labels import BoardLabel
from hil.loopback import Loopback
from hil.physical import PhysicalBoard
from hil.scenarios import SCENARIOS, Scenario
from tests.support.deals import hands_of
from tests.support.loopback_run import deals_for, run_on_loopback


def journal_view(journal: Path, run_id: int) -> dict[str, Any]:
    """What the journal recorded: per board the dealings started, faults by kind, refusals."""
    seen: dict[str, Any] = {"machine_faults": set(), "verifier_faults": set(), "refused_labels": 0,
                            "dealings": 0, "starts": {}, "states": {}}
    with Journal.open(journal) as j:
        assert j.check_consistency(run_id) == []
        for job in j.jobs(run_id):
            seen["states"][job.board] = job.state
            starts = 0
            for ev in j.events(run_id, job.id):
                starts += ev["state"] == JobState.DEALING.value
                if ev["kind"] in ("machine-fault", "machine-fault-resumed"):
                    seen["machine_faults"].add(ev["detail"]["name"])
                elif ev["kind"] in ("recount-fault", "recount-unverified"):
                    seen["verifier_faults"].update(ev["detail"]["faults"])
                elif ev["kind"] == "board-refused":
                    seen["refused_labels"] += 1
                    seen["verifier_faults"].add("F8")
            seen["starts"][job.board] = starts
            seen["dealings"] += starts
    return seen


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_scenario_ends_as_expected_and_agrees_with_the_ledger(scenario: Scenario, tmp_path: Path) -> None:
    deals = deals_for(scenario.boards)
    machines: list[Machine] = []
    with Loopback(scenario.sim_config(seed=3)) as loop:
        result, text = run_on_loopback(loop, deals, tmp_path / "j.db", machines)
        ledger = loop.device.ledger
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
        else:
            assert state is JobState.FAULTED, f"board {board} ended {state}:\n{text}"
        label = BoardLabel.for_board("A", board).payload()
        assert ledger.times_dealt(label) == seen["starts"][board], f"board {board}: ledger vs journal"
    summary = {"verified": result.complete, "machine_faults": seen["machine_faults"],
               "verifier_faults": seen["verifier_faults"], "refused_labels": seen["refused_labels"],
               "dealings": seen["dealings"], "restarts": sum(m.restarts for m in machines),
               "reconnects": sum(m.reconnects for m in machines)}
    assert scenario.expect.mismatches(summary, len(scenario.boards), exact=True) == [], text
