"""The race of two `dealer deal` processes on one journal, run many times and judged by what was dealt.

`run_race` starts two controllers on one journal, each with simulated machines of its own whose closed
racks hold only the first boards of the set, the second `offset` seconds after the first. It judges the
race by the machines' ledgers and the processes' ends: the loser refused naming the winner (exit 10) and
having dealt nothing, the winner dealing each board it has once; then the winner is killed (SIGKILL), the
other boards are brought to its machines and a `--resume` must finish every board exactly once. `Busy`
keeps every core busy meanwhile; `run_races` runs a series over varied offsets and `Figures` sums it up.
A race that goes wrong keeps its files (journal, logs, ledgers) in `keep` for whoever looks into it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from dealer import formats
from dealer.journal.history import DealHistory
from dealer.journal.opening import read_journal
from dealer.journal.store import JobState
from hil import PtySimulator, SimConfig
from tests.support.controllers import Ended, dealt, finish, kill, start
from tests.support.deals import random_deal_set

REFUSED = 10
"""The exit code of a controller refused because another holds the journal."""


@dataclass(frozen=True)
class Setup:
    """One race's world: boards in the deal file, boards the machines have at first, machines a side."""

    boards: int = 4
    held: tuple[int, ...] = (1, 2)
    machines: int = 1
    speed: float = 1000.0
    kill_at: str = "waiting"
    """When the winner is killed: "waiting" (its boards verified, it waits for the next board, as
    tests/reliability/test_two_controllers.py does) or "dealing" (as its last board's dealing starts)."""
    wait: float = 120.0
    """Seconds any single wait may take before the race is judged stuck (never reached when things work)."""
    journal_at: Callable[[], str] | None = None
    """A new database for each race's journal (its URL), or None: a journal file in the race's folder."""


@dataclass
class Race:
    """What one race did and what was wrong with it (`problems` empty: a good race)."""

    offset: float
    machines: int
    kill_at: str
    winner: str = ""
    """"first" or "second": the controller that held the journal."""
    twice: int = 0
    """Boards dealt more than once (over every machine of both sides)."""
    skipped: int = 0
    """Boards never dealt."""
    refused_naming: bool = False
    """The loser ended with exit 10 naming the winner's process."""
    loser_dealt: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    kept: str = ""


@dataclass
class Figures:
    """A series of races summed up."""

    races: int = 0
    good: int = 0
    second_won: int = 0
    twice: int = 0
    skipped: int = 0
    refused_naming: int = 0
    loser_dealt: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    bad: list[Race] = field(default_factory=list)

    def add(self, race: Race) -> None:
        self.races += 1
        self.good += not race.problems
        self.second_won += race.winner == "second"
        self.twice += race.twice
        self.skipped += race.skipped
        self.refused_naming += race.refused_naming
        self.loser_dealt += race.loser_dealt
        self.seconds += race.seconds
        self.slowest = max(self.slowest, race.seconds)
        if race.problems:
            self.bad.append(race)

    def text(self) -> str:
        lines = [f"{self.races} races, {self.good} good; the second controller won {self.second_won}",
                 f"boards dealt twice: {self.twice}; boards skipped: {self.skipped}; losers that dealt: "
                 f"{self.loser_dealt}",
                 f"losers refused naming the holder: {self.refused_naming} of {self.races}",
                 f"{self.seconds:.1f} s in all, {self.seconds / max(self.races, 1):.2f} s a race, slowest "
                 f"{self.slowest:.2f} s"]
        for race in self.bad[:20]:
            lines.append(f"  offset {race.offset * 1000:.0f} ms, {race.machines} machines, {race.winner or '?'} "
                         f"won, killed {race.kill_at}: "
                         + "; ".join(race.problems) + (f" (kept in {race.kept})" if race.kept else ""))
        return "\n".join(lines)


def offsets(step: float = 0.01, last: float = 0.2) -> list[float]:
    """Start offsets of the second controller: 0 (together), then `step` by `step` up to `last`."""
    return [round(k * step, 6) for k in range(int(round(last / step)) + 1)]


class Busy:
    """Processes that keep `n` cores busy (a loop each) until `stop`; they are this object's to end."""

    def __init__(self, n: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True,
                                       stdin=subprocess.DEVNULL) for _ in range(n)]

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        self.procs = []

    def __enter__(self) -> Busy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _wait(what: str, done: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"still waiting for {what}")
        time.sleep(0.01)


