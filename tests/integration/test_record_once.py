"""A run's story is told once, by the journal: what the run shows is a fold of it.

Judged by `dealer report`, a reader of the journal alone, run in its own process: a run stopped by Ctrl-C and
resumed ends with a summary whose machine lines add up to every board of the run, each machine's figures
those of the report; and the run's lines are the journal's events, one line for each event a person is told.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from dealer import formats
from dealer.journal.store import Journal
from tests.support.controllers import deal_set, env, finish, read_until, start

BOARDS = 8
MACHINES = ("sim://?speed=100&seed=41", "sim://?speed=100&seed=42")
SUMMARY_MACHINE = re.compile(r"^  (\S+): (\d+) verified, (\d+) faulted, boards refused (\d+), machine faults (\d+), "
                             r"interruptions (\d+)(?:, \d+ boards/hour)?$", re.MULTILINE)


def report_machines(journal: Path) -> dict[str, tuple[int, int, int, int]]:
    """Per machine, as `dealer report` says it: verified, recount faults, machine faults, interruptions."""
    done = subprocess.run([sys.executable, "-m", "dealer", "report", str(journal)], env=env(), text=True,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    found = re.findall(r"^  (\S+)(?: \(machines? [^)]*\))?: (\d+) boards verified, \d+ dealings, .*?; (\d+) recount "
                       r"faults, (\d+) machine faults, (\d+) interruptions$", done.stdout, re.MULTILINE)
    return {name: (int(v), int(r), int(m), int(i)) for name, v, r, m, i in found}


def test_a_resumed_runs_summary_covers_the_whole_run_as_the_report_does(tmp_path: Path) -> None:
    deal_file, journal = tmp_path / "s.pbn", tmp_path / "s.journal"
    formats.write_file(deal_file, deal_set(77, BOARDS))
    ports = [arg for url in MACHINES for arg in ("--port", url)]
    first = start("deal", str(deal_file), *ports, "--journal", str(journal), "--plain", cwd=tmp_path)
    read_until(first, f"(3/{BOARDS} boards")
    first.send_signal(signal.SIGINT)
    stopped = finish(first)
    assert stopped.code == 130, stopped
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        before = sum(1 for job in j.jobs(run.id) if job.state.value == "verified")
    assert 3 <= before < BOARDS

    resumed = start("deal", str(deal_file), *ports, "--journal", str(journal), "--plain", "--resume", cwd=tmp_path)
    ended = finish(resumed)
    assert ended.code == 0, ended.err[-2000:]
    assert ended.out.startswith(f"{BOARDS}/{BOARDS} boards verified in ")
    machines = {name: tuple(int(n) for n in figures) for name, *figures in SUMMARY_MACHINE.findall(ended.out)}
    assert set(machines) == {"sim://?speed=100&seed=41", "sim://?speed=100&seed=42"}, ended.out
    assert sum(m[0] for m in machines.values()) == BOARDS, ended.out  # the boards verified before the stop too
    assert {name: (v, f, mf, i) for name, (v, f, _, mf, i) in machines.items()} == report_machines(journal)
    assert f"resuming run {run.id} (s): {before} of {BOARDS} boards verified already" in ended.err


def test_every_line_of_a_board_is_an_event_of_the_journal(tmp_path: Path) -> None:
    """The board steps a person is told (dealing, verified) come one line each from the journal's events: as
    many 'dealing' lines as the journal has dealings begun, as many 'verified' lines as boards verified."""
    deal_file, journal = tmp_path / "s.pbn", tmp_path / "s.journal"
    formats.write_file(deal_file, deal_set(78, BOARDS))
    run = start("deal", str(deal_file), "--port", MACHINES[0], "--journal", str(journal), "--plain", cwd=tmp_path)
    ended = finish(run)
    assert ended.code == 0, ended.err[-2000:]
    with Journal.open_read_only(journal) as j:
        (recorded,) = j.runs()
        kinds = [e.kind for e in j.events(recorded.id)]
    lines = ended.err.splitlines()
    assert sum(line.endswith(": dealing") for line in lines) == kinds.count("dealing") == BOARDS
    assert sum(": verified (" in line for line in lines) == kinds.count("verified") == BOARDS
