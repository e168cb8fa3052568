"""A congress end to end, as a director runs it: `dealer deal --plan` in its own process, three simulated
machines on pseudo-terminals in this process (one of them on "another host", served over RFC 2217 on
loopback), faults injected, the controller killed with SIGKILL halfway and resumed; then every copy
must be verified, the journal consistent, and each physical board dealt exactly once but for the
redeals the faults called for (the simulators' ledgers are what physically happened).
"""

from __future__ import annotations

import csv
import io
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from dealer.dealing.context import RunLimits
from dealer.dealing.run import RunOptions
from dealer.plan import Plan
from dealer.plan.run import deal_plan
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.pty_sim import PtySimulator
from tests.support.congress import (
    SessionText,
    check_against_ledgers,
    in_state,
    journal_counts,
    plan_text,
)
from tests.support.rfc2217_bridge import Rfc2217Bridge

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux"),
              pytest.mark.filterwarnings("ignore:set(Daemon|Name)\\(\\) is deprecated:DeprecationWarning")]

ROOT = Path(__file__).resolve().parents[2]
def env() -> dict[str, str]:
    """The environment of a subprocess: this test's, read when it starts (its own deal history)."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}
SPEED = 60.0
PATIENCE = 120.0
"""Seconds a controller run may take before the test gives up on it (a bound, never a measurement)."""

CONGRESS = (SessionText("FRI", "1-3", (("A", ("A1", "A2")), ("B", ("B1", "B2")))),
            SessionText("SAT", "1-3", (("A", ("C1", "C2")), ("B", ("D1", "D2")))))
FAULTS = {
    "M1": FaultPlan.of({"kind": "jam", "board": 2, "card": 12}),  # put right at the machine, dealing goes on
    "M2": FaultPlan.of({"kind": "misfeed", "board": 3, "card": 20}),  # a card silently in the wrong pocket
    "M3": FaultPlan.of({"kind": "wrong_board", "insertion": 2}),  # the operator brings the wrong board
}


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


class Hall:
    """Three simulated machines: M1 and M2 on ptys, M3 on a pty served over RFC 2217."""

    def __init__(self, folder: Path) -> None:
        self.sims: dict[str, PtySimulator] = {}
        self.bridge: Rfc2217Bridge | None = None
        try:
            for seed, name in enumerate(FAULTS, start=1):
                sim = PtySimulator(SimConfig(speed=SPEED, seed=seed, faults=FAULTS[name]), link=folder / name)
                sim.start()
                self.sims[name] = sim
            self.bridge = Rfc2217Bridge(self.sims["M3"].path)
            self.bridge.start()
        except BaseException:
            self.close()
            raise

    @property
    def ports(self) -> list[tuple[str, str]]:
        assert self.bridge is not None
        return [("M1", self.sims["M1"].path), ("M2", self.sims["M2"].path), ("M3", self.bridge.url)]

    def ledgers_and_racks(self) -> tuple[list, list]:  # type: ignore[type-arg]
        ledgers, racks = [], []
        for sim in self.sims.values():
            with sim.lock:
                assert sim.device is not None
                ledgers.append(sim.device.ledger)
                racks.append(list(sim.device.room.rack.in_use()))
        return ledgers, racks

    def close(self) -> None:
        if self.bridge is not None:
            self.bridge.stop()
        for sim in self.sims.values():
            sim.stop()


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    h = Hall(tmp_path)
    yield h
    h.close()


def controller(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "dealer", "deal", *args], cwd=cwd, env=env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def kill_when(proc: subprocess.Popen[str], journal: Path, ready: Callable[[Counter[tuple[str, str | None]]], bool]
              ) -> bool:
    """SIGKILL the controller once the journal's jobs by (state, machine) are `ready`; False if it ended first."""
    deadline = time.monotonic() + PATIENCE
    while proc.poll() is None and time.monotonic() < deadline:
        if journal.exists() and ready(journal_counts(journal)):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
            return True
        time.sleep(0.02)
    return False


def halfway(counts: Counter[tuple[str, str | None]]) -> bool:
    """A quarter of the boards verified, one being dealt, and every machine (M3 over RFC 2217 too) at work."""
    return (in_state(counts, "verified") >= 6 and in_state(counts, "dealing") >= 1
            and all(in_state(counts, "verified", m) for m in FAULTS))


