"""A journal that cannot be written mid-run - a full disk, a read-only file, a limit on a file's size -
stops `dealer deal` cleanly: one line naming the journal and the cause, the journal's exit code (9), no
traceback from any thread, the journal consistent; and once the journal can be written again, the same
command with --resume deals every board left, each board dealt exactly once by the simulated machine's
ledger (it is the physical world: it outlives the controller).

Nothing is mounted: a full disk and a read-only journal are a connection that fails its Nth write and
every later one with the error SQLite gives (`tests.support.faulty_journal`), at many N across a run; a
file-size limit is a real one (RLIMIT_FSIZE, set on the running controller once it has verified a
board), and so is a read-only file on resume (mode 0400; root runs the command without the power to
override file modes).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.journal.store import JobState, Journal
from hil import PtySimulator, SimConfig
from tests.support.controllers import deal_set, dealt, env, finish, ledger_story, read_until, start
from tests.support.faulty_journal import FULL, READ_ONLY, failing_journal

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

BOARDS = 6
SPEED = 200.0


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtySimulator]:
    machine = PtySimulator(SimConfig(speed=SPEED, seed=7), link=tmp_path / "machine")
    machine.start()
    try:
        yield machine
    finally:
        machine.stop()


@pytest.fixture
def thread_failures(monkeypatch: pytest.MonkeyPatch) -> list[threading.ExceptHookArgs]:
    """Every exception that ends a thread unhandled (what would print a traceback)."""
    seen: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", seen.append)
    return seen


def session(tmp_path: Path, boards: int = BOARDS) -> Path:
    deal_file = tmp_path / "session.pbn"
    formats.write_file(deal_file, deal_set(41, boards))
    return deal_file


def deal_args(deal_file: Path, sim: PtySimulator, journal: Path) -> list[str]:
    return ["deal", str(deal_file), "--port", sim.path, "--journal", str(journal), "--board-timeout", "60"]


def a_run_began(journal: Path) -> bool:
    if not journal.exists():  # its making failed: a journal that held nothing is removed
        return False
    with Journal.open_read_only(journal) as j:
        return bool(j.runs())


def left_consistent(journal: Path) -> int:
    """Boards the journal holds as not verified, after checking every job's events replay to its state."""
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert j.check_consistency(run.id) == []
        return sum(1 for job in j.jobs(run.id) if job.state is not JobState.VERIFIED)


def assert_every_board_dealt_once(journal: Path, sim: PtySimulator, boards: int = BOARDS) -> None:
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert run.finished
        assert j.check_consistency(run.id) == []
        assert [job.state for job in j.jobs(run.id)] == [JobState.VERIFIED] * boards
    counts = dealt([sim])
    for board in range(1, boards + 1):
        (label,) = [name for name in counts if name.startswith(f"A:{board}:")]
        assert counts[label] == 1, f"board {board} dealt {counts[label]} times:\n{ledger_story(sim)}"
    assert len(counts) == boards


def one_error_line(err: str) -> str:
    assert "Traceback" not in err, err
    (line,) = [line for line in err.splitlines() if line.startswith("dealer: error: ")]
    return line


@pytest.mark.parametrize(("error", "cause"), [pytest.param(FULL, "disk full", id="disk-full"),
                                              pytest.param(READ_ONLY, "read-only", id="read-only")])
@pytest.mark.parametrize("fail_from", [3, 9, 17, 30, 44, 58, 61, 75, 90, 104])
def test_a_journal_that_stops_taking_writes_stops_the_run_and_resume_deals_every_board_once(
        fail_from: int, error: tuple[int, str, str], cause: str, tmp_path: Path, sim: PtySimulator,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        thread_failures: list[threading.ExceptHookArgs]) -> None:
    """A clean run writes its journal about 115 times (opening, the run, every step of six boards): the
    failures land while opening it, beginning the run, and at every stage of a board's life."""
    deal_file, journal = session(tmp_path), tmp_path / "session.journal"
    args = deal_args(deal_file, sim, journal)
    with failing_journal(monkeypatch, journal, fail_from, error) as counter:
        code = main(args)
    err = capsys.readouterr().err
    assert counter.failed, "the journal never failed: the run wrote less than expected"
    assert code == 9, err
    line = one_error_line(err)
    assert line.startswith(f"dealer: error: {journal}: the journal cannot be ")
    assert f": {cause} (" in line
    assert thread_failures == []
    began = a_run_began(journal)
    if began:
        left = left_consistent(journal)
        if "the run stopped" in line:
            assert f"the run stopped with {left} of {BOARDS} boards left" in line
            assert "continue with --resume" in line
    # space is back: the same command (with --resume if the run had begun) finishes every board
    assert main([*args, "--resume"] if began else args) == 0, capsys.readouterr().err
    assert thread_failures == []
    assert_every_board_dealt_once(journal, sim)