def _board(label: str) -> int:
    """The board number of a board label (``SET:NUMBER:...``)."""
    return int(label.split(":")[1])


def _refusal(ended: Ended, holder: int, shared: bool) -> str | None:
    """What is wrong with how a refused controller ended (None: refused with exit 10, naming `holder`; on a
    journal in a database, where a run rather than the journal is held, also exit 8: the second of two
    controllers beginning one deal set at once is refused by Law 6D2 before it deals)."""
    lines = [line for line in ended.err.splitlines() if line.startswith("dealer: error: ")]
    if shared and ended.code == 8 and len(lines) == 1 and "Law 6D2" in lines[0]:
        return None
    if ended.code != REFUSED:
        return f"the loser ended with {ended.code}, not {REFUSED}: {ended.err.strip()[-300:]}"
    named = (rf"run \d+ is held by dealer deal \({holder}@" if shared else
             rf"in use by dealer deal \(process {holder} on this computer, since 20")
    if len(lines) != 1 or not re.search(named, lines[0]):
        return f"the loser was refused without naming process {holder}: {lines}"
    return None


def run_race(folder: Path, offset: float, setup: Setup, seed: int = 41) -> Race:
    """One race in `folder` (left for the caller to keep or remove): the second controller starts `offset`
    seconds after the first."""
    race = Race(offset, setup.machines, setup.kill_at)
    began = time.monotonic()
    deal_file = folder / "session.pbn"
    formats.write_file(deal_file, random_deal_set(setup.boards, seed))
    journal: Path | str = setup.journal_at() if setup.journal_at is not None else folder / "session.journal"
    DealHistory.open(folder / "history.sqlite", create=True).close()
    extra = {"DEALER_HISTORY": str(folder / "history.sqlite")}
    sims = {who: [PtySimulator(SimConfig(speed=setup.speed, seed=10 * k + i, set_name="A", boards=setup.held),
                               link=folder / f"{who}-m{i}") for i in range(setup.machines)]
            for k, who in enumerate(("first", "second"))}
    procs: dict[str, subprocess.Popen[str]] = {}
    logs: dict[str, str] = {}

    def deal(who: str, *more: str) -> subprocess.Popen[str]:
        ports = [arg for sim in sims[who] for arg in ("--port", sim.path)]
        return start("deal", str(deal_file), *ports, "--journal", str(journal), "--board-timeout",
                     str(setup.wait), *more, cwd=folder, extra_env=extra)

    for group in sims.values():
        for sim in group:
            sim.start()
    try:
        procs["first"] = deal("first")
        if offset:
            time.sleep(offset)
        procs["second"] = deal("second")
        _wait("one controller to end", lambda: any(p.poll() is not None for p in procs.values()), setup.wait)
        ended = [who for who, p in procs.items() if p.poll() is not None]
        if len(ended) == 2:
            for who in ended:
                end = finish(procs[who])
                logs[who] = end.err
                race.problems.append(f"the {who} controller ended with {end.code}")
            return race
        (loser,) = ended
        winner = race.winner = "second" if loser == "first" else "first"
        end = finish(procs[loser])
        logs[loser] = end.err
        wrong = _refusal(end, procs[winner].pid, setup.journal_at is not None)
        race.refused_naming = wrong is None
        if wrong:
            race.problems.append(wrong)

        _wait("the winner to deal the boards it has", lambda: len(dealt(sims[winner])) >= len(setup.held)
              or procs[winner].poll() is not None, setup.wait)
        if procs[winner].poll() is not None:
            end = finish(procs[winner])
            logs[winner] = end.err
            race.problems.append(f"the winner ended with {end.code} before it was killed")
        if setup.kill_at == "waiting":
            _wait("the winner to verify the boards it has", lambda: _verified(journal) >= len(setup.held)
                  or procs[winner].poll() is not None, setup.wait)
        held = dealt(sims[winner])
        if len(held) != len(setup.held) or any(n != 1 for n in held.values()):
            race.problems.append(f"the winner dealt {held} before it was killed")
        race.loser_dealt = sum(dealt(sims[loser]).values())
        if race.loser_dealt:
            race.problems.append(f"the loser dealt {dealt(sims[loser])}")

        if procs[winner].poll() is None:
            logs[winner] = kill(procs[winner])
        for sim in sims[winner]:  # the other boards are brought to the winner's machines
            with sim.lock:
                assert sim.device is not None
                sim.device.room.rack.open = True
        resumed = finish(deal(winner, "--resume"), timeout=setup.wait * 2)
        logs["resume"] = resumed.err
        if resumed.code != 0:
            race.problems.append(f"the resume ended with {resumed.code}: {resumed.err.strip()[-300:]}")

        counts: dict[int, int] = {}
        for label, n in dealt([sim for group in sims.values() for sim in group]).items():
            counts[_board(label)] = counts.get(_board(label), 0) + n
        race.twice = sum(1 for n in counts.values() if n > 1)
        race.skipped = sum(1 for b in range(1, setup.boards + 1) if counts.get(b, 0) == 0)
        if race.twice or race.skipped:
            race.problems.append(f"dealings per board: {dict(sorted(counts.items()))}")
        race.problems += _journal_problems(journal, setup.boards)
        return race
    except TimeoutError as exc:
        race.problems.append(str(exc))
        return race
    finally:
        for who, proc in procs.items():
            if proc.poll() is None:
                logs[who] = logs.get(who, "") + kill(proc)
        for who, group in sims.items():
            for i, sim in enumerate(group):
                with sim.lock:
                    if sim.device is not None:
                        ledger = sim.device.ledger.to_json(sim.device.room.rack)
                        (folder / f"{who}-m{i}.ledger.json").write_text(json.dumps(ledger, indent=1))
                sim.stop()
        for who, text in logs.items():
            (folder / f"{who}.log").write_text(text)
        pids = {who: proc.pid for who, proc in procs.items()}
        (folder / "race.json").write_text(json.dumps({"offset": offset, "machines": setup.machines, "pids": pids,
                                                     "winner": race.winner, "kill_at": setup.kill_at,
                                                     "problems": race.problems}, indent=1))
        race.seconds = time.monotonic() - began


