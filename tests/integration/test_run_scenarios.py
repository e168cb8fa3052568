"""The host's dealing run (dealer.run) against every hil scenario, in memory and virtual time.

Each scenario must end with every board verified or with a named fault report, and the simulator's
ledger - what physically happened - must agree: a board reported verified holds exactly its deal, and
each board was dealt into exactly as often as the journal says the run started dealing it.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from dealer.dealset import DealSet
from dealer.journal import JobState, Journal
from dealer.machine import Machine
from dealer.run import RunOptions, RunResult, deal_session
from dealer.simport import loopback_opener
from hil.loopback import Loopback
from hil.scenarios import SCENARIOS, Scenario
from tests.unit.test_cards import random_deals


def deals_for(boards: tuple[int, ...], seed: int = 5) -> DealSet:
    return DealSet.from_deals(random_deals(seed, len(boards)), list(boards))


def run_on_loopback(loop: Loopback, deals: DealSet, journal: Path, **options: object) -> tuple[RunResult, str]:
    out = io.StringIO()

    def factory(url: str) -> Machine:
        return Machine(url, opener=loopback_opener(loop), clock=loop.clock, sleep=loop.clock.sleep,  # type: ignore[attr-defined]
                       reconnect_timeout=30.0)

    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                      board_timeout=120, deal_timeout=120, **options)  # type: ignore[arg-type]
    return deal_session(deals, "scenario.pbn", opts), out.getvalue()


def dealing_starts(journal: Path, run_id: int) -> dict[tuple[int, int], int]:
    """Per (board, copy): how many times the journal moved the job into DEALING."""
    with Journal.open(journal) as j:
        counts = {}
        for job in j.jobs(run_id):
            events = j.events(run_id, job.id)
            counts[(job.board, job.copy)] = sum(1 for e in events if e["state"] == JobState.DEALING.value)
        assert j.check_consistency(run_id) == []
    return counts


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_scenario_ends_verified_or_with_a_named_fault(scenario: Scenario, tmp_path: Path) -> None:
    deals = deals_for(scenario.boards)
    with Loopback(scenario.sim_config(seed=3)) as loop:
        result, text = run_on_loopback(loop, deals, tmp_path / "j.db")
        ledger = loop.device.ledger
        boards = {b.label.decode(): b for b in loop.device.room.rack.in_use()}
    assert result.complete or result.unresolved, text
    for board in scenario.boards:
        label = f"A:{board}:"
        (held,) = [b for name, b in boards.items() if name.startswith(label)]
        deal = deals.deals[deals.index_of(board)]
        want = [sorted(int(c) for c in np.flatnonzero(deal == s)) for s in range(4)]
        if f"board {board} copy 1: verified" not in str(result.unresolved):
            pass
    with Journal.open(tmp_path / "j.db") as j:
        states = {job.board: job.state for job in j.jobs(result.run_id)}
    for board, state in states.items():
        (held,) = [b for name, b in boards.items() if name.startswith(f"A:{board}:")]
        deal = deals.deals[deals.index_of(board)]
        want = [sorted(int(c) for c in np.flatnonzero(deal == s)) for s in range(4)]
        if state is JobState.VERIFIED:
            assert [sorted(h) for h in held.hands()] == want, f"board {board} reported verified but differs"
        else:
            assert state is JobState.FAULTED, f"board {board} ended {state}"
            assert "FAULT" in text or "REFUSED" in text
    starts = dealing_starts(tmp_path / "j.db", result.run_id)
    for (board, _copy), n in starts.items():
        (name,) = [name for name in boards if name.startswith(f"A:{board}:")]
        assert ledger.times_dealt(name.encode()) == n, f"board {board}: ledger vs journal"
    if scenario.expect.verified:
        assert result.complete, text
