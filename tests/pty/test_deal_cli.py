"""`dealer deal` and `dealer check` through real pyserial on pseudo-terminals: few tests, outcome-based.

`dealer sim` runs as its own process (as a user runs it in a second terminal) or the simulator runs in
this process (`sim://` ports, `hil.PtySimulator`) when a test reads its ledger - what physically
happened to each board. Every process is started in its own session and killed with its group; the
autouse leak check of this folder fails a test that leaves a thread, an fd or a pty behind. Deadlines
are generous and nothing asserts how long anything took.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.dealing import sim_ports
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.journal.store import JobState, Journal
from firmware_protocol.labels import BoardLabel
from hil import PtySimulator, SimConfig
from hil.fault_plan import FaultPlan
from tests.support.deals import random_deals
from tests.support.processes import dealer, stop_group

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

ROOT = Path(__file__).resolve().parents[2]
def env() -> dict[str, str]:
    """The environment of a subprocess: this test's, read when it starts (its own deal history)."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}
SPEED = "200"
"""Simulated machines at 200 times real speed: about 80 ms a board."""


@pytest.fixture
def served_sim(tmp_path: Path) -> Iterator[str]:
    """`dealer sim` in its own process; yields the path it printed. Stopped (its group) afterwards."""
    link = tmp_path / "machine"
    proc = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--speed", SPEED, "--link", str(link)],
                            cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        assert path == str(link) and os.path.exists(path)
        yield path
    finally:
        stop_group(proc)


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "session.pbn"
    formats.write_file(path, DealSet.from_deals(random_deals(7, 4), [1, 2, 3, 4]))
    return path


def journal_states(journal: Path) -> tuple[list[JobState], list[str]]:
    """The state of every job of the journal's only run, and its consistency problems."""
    with Journal.open(journal) as j:
        (run,) = j.runs()
        return [job.state for job in j.jobs(run.id)], j.check_consistency(run.id)


