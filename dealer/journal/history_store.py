"""Where a deal history's entries are kept: one interface (`HistoryStore`), two backends, an SQLite file on this
computer (`SqliteHistoryStore`, the default, no server) and a PostgreSQL database several computers share
(`PostgresHistoryStore`). Each write is one transaction; the rows are `Entry` fields in `COLUMNS` order.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from dealer.core.errors import JournalError
from dealer.journal.database_url import DatabaseURL, server_reason
from dealer.journal.failure import history_failure, is_damage
from dealer.language import N_, _

if TYPE_CHECKING:
    import psycopg

COLUMNS: Final = ("deal_hash", "run_uid", "board", "run_name", "journal", "host", "recorded", "replay")
Row = tuple[Any, ...]

SQLITE_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deals (
    deal_hash TEXT NOT NULL,
    run_uid TEXT NOT NULL,
    board INTEGER NOT NULL,
    run_name TEXT NOT NULL,
    journal TEXT NOT NULL,
    host TEXT NOT NULL,
    recorded TEXT NOT NULL,
    replay INTEGER NOT NULL,
    PRIMARY KEY (deal_hash, run_uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS machine_jobs (
    serial TEXT PRIMARY KEY,
    last_job INTEGER NOT NULL,
    updated TEXT NOT NULL
) WITHOUT ROWID;
"""
POSTGRES_SCHEMA: Final = (
    "CREATE TABLE history_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE history_deals (deal_hash TEXT NOT NULL, run_uid TEXT NOT NULL, board INTEGER NOT NULL, "
    "run_name TEXT NOT NULL, journal TEXT NOT NULL, host TEXT NOT NULL, recorded TEXT NOT NULL, "
    "replay BOOLEAN NOT NULL, PRIMARY KEY (deal_hash, run_uid))",
    "CREATE TABLE history_machine_jobs (serial TEXT PRIMARY KEY, last_job BIGINT NOT NULL, updated TEXT NOT NULL)",
)
_RUNS_SELECT: Final = ("SELECT run_uid, MIN(run_name), MIN(journal), MIN(host), MIN(recorded), COUNT(*), "
                       "MAX({replay}) FROM {deals} GROUP BY run_uid ORDER BY MIN(recorded), run_uid")


class HistoryStore(Protocol):
    """The entries of a deal history and the job numbers given to each machine, wherever they are kept."""

    def entries(self, hashes: Sequence[str] | None) -> list[Row]:
        """Every entry (oldest first), or those of the deals `hashes` (sorted, not empty)."""
        ...

    def runs(self) -> list[Row]:
        """(run_uid, name, journal, host, first recorded, deals, replay) a run, oldest first."""
        ...

    def count(self) -> int:
        ...

    def insert(self, rows: Sequence[Row], *, only_if_new: bool) -> int | None:
        """Add the entries not there yet, in one transaction; how many were new. With `only_if_new`, none is
        added, and None returned, if another run has an entry of one of these deals (Law 6D2 decided in the
        transaction that records them: two computers can never both record, and so deal, one deal)."""
        ...

    def last_job(self, serial: str) -> int:
        ...

    def reserve_job(self, serial: str, at_least: int) -> int:
        """`at_least`, or one past the last number given to the machine if that is more; kept, in one
        transaction."""
        ...

    def forget(self, run_uid: str) -> int:
        ...

    def close(self) -> None:
        ...


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _taken(db: Any, rows: Sequence[Row], mark: str) -> bool:
    """Whether a run other than the rows' own has an entry of one of their deals (`mark`: the driver's
    placeholder)."""
    table = "deals" if mark == "?" else "history_deals"
    for row in rows:
        found = db.execute(f"SELECT 1 FROM {table} WHERE deal_hash = {mark} AND run_uid <> {mark} LIMIT 1",
                           (row[0], row[1])).fetchone()
        if found is not None:
            return True
    return False


