"""The journal, its lock and the deal history never follow a symbolic link: a link at the file or at any
side file SQLite or the lock makes is refused with one line naming it, and nothing is made where it points."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dealer.core.errors import JournalError
from dealer.journal.history import DealHistory
from dealer.journal.lock import JournalLock
from dealer.journal.store import Journal

JOURNAL_SIDES = ["", "-wal", "-shm", "-journal", ".lock"]
HISTORY_SIDES = ["", "-wal", "-shm", "-journal"]


def link_beside(tmp_path: Path, path: Path) -> Path:
    """A link at `path` to a file not there, in the folder `elsewhere` (made empty)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    path.symlink_to(elsewhere / "target")
    return elsewhere / "target"


def refusal(link: Path) -> str:
    return f"^{link}: is a symbolic link \\(to {link.parent / 'elsewhere' / 'target'}\\); dealer does not write"


@pytest.mark.parametrize("side", JOURNAL_SIDES)
@pytest.mark.parametrize("create", [True, False], ids=["new", "resume"])
def test_a_link_at_the_journal_or_a_side_file_is_refused(tmp_path: Path, side: str, create: bool) -> None:
    journal = tmp_path / "j.db"
    link = Path(f"{journal}{side}")
    target = link_beside(tmp_path, link)
    with pytest.raises(JournalError, match=refusal(link)):
        Journal.open(journal, create=create)
    assert not target.exists() and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["elsewhere", link.name])
    link.unlink()
    Journal.open(journal).close()  # nothing left held or half made: the next open works
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600


def test_a_link_to_an_empty_public_file_does_not_become_a_journal(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    target = link_beside(tmp_path, journal)
    target.touch()
    os.chmod(target, 0o644)
    with pytest.raises(JournalError, match=refusal(journal)):
        Journal.open(journal)
    assert target.stat().st_size == 0 and stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_lock_taken_by_the_caller_is_let_go_when_the_journal_is_a_link(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    link_beside(tmp_path, journal)
    lock = JournalLock.acquire(journal, "dealer deal --plan")
    with pytest.raises(JournalError, match=refusal(journal)):
        Journal.open(journal, lock=lock)
    assert not lock.held
    JournalLock.acquire(journal, "dealer deal").release()  # free for the next process


def test_the_lock_file_alone_refuses_a_link(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    link = Path(f"{journal}.lock")
    target = link_beside(tmp_path, link)
    with pytest.raises(JournalError, match=refusal(link)):
        JournalLock.acquire(journal, "dealer deal")
    assert not target.exists()


@pytest.mark.parametrize("side", HISTORY_SIDES)
def test_a_link_at_the_deal_history_or_a_side_file_is_refused(tmp_path: Path, side: str) -> None:
    history = tmp_path / "history.sqlite"
    link = Path(f"{history}{side}")
    target = link_beside(tmp_path, link)
    with pytest.raises(JournalError, match=refusal(link)):
        DealHistory.open(history, create=True)
    assert not target.exists() and link.is_symlink()
    link.unlink()
    DealHistory.open(history, create=True).close()
    assert stat.S_IMODE(history.stat().st_mode) == 0o600


@pytest.mark.parametrize("side", ["", "-wal", "-shm"])
def test_a_journal_read_for_a_report_refuses_a_link_too(tmp_path: Path, side: str) -> None:
    journal = tmp_path / "j.db"
    Journal.open(journal).close()
    for stray in (Path(f"{journal}-wal"), Path(f"{journal}-shm")):
        stray.unlink(missing_ok=True)
    if side == "":
        journal.rename(tmp_path / "real.db")
    link = Path(f"{journal}{side}")
    link.symlink_to(tmp_path / "elsewhere" / "target" if side else tmp_path / "real.db")
    with pytest.raises(JournalError, match=f"^{link}: is a symbolic link"):
        Journal.open_read_only(journal)
    assert not (tmp_path / "elsewhere").exists()