def test_a_congress_killed_halfway_resumes_and_ends_with_every_copy_verified(tmp_path: Path, hall: Hall) -> None:
    (tmp_path / "congress.toml").write_text(plan_text(hall.ports, CONGRESS))
    plan = Plan.load(tmp_path / "congress.toml")
    journal = plan.event.journal

    first = controller("--plan", "congress.toml", cwd=tmp_path)
    try:
        killed = kill_when(first, journal, halfway)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
    assert killed, "the controller ended before it could be killed halfway"
    assert first.returncode == -signal.SIGKILL
    journal_counts_at_kill = journal_counts(journal)
    assert 6 <= in_state(journal_counts_at_kill, "verified") < 24

    second = controller("--plan", "congress.toml", "--resume", "--report", "report.csv", cwd=tmp_path)
    out, err = second.communicate(timeout=PATIENCE)
    assert second.returncode == 0, err
    # the run's summary (standard output) counts every job of the plan, those verified before the kill too, and
    # gives this part's time and the whole run's time of dealing
    told = re.search(r"^24/24 boards verified in \d+\.\d s \(this part; (\d+\.\d) s of dealing over the whole run\)$",
                     out, re.MULTILINE)
    assert told and float(told.group(1)) > 0, out
    # and its progress (standard error) opens with what is resumed, then names each line's session and set
    opening = re.match(r"resuming runs 1 \(FRI\), 2 \(SAT\): (\d+) of 24 boards verified already\n", err)
    assert opening and int(opening.group(1)) == in_state(journal_counts_at_kill, "verified"), err
    lines = err.splitlines()[1:]
    assert lines and all(re.match(r"\[M\d\] (FRI|SAT) set [A-Z]\d: ", line) for line in lines), err

    ledgers, racks = hall.ledgers_and_racks()
    jobs = check_against_ledgers(plan, journal, ledgers, racks)
    assert len(jobs) == 24 and {h.session for h in jobs} == {"FRI", "SAT"}
    assert {h.job.machine for h in jobs} == {"M1", "M2", "M3"}
    # the faults happened, and only the misfed board was redealt (to its own deal)
    assert sum(h.machine_faults.count("JAM") for h in jobs) == 1
    misfed = [h for h in jobs if h.faults]
    assert len(misfed) == 1 and "F2" in misfed[0].faults and misfed[0].redeals == 1
    assert ("F9" in misfed[0].faults) == (misfed[0].job.copy > 1)
    assert sum(h.redeals for h in jobs) == 1
    assert sum(len(ledger.records) for ledger in ledgers) == 25
    assert hall.bridge is not None and hall.bridge.clients >= 2  # M3 was reached over RFC 2217 by both runs

    rows = list(csv.DictReader(io.StringIO((tmp_path / "report.csv").read_text())))
    figures = {(r["table"], r["machine"], r["item"]): r["value"] for r in rows}
    assert sum(int(figures["machine", m, "boards verified"]) for m in ("M1", "M2", "M3")) == 24  # both runs
    actions = {r["item"] for r in rows if r["table"] == "operator action"}
    assert "redeal: board emptied, the same deal dealt again" in actions
    assert "board refused by its label, another asked for" in actions

    report = subprocess.run([sys.executable, "-m", "dealer", "report", str(journal)], cwd=tmp_path, env=env(),
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    assert "FRI (run 1): 12 boards, 12 verified" in report.stdout
    assert "SAT (run 2): 12 boards, 12 verified" in report.stdout
    assert "F2 card in wrong pocket (Law 13A1): 1" in report.stdout
    assert "card jam: 1" in report.stdout
    assert "F8 wrong board (Law 2): " in report.stdout  # each operator's unasked first board, and M3's mistake
    assert "put-right prompt: clear the card path: 1" in report.stdout


def test_part_of_a_plan_runs_on_a_machine_on_another_host_over_rfc2217(tmp_path: Path,
                                                                      mocker: MockerFixture) -> None:
    import serial.rfc2217

    sim = PtySimulator(SimConfig(speed=150, seed=9), link=tmp_path / "hall-b")
    sim.start()
    try:
        with Rfc2217Bridge(sim.path) as bridge:
            (tmp_path / "congress.toml").write_text(plan_text([("HALL-B", bridge.url)], CONGRESS))
            plan = Plan.load(tmp_path / "congress.toml")
            reconfigured = mocker.spy(serial.rfc2217.Serial, "_reconfigure_port")
            out = io.StringIO()
            result = deal_plan(plan, RunOptions(ports=[], journal=plan.event.journal, out=out,
                                                limits=RunLimits(board_timeout=60, deal_timeout=60)), ["SAT"])
            with sim.lock:
                assert sim.device is not None
                ledger, rack = sim.device.ledger, list(sim.device.room.rack.in_use())
            jobs = check_against_ledgers(plan, plan.event.journal, [ledger], [rack])
    finally:
        sim.stop()
    assert result.complete and result.jobs == 12, out.getvalue()
    assert {h.session for h in jobs} == {"SAT"} and {h.job.machine for h in jobs} == {"HALL-B"}
    assert reconfigured.call_count == 1  # the port was configured once, when it opened, never per read
