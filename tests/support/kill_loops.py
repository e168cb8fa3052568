"""Controllers killed with SIGKILL at random instants of a simulated session, again and again, each resumed:
every board must end dealt exactly once and verified, the journal consistent. Two loops: the kills alone
(`kills_alone`), and the kills with the journal's -wal and -shm deleted or cut after each (`kills_and_lost_side_files`).

The simulated machine runs in this process on a pseudo-terminal (it is the physical world: it keeps dealing,
holding boards and counting every dealing in its ledger while the controller is dead); the controller is
`dealer deal` in a subprocess. The suite runs each with a few kills (tests/reliability), ``python -m
tests.stress.kill_loops`` with as many as asked.

A kill can land while the controller copies its -wal into the main file (a checkpoint). The -wal then
still holds what the main file is missing, and SQLite finishes the copy when the journal is opened again;
deleted or cut, it leaves the main file part-written: rows of one step present and others not, a job's
state and its events disagreeing (`docs/decisions/2026-12-02-torn-checkpoint.md`). The controller must
refuse such a journal (exit 9, naming the damage), never deal on from it; the loop then checks that the
refused journal was one whose -wal it had just damaged, puts the -wal back as it was (as a director who
finds it in a backup would) and goes on.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dealer import formats
from dealer.core.errors import DealReused
from dealer.journal.history import DealHistory, check_reuse
from dealer.journal.opening import open_journal
from dealer.journal.store import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.controllers import Ended, deal_set, kill_and_resume, start

SPEED = 15.0
DAMAGES = ("none", "delete wal", "delete shm", "delete both", "cut wal", "empty wal")
LOSES_WAL = frozenset({"delete wal", "delete both", "cut wal", "empty wal"})


@dataclass
class Loop:
    """What one loop did and found: `problems` empty if every board was dealt once and the record is whole."""

    kills: int = 0
    boards: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # the journal's event kinds at the end
    damages: Counter[str] = field(default_factory=Counter)
    torn: int = 0  # journals refused as part-written after their -wal was lost, the -wal then put back
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        damaged = ", ".join(f"{n} {how}" for how, n in sorted(self.damages.items()))
        torn = f" ({damaged}; {self.torn} journals refused as part-written, their -wal put back)" if damaged else ""
        return (f"{self.kills} kills over {self.boards} boards{torn}"
                + f": {self.kinds['resume-uncertain']} boards recounted on resume, {self.kinds['released']} released;"
                + f" {len(self.problems)} problems")


def _judge(loop: Loop, sim: PtySimulator, journal: Path | str, deals_path: Path, boards: int) -> None:
    """The machine's ledger and the journal, read after the loop, into `loop`."""
    assert sim.device is not None
    ledger = sim.device.ledger
    held = {b.label.decode(): b for b in sim.device.room.rack.in_use()}
    deals = formats.read_file(deals_path)
    with open_journal(journal) as j:
        (run,) = j.runs()
        if not run.finished:
            loop.problems.append("the run did not finish")
        loop.problems += j.check_consistency(run.id)
        states = [job.state for job in j.jobs(run.id)]
        if states != [JobState.VERIFIED] * boards:
            loop.problems.append(f"jobs not all verified: {Counter(states)}")
        loop.kinds = Counter(e.kind for e in j.events(run.id))
        try:
            j.begin_run("again", "copy.pbn", deals, [])
            loop.problems.append("the journal no longer knows its deals (Law 6D2)")
        except DealReused:
            pass
    for item in deals:
        (label,) = [name for name in held if name.startswith(f"A:{item.board}:")]
        times = ledger.times_dealt(label)
        if times != 1:
            loop.problems.append(f"board {item.board} dealt {times} times")
        want = [sorted(int(c) for c in np.flatnonzero(item.deal == s)) for s in range(4)]
        if [sorted(h) for h in held[label].hands()] != want:
            loop.problems.append(f"board {item.board} holds the wrong cards")


def kills_alone(folder: Path, kills: int, seed: int = 20261129, boards: int = 24, *,
                journal_at: str | None = None) -> Loop:
    """`kills` kills within a second of each controller talking to the machine, nothing else damaged; the journal
    a file in `folder`, or the database of `journal_at` (a URL)."""
    rng = random.Random(seed)
    deal_file = folder / "session.pbn"
    formats.write_file(deal_file, deal_set(11, boards))
    journal = journal_at if journal_at is not None else folder / "session.journal"
    sim = PtySimulator(SimConfig(speed=SPEED, seed=4), link=folder / "machine")
    sim.start()
    loop = Loop(boards=boards)
    try:
        def controller(resume: bool) -> subprocess.Popen[str]:
            return start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal),
                         "--board-timeout", "60", "--quiet", *(["--resume"] if resume else []))

        loop.kills = kill_and_resume(controller, sim, journal, rng, kills=kills, window=1.0).kills
        _judge(loop, sim, journal, deal_file, boards)
    finally:
        sim.stop()
    if loop.kills < kills:
        loop.problems.append(f"the session ended after only {loop.kills} kills")
    return loop


