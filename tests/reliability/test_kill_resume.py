"""Kill the controller with SIGKILL at random points of a simulated session, again and again, resuming
each time: in the end every board is dealt exactly once and verified, and the journal is consistent.

The simulated machine runs in this test process on a pseudo-terminal (it is the physical world: it
keeps dealing, holding boards and counting every dealing in its ledger while the controller is dead);
the controller is `dealer deal` in a subprocess, killed at a random moment (seeded) of each run.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.journal.store import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.controllers import kill_and_resume, start
from tests.support.deals import random_deals

BOARDS = 24
KILLS = 50
SPEED = 15.0


@pytest.mark.slow
def test_fifty_kills_deal_every_board_exactly_once(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    deals = DealSet.from_deals(random_deals(11, BOARDS))
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deals)
    journal = tmp_path / "session.journal"
    sim = PtySimulator(SimConfig(speed=SPEED, seed=4), link=tmp_path / "machine")
    sim.start()
    try:
        def controller(resume: bool) -> subprocess.Popen[str]:
            return start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal),
                         "--board-timeout", "60", "--quiet", *(["--resume"] if resume else []))

        kills = kill_and_resume(controller, sim, journal, rng, kills=KILLS, window=1.0).kills
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
        kinds = [e.kind for e in j.events(run.id)]
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