def _verified(journal: Path | str) -> int:
    """Jobs the journal holds as verified (0 while it cannot be read yet)."""
    try:
        with read_journal(journal) as j:
            return sum(1 for run in j.runs() for job in j.jobs(run.id) if job.state is JobState.VERIFIED)
    except Exception:  # not there yet, or holding no run yet
        return 0


def _journal_problems(journal: Path | str, boards: int) -> list[str]:
    try:
        with read_journal(journal) as j:
            runs = j.runs()
            if len(runs) != 1:
                return [f"the journal holds {len(runs)} runs"]
            states = [job.state for job in j.jobs(runs[0].id)]
            finished = runs[0].finished
    except Exception as exc:  # a journal that cannot be read is this race's problem, not the series' end
        return [f"the journal cannot be read: {exc}"]
    if not finished or states != [JobState.VERIFIED] * boards:
        return [f"the run is {'finished' if finished else 'unfinished'} with jobs {[str(s) for s in states]}"]
    return []


@contextlib.contextmanager
def _maybe_busy(cores: int) -> Iterator[None]:
    if cores:
        with Busy(cores):
            yield
    else:
        yield


def run_races(n: int, *, busy: int = 0, steps: Sequence[float] | None = None, keep: Path | None = None,
              setup: Setup = Setup(), show: Callable[[int, Race], None] | None = None,
              budget: float | None = None, figures: Figures | None = None) -> Figures:
    """`n` races, the offsets of `steps` in turn (the machines a side alternating 1 and 2 each round, the
    winner killed waiting and dealing in turn), with `busy` cores kept busy; the files of each bad race are
    kept in `keep` (if given). With a `budget` (seconds), no race is begun once it is spent. The races are
    added to `figures` (if given) as they end, so that a run stopped half-way still has them."""
    steps = list(steps if steps is not None else offsets())
    figures = figures if figures is not None else Figures()
    began = time.monotonic()
    with _maybe_busy(busy):
        for i in range(n):
            if budget is not None and time.monotonic() - began > budget:
                break
            offset = steps[i % len(steps)]
            machines = 1 + (i // len(steps)) % 2
            kill_at = ("waiting", "dealing")[i % 2]
            folder = Path(tempfile.mkdtemp(prefix="dealer-race-"))
            try:
                race = run_race(folder, offset, replace(setup, machines=machines, kill_at=kill_at), seed=41 + i)
                if race.problems and keep is not None:
                    race.kept = str(keep / f"race-{i:04d}")
                    shutil.copytree(folder, race.kept, symlinks=True)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            figures.add(race)
            if show is not None:
                show(i, race)
    return figures
