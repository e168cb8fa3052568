"""A journal damaged at a random instant of a live 12-board `dealer deal`: cut to nothing, cut to half, garbage
written over it, the file replaced by a copy of itself, or its -wal removed. The run must never end as a
success: not exit 0, never "12/12 boards verified"; it ends in one line naming the damage and the boards
verified so far; no board is dealt twice (the simulated machine's ledger).

The machine is a simulator on a pseudo-terminal whose rack holds the first k boards only (k drawn from 1 to
11): whatever the instant, the damage lands before the run can end, which waits for board k + 1 until the
rack is opened after the damage. The suite runs a sample (tests/reliability/test_journal_damaged.py);
``python -m tests.stress.journal_damage --trials 200`` the whole.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from dealer import formats
from hil import PtySimulator, SimConfig
from tests.support.controllers import deal_set, dealt, finish, frames_from_host, start

BOARDS = 12
DAMAGES = ("cut to nothing", "cut to half", "garbage over it", "replaced", "-wal removed")


def damage(journal: Path, how: str) -> None:
    if how == "cut to nothing":
        os.truncate(journal, 0)
    elif how == "cut to half":
        os.truncate(journal, journal.stat().st_size // 2)
    elif how == "garbage over it":
        size = journal.stat().st_size
        with open(journal, "r+b") as f:
            f.write(os.urandom(size))
    elif how == "replaced":
        copy = journal.with_name("copy.journal")
        shutil.copyfile(journal, copy)
        os.replace(copy, journal)
    elif how == "-wal removed":
        Path(f"{journal}-wal").unlink(missing_ok=True)
    else:
        raise ValueError(how)


@dataclass
class Trials:
    """What the trials did and found: `problems` empty if no damaged run ended as a success."""

    ran: int = 0
    codes: Counter[int] = field(default_factory=Counter)
    damages: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        codes = ", ".join(f"exit {code}: {n}" for code, n in sorted(self.codes.items()))
        damages = ", ".join(f"{n} {how}" for how, n in sorted(self.damages.items()))
        ended_zero = self.codes.get(0, 0)
        return (f"{self.ran} trials ({damages}): {codes}; {ended_zero} ended exit 0; "
                f"{len(self.problems)} problems")


def trial(folder: Path, rng: random.Random, how: str, trials: Trials) -> None:
    """One run damaged once, judged into `trials`."""
    folder.mkdir(parents=True)
    deal_file = folder / "session.pbn"
    formats.write_file(deal_file, deal_set(rng.randrange(1 << 30), BOARDS))
    journal = folder / "session.journal"
    held = rng.randint(1, BOARDS - 1)
    sim = PtySimulator(SimConfig(speed=100.0, seed=rng.randrange(1000), set_name="A", boards=tuple(range(1, held + 1))),
                       link=folder / "machine")
    sim.start()
    try:
        proc = start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--plain",
                     "--board-timeout", "30", cwd=folder)
        while frames_from_host(sim) < 2 and proc.poll() is None:
            time.sleep(0.01)  # a poll of the machine, not a timing: the damage waits for the run to talk
        time.sleep(rng.uniform(0.0, 0.05 * held))  # where the damage lands, not what is expected of it
        alive = proc.poll() is None
        damage(journal, how)
        with sim.lock:
            assert sim.device is not None
            sim.device.room.rack.open = True
        ended = finish(proc)
        counts = dealt([sim])
    finally:
        sim.stop()
    trials.ran += 1
    trials.codes[ended.code] += 1
    trials.damages[how] += 1
    where = f"trial {trials.ran} ({how}, rack of {held}, folder {folder})"
    if not alive:
        trials.problems.append(f"{where}: the run ended before the damage: {ended.err.strip()[-300:]}")
        return
    errors = [line for line in ended.err.splitlines() if line.startswith("dealer: error: ")]
    if ended.code == 0 or f"{BOARDS}/{BOARDS} boards verified" in ended.out + ended.err:
        trials.problems.append(f"{where}: ended as a success (exit {ended.code})")
    elif len(errors) != 1 or "Traceback" in ended.err:
        trials.problems.append(f"{where}: exit {ended.code}, not one line: {ended.err.strip()[-600:]}")
    elif "journal" not in errors[0] or "verified" not in errors[0]:
        trials.problems.append(f"{where}: the line names neither the journal nor the boards verified: {errors[0]}")
    twice = {label: n for label, n in counts.items() if n > 1}
    if twice:
        trials.problems.append(f"{where}: boards dealt twice: {twice}")


def run_trials(folder: Path, n: int, seed: int = 1) -> Trials:
    """`n` trials, the damages in turn (a shuffled round of `DAMAGES` at a time)."""
    rng = random.Random(seed)
    trials = Trials()
    order: list[str] = []
    for k in range(n):
        if not order:
            order = rng.sample(DAMAGES, len(DAMAGES))
        trial(folder / f"trial{k}", rng, order.pop(), trials)
    return trials