def test_dealer_deal_against_dealer_sim_then_dealer_check_the_same_boards(served_sim: str, session_file: Path,
                                                                          tmp_path: Path) -> None:
    journal = tmp_path / "session.journal"
    dealt = dealer("deal", str(session_file), "--port", served_sim, "--journal", str(journal), cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr
    assert dealt.stdout.startswith("4/4 boards verified") and "Traceback" not in dealt.stderr
    assert "4/4 boards verified" not in dealt.stderr  # the summary is the result: standard output alone
    states, problems = journal_states(journal)
    assert states == [JobState.VERIFIED] * 4 and problems == []

    trace = tmp_path / "trace.txt"
    checked = dealer("check", str(session_file), "--port", f"spy://{served_sim}?file={trace}", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr  # the simulator kept the boards it dealt
    assert checked.stdout == "4/4 boards verified\n"
    lines = trace.read_text().splitlines()
    assert any(" TX " in line for line in lines) and any(" RX " in line for line in lines)


def test_dealer_check_finds_boards_that_were_never_dealt(served_sim: str, session_file: Path,
                                                         tmp_path: Path) -> None:
    checked = dealer("check", str(session_file), "--port", served_sim, "--boards", "1-2", cwd=tmp_path)
    assert checked.returncode == 8, checked.stderr
    assert checked.stdout == "0/2 boards verified\n" and "Traceback" not in checked.stderr
    assert checked.stderr.splitlines()[-1] == "dealer: error: 2 of 2 boards do not hold their deals: boards 1, 2"


def test_a_wrong_board_is_refused_by_its_label_and_the_right_one_dealt(session_file: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"faults": [{"kind": "wrong_board", "insertion": 2}]}))
    dealt = dealer("deal", str(session_file), "--port", f"sim://?speed={SPEED}&faults={plan}", "--journal",
                   str(tmp_path / "j.db"), cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr
    refused = [line for line in dealt.stderr.splitlines() if "REFUSED" in line]
    assert len(refused) == 1 and "F8" in refused[0] and "Law 2" in refused[0]
    assert "4/4 boards verified" in dealt.stdout
    states, problems = journal_states(tmp_path / "j.db")
    assert states == [JobState.VERIFIED] * 4 and problems == []


def test_two_copies_on_two_sim_ports_in_one_process(tmp_path: Path) -> None:
    boards = [1, 2, 3, 4]
    deals = DealSet.from_deals(random_deals(3, len(boards)), boards)
    ports = [f"sim://?speed={SPEED}&seed=1", f"sim://?speed={SPEED}&seed=2"]
    try:
        result = deal_session(deals, "session.pbn", RunOptions(ports=ports, journal=tmp_path / "j.db", copies=2,
                                                                limits=RunLimits(board_timeout=60, deal_timeout=60),
                                                                out=io.StringIO()))
        assert result.complete and result.verified == 8, result.summary
        sims = sim_ports.simulators()
        assert set(ports) <= set(sims)
        dealt: dict[str, int] = {}
        for sim in (sims[port] for port in ports):  # its own machines (another test may have left one running)
            with sim.lock:
                assert sim.device is not None
                mine = sim.device.ledger.dealt_labels()
            assert mine, "each machine deals some of the boards"
            for label, n in mine.items():
                dealt[label] = dealt.get(label, 0) + n
        want = {BoardLabel.for_board(f"A{c}", b).payload(): 1 for c in (1, 2) for b in boards}
        assert dealt == want
    finally:
        sim_ports.stop_all()


def _deal_on(path: str, deals: DealSet, journal: Path, machines: list[Machine]) -> RunResult:
    def factory(url: str) -> Machine:
        machines.append(Machine(url, reconnect_timeout=30.0))
        return machines[-1]

    return deal_session(deals, "session.pbn", RunOptions(ports=[path], journal=journal, machine_factory=factory,
                                                          limits=RunLimits(board_timeout=60, deal_timeout=60),
                                                          out=io.StringIO()))


def test_a_machine_unplugged_mid_deal_and_plugged_back_resumes_that_board(tmp_path: Path) -> None:
    boards = [1, 2, 3]
    deals = DealSet.from_deals(random_deals(4, len(boards)), boards)
    plan = FaultPlan.of({"kind": "unplug", "board": 2, "card": 20, "seconds": 0.5})
    machines: list[Machine] = []
    with PtySimulator(SimConfig(speed=float(SPEED), seed=2, faults=plan), link=tmp_path / "machine") as sim:
        result = _deal_on(sim.path, deals, tmp_path / "j.db", machines)
        with sim.lock:
            assert sim.device is not None
            ledger = sim.device.ledger.dealt_labels()
        assert sim.unplugs == 1
    assert result.complete, result.summary
    assert machines[0].reconnects >= 1
    assert ledger == {BoardLabel.for_board("A", b).payload(): 1 for b in boards}
    states, problems = journal_states(tmp_path / "j.db")
    assert states == [JobState.VERIFIED] * 3 and problems == []


def test_a_machine_that_never_answers_fails_the_run_and_the_summary_names_it(session_file: Path,
                                                                             tmp_path: Path) -> None:
    """Two ports, one of them dead: the live machine deals every board, yet the run exits 5 (a machine could
    not be reached), and the summary on standard output names the dead machine, its port and why, also with
    --quiet (which shows no progress at all)."""
    dead = str(tmp_path / "no-such-port")
    dealt = dealer("deal", str(session_file), "--port", f"sim://?speed={SPEED}", "--port", dead, "--quiet",
                   "--journal", str(tmp_path / "j.db"), cwd=tmp_path)
    assert dealt.returncode == 5, (dealt.stdout, dealt.stderr)
    assert dealt.stdout.startswith("4/4 boards verified")
    named = [line for line in dealt.stdout.splitlines() if "dealt no board" in line]
    assert named == [f"  machine {dead} dealt no board: {named[0].split(': ', 1)[1]}"], dealt.stdout
    assert "cannot open the port" in named[0]
    assert dealt.stderr.count("\n") == 1, dealt.stderr  # the error line alone: no progress, no note on a file
    # this program wrote (it says how many boards it holds)
    assert dealt.stderr.splitlines()[-1].startswith(f"dealer: error: {dead}: ")
    assert "the other machines dealt every board" in dealt.stderr
    states, problems = journal_states(tmp_path / "j.db")
    assert states == [JobState.VERIFIED] * 4 and problems == []


def test_a_dead_port_is_the_same_exit_code_in_deal_and_check(session_file: Path, tmp_path: Path) -> None:
    dead = str(tmp_path / "no-such-port")
    dealt = dealer("deal", str(session_file), "--port", dead, "--journal", str(tmp_path / "j.db"), cwd=tmp_path)
    checked = dealer("check", str(session_file), "--port", dead, cwd=tmp_path)
    assert (dealt.returncode, checked.returncode) == (5, 5), (dealt.stderr, checked.stderr)
    for done in (dealt, checked):
        assert done.stderr.splitlines()[-1].startswith(f"dealer: error: {dead}: cannot open the port")
