"""Two `dealer deal` processes on one journal, on simulated machines that count every dealing: one deals, the
other is refused naming it (with or without --resume), so no board is dealt twice; `dealer check` is refused
too, a read-only `dealer report` runs; once the first is killed (SIGKILL), a resume finishes every board
exactly once.

Each process gets machines of its own (pseudo-terminal simulators in this process), so a second controller
that was not refused would deal boards the ledgers would show. The first controller's machines hold only
boards 1-3 of the six (closed racks): having dealt them it waits for board 4, alive and holding the journal,
for as long as the test needs, without any timing; the missing boards are brought to its machines (their
racks opened) before the resume.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.journal.history import DealHistory
from dealer.journal.store import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.controllers import Ended, dealt, finish, kill, start
from tests.support.controllers import deal_set as make_deals

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

BOARDS = 6
HELD = (1, 2, 3)
"""The boards the first controller's machines have at hand."""
SPEED = 200.0
WAIT = 120.0
"""Seconds any single wait of the test may take before it fails (never reached when things work)."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, list[PtySimulator]]]:
    """Two controllers' machines: two simulators each, boards 1-3 of set A on every rack."""
    sims = {who: [PtySimulator(SimConfig(speed=SPEED, seed=10 * k + i, set_name="A", boards=HELD),
                               link=tmp_path / f"{who}-m{i}") for i in range(2)]
            for k, who in enumerate(("one", "two"))}
    for group in sims.values():
        for sim in group:
            sim.start()
    try:
        yield sims
    finally:
        for group in sims.values():
            for sim in group:
                sim.stop()


def deal(deal_file: Path, journal: Path, sims: list[PtySimulator], *extra: str) -> subprocess.Popen[str]:
    ports = [arg for sim in sims for arg in ("--port", sim.path)]
    return start("deal", str(deal_file), *ports, "--journal", str(journal), "--board-timeout", str(WAIT),
                 "--quiet", *extra, cwd=deal_file.parent)


def wait_until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)


def assert_refused_naming(ended: Ended, holder_pid: int) -> None:
    assert ended.code == 10, ended.err
    (line,) = [line for line in ended.err.splitlines() if line.startswith("dealer: error: ")]
    assert re.search(rf"in use by dealer deal \(process {holder_pid} on this computer, since 20", line), line
    assert "resume" not in line


@pytest.mark.parametrize("machines", [1, 2])
@pytest.mark.parametrize("start_order", ["together", "second while the first deals"])
def test_one_journal_one_controller(tmp_path: Path, world: dict[str, list[PtySimulator]], machines: int,
                                    start_order: str) -> None:
    deals = make_deals(41, BOARDS)
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deals)
    journal = tmp_path / "session.journal"
    one, two = world["one"][:machines], world["two"][:machines]
    everyone = world["one"] + world["two"]

    first = deal(deal_file, journal, one)
    if start_order == "together":
        second = deal(deal_file, journal, two)
    else:
        wait_until("the first controller to deal", lambda: sum(dealt(one).values()) >= 1)
        second = deal(deal_file, journal, two)
    wait_until("one of them to end", lambda: first.poll() is not None or second.poll() is not None)
    if second.poll() is None:  # the second won the race: the roles swap
        assert start_order == "together", finish(first)
        first, second, one, two = second, first, two, one
    assert_refused_naming(finish(second), first.pid)
    if start_order != "together":
        again = deal(deal_file, journal, two, "--resume")  # what the old message advised
        assert_refused_naming(finish(again), first.pid)

    wait_until("the first controller to deal the boards it has", lambda: len(dealt(one)) == len(HELD))
    assert first.poll() is None, "the first controller holds the journal while it waits for board 4"

    checked = finish(start("check", str(deal_file), "--port", two[0].path, "--journal", str(journal),
                           "--board-timeout", "5", cwd=tmp_path))
    assert checked.code == 10 and f"process {first.pid}" in checked.err and "dealer deal" in checked.err, checked
    report = finish(start("report", str(journal), cwd=tmp_path))
    assert report.code == 0, report.err
    assert f"{BOARDS} boards, {len(HELD)} verified, {len(HELD)} dealings" in report.out, report.out
    assert first.poll() is None, "the report did not disturb the run"

    assert dealt(two) == {}, "the refused controller dealt nothing"
    assert all(n == 1 for n in dealt(one).values())

    kill(first)
    for sim in one:  # the other boards are brought to the first controller's machines
        with sim.lock:
            assert sim.device is not None
            sim.device.room.rack.open = True
    resumed = finish(deal(deal_file, journal, one, "--resume"), timeout=WAIT * 2)
    assert resumed.code == 0, resumed.err

    counts = dealt(everyone)
    per_machine = {f"{who}-m{i}": dealt([sim]) for who, group in world.items() for i, sim in enumerate(group)}
    assert sorted(counts.values()) == [1] * BOARDS, (
        f"dealings per board: {counts}; per machine: {per_machine}; the holder was the "
        f"{'second' if one[0] is world['two'][0] else 'first'} controller; the resume said: {resumed.err[-2000:]}")
    assert dealt(two) == {}
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert run.finished and j.check_consistency(run.id) == []
        assert [job.state for job in j.jobs(run.id)] == [JobState.VERIFIED] * BOARDS
    with DealHistory.open() as history:
        assert {e.run_uid for e in history.entries()} == {run.uid} and len(history) == BOARDS
