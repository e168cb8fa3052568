"""Controllers as users run them: `dealer` in a subprocess of its own session, killed with its group; deal
sets to deal; a journal's state read without taking it; what the simulated machines' ledgers say was
physically dealt; a controller killed again and again, and resumed each time."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from dealer.core.dealset import DealSet
from dealer.dealing import sim_ports
from dealer.journal.opening import read_journal
from hil import PtySimulator
from tests.support.deals import random_deal_set
from tests.support.paths import ROOT


def deal_set(seed: int, n: int) -> DealSet:
    """`n` random deals (seeded) as boards 1..n."""
    return random_deal_set(n, seed)


def env() -> dict[str, str]:
    """The environment of a subprocess: this test's (its own deal history), read when it starts."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}


def start(*args: str, cwd: Path = ROOT, extra_env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """`python -m dealer ARGS` in its own session, its output kept; `extra_env`: variables set besides the test's."""
    return subprocess.Popen([sys.executable, "-m", "dealer", *args], cwd=cwd, env={**env(), **(extra_env or {})},
                            text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def read_until(proc: subprocess.Popen[str], fragment: str) -> list[str]:
    """The lines `proc` writes on standard error up to and including the first that holds `fragment`
    (no timing: each line is read as it comes); AssertionError if the output ends first."""
    assert proc.stderr is not None
    lines: list[str] = []
    while True:
        line = proc.stderr.readline()
        assert line, f"the output ended before {fragment!r}: " + "".join(lines)
        lines.append(line.rstrip("\n"))
        if fragment in line:
            return lines


def wait_for_own_handlers(proc: subprocess.Popen[str]) -> bool:
    """Wait until `proc` catches SIGTERM (Linux: its ``SigCgt`` in /proc/PID/status), which only the
    program's own code makes it do (`dealer.__main__`: it takes SIGINT, SIGTERM and SIGHUP together); False if
    it ended first. A signal sent before that instant would land while the interpreter starts, where its
    outcome is the interpreter's, not the program's; so a test sends none before it. Polls the process's
    state, not a clock."""
    bit = 1 << (signal.SIGTERM - 1)
    while proc.poll() is None:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            return False
        caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
        if caught & bit:
            return True
        time.sleep(0.002)
    return False


class Ended(NamedTuple):
    """How a process ended: its exit code, standard output and standard error."""

    code: int
    out: str
    err: str


def finish(proc: subprocess.Popen[str], timeout: float = 240) -> Ended:
    """Wait for `proc` to end (its group killed if it does not in time)."""
    out = err = ""
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            kill(proc)
    return Ended(proc.returncode, out or "", err or "")


def kill(proc: subprocess.Popen[str]) -> str:
    """SIGKILL `proc` and its group, and reap it; what it wrote on standard error."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    return err or ""


def run_state(journal: Path | str) -> tuple[bool, bool]:
    """(a run exists, the last one is finished), read without taking the journal (a file, or a database's URL)."""
    try:
        with read_journal(journal) as j:
            runs = j.runs()
    except Exception:  # no journal yet, or one that holds no run
        return False, False
    return bool(runs), bool(runs) and runs[-1].finished


def dealt(sims: Iterable[PtySimulator]) -> dict[str, int]:
    """Label -> dealings started into boards with that label, over every simulated machine."""
    counts: dict[str, int] = {}
    for sim in sims:
        with sim.lock:
            if sim.device is None:
                continue
            for label, n in sim.device.ledger.dealt_labels().items():
                counts[label] = counts.get(label, 0) + n
    return counts


def ledger_story(sim: PtySimulator) -> str:
    """What the simulated machine did, for a failure's message: each dealing (the label of the board it went
    into, its job, the board number of its deal, how it ended, the cards already in the board, the cards it
    placed; never a card), the faults its plan fired and what its operator did."""
    with sim.lock:
        if sim.device is None:
            return "the machine never started"
        device = sim.device
        lines = [f"dealing into {r.label}: job {r.job}, deal of board {r.board_number}, {r.outcome}, "
                 f"{r.cards_before} cards before, {len(r.placed)} placed" for r in device.ledger.records]
        lines += [f"fault: {entry}" for entry in device.engine.log]
        lines += [f"operator: {entry}" for entry in device.operator.log]
    return "\n".join(lines)


def dealings(url: str) -> int:
    """Dealings started on the in-process simulated machine of `url` (0 if it was never even opened)."""
    sim = sim_ports.simulators().get(url)
    if sim is None:
        return 0
    with sim.lock:
        return 0 if sim.device is None else len(sim.device.ledger.records)


def frames_from_host(sim: PtySimulator) -> int:
    """Frames the simulated machine has received from controllers so far."""
    with sim.lock:
        return sim.device.link.counters.frames_received if sim.device is not None else 0


class Killings(NamedTuple):
    """What `kill_and_resume` did: the kills, and what each killed controller had said."""

    kills: int
    said: list[str]


def kill_and_resume(controller: Callable[[bool], subprocess.Popen[str]], sim: PtySimulator, journal: Path | str,
                    rng: random.Random, *, kills: int, window: float,
                    state: Callable[[Path | str], tuple[bool, bool]] = run_state,
                    after_kill: Callable[[int], None] | None = None,
                    refused: Callable[[Ended], bool] | None = None) -> Killings:
    """Start the controller (`controller(resume)`, resuming once a run exists), let it talk to the machine,
    and SIGKILL it a random time within `window` seconds later, `kills` times; then let the last one
    finish (exit 0). `after_kill(n)` runs after the n-th kill, before the next controller starts. A controller
    that ends otherwise than with exit 0 fails the loop, unless `refused(ended)` says the refusal was right
    (and has put right what it refused): the loop then goes on.

    The kill lands after the controller starts talking to the machine, not after it starts: on a busy
    computer, Python's start-up alone could swallow every kill."""
    done, said = 0, []
    while done < kills:
        exists, finished = state(journal)
        if finished:
            break
        before = frames_from_host(sim)
        proc = controller(exists)
        talking = time.monotonic() + 60
        while frames_from_host(sim) < before + 2 and proc.poll() is None and time.monotonic() < talking:
            time.sleep(0.01)
        deadline = time.monotonic() + rng.uniform(0.0, window)
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        if proc.poll() is None:
            said.append(kill(proc))
            done += 1
            if after_kill is not None:
                after_kill(done)
        else:
            ended = finish(proc)
            assert ended.code == 0 or (refused is not None and refused(ended)), ended.err
    while True:
        exists, finished = state(journal)
        if finished:
            break
        ended = finish(controller(exists), timeout=300)  # the last run is left alone to finish
        if ended.code == 0:
            break
        assert refused is not None and refused(ended), ended.err
    return Killings(done, said)
