"""`dealer deal --plan` from the command line: its options, and a small congress on built-in simulated
machines (``sim://`` ports, one with a fault plan file), with its report file."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.core.cards import hand_text
from dealer.dealing import sim_ports
from dealer.plan import Plan
from tests.support.congress import SessionText, check_against_ledgers, histories, plan_text

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield
    sim_ports.stop_all()


@pytest.mark.parametrize(("argv", "message"), [
    (["deal"], "give a deal FILE (with --port) or --plan PLAN.toml"),
    (["deal", "x.pbn"], "give at least one machine with --port"),
    (["deal", "x.pbn", "--port", "sim://", "--session", "FRI"], "--session goes with --plan"),
    (["deal", "x.pbn", "--plan", "p.toml"], "FILE does not go with a plan"),
    (["deal", "--plan", "p.toml", "--copies", "2"], "--copies does not go with a plan"),
    (["deal", "--plan", "p.toml", "--port", "sim://"], "--port does not go with a plan"),
])
def test_options_that_do_not_go_together_are_one_line_and_exit_2(argv: list[str], message: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_congress_on_sim_ports_with_a_fault_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faults = tmp_path / "jam.json"
    faults.write_text(json.dumps({"faults": [{"kind": "jam", "board": 2, "card": 9}]}))
    machines = [("M1", f"sim://?speed=200&seed=1&faults={faults}"), ("M2", "sim://?speed=200&seed=2")]
    sessions = (SessionText("FRI", "1-2", (("A", ("A1", "A2")),)), SessionText("SAT", "1-2", (("A", ("C1",)),)))
    (tmp_path / "congress.toml").write_text(plan_text(machines, sessions))
    report = tmp_path / "report.txt"
    assert main(["deal", "--plan", str(tmp_path / "congress.toml"), "--quiet", "--report", str(report)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("6/6 boards verified") and captured.err == ""  # --quiet: the summary alone
    plan = Plan.load(tmp_path / "congress.toml")
    sims = sim_ports.simulators()
    assert set(sims) == {url for _, url in machines}
    ledgers, racks = [], []
    for sim in sims.values():
        with sim.lock:
            assert sim.device is not None
            ledgers.append(sim.device.ledger)
            racks.append(list(sim.device.room.rack.in_use()))
    jobs = check_against_ledgers(plan, plan.event.journal, ledgers, racks)
    assert sum(h.machine_faults.count("JAM") for h in jobs) == 1
    text = report.read_text()
    assert "FRI (run 1): 4 boards, 4 verified" in text and "SAT (run 2): 2 boards, 2 verified" in text
    assert "card jam: 1 (M1 1)" in text
    assert "put-right prompt: clear the card path: 1 (M1 1)" in text
    assert "Deal statistics (the deals of this run)\n  These 4 deals are" in text and "wild deals: " in text
    dealt = [plan.deal_set(name).deals for name in ("FRI", "SAT")]
    assert not [h for deals in dealt for d in deals for h in (hand_text(d, s) for s in range(4)) if h in text]
    assert len(histories(plan.event.journal)) == 6
