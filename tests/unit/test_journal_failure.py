"""The cause of a journal failure in plain words, from what SQLite or the operating system said: each cause
an operator can act on is named, and a damaged file is told apart from one that cannot be written."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from dealer.core.errors import JournalError
from dealer.dealing.run import copies_plan
from dealer.journal.failure import is_damage, journal_failure, plain_cause
from dealer.journal.store import JobState, Journal
from tests.support.deals import random_deal_set
from tests.support.faulty_journal import FULL, READ_ONLY, failing_journal, sqlite_error


@pytest.fixture
def journal(tmp_path: Path) -> str:
    path = tmp_path / "j.journal"
    path.write_bytes(b"")
    return str(path)


@pytest.mark.parametrize(("error", "words"), [
    (FULL, "disk full"),
    (READ_ONLY, "read-only"),
    ((3, "SQLITE_PERM", "access permission denied"), "permission denied"),
    ((10, "SQLITE_IOERR", "disk I/O error"), "an input/output error"),
    ((778, "SQLITE_IOERR_WRITE", "disk I/O error"), "an input/output error"),
])
def test_sqlite_errors_become_plain_words(error: tuple[int, str, str], words: str, journal: str) -> None:
    assert plain_cause(journal, sqlite_error(*error)).startswith(words)


@pytest.mark.parametrize(("code", "words"), [
    (errno.ENOSPC, "disk full"), (errno.EDQUOT, "disk full"), (errno.EROFS, "read-only"),
    (errno.EACCES, "permission denied"), (errno.EPERM, "permission denied"), (errno.EFBIG, "file too large"),
    (errno.EIO, "an input/output error"),
])
def test_operating_system_errors_become_plain_words(code: int, words: str, journal: str) -> None:
    assert plain_cause(journal, OSError(code, os.strerror(code))).startswith(words)


def test_the_error_names_the_journal_what_failed_and_why(journal: str) -> None:
    exc = journal_failure(journal, sqlite_error(*FULL), "written")
    assert isinstance(exc, JournalError) and exc.exit_code == 9
    assert str(exc) == f"{journal}: the journal cannot be written: disk full (free some space on its disk)"


def test_a_damaged_file_is_not_taken_for_a_full_disk() -> None:
    assert is_damage(sqlite_error(11, "SQLITE_CORRUPT", "database disk image is malformed"))
    assert is_damage(sqlite_error(26, "SQLITE_NOTADB", "file is not a database"))
    assert is_damage(sqlite3.DatabaseError("*** in database main ***"))  # what a failed quick_check raises
    assert not is_damage(sqlite_error(*FULL))
    assert not is_damage(sqlite_error(10, "SQLITE_IOERR", "disk I/O error"))


def test_a_journal_that_is_not_one_is_still_called_unusable(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    path.write_bytes(b"this is no journal" * 300)
    with pytest.raises(JournalError, match="not a usable journal"):
        Journal.open(path, create=False)


def test_a_step_that_cannot_be_written_is_rolled_back_and_the_journal_goes_on_once_it_can(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j.journal"
    deals = random_deal_set(2, 5)
    with failing_journal(monkeypatch, path, None) as counter:
        journal = Journal.open(path)
        run = journal.begin_run("s", "s.pbn", deals, copies_plan(deals, 1, "A"))
        job = journal.claim_next(run.id, "m1")
        assert job is not None
        counter.fail_from = counter.writes + 2  # the UPDATE goes through, the COMMIT fails
        with pytest.raises(JournalError, match="cannot be written: disk full"):
            journal.advance(job.id, JobState.SCANNED)
        counter.fail_from = None
        assert journal.job(job.id).state is JobState.LOADED
        journal.advance(job.id, JobState.SCANNED)  # a transaction left open would refuse the next one
        assert journal.check_consistency(run.id) == []
        journal.close()
