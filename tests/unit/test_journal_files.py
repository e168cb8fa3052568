"""The journal's file: its main file alone is enough at every point a resume depends on; a journal that is
missing, empty, truncated or corrupt is an error naming it, never a new journal."""

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
from dealer.journal.store import JobState, Journal
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


def schema_journal(tmp_path: Path, change: str) -> tuple[Path, Path]:
    """A deal file and its journal (a run begun, one board dealt), then changed by the SQL `change` (as
    another version of dealer would have left it)."""
    deal_file = tmp_path / "s.pbn"
    deals = deal_set(9, 4)
    formats.write_file(deal_file, deals)
    journal = tmp_path / "s.pbn.journal"
    with Journal.open(journal) as j:
        run = j.begin_run("s", str(deal_file.resolve()), deals, plan_of(4))
        for state in STEPS:
            j.advance(j.jobs(run.id)[0].id, state, machine="m1")
    db = sqlite3.connect(journal)
    db.executescript(change)
    db.close()
    return deal_file, journal


SCHEMA_CASES = {
    "newer": ("UPDATE meta SET value = '4' WHERE key = 'schema';",
              "the journal's schema is version 4, newer than this dealer's (version 3)"),
    "older": ("ALTER TABLE jobs DROP COLUMN wire_job; DROP TABLE dealings; UPDATE meta SET value = '2' "
              "WHERE key = 'schema';",
              "written by an earlier development version of dealer (schema version 2, no dealings.at; this "
              "dealer's is 3): it cannot be resumed or reported"),
    "column missing": ("ALTER TABLE jobs DROP COLUMN attempt;",
                       "written by an earlier development version of dealer (schema version 3, no jobs.attempt; "
                       "this dealer's is 3): it cannot be resumed or reported"),
    "no version": ("DELETE FROM meta;",
                   "written by an earlier development version of dealer (no schema version; this dealer's is 3)"),
}


@pytest.mark.parametrize("case", SCHEMA_CASES)
def test_a_journal_of_another_schema_is_refused_by_report_and_resume_in_one_line(
        tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]) -> None:
    change, words = SCHEMA_CASES[case]
    deal_file, journal = schema_journal(tmp_path, change)
    before = journal.read_bytes()
    commands = [["report", str(journal)],
                ["deal", str(deal_file), "--port", "sim://?speed=200", "--journal", str(journal), "--resume"]]
    for argv in commands:
        assert main(argv) == JournalError.exit_code == 9, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err
        (line,) = [line for line in err.splitlines() if line.startswith("dealer: error: ")]
        assert line.startswith(f"dealer: error: {journal}: {words}"), line
    assert journal.read_bytes() == before  # nothing written to it


def test_a_journal_of_this_schema_is_reported_and_resumed(tmp_path: Path) -> None:
    """The same journal unchanged passes the check that refuses the ones above."""
    deal_file, journal = schema_journal(tmp_path, "")
    assert main(["report", str(journal)]) == 0
    assert main(["deal", str(deal_file), "--port", "sim://?speed=500", "--journal", str(journal), "--resume",
                 "--quiet"]) == 0
    with Journal.open_read_only(journal) as done:
        (run,) = done.runs()
        assert run.finished and done.counts(run.id)[JobState.VERIFIED] == 4


def test_an_sqlite_file_that_is_no_journal_is_refused_not_added_to(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.close()
    before = path.read_bytes()
    for create in (True, False):
        with pytest.raises(JournalError, match=rf"^{path}: not a journal"):
            Journal.open(path, create=create)
    assert path.read_bytes() == before


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