def test_a_resume_while_the_disk_is_still_full_is_one_line_and_changes_nothing(
        tmp_path: Path, sim: PtySimulator, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], thread_failures: list[threading.ExceptHookArgs]) -> None:
    deal_file, journal = session(tmp_path), tmp_path / "session.journal"
    args = deal_args(deal_file, sim, journal)
    with failing_journal(monkeypatch, journal, 58):
        assert main(args) == 9
    capsys.readouterr()
    left = left_consistent(journal)
    assert 0 < left < BOARDS
    before = journal.read_bytes()
    for _ in range(2):  # still full: refused every time, the journal as it was
        with failing_journal(monkeypatch, journal, 1) as counter:
            assert main([*args, "--resume"]) == 9
        line = one_error_line(capsys.readouterr().err)
        assert counter.failed
        assert line == f"dealer: error: {journal}: the journal cannot be opened: disk full (free some space on its " \
                       "disk)"
        assert journal.read_bytes() == before
    assert thread_failures == []
    assert main([*args, "--resume"]) == 0
    assert_every_board_dealt_once(journal, sim)


def test_a_file_size_limit_reached_mid_run_stops_it_cleanly_and_resume_deals_every_board_once(
        tmp_path: Path) -> None:
    """`ulimit -f` for real: once the controller has verified a board, its limit on a file's size is set
    to the journal's size then, so the journal's next growth fails (the controller ignores SIGXFSZ, so the
    write fails with EFBIG instead of the signal killing it). The machine's rack holds boards 1-12 of the
    16 until the resume, so however late the limit is set the run cannot have ended (the journal soon grows
    by a page: here on board 2)."""
    boards = 16
    deal_file, journal = session(tmp_path, boards), tmp_path / "session.journal"
    sim = PtySimulator(SimConfig(speed=SPEED, seed=8, set_name="A", boards=tuple(range(1, 13))),
                       link=tmp_path / "machine")
    sim.start()
    try:
        args = deal_args(deal_file, sim, journal)
        proc = start(*args, "--plain", cwd=tmp_path)
        seen = read_until(proc, "board 1: verified")
        limit = journal.stat().st_size
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        ended = finish(proc)
        err = "\n".join(seen) + "\n" + ended.err
        assert ended.code == 9, err
        line = one_error_line(err)
        assert line.startswith(f"dealer: error: {journal}: the journal cannot be written: file too large (this "
                               f"process may not write files over {limit} bytes: ulimit -f)")
        left = left_consistent(journal)
        assert 0 < left < boards
        assert f"the run stopped with {left} of {boards} boards left" in line
        with sim.lock:
            assert sim.device is not None
            sim.device.room.rack.open = True
        resumed = finish(start(*args, "--resume", "--quiet", cwd=tmp_path))
        assert resumed.code == 0, resumed.err
        assert_every_board_dealt_once(journal, sim, boards)
    finally:
        sim.stop()


