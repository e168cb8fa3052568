"""Kill the controller with SIGKILL at random points of a simulated session, and each time delete or truncate
the journal's -wal and -shm files before it resumes: every board is still dealt exactly once and verified,
none is skipped, and Law 6D2 still knows every deal (the journal's own record and the deal history).

As in `test_kill_resume`, the simulated machine runs in this test process on a pseudo-terminal and keeps
the ledger of every dealing; the controller is `dealer deal` in a subprocess. What each kill leaves of the
side files is drawn (seeded): nothing lost, the -wal deleted, the -shm deleted, both deleted, the -wal cut
to a random length or to nothing. Whether to resume is read from a copy of the journal, so the controller
itself meets the damaged files.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.core.errors import DealReused
from dealer.journal.history import DealHistory, check_reuse
from dealer.journal.store import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.controllers import deal_set, kill_and_resume, start

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")

BOARDS = 28
KILLS = 50
SPEED = 15.0
DAMAGES = ("none", "delete wal", "delete shm", "delete both", "cut wal", "empty wal")


def run_state(journal: Path) -> tuple[bool, bool]:
    """(a run exists, it is finished), read from a copy of the journal and its side files."""
    if not journal.exists():
        return False, False
    with tempfile.TemporaryDirectory() as folder:
        for side in ("", "-wal", "-shm"):
            if Path(f"{journal}{side}").exists():
                shutil.copyfile(f"{journal}{side}", f"{folder}/j{side}")
        with Journal.open(f"{folder}/j") as copy:
            runs = copy.runs()
    return bool(runs), bool(runs) and runs[-1].finished


def damage(journal: Path, how: str, rng: random.Random) -> None:
    wal, shm = Path(f"{journal}-wal"), Path(f"{journal}-shm")
    if how in ("delete wal", "delete both"):
        wal.unlink(missing_ok=True)
    if how in ("delete shm", "delete both"):
        shm.unlink(missing_ok=True)
    if how in ("cut wal", "empty wal") and wal.exists():
        size = wal.stat().st_size
        os.truncate(wal, 0 if how == "empty wal" else rng.randrange(size + 1))


@pytest.mark.slow
def test_fifty_kills_and_lost_side_files_deal_every_board_exactly_once(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    deals = deal_set(12, BOARDS)
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deals)
    journal = tmp_path / "session.journal"
    sim = PtySimulator(SimConfig(speed=SPEED, seed=5), link=tmp_path / "machine")
    sim.start()
    damages: Counter[str] = Counter()
    log: list[str] = []

    def controller(resume: bool) -> subprocess.Popen[str]:
        return start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--board-timeout", "60",
                     *(["--resume"] if resume else []), cwd=deal_file.parent)

    def damage_side_files(kill: int) -> None:
        how = rng.choice(DAMAGES)
        damage(journal, how, rng)
        damages[how] += 1
        log.append(f"{time.strftime('%H:%M:%S')} kill {kill}: {how}")

    try:
        killings = kill_and_resume(controller, sim, journal, rng, kills=KILLS, window=0.8, state=run_state,
                                   after_kill=damage_side_files)
        kills = killings.kills
        (tmp_path / "controllers.log").write_text(  # what each controller said, to debug
            "".join(f"=== {line}\n{said}\n" for line, said in zip(log, killings.said, strict=True)))
        assert sim.device is not None
        ledger = sim.device.ledger
        boards = {b.label.decode(): b for b in sim.device.room.rack.in_use()}
    finally:
        sim.stop()
    assert kills >= KILLS, f"the session ended after only {kills} kills"
    assert all(damages[how] >= 3 for how in DAMAGES), damages
    with Journal.open(journal) as j:
        (run,) = j.runs()
        assert run.finished and j.check_consistency(run.id) == []
        assert [job.state for job in j.jobs(run.id)] == [JobState.VERIFIED] * BOARDS
        kinds = [e.kind for e in j.events(run.id)]
        with pytest.raises(DealReused, match="Law 6D2"):  # the journal still knows its deals
            j.begin_run("again", "copy.pbn", deals, [])
    assert kinds.count("resume-uncertain") >= 3
    for item in deals:
        (label,) = [name for name in boards if name.startswith(f"A:{item.board}:")]
        assert ledger.times_dealt(label) == 1, (f"board {item.board} dealt {ledger.times_dealt(label)} times; "
                                                f"kills: {'; '.join(log)}; see {tmp_path / 'controllers.log'}")
        want = [sorted(int(c) for c in np.flatnonzero(item.deal == s)) for s in range(4)]
        assert [sorted(h) for h in boards[label].hands()] == want, f"board {item.board} holds the wrong cards"
    with DealHistory.open() as history:  # and so does this computer's deal history
        assert {(e.board, e.run_uid) for e in history.entries()} == {(b, run.uid) for b in range(1, BOARDS + 1)}
        with pytest.raises(DealReused, match="Law 6D2"):
            check_reuse(history, deals, name="again", replay=False)
