"""The journal's file: its main file alone is enough at every point a resume depends on; a journal that is
missing, empty, truncated or corrupt is an error naming it, never a new journal; older journals migrate."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.errors import JournalError
from dealer.journal.events import RecountFault, Scanned, Verified
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import Durability, JobState, Journal
from tests.support.controllers import deal_set


def plan_of(n: int) -> list[JobPlan]:
    return [JobPlan(b, 1) for b in range(1, n + 1)]


def main_file_alone(journal: Path, folder: Path) -> Journal:
    """A copy of the journal's main file without its -wal and -shm, taken while the journal is open (as a
    kill, a backup of the file alone or a deleted side file leaves it), opened to resume."""
    folder.mkdir(exist_ok=True)
    copy = folder / journal.name
    shutil.copyfile(journal, copy)
    assert not Path(f"{copy}-wal").exists()
    return Journal.open(copy, create=False)


@pytest.mark.parametrize("last", [JobState.DEALING, JobState.VERIFIED, JobState.FAULTED])
def test_the_main_file_alone_resumes_after_each_step_that_matters(tmp_path: Path, last: JobState) -> None:
    deals = deal_set(3, 4)
    with Journal.open(tmp_path / "j.db") as journal:
        run = journal.begin_run("club", "s.pbn", deals, plan_of(4))
        first, second = journal.jobs(run.id)[:2]
        for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED):
            journal.advance(first.id, state, machine="m1")
        steps = [JobState.LOADED, JobState.SCANNED, JobState.DEALING]
        steps += {JobState.DEALING: [], JobState.VERIFIED: [JobState.DEALT, JobState.VERIFIED],
                  JobState.FAULTED: [JobState.DEALT, JobState.FAULTED]}[last]
        for state in steps:
            why = RecountFault(faults_found=("F1",)) if state is JobState.FAULTED else None
            journal.advance(second.id, state, why, machine="m1")
        with main_file_alone(tmp_path / "j.db", tmp_path / "alone") as alone:
            (copy,) = alone.runs()
            assert copy.uid == run.uid
            assert [j.state for j in alone.jobs(run.id)] == [JobState.VERIFIED, last, JobState.PLANNED,
                                                              JobState.PLANNED]
            assert alone.check_consistency(run.id) == []


def test_the_journal_before_lost_the_run_with_its_side_file(tmp_path: Path) -> None:
    """What the test above guards against: the old durability leaves the main file empty mid-run."""
    deals = deal_set(3, 4)
    with Journal.open(tmp_path / "j.db", durability=Durability.SYNC_DEALING) as journal:
        run = journal.begin_run("club", "s.pbn", deals, plan_of(4))
        job = journal.jobs(run.id)[0]
        for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING):
            journal.advance(job.id, state, machine="m1")
        with pytest.raises(JournalError, match="empty"):
            main_file_alone(tmp_path / "j.db", tmp_path / "alone")


def test_a_missing_journal_is_not_created_to_be_resumed(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match=r"j\.db: no such journal.*dealer check"):
        Journal.open(tmp_path / "j.db", create=False)
    assert list(tmp_path.iterdir()) == []


def test_an_empty_journal_cannot_be_resumed_and_stays_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "j.db").write_bytes(b"")
    with pytest.raises(JournalError, match=r"j\.db: the journal is empty.*dealer check"):
        Journal.open(tmp_path / "j.db", create=False)
    assert (tmp_path / "j.db").read_bytes() == b""
    Journal.open(tmp_path / "j.db").close()  # a new run may begin in it (the deal history guards Law 6D2)


def full_journal(path: Path) -> None:
    deals = deal_set(4, 24)
    with Journal.open(path) as journal:
        run = journal.begin_run("club", "s.pbn", deals, plan_of(24))
        for job in journal.jobs(run.id):
            padded = {JobState.SCANNED: Scanned(label="x" * 200), JobState.VERIFIED: Verified(layout="x" * 200)}
            for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED):
                journal.advance(job.id, state, padded.get(state), machine="m1")


@pytest.mark.parametrize("damage", ["garbage", "truncated", "torn page"])
def test_a_damaged_journal_is_an_error_naming_it(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "j.db"
    full_journal(path)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"this is no journal\n" * 100)
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:
        page = 4096
        path.write_bytes(data[: 3 * page] + bytes(page) + data[4 * page:])
    for create in (True, False):
        with pytest.raises(JournalError, match=rf"{path}: not a usable journal"):
            Journal.open(path, create=create)


def test_dealer_deal_resume_on_a_corrupt_journal_says_so_in_one_line(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    deal_file = tmp_path / "s.pbn"
    formats.write_file(deal_file, deal_set(5, 2))
    journal = tmp_path / "s.journal"
    journal.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    code = main(["deal", str(deal_file), "--port", "sim://?speed=200", "--journal", str(journal), "--resume"])
    err = capsys.readouterr().err
    assert code == 9 and "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("dealer: error: ")]
    assert line.startswith(f"dealer: error: {journal}: not a usable journal")


def test_a_journal_of_the_first_schema_gets_stable_run_uids(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    deals = deal_set(6, 2)
    with Journal.open(path) as journal:
        journal.begin_run("club", "s.pbn", deals, plan_of(2))
    db = sqlite3.connect(path)  # as schema 1 left it: runs without a uid column
    db.executescript("ALTER TABLE runs DROP COLUMN uid; UPDATE meta SET value = '1' WHERE key = 'schema';")
    db.close()
    with Journal.open_read_only(path) as reader:
        assert [r.uid for r in reader.runs()] == [""]
    with Journal.open(path) as journal:
        (run,) = journal.runs()
        assert len(run.uid) == 32
    with main_file_alone(path, tmp_path / "alone") as alone, Journal.open(path) as again:
        assert alone.runs()[0].uid == again.runs()[0].uid == run.uid


def test_a_reader_sees_the_steps_still_in_the_wal_file(tmp_path: Path) -> None:
    deals = deal_set(7, 2)
    with Journal.open(tmp_path / "j.db") as journal:
        run = journal.begin_run("club", "s.pbn", deals, plan_of(2))
        journal.claim_next(run.id, "m1")  # a step that is not checkpointed: in the -wal file only
        with Journal.open_read_only(tmp_path / "j.db") as reader:
            assert reader.counts(run.id)[JobState.LOADED] == 1


STEPS = (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED)


@pytest.mark.parametrize("after", [0, 2], ids=["killed at the checkpoint", "killed two steps later"])
def test_a_wal_file_cut_short_never_takes_the_journal_back(tmp_path: Path, after: int) -> None:
    """A -wal cut at any length (a truncated copy, a full disk) leaves a consistent state no older than the
    last checkpointed step: the -wal never holds frames older than the main file."""
    deals = deal_set(8, 3)
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        run = journal.begin_run("club", "s.pbn", deals, plan_of(3))
        first, second = journal.jobs(run.id)[:2]
        for state in STEPS:
            journal.advance(first.id, state, machine="m1")  # VERIFIED: checkpointed
        for state in STEPS[:after]:
            journal.advance(second.id, state, machine="m1")
        data = {side: Path(f"{path}{side}").read_bytes() for side in ("", "-wal")}
    cuts = sorted({0, len(data["-wal"]), *range(0, len(data["-wal"]), 997)})
    for cut in cuts:
        copy = tmp_path / f"cut{cut}" / "j.db"
        copy.parent.mkdir()
        copy.write_bytes(data[""])
        Path(f"{copy}-wal").write_bytes(data["-wal"][:cut])
        with Journal.open(copy, create=False) as alone:
            states = [j.state for j in alone.jobs(run.id)]
            assert states[0] is JobState.VERIFIED, f"-wal cut at {cut} of {len(data['-wal'])} bytes: {states}"
            assert states[1] in STEPS[:after] + (JobState.PLANNED,) and states[2] is JobState.PLANNED
            assert alone.check_consistency(run.id) == []
