"""Which journal a place names, opened: a file (SQLite, `Journal`) or a database by its ``postgresql://`` URL
(`PostgresJournal`). What every command that takes ``--journal`` opens its journal by."""

from __future__ import annotations

from pathlib import Path

from dealer.journal.database_url import DatabaseURL, as_url, is_database_url
from dealer.journal.lock import JournalLock
from dealer.journal.store import Journal


def open_journal(place: str | Path | DatabaseURL, *, create: bool = True, command: str = "dealer",
                 lock: JournalLock | None = None) -> Journal:
    """The journal at `place`, to write (`Journal.open`; in a database, `PostgresJournal.open_database`: no lock
    on the whole, each run held as it is taken)."""
    if isinstance(place, DatabaseURL) or is_database_url(place):
        from dealer.journal.postgres_journal import PostgresJournal  # psycopg, only for a database
        return PostgresJournal.open_database(as_url(place), create=create, command=command)
    return Journal.open(place, create=create, command=command, lock=lock)


def read_journal(place: str | Path | DatabaseURL) -> Journal:
    """The journal at `place`, to read only (`Journal.open_read_only`): a live run's too, undisturbed."""
    if isinstance(place, DatabaseURL) or is_database_url(place):
        from dealer.journal.postgres_journal import PostgresJournal
        return PostgresJournal.open_database(as_url(place), create=False, read_only=True)
    return Journal.open_read_only(place)


def journal_found(place: str | Path | DatabaseURL) -> bool:
    """Whether a journal is at `place`, holding anything (a file not empty; a database with its tables);
    nothing is made to find out."""
    if isinstance(place, DatabaseURL) or is_database_url(place):
        from dealer.journal.postgres_journal import PostgresJournal
        return PostgresJournal.found_in(as_url(place))
    path = Path(place)
    return path.is_file() and path.stat().st_size > 0