class SqliteHistoryStore:
    """A history file on this computer (SQLite, written with full synchronisation)."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path

    def entries(self, hashes: Sequence[str] | None) -> list[Row]:
        sql = f"SELECT {', '.join(COLUMNS)} FROM deals"
        if hashes is not None:
            sql += f" WHERE deal_hash IN ({','.join('?' * len(hashes))})"
        return self._read(sql + " ORDER BY recorded, run_uid, board", hashes or ())

    def runs(self) -> list[Row]:
        return self._read(_RUNS_SELECT.format(replay="replay", deals="deals"))

    def count(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM deals")[0][0])

    def insert(self, rows: Sequence[Row], *, only_if_new: bool) -> int | None:
        with self._writing() as db:
            if only_if_new and _taken(db, rows, "?"):
                return None
            before = db.total_changes
            db.executemany(f"INSERT OR IGNORE INTO deals ({', '.join(COLUMNS)}) VALUES "
                           f"({','.join('?' * len(COLUMNS))})", [(*r[:7], int(r[7])) for r in rows])
            return db.total_changes - before

    def last_job(self, serial: str) -> int:
        rows = self._read("SELECT last_job FROM machine_jobs WHERE serial = ?", (serial,))
        return int(rows[0][0]) if rows else 0

    def reserve_job(self, serial: str, at_least: int) -> int:
        with self._writing() as db:
            row = db.execute("SELECT last_job FROM machine_jobs WHERE serial = ?", (serial,)).fetchone()
            number = max(int(at_least), (int(row[0]) if row else 0) + 1)
            db.execute("INSERT INTO machine_jobs (serial, last_job, updated) VALUES (?, ?, ?) ON CONFLICT"
                       "(serial) DO UPDATE SET last_job = excluded.last_job, updated = excluded.updated",
                       (serial, number, _now()))
        return number

    def forget(self, run_uid: str) -> int:
        with self._writing() as db:
            return int(db.execute("DELETE FROM deals WHERE run_uid = ?", (run_uid,)).rowcount)

    def close(self) -> None:
        self._db.close()

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            if not is_damage(exc):
                raise history_failure(str(self.path), exc, N_(
                    "{path}: the deal history cannot be read: {cause}")) from exc
            raise JournalError(_("{path}: the deal history cannot be read: {cause}").format(
                path=self.path, cause=f"({exc})")) from exc

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed at the block's end and rolled back if it fails; an error of SQLite is
        the history's one line (`history_failure`)."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLite rolls back by itself after some failures (a full disk)
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise history_failure(str(self.path), exc, N_(
                "{path}: the deal history cannot be written: {cause}")) from exc


class PostgresHistoryStore:
    """A history in a PostgreSQL database (its tables ``history_*``), shared by the computers that name it."""

    def __init__(self, connection: psycopg.Connection[tuple[Any, ...]], url: DatabaseURL) -> None:
        self._db = connection
        self.path = url

    @classmethod
    def open(cls, url: DatabaseURL, *, create: bool, format_text: str) -> PostgresHistoryStore:
        """The history in the database `url`; made there with `create` (`dealer history init`), else refused
        (`JournalError`) if the database holds none."""
        import psycopg

        db = url.connect()
        store = cls(db, url)
        try:
            found = db.execute("SELECT to_regclass('history_deals') IS NOT NULL").fetchone()
            if not (found and found[0]):
                if not create:
                    raise JournalError(_("{url}: no deal history in this database; check the URL, or make one with: "
                                         "dealer history init {url}").format(url=url))
                with db.transaction():
                    for statement in POSTGRES_SCHEMA:
                        db.execute(statement)
                    db.execute("INSERT INTO history_meta VALUES ('format', %s)", (format_text,))
        except psycopg.Error as exc:
            db.close()
            raise store._failure(exc, N_("{path}: the deal history cannot be opened: {cause}")) from None
        except BaseException:
            db.close()
            raise
        return store

    def entries(self, hashes: Sequence[str] | None) -> list[Row]:
        sql = f"SELECT {', '.join(COLUMNS)} FROM history_deals"
        args: tuple[Any, ...] = ()
        if hashes is not None:
            sql += " WHERE deal_hash = ANY(%s)"
            args = (list(hashes),)
        return self._read(sql + " ORDER BY recorded, run_uid, board", args)

    def runs(self) -> list[Row]:
        return self._read(_RUNS_SELECT.format(replay="replay::int", deals="history_deals"))

    def count(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM history_deals")[0][0])

    def insert(self, rows: Sequence[Row], *, only_if_new: bool) -> int | None:
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(COLUMNS)
        arrays = [list(column) for column in columns]
        arrays[2] = [int(b) for b in arrays[2]]
        arrays[7] = [bool(r) for r in arrays[7]]
        sql = (f"INSERT INTO history_deals ({', '.join(COLUMNS)}) SELECT * FROM unnest(%s::text[], %s::text[], "
               "%s::int[], %s::text[], %s::text[], %s::text[], %s::text[], %s::bool[]) ON CONFLICT DO NOTHING")

        def insert(db: psycopg.Connection[tuple[Any, ...]]) -> int:
            if only_if_new:
                # one lock a deal, taken in one order, held to the commit: a second computer recording the same
                # deal waits here, then finds the first's entry
                db.execute("SELECT pg_advisory_xact_lock(hashtextextended(h, 0)) FROM "
                           "(SELECT DISTINCT unnest(%s::text[]) AS h ORDER BY 1) AS deals", (arrays[0],))
                if _taken(db, rows, "%s"):
                    return -1
            return int(db.execute(sql, arrays).rowcount)
        added = self._write(insert)
        return None if added < 0 else added

    def last_job(self, serial: str) -> int:
        rows = self._read("SELECT last_job FROM history_machine_jobs WHERE serial = %s", (serial,))
        return int(rows[0][0]) if rows else 0

    def reserve_job(self, serial: str, at_least: int) -> int:
        sql = ("INSERT INTO history_machine_jobs AS m (serial, last_job, updated) VALUES (%s, %s, %s) "
               "ON CONFLICT (serial) DO UPDATE SET last_job = GREATEST(excluded.last_job, m.last_job + 1), "
               "updated = excluded.updated RETURNING last_job")

        def reserve(db: psycopg.Connection[tuple[Any, ...]]) -> int:
            row = db.execute(sql, (serial, int(at_least), _now())).fetchone()
            assert row is not None
            return int(row[0])
        return self._write(reserve)

    def forget(self, run_uid: str) -> int:
        return self._write(lambda db: db.execute("DELETE FROM history_deals WHERE run_uid = %s", (run_uid,)).rowcount)

    def close(self) -> None:
        self._db.close()

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        import psycopg

        try:
            return self._db.execute(sql, args).fetchall()
        except psycopg.Error as exc:
            raise self._failure(exc, N_("{path}: the deal history cannot be read: {cause}")) from None

    def _write(self, work: Any) -> int:
        import psycopg

        try:
            with self._db.transaction():
                return int(work(self._db))
        except psycopg.Error as exc:
            raise self._failure(exc, N_("{path}: the deal history cannot be written: {cause}")) from None

    def _failure(self, exc: BaseException, template: str) -> JournalError:
        return JournalError(_(template).format(path=self.path, cause=server_reason(exc)))
