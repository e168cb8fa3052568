"""Kill the controller with SIGKILL at random points of a simulated session, again and again, resuming
each time: in the end every board is dealt exactly once and verified, and the journal is consistent.

The simulated machine runs in this test process on a pseudo-terminal (it is the physical world: it
keeps dealing, holding boards and counting every dealing in its ledger while the controller is dead);
the controller is `dealer deal` in a subprocess, killed at a random moment (seeded) of each run.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.dealing.journal import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.deals import random_deals

ROOT = Path(__file__).resolve().parents[2]
BOARDS = 24
KILLS = 50
SPEED = 15.0


def controller(deal_file: Path, port: str, journal: Path, resume: bool) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "dealer", "deal", str(deal_file), "--port", port, "--journal", str(journal),
            "--board-timeout", "60", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(args + (["--resume"] if resume else []), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def run_state(journal: Path) -> tuple[bool, bool]:
    """(a run exists, it is finished)."""
    if not journal.exists():
        return False, False
    with Journal.open(journal) as j:
        runs = j.runs()
        return bool(runs), bool(runs) and runs[-1].finished


def frames_from_host(sim: PtySimulator) -> int:
    """Frames the simulated machine has received from controllers so far."""
    with sim.lock:
        return sim.device.link.counters.frames_received if sim.device is not None else 0


def kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.mark.slow
def test_fifty_kills_deal_every_board_exactly_once(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    deals = DealSet.from_deals(random_deals(11, BOARDS))
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deals)
    journal = tmp_path / "session.journal"
    sim = PtySimulator(SimConfig(speed=SPEED, seed=4), link=tmp_path / "machine")
    sim.start()
    kills = 0
    try:
        while kills < KILLS:
            exists, finished = run_state(journal)
            if finished:
                break
            before = frames_from_host(sim)
            proc = controller(deal_file, sim.path, journal, resume=exists)
            # the kill lands a random time after the controller starts talking to the machine (not after
            # it starts: on a busy computer, Python's start-up alone could swallow every kill)
            talking = time.monotonic() + 60
            while frames_from_host(sim) < before + 2 and proc.poll() is None and time.monotonic() < talking:
                time.sleep(0.01)
            deadline = time.monotonic() + rng.uniform(0.0, 1.0)
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.01)
            if proc.poll() is None:
                kill(proc)
                kills += 1
            else:
                assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""
        exists, finished = run_state(journal)
        if not finished:  # the last run is left alone to finish
            proc = controller(deal_file, sim.path, journal, resume=exists)
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err.decode()
        assert sim.device is not None
        ledger = sim.device.ledger
        boards = {b.label.decode(): b for b in sim.device.room.rack.in_use()}
    finally:
        sim.stop()
    assert kills >= KILLS, f"the session ended after only {kills} kills"
    with Journal.open(journal) as j:
        (run,) = j.runs()
        assert run.finished
        assert j.check_consistency(run.id) == []
        jobs = j.jobs(run.id)
        kinds = [e["kind"] for e in j.events(run.id)]
    # the kills landed all over a board's life: jobs only loaded were released, boards possibly holding
    # cards were recounted before anything else (empty: dealt; full: verified without a second dealing)
    assert kinds.count("released") >= 1
    assert kinds.count("resume-uncertain") >= 3
    assert [job.state for job in jobs] == [JobState.VERIFIED] * BOARDS
    for item in deals:
        (label,) = [name for name in boards if name.startswith(f"A:{item.board}:")]
        assert ledger.times_dealt(label) == 1, f"board {item.board} dealt {ledger.times_dealt(label)} times"
        want = [sorted(int(c) for c in np.flatnonzero(item.deal == s)) for s in range(4)]
        assert [sorted(h) for h in boards[label].hands()] == want, f"board {item.board} holds the wrong cards"