def _run_state_of_a_copy(place: Path | str) -> tuple[bool, bool]:
    """(a run exists, it is finished), read from a copy of the journal file and its side files, so that the
    controller itself meets the damaged files."""
    journal = Path(place)
    if not journal.exists():
        return False, False
    with tempfile.TemporaryDirectory() as copy:
        for side in ("", "-wal", "-shm"):
            if Path(f"{journal}{side}").exists():
                shutil.copyfile(f"{journal}{side}", f"{copy}/j{side}")
        try:
            with Journal.open(f"{copy}/j") as j:
                runs = j.runs()
        except Exception:  # a copy as damaged as the journal: the controller will say so
            return True, False
    return bool(runs), bool(runs) and runs[-1].finished


@dataclass
class LastDamage:
    """The last damage done, and the -wal as the kill before it had left it."""

    how: str = ""
    wal: bytes | None = None


def kills_and_lost_side_files(folder: Path, kills: int, seed: int = 20261201, boards: int = 28) -> Loop:
    """`kills` kills, each followed by a damage to the side files, in turn through `DAMAGES` (a shuffled
    round): nothing, the -wal deleted, the -shm deleted, both deleted, the -wal cut to a random length or to
    nothing. This computer's deal history must know every deal at the end."""
    rng = random.Random(seed)
    deal_file = folder / "session.pbn"
    formats.write_file(deal_file, deal_set(12, boards))
    journal = folder / "session.journal"
    wal, shm = Path(f"{journal}-wal"), Path(f"{journal}-shm")
    sim = PtySimulator(SimConfig(speed=SPEED, seed=5), link=folder / "machine")
    sim.start()
    loop = Loop(boards=boards)
    log: list[str] = []
    order: list[str] = []
    last = LastDamage()

    def controller(resume: bool) -> subprocess.Popen[str]:
        return start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--board-timeout", "60",
                     *(["--resume"] if resume else []), cwd=folder)

    def damage(kill: int) -> None:
        if not order:
            order.extend(rng.sample(DAMAGES, len(DAMAGES)))
        how = order.pop()
        last.wal, last.how = (wal.read_bytes() if wal.exists() else None), how
        if how in ("delete wal", "delete both"):
            wal.unlink(missing_ok=True)
        if how in ("delete shm", "delete both"):
            shm.unlink(missing_ok=True)
        if how in ("cut wal", "empty wal") and wal.exists():
            size = wal.stat().st_size
            os.truncate(wal, 0 if how == "empty wal" else rng.randrange(size + 1))
        loop.damages[how] += 1
        log.append(f"{time.strftime('%H:%M:%S')} kill {kill}: {how}")

    def refused(ended: Ended) -> bool:
        """A journal refused as damaged, right after its -wal was lost: put the -wal back, go on."""
        if ended.code != 9 or last.how not in LOSES_WAL or last.wal is None:
            return False
        if "disagrees with itself" not in ended.err and "not a usable journal" not in ended.err:
            return False
        wal.write_bytes(last.wal)
        shm.unlink(missing_ok=True)
        loop.torn += 1
        log.append(f"refused as part-written after '{last.how}': -wal put back ({ended.err.strip()})")
        last.how = "put back"
        return True

    try:
        killings = kill_and_resume(controller, sim, journal, rng, kills=kills, window=0.8,
                                   state=_run_state_of_a_copy, after_kill=damage, refused=refused)
        loop.kills = killings.kills
        (folder / "controllers.log").write_text(  # what each controller said, to debug
            "".join(f"=== {line}\n{said}\n" for line, said in zip(log, killings.said, strict=False)))
        _judge(loop, sim, journal, deal_file, boards)
    finally:
        sim.stop()
    if loop.kills < kills:
        loop.problems.append(f"the session ended after only {loop.kills} kills")
    with Journal.open(journal) as j:
        (run,) = j.runs()
    deals = formats.read_file(deal_file)
    with DealHistory.open() as history:  # this computer's deal history knows every deal
        held = {(e.board, e.run_uid) for e in history.entries()}
        wanted = {(b, run.uid) for b in range(1, boards + 1)}
        if held != wanted:
            loop.problems.append(f"the deal history does not hold every deal of the run: boards missing "
                                 f"{sorted(b for b, _ in wanted - held)}, entries besides {sorted(held - wanted)}")
        try:
            check_reuse(history, deals, name="again", replay=False)
            loop.problems.append("the deal history no longer refuses the deals (Law 6D2)")
        except DealReused:
            pass
    if loop.problems:
        loop.problems.append(f"kills: {'; '.join(log)}; see {folder / 'controllers.log'}")
    return loop
