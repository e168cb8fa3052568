"""The system refusing a live 12-board `dealer deal` at a random instant: no more file descriptors, no more
memory, or the journal's folder closed to it (`tests.support.refusing_controller`). A refusal is never a
verdict on the record: no run says its journal was damaged, cut or cannot be resumed; each ends in one line,
and a plain ``--resume`` then deals the rest, every board exactly once (the simulated machine's ledger).

The machine is a simulator on a pseudo-terminal outside the journal's folder. The suite runs a sample
(tests/reliability/test_system_refusals.py); ``python -m tests.stress.system_refusals --trials 200`` the whole.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from dealer import formats
from hil import PtySimulator, SimConfig
from tests.support.controllers import Ended, deal_set, dealt, env, finish, start

BOARDS = 12
KINDS = ("descriptors", "memory", "permissions")
DAMAGE_WORDS = ("damaged", "cut or overwritten", "cannot be resumed", "replaced", "removed", "disagrees",
                "keep it aside", "not a usable journal")
"""What a verdict of damage says (the journal's words for it): never said of a journal the system hid."""
SPARE: dict[str, tuple[int, int]] = {"descriptors": (0, 1), "memory": (-1, 1), "permissions": (0, 0)}
"""The range of descriptors or MiB left over when the limit is lowered."""


@dataclass
class Trials:
    """What the trials did and found: `problems` empty if no refusal was called damage and every resume dealt
    every board once."""

    ran: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    codes: Counter[int] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    damaged: int = 0
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        codes = ", ".join(f"exit {code}: {n}" for code, n in sorted(self.codes.items()))
        kinds = ", ".join(f"{n} {kind} ({self.refused[kind]} refused mid-run)"
                          for kind, n in sorted(self.kinds.items()))
        return (f"{self.ran} trials ({kinds}): {codes}; {self.damaged} false damaged verdicts; "
                f"{len(self.problems)} problems")


def controller(args: list[str], cwd: Path, kind: str, journal: Path, after: float, spare: int) -> subprocess.Popen[str]:
    """`dealer ARGS` under `tests.support.refusing_controller`, in a session of its own."""
    extra = {"MALLOC_ARENA_MAX": "1", "REFUSE_KIND": kind, "REFUSE_JOURNAL": str(journal),
             "REFUSE_AFTER": f"{after:.3f}",
             "REFUSE_SPARE": str(spare)}
    return subprocess.Popen([sys.executable, "-m", "tests.support.refusing_controller", *args], cwd=cwd,
                            env={**env(), **extra}, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def trial(folder: Path, rng: random.Random, kind: str, trials: Trials, verbose: bool = False) -> None:
    """One run refused once, then resumed, judged into `trials`."""
    records, ports = folder / "records", folder / "ports"
    records.mkdir(parents=True)
    ports.mkdir()
    deal_file = records / "session.pbn"
    formats.write_file(deal_file, deal_set(rng.randrange(1 << 30), BOARDS))
    journal = records / "session.journal"
    sim = PtySimulator(SimConfig(speed=200.0, seed=rng.randrange(1000), set_name="A",
                                 boards=tuple(range(1, BOARDS + 1))), link=ports / "machine")
    sim.start()
    args = ["deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--plain", "--board-timeout", "30"]
    try:
        first = finish(controller(args, folder, kind, journal, rng.uniform(0.0, 1.2), rng.randint(*SPARE[kind])))
        os.chmod(records, 0o700)
        marker = Path(f"{journal}.refused")
        refused_mid_run = marker.is_file() and first.code != 0
        resumed: Ended | None = None
        if first.code != 0:  # what the line says to do: --resume, or the same command again
            resumed = finish(start(*args, *(["--resume"] if "--resume" in first.err else []), cwd=folder))
        counts = dealt([sim])
    finally:
        os.chmod(records, 0o700)
        sim.stop()
    trials.ran += 1
    trials.kinds[kind] += 1
    trials.refused[kind] += refused_mid_run
    trials.codes[first.code] += 1
    where = f"trial {trials.ran} ({kind}, folder {folder})"
    said = first.err + first.out
    if any(word in said for word in DAMAGE_WORDS):
        trials.damaged += 1
        trials.problems.append(f"{where}: a refusal called damage (exit {first.code}): {first.err.strip()[-600:]}")
    errors = [line for line in first.err.splitlines() if line.startswith("dealer: error: ")]
    if errors and verbose:
        print(f"{where}: exit {first.code}: {errors[0]}")
    if first.code != 0 and (len(errors) != 1 or "Traceback" in first.err):
        trials.problems.append(f"{where}: exit {first.code}, not one line: {first.err.strip()[-900:]}")
    if resumed is not None and resumed.code != 0:
        trials.problems.append(f"{where}: the resume ended exit {resumed.code}: {resumed.err.strip()[-600:]}")
    boards = Counter[int]()
    for label, n in counts.items():  # a label: set:board:...
        boards[int(label.split(":")[1])] += n
    wrong = {board: boards[board] for board in range(1, BOARDS + 1) if boards[board] != 1}
    if wrong:
        trials.problems.append(f"{where}: boards not dealt exactly once: {wrong} ")


def run_trials(folder: Path, n: int, seed: int = 1, verbose: bool = False,
               kinds: tuple[str, ...] = KINDS) -> Trials:
    """`n` trials, the `kinds` in turn (a shuffled round of them at a time)."""
    rng = random.Random(seed)
    trials = Trials()
    order: list[str] = []
    for k in range(n):
        if not order:
            order = rng.sample(kinds, len(kinds))
        trial(folder / f"trial{k}", rng, order.pop(), trials, verbose)
    return trials
