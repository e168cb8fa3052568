"""One live controller per journal: the lock is held for the life of a process, names its holder to anyone
refused, and goes with the process however it ends."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.core.errors import JournalBusy
from dealer.journal import lock as lock_module
from dealer.journal.events import BoardMoved
from dealer.journal.jobplan import JobPlan
from dealer.journal.lock import Holder, JournalLock, lock_path, read_holder
from dealer.journal.store import Journal
from tests.support.controllers import deal_set

ROOT = Path(__file__).resolve().parents[2]
HOLD = """
import sys
from dealer.journal.store import Journal
journal = Journal.open(sys.argv[1], command="dealer deal")
print("holding", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding tmp_path/j.db open as a controller does; killed (SIGKILL) at the end."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "j.db")], cwd=ROOT, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()


def test_a_second_process_is_refused_naming_the_holder_and_never_told_to_resume(
        tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    with pytest.raises(JournalBusy) as refused:
        Journal.open(tmp_path / "j.db", command="dealer deal")
    text = str(refused.value)
    assert f"process {holder.pid} on this computer" in text and "dealer deal" in text and "since 20" in text
    assert "--resume" not in text and "resume" not in text.replace("resumed", "")
    assert refused.value.exit_code == 10
    with pytest.raises(JournalBusy):  # also to resume it
        Journal.open(tmp_path / "j.db", create=False)
    recorded = read_holder(tmp_path / "j.db")
    assert recorded is not None and recorded.pid == holder.pid and recorded.host == socket.gethostname()


def test_a_killed_holder_leaves_no_lock_behind(tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    holder.kill()  # SIGKILL: no clean-up of any kind runs in the holder
    holder.wait(timeout=30)
    with Journal.open(tmp_path / "j.db", command="dealer deal --resume") as journal:
        assert journal.runs() == []


def test_a_reader_needs_no_lock_and_takes_none(tmp_path: Path) -> None:
    deals = deal_set(1, 4)
    with Journal.open(tmp_path / "j.db") as writer:
        run = writer.begin_run("club", "s.pbn", deals, [JobPlan(int(b), 1) for b in deals.boards])
        with Journal.open_read_only(tmp_path / "j.db") as reader:
            assert [r.uid for r in reader.runs()] == [run.uid]
            writer.claim_next(run.id, "m1")  # the writer goes on while the reader is open
            assert reader.jobs(run.id)[0].machine == "m1"
            with pytest.raises(Exception, match="read-only"):
                reader.note(run.id, BoardMoved())


def test_one_process_cannot_hold_a_journal_twice_and_a_closed_one_is_free(tmp_path: Path) -> None:
    first = Journal.open(tmp_path / "j.db", command="dealer deal")
    with pytest.raises(JournalBusy, match=f"process {os.getpid()} on this computer"):
        Journal.open(tmp_path / "j.db")
    first.close()
    Journal.open(tmp_path / "j.db").close()
    assert read_holder(tmp_path / "j.db") is None  # the record is cleared on release


def _holder_between_lock_and_record(journal: Path) -> JournalLock:
    """This process holding `journal`'s lock with no record written yet, as a holder is for a moment after it
    took the lock (or while it lets go)."""
    held = JournalLock.acquire(journal, "dealer deal")
    fd = held._fd
    assert fd is not None
    lock_module._write_record(fd, "")
    return held


def test_a_holder_is_named_even_when_its_record_comes_after_the_refused_process_looked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = tmp_path / "j.db"
    held = _holder_between_lock_and_record(journal)
    looks: list[Holder | None] = []
    real_read = lock_module._read_holder

    def read_then_holder_writes(fd: int) -> Holder | None:
        looks.append(real_read(fd))
        if len(looks) == 1:  # the holder gets the processor back and writes its record
            assert held._fd is not None
            lock_module._write_record(held._fd, json.dumps(held.holder.__dict__))
        return looks[-1]

    monkeypatch.setattr(lock_module, "_read_holder", read_then_holder_writes)
    with held, pytest.raises(JournalBusy) as refused:
        JournalLock.acquire(journal, "dealer deal")
    assert looks[0] is None and looks[-1] == held.holder
    assert f"in use by dealer deal (process {os.getpid()} on this computer, since 20" in str(refused.value)


def test_a_record_left_by_a_killed_holder_is_not_taken_for_the_new_holders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = tmp_path / "j.db"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)
    held = _holder_between_lock_and_record(journal)
    stale = Holder(gone.pid, socket.gethostname(), "2026-12-01T09:00:00+00:00", "dealer deal")
    assert held._fd is not None
    lock_module._write_record(held._fd, json.dumps(stale.__dict__))  # killed, it could not clear its record
    looks: list[Holder | None] = []
    real_read = lock_module._read_holder

    def read_then_holder_writes(fd: int) -> Holder | None:
        looks.append(real_read(fd))
        if len(looks) == 1:
            assert held._fd is not None
            lock_module._write_record(held._fd, json.dumps(held.holder.__dict__))
        return looks[-1]

    monkeypatch.setattr(lock_module, "_read_holder", read_then_holder_writes)
    with held, pytest.raises(JournalBusy) as refused:
        JournalLock.acquire(journal, "dealer deal --resume")
    assert looks[0] == stale and looks[-1] == held.holder
    assert f"process {os.getpid()} on this computer" in str(refused.value)
    assert f"process {gone.pid} " not in str(refused.value)


def test_a_holder_that_never_writes_its_record_is_called_just_starting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lock_module, "HOLDER_WAIT", 0.05)
    with _holder_between_lock_and_record(tmp_path / "j.db"), \
            pytest.raises(JournalBusy, match=r"in use by another process \(it is just starting\)"):
        JournalLock.acquire(tmp_path / "j.db", "dealer deal")


def test_a_lock_let_go_while_its_record_was_looked_for_is_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = tmp_path / "j.db"
    held = _holder_between_lock_and_record(journal)  # as a holder is between clearing its record and letting go
    real_read = lock_module._read_holder

    def read_then_holder_lets_go(fd: int) -> Holder | None:
        found = real_read(fd)
        held.release()
        return found

    monkeypatch.setattr(lock_module, "_read_holder", read_then_holder_lets_go)
    with JournalLock.acquire(journal, "dealer deal --resume") as taken:
        assert taken.held and read_holder(journal) == taken.holder


def test_the_lock_file_is_private_and_kept(tmp_path: Path) -> None:
    with JournalLock.acquire(tmp_path / "j.db", "dealer check") as lock:
        assert lock.held and lock.path == lock_path(tmp_path / "j.db")
        assert stat.S_IMODE(lock.path.stat().st_mode) == 0o600
    assert not lock.held
    assert lock_path(tmp_path / "j.db").exists()


def test_a_congress_plans_journal_has_one_controller_too(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from dealer.cli import main
    from dealer.plan import Plan
    from tests.support.plan_texts import BASE, write

    path = write(tmp_path, BASE)
    plan = Plan.load(path)
    plan.generate()
    with Journal.open(plan.event.journal, command="dealer deal --plan"):
        for extra in ([], ["--resume"]):
            assert main(["deal", "--plan", str(path), *extra]) == 10
            err = capsys.readouterr().err
            assert f"in use by dealer deal --plan (process {os.getpid()} on this computer" in err
    with Journal.open_read_only(plan.event.journal) as journal:
        assert journal.runs() == []  # nothing begun by the refused ones


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")
def test_a_check_goes_on_without_a_lock_where_no_journal_could_be_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A deal file on a medium that takes no file: no run can have a journal there, and the check runs."""
    from dealer import formats
    from dealer.cli import main
    from dealer.dealing import sim_ports

    deal_file = tmp_path / "s.pbn"
    formats.write_file(deal_file, deal_set(2, 1))
    nowhere = tmp_path / "no such folder" / "s.journal"
    try:
        code = main(["check", str(deal_file), "--port", "sim://?speed=200&seed=9", "--journal", str(nowhere),
                     "--board-timeout", "30"])
    finally:
        sim_ports.stop_all()
    assert code == 8 and "0/1 boards verified" in capsys.readouterr().out  # checked: the board was never dealt
    assert not nowhere.parent.exists()
