"""The scenarios against the simulator (in memory, virtual time) with a script host of their own, checked by
the host's view and by the ledger of what physically happened."""

from __future__ import annotations

import pytest

from hil.config import SimConfig
from hil.loopback import Loopback
from hil.physical import PhysicalBoard
from hil.scenarios import CAPABILITIES, SCENARIOS, Expect, Scenario, by_name
from tests.support.faulty_port import FaultyPort
from tests.support.script_host import BoardOutcome, Port, ScriptHost, deal_for, summary


def board_holding(loop: Loopback, label: str) -> PhysicalBoard:
    (board,) = [b for b in loop.device.room.rack.in_use() if b.label.decode() == label]
    return board


def check_the_ledger(loop: Loopback, outcomes: list[BoardOutcome], seed: int) -> None:
    """What the host says against what happened: each board dealt as often as the host dealt it, and
    every board reported verified holds exactly its deal."""
    ledger = loop.device.ledger
    for out in outcomes:
        assert out.label is not None
        assert ledger.times_dealt(out.label) == out.dealings, f"board {out.board}"
        if out.verified:
            seats = deal_for(out.board, seed)
            want = [[c for c in range(52) if seats[c] == s] for s in range(4)]
            assert [sorted(h) for h in board_holding(loop, out.label).hands()] == want, f"board {out.board}"


ANY_HOST = [s for s in SCENARIOS if s.defence is None]
"""The scenarios any host passes. The others try a defence the script host (the least a host must do)
lacks; tests/integration/test_run_scenarios.py runs every scenario with the project's host."""


@pytest.mark.parametrize("scenario", ANY_HOST, ids=lambda s: s.name)
def test_scenario_on_the_simulator(scenario: Scenario) -> None:
    seed = 1
    with Loopback(scenario.sim_config(seed=seed)) as loop:
        host = ScriptHost(loop.open, loop.clock, loop.advance, seed=seed)
        outcomes = host.run(list(scenario.boards))
        seen = summary(outcomes)
        assert scenario.expect.mismatches(seen, len(scenario.boards), exact=True) == [], seen
        check_the_ledger(loop, outcomes, seed)


def test_scenarios_are_well_formed() -> None:
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
    for s in SCENARIOS:
        assert s.needs <= set(CAPABILITIES), s.name
    assert by_name("jam").needs == {"jam"}
    with pytest.raises(KeyError, match="known: clean"):
        by_name("nope")


def test_an_expectation_reports_what_differs() -> None:
    expect = Expect(True, frozenset({"JAM"}), frozenset(), redeals=1)
    seen = {"verified": False, "machine_faults": ["JAM", "DOOR_OPEN"], "verifier_faults": [],
            "refused_labels": 0, "restarts": 0, "reconnects": 0, "dealings": 3}
    exact = expect.mismatches(seen, boards=3, exact=True)
    assert exact == ["verified: expected True, got False",
                     "machine_faults: expected ['JAM'], got ['DOOR_OPEN', 'JAM']",
                     "redeals: expected at least 1, got 0"]
    assert len(expect.mismatches(seen, boards=3, exact=False)) == 2  # extra faults are fine on hardware


@pytest.mark.parametrize("name", ["line_noise", "slow_usb"])
def test_byte_fault_scenarios_also_run_with_the_faults_on_the_host_side(name: str) -> None:
    """As on a real rig: the machine is clean, the test host's port wrapper makes the line noise."""
    scenario = by_name(name)
    with Loopback(SimConfig(seed=2)) as loop:
        ports: list[FaultyPort] = []

        def connect() -> Port:
            ports.append(FaultyPort(loop.open(), scenario.plan, loop.clock, seed=2))
            return ports[-1]

        seen = summary(ScriptHost(connect, loop.clock, loop.advance, seed=2).run(list(scenario.boards)))
        assert scenario.expect.mismatches(seen, len(scenario.boards), exact=True) == [], seen
        directions = {line.split()[1] for p in ports for line in p.faults.log}
        assert directions == ({"to_host", "to_device"} if name == "line_noise" else {"to_host"})
        assert sum(len(p.faults.log) for p in ports) > 5
        assert not loop.byte_faults.log
