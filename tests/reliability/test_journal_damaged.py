"""A journal cut, overwritten or replaced under a live `dealer deal` is never a success: at its next
checkpoint the run stops, exit 9, with one line that says what happened, how many boards had been verified,
and to recount with `dealer check`; the machine is not told to deal the board in hand.

The machine is a simulator on a pseudo-terminal whose rack holds boards 1-2 only: having dealt them the
controller waits for board 3, alive, while the test damages its journal; then the rack is opened, and the
step into DEALING of board 3 (a checkpoint) meets the damage; or, if the operator had already given up on
board 3, the run's end does (the machine lost after --board-timeout). Either way the verdict is the same.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dealer import formats
from hil import PtySimulator, SimConfig
from tests.support.controllers import deal_set, dealt, finish, read_until, start
from tests.support.journal_damage import run_trials

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

HELD = (1, 2)


def cut(journal: Path) -> None:
    os.truncate(journal, 4096)


def overwritten(journal: Path) -> None:
    size = journal.stat().st_size
    with open(journal, "r+b") as f:
        f.write(os.urandom(size))


def replaced(journal: Path) -> None:
    copy = journal.with_name("copy.journal")
    shutil.copyfile(journal, copy)
    os.replace(copy, journal)


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtySimulator]:
    machine = PtySimulator(SimConfig(speed=200.0, seed=4, set_name="A", boards=HELD), link=tmp_path / "machine")
    machine.start()
    try:
        yield machine
    finally:
        machine.stop()


@pytest.mark.parametrize("rack", ["opened", "closed"])
@pytest.mark.parametrize("damage", [cut, overwritten, replaced], ids=lambda f: f.__name__)
def test_a_journal_damaged_under_the_run_stops_it_with_exit_9_never_a_success(
        tmp_path: Path, sim: PtySimulator, damage: Callable[[Path], None], rack: str) -> None:
    """Opened: board 3 comes and its step into DEALING meets the damage. Closed: board 3 never comes, the
    machine is given up after --board-timeout, and the run's end meets it."""
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deal_set(21, 4))
    journal = tmp_path / "session.journal"
    proc = start("deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--plain",
                 "--board-timeout", "20" if rack == "opened" else "2", cwd=tmp_path)
    read_until(proc, "insert board A 3")  # boards 1-2 verified; the controller waits for board 3
    damage(journal)
    if rack == "opened":
        with sim.lock:
            assert sim.device is not None
            sim.device.room.rack.open = True
    ended = finish(proc)

    assert ended.code == 9, ended.err
    errors = [line for line in ended.err.splitlines() if line.startswith("dealer: error: ")]
    assert len(errors) == 1 and "Traceback" not in ended.err, ended.err
    (line,) = errors
    assert f"{journal}: the journal was" in line and "while the run was dealing" in line, line
    assert "2 of 4 boards had been verified" in line and "dealer check" in line, line
    assert "4/4 boards verified" not in ended.err + ended.out
    counts = dealt([sim])
    assert sorted(counts.values()) == [1, 1], counts  # boards 1-2, once each; board 3 never dealt


def test_a_sample_of_journals_damaged_at_random_instants_never_ends_as_a_success(tmp_path: Path) -> None:
    """`tests.support.journal_damage`, 10 trials, each damage twice (``python -m tests.stress.journal_damage``:
    200)."""
    trials = run_trials(tmp_path, 10, seed=20261202)
    assert trials.problems == [], "\n".join([trials.text(), *trials.problems])
    assert trials.ran == 10 and trials.codes.get(0, 0) == 0, trials.text()
