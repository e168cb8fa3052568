"""A journal whose disk fails on cue: SQLite connections to one file that refuse their Nth write and every
write after it, with the error SQLite itself gives ("database or disk is full", "attempt to write a
readonly database"), as a disk that fills up or turns read-only mid-run does. Nothing is mounted and no
file mode is relied on (a test run by root writes files whatever their mode).

`failing_journal` puts it in place of `sqlite3.connect` for one journal path (other databases, such as
the deal history, are left alone) and counts writes across every connection to that path.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import pytest

FULL: Final = (13, "SQLITE_FULL", "database or disk is full")
READ_ONLY: Final = (8, "SQLITE_READONLY", "attempt to write a readonly database")
_WRITES: Final = ("INSERT", "UPDATE", "DELETE", "COMMIT", "CREATE", "ALTER", "PRAGMA WAL_CHECKPOINT")


def sqlite_error(code: int, name: str, text: str) -> sqlite3.OperationalError:
    """An error as the sqlite3 module raises it for a failed statement (with its result code)."""
    exc = sqlite3.OperationalError(text)
    exc.sqlite_errorcode = code
    exc.sqlite_errorname = name
    return exc


@dataclass
class WriteCounter:
    """Writes to one journal so far, and from which one on they fail (None: none fails)."""

    fail_from: int | None
    error: tuple[int, str, str] = FULL
    writes: int = 0
    failed: list[str] = field(default_factory=list)

    def write(self, sql: str) -> None:
        """Count a statement that writes; raise the error if its turn has come."""
        if not sql.lstrip().upper().startswith(_WRITES):
            return
        self.writes += 1
        if self.fail_from is not None and self.writes >= self.fail_from:
            self.failed.append(sql.split()[0])
            raise sqlite_error(*self.error)


class FaultyConnection:
    """A real connection whose writing statements go through a `WriteCounter` first."""

    def __init__(self, db: sqlite3.Connection, counter: WriteCounter) -> None:
        self._db = db
        self._counter = counter

    def execute(self, sql: str, args: Any = ()) -> sqlite3.Cursor:
        self._counter.write(sql)
        return self._db.execute(sql, args)

    def executemany(self, sql: str, args: Any) -> sqlite3.Cursor:
        self._counter.write(sql)
        return self._db.executemany(sql, args)

    def executescript(self, sql: str) -> sqlite3.Cursor:
        self._counter.write("CREATE")
        return self._db.executescript(sql)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


@contextlib.contextmanager
def failing_journal(monkeypatch: pytest.MonkeyPatch, journal: os.PathLike[str] | str, fail_from: int | None,
                    error: tuple[int, str, str] = FULL) -> Iterator[WriteCounter]:
    """While in the block, connections to `journal` fail from their `fail_from`-th write on (counted over
    every connection to it); `fail_from` None only counts."""
    counter = WriteCounter(fail_from, error)
    real = sqlite3.connect
    target = os.path.abspath(journal)

    def connect(database: Any, *args: Any, **kwargs: Any) -> Any:
        db = real(database, *args, **kwargs)
        if isinstance(database, str | os.PathLike) and os.path.abspath(database) == target:
            return FaultyConnection(db, counter)
        return db

    with monkeypatch.context() as patch:
        patch.setattr(sqlite3, "connect", connect)
        yield counter