SETPRIV = shutil.which("setpriv")
WITHOUT_OVERRIDE = ([SETPRIV, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
                    if os.geteuid() == 0 and SETPRIV else [])
"""How a command run by root is made to respect file modes (root without the capability to override them)."""


@pytest.mark.skipif(os.geteuid() == 0 and not SETPRIV,
                    reason="root writes a file whatever its mode, and setpriv (to run without that power) is "
                           "missing; the read-only journal is tested with a failing connection instead")
def test_a_read_only_journal_file_is_refused_on_resume_in_plain_words(
        tmp_path: Path, sim: PtySimulator, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A real read-only file (mode 0400): the resume is refused in one line naming it, and the journal is
    untouched; made writable again, the resume deals the rest."""
    deal_file, journal = session(tmp_path), tmp_path / "session.journal"
    args = deal_args(deal_file, sim, journal)
    with failing_journal(monkeypatch, journal, 58):
        assert main(args) == 9
    capsys.readouterr()
    before = journal.read_bytes()
    journal.chmod(0o400)
    try:
        refused = subprocess.run([*WITHOUT_OVERRIDE, sys.executable, "-m", "dealer", *args, "--resume"],
                                 cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    finally:
        journal.chmod(0o600)
    assert refused.returncode == 9, refused.stderr
    assert one_error_line(refused.stderr) == (f"dealer: error: {journal}: the journal cannot be opened: read-only "
                                              "(the file or its folder cannot be written)")
    assert journal.read_bytes() == before
    assert main([*args, "--resume"]) == 0
    assert_every_board_dealt_once(journal, sim)

def test_a_deal_history_that_cannot_be_written_stops_the_run_in_plain_words_and_resume_records_it(
        tmp_path: Path, sim: PtySimulator, deal_history: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], thread_failures: list[threading.ExceptHookArgs]) -> None:
    """The deal history (Law 6D2 on this computer) often lives on the same disk: its failure to record the first
    deal as its dealing begins is one line too, before that board is dealt; the resume records it and deals."""
    deal_file, journal = session(tmp_path), tmp_path / "session.journal"
    args = deal_args(deal_file, sim, journal)
    with failing_journal(monkeypatch, deal_history, 9) as counter:  # its first insert of a deal (after the checks)
        assert main(args) == 9
    line = one_error_line(capsys.readouterr().err)
    assert counter.failed == ["INSERT"]
    assert line == (f"dealer: error: {deal_history}: the deal history cannot be written: disk full (free some "
                    "space on its disk); the run stopped with 6 of 6 boards left: once it can be written, continue "
                    "with --resume")
    assert dealt([sim]) == {}
    assert main([*args, "--resume"]) == 0
    assert thread_failures == []
    assert_every_board_dealt_once(journal, sim)


@pytest.mark.parametrize("fail_from", [40, 70])
def test_a_journal_failure_stops_every_station_of_a_run_on_two_machines(
        fail_from: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        thread_failures: list[threading.ExceptHookArgs]) -> None:
    """One station meets the failure; the other gives its machine up at once (its job left as a crash would
    leave it) instead of dealing on with a journal that cannot record it. Both machines' ledgers together
    show every board dealt once after the resume."""
    boards = 8
    deal_file, journal = session(tmp_path, boards), tmp_path / "session.journal"
    sims = [PtySimulator(SimConfig(speed=SPEED, seed=20 + i), link=tmp_path / f"m{i}") for i in range(2)]
    for machine in sims:
        machine.start()
    try:
        args = ["deal", str(deal_file), "--port", sims[0].path, "--port", sims[1].path, "--journal", str(journal),
                "--board-timeout", "60"]
        with failing_journal(monkeypatch, journal, fail_from) as counter:
            assert main(args) == 9
        err = capsys.readouterr().err
        assert counter.failed
        line = one_error_line(err)
        assert "the journal cannot be written: disk full" in line and "machine" not in line
        assert "stopped:" not in err  # no machine is said to be lost
        left = left_consistent(journal)
        assert f"the run stopped with {left} of {boards} boards left" in line
        assert main([*args, "--resume"]) == 0
        assert thread_failures == []
        with Journal.open_read_only(journal) as j:
            (run,) = j.runs()
            assert run.finished and j.check_consistency(run.id) == []
        counts = dealt(sims)
        story = "\n".join(f"machine m{i}:\n{ledger_story(sim)}" for i, sim in enumerate(sims))
        assert sorted(int(label.split(":")[1]) for label in counts) == list(range(1, boards + 1)), story
        assert set(counts.values()) == {1}, f"{counts}\nthe first run:\n{err}\n{story}"
    finally:
        for machine in sims:
            machine.stop()
