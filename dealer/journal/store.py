"""The journal: a record of every board's life, written before each step is acted on.

It owns the guarantees of a dealing run (`Journal`): one live controller, an exact resume, nothing dealt
twice, no deal set used twice (Law 6D2). It holds hashes and fault codes, never deals or seeds. `Journal` is
the journal in an SQLite file; what a store does its own way is a few methods, which the journal in PostgreSQL
(`dealer.journal.postgres_journal`) gives its own way; `dealer.journal.opening` opens either by its place.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache, partial
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol, cast

from dealer.core.dealset import DealSet
from dealer.core.errors import DealReused, JournalDamaged, JournalError, SystemRefused
from dealer.core.links import IsALinkError, create_private, database_files, first_link, link_text
from dealer.journal.events import (
    AnyEvent,
    Dealing,
    Dealt,
    Event,
    EventKind,
    Loaded,
    Redeal,
    RunFinished,
    RunStarted,
    Scanned,
    Verified,
    decode,
    kind_of,
)
from dealer.journal.failure import is_damage, journal_failure, refused
from dealer.journal.jobplan import JobPlan
from dealer.journal.listeners import Delivery, Failed
from dealer.journal.lock import JournalLock, lock_path
from dealer.language import N_, _, n_

SCHEMA_VERSION: Final = 3
"""The version of `_SCHEMA`, in the journal's ``meta`` table. A journal of another version is refused
(`schema_problem`): nothing was released before this one, so no journal needs migrating."""


class JobState(StrEnum):
    """Where one copy of one board is in its life::

        PLANNED -> LOADED -> SCANNED -> DEALING -> DEALT -> VERIFIED
                      \\          \\         \\          \\-> FAULTED -> PLANNED (redeal the same deal)
                       `-> PLANNED `-> PLANNED `-> DEALT / FAULTED / PLANNED (after a recount)
                       `-> FAULTED `-> FAULTED (the board was refused too often: the director sees to it)
    """

    PLANNED = "planned"      # to be dealt; nothing physical has happened
    LOADED = "loaded"        # deal sent (or about to be sent) to a machine's memory
    SCANNED = "scanned"      # the right board is in the machine, checked by its label
    DEALING = "dealing"      # the machine was told to deal: the board may hold cards from here on
    DEALT = "dealt"          # the machine reported the deal done; not yet verified
    VERIFIED = "verified"    # recount matched the deal (fault F0): finished
    FAULTED = "faulted"      # recount showed faults; waits for the operator's action


TRANSITIONS: Final[dict[JobState, frozenset[JobState]]] = {
    JobState.PLANNED: frozenset({JobState.LOADED}),
    JobState.LOADED: frozenset({JobState.SCANNED, JobState.PLANNED, JobState.FAULTED}),
    JobState.SCANNED: frozenset({JobState.DEALING, JobState.PLANNED, JobState.FAULTED}),
    JobState.DEALING: frozenset({JobState.DEALT, JobState.FAULTED, JobState.PLANNED, JobState.VERIFIED}),
    JobState.DEALT: frozenset({JobState.VERIFIED, JobState.FAULTED}),
    JobState.FAULTED: frozenset({JobState.PLANNED, JobState.VERIFIED}),
    JobState.VERIFIED: frozenset(),
}
UNCERTAIN: Final = frozenset({JobState.DEALING, JobState.DEALT})
"""States in which the board may hold cards that nobody has verified."""
MAX_WAL_BYTES: Final = 4 << 20
"""A -wal file larger than this is checkpointed at the next step."""
EVENTS_A_READ: Final = 2000
"""Events read at a time by a fold over a run (`Journal.each_event`)."""
CHECKPOINTED: Final = frozenset({JobState.DEALING, JobState.VERIFIED, JobState.FAULTED})
"""Steps that reach the main file (checkpointed and synced) before `Journal.advance` returns."""


_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    set_hash TEXT NOT NULL,
    replay INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    finished TEXT,
    uid TEXT
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    board INTEGER NOT NULL,
    copy INTEGER NOT NULL,
    section TEXT NOT NULL DEFAULT '',
    set_name TEXT NOT NULL DEFAULT '',
    deal_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    machine TEXT,
    attempt INTEGER NOT NULL DEFAULT 1,
    wire_job INTEGER NOT NULL DEFAULT 0,
    UNIQUE (run_id, board, copy, section)
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (run_id, state, seq);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    job_id INTEGER REFERENCES jobs(id),
    at TEXT NOT NULL,
    machine TEXT,
    kind TEXT NOT NULL,
    state TEXT,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS events_by_job ON events (job_id, id);
CREATE TABLE IF NOT EXISTS dealings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id INTEGER NOT NULL REFERENCES jobs(id),
    machine TEXT,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seen_deals (
    deal_hash TEXT NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    board INTEGER NOT NULL,
    PRIMARY KEY (deal_hash, run_id)
);
"""


@dataclass(frozen=True)
class Run:
    """One dealing run: a deal set dealt (in copies) from one source. `uid` names it wherever its
    journal goes (the deal history knows runs by it)."""

    id: int
    name: str
    source: str
    set_hash: str
    replay: bool
    finished: bool
    uid: str = ""


@dataclass(frozen=True)
class RunSpec:
    """A run to begin: its name and source, the deal set (each board once) and the copies to deal."""

    name: str
    source: str
    deals: DealSet
    plan: list[JobPlan]
    replay: bool = False


@dataclass(frozen=True)
class Job:
    """One copy of one board, as the journal knows it now."""

    id: int
    run_id: int
    seq: int
    board: int
    copy: int
    section: str
    set_name: str
    deal_hash: str
    state: JobState
    machine: str | None
    attempt: int
    wire_job: int = 0
    """The job number of its current dealing, as sent to the machine (`Journal.new_dealing`); 0: none yet."""


@dataclass(frozen=True)
class Recorded:
    """One event as the journal holds it: where and when, and what happened (`event`)."""

    id: int
    run_id: int
    job_id: int | None
    at: str
    machine: str | None
    state: JobState | None
    event: AnyEvent

    @property
    def kind(self) -> str:
        """The journal's ``kind`` of the event."""
        return kind_of(self.event)


STEP_EVENTS: Final[dict[JobState, type[Event]]] = {
    JobState.LOADED: Loaded, JobState.SCANNED: Scanned, JobState.DEALING: Dealing, JobState.DEALT: Dealt,
    JobState.VERIFIED: Verified}
"""The event of a plain step into a state, when `Journal.advance` is given none (PLANNED and FAULTED
always say why)."""


class Rows(Protocol):
    """What a statement gives back, in either store: its rows, and how many it changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """The connection the journal writes its statements to: SQLite's own, or PostgreSQL's behind
    `dealer.journal.postgres_journal` (the same statements, with ``?`` for each argument)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Any, /) -> Rows: ...

    def close(self) -> None: ...

    @property
    def in_transaction(self) -> bool: ...


Listener = Callable[["Recorded", "Job | None", object], None]
"""What hears each event the journal records (`Journal.listen`): the event as written, its job after the
step (None for an event of the run), and what the live run saw of it (`seen`, never written: a verifier's
report, which may name cards)."""


class Journal:
    """The journal of dealing runs, in an SQLite file. Thread-safe: one connection, one lock. What it guarantees:

    - **One live controller.** `open` takes the journal's lock (`dealer.journal.lock`, on
      ``<journal>.lock``, held until `close` or the process's death): a second process gets `JournalBusy`
      naming the holder. `open_read_only` (reports) takes no lock and never writes.
    - **Resume is exact.** A step is committed before the controller acts on it (LOADED before the deal
      is sent, DEALING before the machine is told to deal): after a crash or ``kill -9`` the journal says
      which boards may hold cards, and those (`uncertain_jobs`) are recounted before anything else.
    - **The main file alone is enough.** WAL mode (a live report reads while the run writes); every step
      a resume depends on is checkpointed into the main file before the call returns, so a lost ``-wal``
      or ``-shm`` can only undo steps the run redoes safely (docs/decisions/2026-12-01-journal-durability.md).
    - **No deal set is used twice (Law 6D2).** Each run records the hash of its deal set and of every deal;
      a new run whose deals another run dealt is refused (`DealReused`) unless it is a replay. Beyond one
      journal, the deal history (`dealer.journal.history`) does the same per computer.

    A journal of another schema version is refused, never migrated (`schema_problem`).

    **Told once.** Every event is written here and nowhere else; once its transaction is committed (and
    synced, where the step needs it), the written record is handed to each listener (`listen`), in the
    order written: the live view, the console and a run's summary are folds of that one stream.
    """

    ERRORS: ClassVar[tuple[type[Exception], ...]] = (sqlite3.Error,)
    """What the store raises when it cannot read or write."""
    IN_A_FILE: ClassVar[bool] = True
    """Whether the journal is a file of this computer (SQLite), watched against changes behind its back."""

    def __init__(self, connection: Connection, path: str, *, lock: JournalLock | None = None,
                 read_only: bool = False) -> None:
        self._db = connection
        self._lock = threading.RLock()
        self._file_lock = lock
        self.path = path
        self.read_only = read_only
        self._identity = None if read_only or path == ":memory:" or not self.IN_A_FILE else _identity(path)
        """The file this journal opened (device, inode): a step is never recorded in another."""
        self._wal_identity = None if self._identity is None else _identity(f"{path}-wal")
        """Its -wal (kept, emptied at each checkpoint, never removed while this journal is open)."""
        self._written: tuple[int, int, bytes] | None = None
        self._written = self._own_file()
        self._listeners: list[tuple[Listener, Delivery]] = []
        self._told: list[tuple[Recorded, Job | None, object]] = []
        """The events of the transaction in hand, handed to the listeners once it is committed."""

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, command: str = "dealer",
             lock: JournalLock | None = None) -> Journal:
        """Open a journal to write, holding its lock until `close` (`JournalBusy` if a live process holds it).

        With `create` a missing journal is created (mode 0600); without it (a resume) a journal that is
        missing, empty or corrupt raises `JournalError` naming the file. A symbolic link at the journal,
        at one of SQLite's side files or at the lock file is refused (`JournalError` naming it), never
        followed. `command` is what a refused second process is told holds the journal. `lock`: the
        journal's lock, taken already by the caller (to hold the journal while it checks what it is about
        to do); the journal then owns it.
        """
        path = str(path)
        if path == ":memory:":
            return cls(_connect(path, path, create=True), path)
        link = first_link([*database_files(path), lock_path(path)])
        if link is not None or (not create and not os.path.exists(path)):
            if lock is not None:
                lock.release()
            if link is not None:
                raise JournalError(link_text(link))
            raise JournalError(_("{journal}: no such journal, so no run to resume{advice}").format(
                journal=path, advice=_(LOST_ADVICE)))
        try:
            lock = lock or JournalLock.acquire(path, command)
        except OSError as exc:  # the lock file could be opened but not written (a full disk)
            raise journal_failure(path, exc, "opened") from exc
        fresh = create and _never_written(path)
        try:
            create_private(path)
            db = _connect(path, path, create=create)
        except IsALinkError as exc:
            lock.release()
            raise JournalError(str(exc)) from None
        except OSError as exc:
            lock.release()
            raise _unmade(path, fresh, journal_failure(path, exc, "opened")) from exc
        except JournalError as exc:
            lock.release()
            raise _unmade(path, fresh, exc) from exc
        except BaseException:
            lock.release()
            raise
        return cls(db, path, lock=lock)

    @classmethod
    def open_read_only(cls, path: str | Path) -> Journal:
        """Open a journal to read (a report): no lock taken, nothing written, a live run undisturbed. A
        reader writes SQLite's -shm side file, and SQLite puts the side files of a linked journal beside
        its target: a symbolic link at the journal or a side file is refused here too."""
        path = str(path)
        link = first_link(database_files(path))
        if link is not None:
            raise JournalError(link_text(link))
        if not os.path.isfile(path):
            raise JournalError(_("{journal}: no such journal").format(journal=path))
        uri = Path(path).absolute().as_uri() + "?mode=ro"
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=30)
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            problem = schema_problem(db, path) if tables else None
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            if is_damage(exc):
                raise JournalError(_("{path}: not a usable journal ({error}){advice}").format(
                    path=path, error=exc, advice=_(DAMAGED_ADVICE))) from exc
            raise journal_failure(path, exc, "read") from exc
        if problem is None and "runs" not in tables:
            problem = _("{path}: the journal is empty (it holds no run)").format(path=path)
        if problem is not None:
            db.close()
            raise JournalError(problem)
        return cls(db, path, read_only=True)

    def settle(self) -> None:
        """Bring every step into the main file and leave SQLite's side files behind (rollback mode until the
        journal is next opened to write): for a journal handed on as one file. Nothing if a reader holds it."""
        with self._lock, suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.execute("PRAGMA journal_mode=DELETE")

    def check_sound(self) -> None:
        """Refuse this journal as a resume would (`JournalError` naming it, with the same advice): damaged, of
        another schema, or disagreeing with itself. For a command that says whether a run can be resumed."""
        with self._lock:
            try:
                tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                _refuse_unsound(cast(sqlite3.Connection, self._db), self.path, tables)
            except JournalError:
                raise
            except sqlite3.Error as exc:
                if is_damage(exc):
                    raise JournalError(_("{path}: not a usable journal ({error}){advice}").format(
                        path=self.path, error=exc, advice=_(DAMAGED_ADVICE))) from exc
                raise journal_failure(self.path, exc, "read") from exc

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Within the block, every read sees the journal as it stood at the block's first read (one read
        transaction): the figures and the grid of one reading agree while a run writes."""
        with self._lock:
            self._begin_read()
            try:
                yield
            finally:
                self._db.execute("COMMIT")

    def close(self) -> None:
        """Close the database and let go of the journal's lock."""
        with self._lock:
            listening, self._listeners = self._listeners, []
        for _listener, delivery in listening:
            delivery.stop()
        with self._lock:
            try:
                self._db.close()
            except self.ERRORS as exc:
                raise self._failure(exc, "closed") from exc
            finally:
                if self._file_lock is not None:
                    self._file_lock.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, checkpoint: bool = False) -> Iterator[Connection]:
        """One write transaction; `checkpoint` brings the main file up to it and syncs it."""
        if self.read_only:
            raise JournalError(f"{self.path}: opened read-only")
        with self._lock:
            self._told.clear()
            try:
                self._begin_write()
                try:
                    yield self._db
                    self._db.execute("COMMIT")
                except BaseException:
                    self._roll_back()
                    raise
                self._committed(checkpoint)
                told, self._told = self._told, []
                for recorded, job, seen in told:  # queued in commit order, handed over on each listener's thread
                    for listener, delivery in self._listeners:
                        delivery.post(partial(listener, recorded, job, seen))
            except self.ERRORS as exc:
                raise self._failure(exc, "written") from exc

    # --- what the store does its own way (SQLite here; PostgreSQL in `PostgresJournal`) ----------------

    def _begin_write(self) -> None:
        """Begin a write transaction, the only writer of the journal until it ends."""
        self._db.execute("BEGIN IMMEDIATE")

    def _begin_read(self) -> None:
        """Begin a read transaction: every read in it sees one state of the journal."""
        self._db.execute("BEGIN")

    def _committed(self, checkpoint: bool) -> None:
        """What follows a commit: the step brought into the main file (`checkpoint`), or the -wal kept small."""
        if self.path != ":memory:":
            if checkpoint:
                self._checkpoint()
            else:
                self._bound_wal()

    def _failure(self, exc: Exception, verb: str) -> JournalError:
        """The one line of an error of the store met while the journal was `verb` (opened, read, written,
        closed)."""
        if verb == "written" and isinstance(exc, sqlite3.Error) and is_damage(exc) and self._identity is not None:
            return JournalDamaged(_("{path}: the journal was damaged while the run was dealing ({error})").format(
                path=self.path, error=exc))
        if verb == "read" and isinstance(exc, sqlite3.Error) and is_damage(exc):
            return JournalError(_("{path}: the journal cannot be read ({error})").format(path=self.path, error=exc))
        return journal_failure(self.path, exc, verb) if isinstance(exc, sqlite3.Error) else JournalError(str(exc))

    def _next_dealing(self, db: Connection) -> int:
        """The count the next dealing is given: past every one this journal ever gave (SQLite's AUTOINCREMENT
        keeps the highest, whatever became of its row)."""
        top = db.execute("SELECT MAX(id) FROM dealings").fetchone()[0] or 0
        given = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'dealings'").fetchone()
        return max(int(top), int(given[0]) if given else 0) + 1

    def _serialize_runs(self, db: Connection) -> None:
        """Within a write transaction: no other controller begins runs until it ends (one writer already)."""

    def refuse_held(self, run_id: int) -> None:
        """`JournalBusy` if another controller holds run `run_id` now. A journal file is held whole: whoever opened
        it to write holds every run, and a reader finds that by its lock (`dealer.journal.lock`)."""

    def _taken(self, db: Connection, run_id: int) -> None:
        """Within the transaction that begins run `run_id`: this controller holds it (a journal file: held whole)."""

    def hold(self, run_id: int, *, again: bool = False) -> None:
        """Hold run `run_id` for this controller until the journal is closed (`JournalBusy` naming the holder if
        another holds it). A journal file is held whole by its lock, from `open`: nothing more to take."""

    def take(self, run_id: int) -> bool:
        """Hold run `run_id` unless another controller holds it now: whether this one holds it (a journal file:
        always, held whole)."""
        return True

    def held_runs(self) -> dict[int, str]:
        """Every run another controller holds now, with who holds it: none for a journal file (held whole)."""
        return {}

    @property
    def shared(self) -> bool:
        """Whether several controllers may hold runs of this journal at once (a journal in a database)."""
        return not self.IN_A_FILE

    def listen(self, listener: Listener, failed: Failed | None = None) -> Delivery:
        """Hand `listener` every event recorded from now on, after its commit, in commit order, on a thread of
        its own (`dealer.journal.listeners`): a slow listener delays only itself, and one that raises is
        reported once (`failed`, else a line on standard error) and never reaches the writer. The `Delivery`
        returned takes what else the listener must see in the same order (`post`); its `stop` hands over what
        is queued and ends the listening."""
        def forget() -> None:
            with self._lock:
                self._listeners = [(each, d) for each, d in self._listeners if d is not delivery]

        delivery = Delivery(failed, on_stop=forget)
        with self._lock:
            self._listeners.append((listener, delivery))
        return delivery

    def _roll_back(self) -> None:
        """Undo the transaction in hand, if SQLite has not already (it rolls back by itself after some
        failures, such as a full disk); a rollback that fails too leaves the first error to be told."""
        if self._db.in_transaction:
            with suppress(*self.ERRORS):
                self._db.execute("ROLLBACK")

    def _checkpoint(self) -> None:
        """Copy every committed step into the main file, sync it, and empty the -wal file (waiting for
        readers, up to 30 s).

        Emptied, not merely copied: a -wal file whose frames are all in the main file still holds valid
        frames, and one cut short later (a truncated copy) would be replayed over the newer main file,
        taking the journal back to an older step. With the -wal emptied at every checkpoint (and SQLite's
        own checkpoints off), whatever the -wal holds is newer than the main file, and any part of it that
        survives is a consistent later state."""
        self._own_file()
        try:
            busy, _log, _checkpointed = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error:  # it may have written part of the main file first (a file-size limit reached)
            self._written = None
            self._written = self._own_file()  # as this checkpoint left it: its frames are still in the -wal
            raise
        if busy:
            raise JournalError(_("{path}: the journal's main file could not be brought up to date (kept busy by a "
                                 "reader); nothing more is dealt until it can").format(path=self.path))
        self._written = None  # as this checkpoint left it
        self._written = self._own_file()

    def confirm_on_disk(self, verified: Mapping[int, int]) -> None:
        """`JournalDamaged` unless the journal's file, opened again by its path with a connection of its own,
        is the file this journal opened, passes SQLite's integrity check and holds, for each run of
        `verified`, that many jobs verified: what a run calls a success must be on disk, whatever was done to
        the file behind this connection's back (cut, overwritten, replaced, a side file removed). Nothing
        for a journal in memory or read-only."""
        if self._identity is None:
            return
        with self._lock:
            self._own_file()
            try:
                db = sqlite3.connect(Path(self.path).absolute().as_uri() + "?mode=ro", uri=True, timeout=30)
            except sqlite3.Error as exc:  # the file is the one opened (just seen): the system would not open it
                raise self._not_looked(exc) from exc
            try:
                problems = [r[0] for r in db.execute("PRAGMA integrity_check(3)")]
                if problems != ["ok"]:
                    raise JournalDamaged(_("{path}: the journal on disk is damaged ({problems})").format(
                        path=self.path, problems=one_line(problems)))
                for run_id, wanted in verified.items():
                    held = db.execute("SELECT COUNT(*) FROM jobs WHERE run_id = ? AND state = ?",
                                      (run_id, JobState.VERIFIED.value)).fetchone()[0]
                    if held != wanted:
                        raise JournalDamaged(n_(
                            "{path}: the journal on disk holds {held} of the {wanted} board run {run} verified",
                            "{path}: the journal on disk holds {held} of the {wanted} boards run {run} verified",
                            wanted).format(path=self.path, held=held, wanted=wanted, run=run_id))
            except sqlite3.Error as exc:
                if is_damage(exc):
                    raise JournalDamaged(_("{path}: the journal on disk cannot be read ({error})").format(
                        path=self.path, error=exc)) from exc
                raise self._not_looked(exc) from exc
            except MemoryError as exc:
                raise refused(self.path, exc) from None
            finally:
                db.close()

    def _not_looked(self, exc: sqlite3.Error) -> JournalError:
        """The error of a look at the file on disk that SQLite could not take (`exc`, not damage): the system's
        shortage or refusal if one is found, else the journal that cannot be read (both resumable)."""
        failure = journal_failure(self.path, exc, "read")
        if isinstance(failure, SystemRefused):
            return failure
        try:
            with open(self.path, "rb"):
                pass
        except OSError as error:
            return refused(self.path, error)
        return failure

    def check_file(self) -> None:
        """`JournalDamaged` if the main file is not the one opened or was changed since this journal last
        wrote it (nothing for a journal read-only or in memory)."""
        with self._lock:
            self._own_file()

    def _own_file(self) -> tuple[int, int, bytes] | None:
        """The main file's (size, modification time, SQLite's 100-byte header), checked against what this
        journal last left it at: between checkpoints nothing writes it (SQLite's own checkpoints are off), so a
        file that is not the one opened, or was cut or written to by anyone else, is `JournalDamaged` before a
        step is trusted to it (the header too: a write within the clock tick of the last checkpoint leaves the
        modification time as it was). None for a journal in memory or read-only."""
        if self._identity is None:
            return None
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            raise JournalDamaged(_("{path}: the journal was removed while the run was dealing").format(
                path=self.path)) from None
        except OSError as exc:  # could not look: no verdict on the file
            raise refused(self.path, exc) from exc
        if (found.st_dev, found.st_ino) != self._identity:
            raise JournalDamaged(_("{path}: the journal was replaced by another file while the run was dealing").format(
                path=self.path))
        try:
            wal = _identity(f"{self.path}-wal")
        except FileNotFoundError:
            wal = None
        except OSError as exc:
            raise refused(self.path, exc) from exc
        if wal != self._wal_identity:
            raise JournalDamaged(_("{path}: the journal's -wal was removed or replaced while the run was dealing (by "
                                   "another program)").format(path=self.path))
        try:
            with open(self.path, "rb") as main:
                header = main.read(100)
        except FileNotFoundError:
            raise JournalDamaged(_("{path}: the journal was removed while the run was dealing").format(
                path=self.path)) from None
        except (OSError, MemoryError) as exc:  # no descriptor, no memory, no permission: nothing was read
            raise refused(self.path, exc) from exc
        now = found.st_size, found.st_mtime_ns, header
        if self._written is not None and now != self._written:
            raise JournalDamaged(_("{path}: the journal was cut or overwritten while the run was dealing (by another "
                                   "program: this run writes it only through its checkpoints)").format(path=self.path))
        return now

    def _bound_wal(self) -> None:
        """Checkpoint a -wal file grown past `MAX_WAL_BYTES` between the points that checkpoint anyway."""
        try:
            size = os.path.getsize(f"{self.path}-wal")
        except OSError:
            return
        if size > MAX_WAL_BYTES:
            self._checkpoint()

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """The rows of one read, a damaged file reported as `JournalError`. Under the journal's lock: a read
        of another station's thread running on the one connection would keep a checkpoint from finishing."""
        try:
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        except self.ERRORS as exc:
            raise self._failure(exc, "read") from exc

    # --- runs ---------------------------------------------------------------------------------

    def begin_run(self, name: str, source: str, deals: DealSet, plan: list[JobPlan], *,
                  replay: bool = False) -> Run:
        """Record a new run and its jobs; refuses a deal already used in another run (Law 6D2).

        `deals` holds the boards of the run (each board once); `plan` the copies to deal, in order.
        """
        return self.begin_runs([RunSpec(name, source, deals, plan, replay)])[0]

    def begin_runs(self, specs: list[RunSpec], *, hint: str | None = None, unless_begun: bool = False) -> list[Run]:
        """Record several runs (a congress: one per session) in one transaction: all of them or none.

        Each run is checked against Law 6D2 like `begin_run`, the runs before it in `specs` included,
        so two sessions of one plan cannot share a deal unless the later is a replay. `hint` replaces
        the advice given with a refusal (what the user should do about it). `unless_begun`: a spec whose run
        (its name and deal set) the journal holds already (another controller of a room began it) is that
        run, not a new one.
        """
        for spec in specs:
            boards = {int(b) for b in spec.deals.boards}
            missing = sorted({p.board for p in spec.plan} - boards)
            if missing:
                raise JournalError(_("the plan names boards not in the deal set: {boards}").format(boards=missing[:5]))
        with self._transaction(checkpoint=True) as db:
            self._serialize_runs(db)
            begun = {(name, set_hash): run_id for run_id, name, set_hash in db.execute(
                "SELECT id, name, set_hash FROM runs ORDER BY id")} if unless_begun else {}
            ids = [begun.get((spec.name, spec.deals.set_hash())) or self._insert_run(db, spec, hint) for spec in specs]
        return [self.run(i) for i in ids]

    def _insert_run(self, db: Connection, spec: RunSpec, hint: str | None) -> int:
        hashes = dict(zip((int(b) for b in spec.deals.boards), spec.deals.deal_hashes(), strict=True))
        if not spec.replay:
            self._refuse_reuse(db, hashes, spec.name, hint)
        run_id = int(db.execute(
            "INSERT INTO runs (name, source, set_hash, replay, created, uid) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (spec.name, spec.source, spec.deals.set_hash(), int(spec.replay), _now(), uuid.uuid4().hex)).fetchone()[0])
        db.executemany("INSERT INTO seen_deals VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                       [(h, run_id, b) for b, h in hashes.items()])
        db.executemany(
            "INSERT INTO jobs (run_id, seq, board, copy, section, set_name, deal_hash, state) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, i, p.board, p.copy, p.section, p.set_name, hashes[p.board], JobState.PLANNED.value)
             for i, p in enumerate(spec.plan)])
        self._event(db, run_id, None, None, RunStarted(name=spec.name, jobs=len(spec.plan), replay=spec.replay),
                    None)
        self._taken(db, run_id)
        return run_id

    def _refuse_reuse(self, db: Connection, hashes: dict[int, str], name: str, hint: str | None) -> None:
        marks = ",".join("?" * len(hashes))
        row = db.execute(
            f"SELECT s.board, r.name, r.id, r.finished FROM seen_deals s JOIN runs r ON r.id = s.run_id "
            f"WHERE s.deal_hash IN ({marks}) LIMIT 1", list(hashes.values())).fetchone()
        if row:
            advice = hint or (_("mark a replay event with --replay") if row[3] else
                              _("continue run {run} with --resume, or mark a replay event with --replay").format(
                                  run=row[2]))
            raise DealReused(_(
                "{name}: Law 6D2: a deal of this set was already dealt as board {board} of run {run} ({run_name}) of "
                "this journal; a deal may not be imported from another session ({advice})").format(
                name=name, board=row[0], run=row[2], run_name=row[1], advice=advice))

    def run(self, run_id: int) -> Run:
        """A run by id; `JournalError` if there is none."""
        rows = self._query(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,))
        if not rows:
            raise JournalError(_("{path}: no run {run}").format(path=self.path, run=run_id))
        return _run(rows[0])

    def runs(self) -> list[Run]:
        """Every run, oldest first."""
        return [_run(r) for r in self._query(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id")]

    def deal_hashes(self, run_id: int) -> dict[int, str]:
        """Board number -> the hash of the deal the run recorded for it (what proves a deal file is the one
        dealt, without the journal holding any deal)."""
        rows = self._query("SELECT board, deal_hash FROM seen_deals WHERE run_id = ? ORDER BY board", (run_id,))
        return {int(board): str(digest) for board, digest in rows}

    def unfinished_run(self, set_hash: str) -> Run | None:
        """The newest unfinished run of a deal set, if any (what --resume continues)."""
        rows = self._query(f"SELECT {_RUN_COLUMNS} FROM runs WHERE set_hash = ? AND finished IS NULL "
                           "ORDER BY id DESC LIMIT 1", (set_hash,))
        return _run(rows[0]) if rows else None

    def finish_run(self, run_id: int) -> None:
        """Mark a run finished; refused while any job is not verified."""
        with self._transaction(checkpoint=True) as db:
            left = db.execute("SELECT COUNT(*) FROM jobs WHERE run_id = ? AND state != ?",
                              (run_id, JobState.VERIFIED.value)).fetchone()[0]
            if left:
                raise JournalError(n_("run {run} has {count} board not verified",
                                      "run {run} has {count} boards not verified", left).format(run=run_id, count=left))
            db.execute("UPDATE runs SET finished = ? WHERE id = ?", (_now(), run_id))
            self._event(db, run_id, None, None, RunFinished(), None)

    # --- jobs ---------------------------------------------------------------------------------

    def jobs(self, run_id: int, states: set[JobState] | None = None) -> list[Job]:
        """The run's jobs in dealing order, optionally only those in `states`."""
        sql = f"SELECT {_JOB_COLUMNS} FROM jobs WHERE run_id = ?"
        args: list[int | str] = [run_id]
        if states is not None:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [s.value for s in states]
        return [_job(r) for r in self._query(sql + " ORDER BY seq", args)]

    def job(self, job_id: int) -> Job:
        """A job by id."""
        rows = self._query(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            raise JournalError(f"{self.path}: no job {job_id}")
        return _job(rows[0])

    def uncertain_jobs(self, run_id: int) -> list[Job]:
        """Jobs whose board may hold unverified cards (DEALING, DEALT): recount before anything else."""
        return self.jobs(run_id, set(UNCERTAIN))

    def advance(self, job_id: int, state: JobState, event: Event | None = None, *, machine: str | None = None,
                seen: object = None) -> Job:
        """Move a job to `state` and record why (`event`; by default the plain step, `STEP_EVENTS`), in one
        transaction; refuses an illegal transition.

        Going back to PLANNED from FAULTED starts a new attempt at the same deal. A step into DEALING,
        VERIFIED or FAULTED is in the main file and synced before this returns (the step into DEALING
        is what prevents dealing a board twice); the other steps are durable against a crash of the
        controller, and a power loss or a lost side file can only undo them back to a state from which
        the run redoes the step safely. `seen`: what the live run saw of it, for the listeners alone.
        """
        return self.advance_through(job_id, [(state, event)], machine=machine, seen=seen)

    def advance_through(self, job_id: int, steps: Sequence[tuple[JobState, Event | None]], *,
                        machine: str | None = None, seen: object = None) -> Job:
        """Move a job through several states (each with its event) in one transaction, each step checked
        and recorded as `advance` does it, synced and checkpointed as the strictest step needs (e.g.
        SCANNED then DEALING, taken back to back: one commit, and no state in between after a crash)."""
        states = [state for state, _ in steps]
        with self._transaction(checkpoint=not CHECKPOINTED.isdisjoint(states)) as db:
            row = db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                raise JournalError(f"{self.path}: no job {job_id}")
            job = _job(row)
            for state, event in steps:
                job = self._step(db, job, state, machine, event, seen)
        return job

    def _step(self, db: Connection, job: Job, state: JobState, machine: str | None,
              event: Event | None, seen: object = None) -> Job:
        """One step of `advance_through`, inside its transaction: the job as it is after it."""
        if event is None:
            if state not in STEP_EVENTS:
                raise JournalError(f"job {job.id} (board {job.board}): a step to {state} must say why")
            event = STEP_EVENTS[state]()
        if state not in TRANSITIONS[job.state]:
            raise JournalError(f"job {job.id} (board {job.board}): cannot go from {job.state} to {state}")
        attempt = job.attempt + (job.state is JobState.FAULTED and state is JobState.PLANNED)
        new_machine = None if state is JobState.PLANNED else (machine or job.machine)
        db.execute("UPDATE jobs SET state = ?, machine = ?, attempt = ? WHERE id = ?",
                   (state.value, new_machine, attempt, job.id))
        after = replace(job, state=state, machine=new_machine, attempt=attempt)
        self._event(db, job.run_id, after, machine or job.machine, event, state, seen)
        return after

    def claim_next(self, run_id: int | Sequence[int], machine: str) -> Job | None:
        """Take the first PLANNED job of the run for `machine`, moving it to LOADED; None when none is left.

        This is the scheduler of a run with several machines: each claim is one transaction, so two
        machines never get the same job. Given several runs (a congress), the first run in the order
        given that has a job left gives it.
        """
        with self._lock:
            for one in (run_id,) if isinstance(run_id, int) else run_id:
                rows = self._query("SELECT id FROM jobs WHERE run_id = ? AND state = ? ORDER BY seq LIMIT 1",
                                   (one, JobState.PLANNED.value))
                if rows:
                    return self.advance(rows[0][0], JobState.LOADED, machine=machine)
            return None

    def take_instead(self, held: int, wanted: int, machine: str, given_back: Event) -> Job | None:
        """Give job `held` (LOADED or SCANNED) back to the queue (`given_back`) and take PLANNED job `wanted`
        for `machine` (LOADED), in one transaction: the board in the machine is `wanted`'s. None, and nothing
        changed, when `wanted` is no longer PLANNED (another machine took it)."""
        with self._transaction() as db:
            rows = {row[0]: _job(row) for row in db.execute(
                f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id IN (?, ?)", (held, wanted)).fetchall()}
            if wanted not in rows or held not in rows or rows[wanted].state is not JobState.PLANNED:
                return None
            self._step(db, rows[held], JobState.PLANNED, None, given_back)
            return self._step(db, rows[wanted], JobState.LOADED, machine, None)

    def redeal(self, job_id: int, machine: str, event: Redeal | None = None) -> Job:
        """A FAULTED job back to PLANNED (a new attempt at the same deal, recorded by `event`) and at once
        LOADED on `machine`, in one transaction, so the board is redealt on the machine that holds it and no
        other machine can claim it in between."""
        with self._transaction() as db:
            row = db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                raise JournalError(f"{self.path}: no job {job_id}")
            job = self._step(db, _job(row), JobState.PLANNED, None, event or Redeal())
            return self._step(db, job, JobState.LOADED, machine, None)

    def new_dealing(self, job_id: int, machine: str | None = None,
                    reserve: Callable[[int], int] | None = None) -> Job:
        """A new job number for the next dealing of a job (every load of its deal into a machine: the
        first, every redeal, every attempt after a restart or a reconnection), recorded before it is sent.
        Numbers count up over the whole journal and are never given twice (SQLite's AUTOINCREMENT keeps
        the highest ever given); `reserve` (the machine's count over earlier runs, `DealHistory.reserve_job`)
        may raise the next one past what other journals gave the same machine. On the wire they are
        1..65535 (`wire_job_number`). Not checkpointed by itself: the DEALING step, before any card can go
        in, brings it into the main file."""
        with self._transaction() as db:
            following = self._next_dealing(db)
            dealing = reserve(following) if reserve is not None else following
            db.execute("INSERT INTO dealings (id, job_id, machine, at) VALUES (?, ?, ?, ?)",
                       (max(dealing, following), job_id, machine, _now()))
            number = wire_job_number(max(dealing, following))
            db.execute("UPDATE jobs SET wire_job = ? WHERE id = ?", (number, job_id))
        return self.job(job_id)

    def never_began(self, run_id: int) -> bool:
        """No job of the run was ever taken up (no dealing, every job PLANNED): a run refused before any machine
        did anything (a port in use, one serial on two ports), which a plain run takes up again."""
        return not self._query("SELECT 1 FROM jobs j WHERE j.run_id = ? AND (j.state != ? OR EXISTS "
                               "(SELECT 1 FROM dealings d WHERE d.job_id = j.id)) LIMIT 1",
                               (run_id, JobState.PLANNED.value))

    def last_dealing(self) -> int:
        """The highest dealing count this journal gave (its job numbers before the 16-bit wrap); 0 if none."""
        return int(self._query("SELECT MAX(id) FROM dealings")[0][0] or 0)

    def boards_dealing_began(self, run_id: int) -> set[int]:
        """The boards of the run whose dealing began: a job of theirs stepped into DEALING at least once."""
        rows = self._query("SELECT DISTINCT j.board FROM events e JOIN jobs j ON e.job_id = j.id "
                           "WHERE e.run_id = ? AND e.state = ?", (run_id, JobState.DEALING.value))
        return {int(r[0]) for r in rows}

    def dealing_boards(self, run_id: int) -> dict[int, int]:
        """Every job number the run's dealings were given, with the board number each dealt."""
        rows = self._query("SELECT d.id, j.board FROM dealings d JOIN jobs j ON d.job_id = j.id WHERE j.run_id = ?",
                           (run_id,))
        return {wire_job_number(int(number)): int(board) for number, board in rows}

    def wire_jobs(self) -> set[int]:
        """Every job number this journal gave a dealing (what a report of an earlier dealing carries)."""
        return {wire_job_number(int(r[0])) for r in self._query("SELECT id FROM dealings")}

    def counts(self, run_id: int) -> dict[JobState, int]:
        """How many jobs of the run are in each state."""
        rows = self._query("SELECT state, COUNT(*) FROM jobs WHERE run_id = ? GROUP BY state", (run_id,))
        found = {JobState(r[0]): r[1] for r in rows}
        return {s: found.get(s, 0) for s in JobState}

    def note(self, run_id: int, event: Event, *, job_id: int | None = None, machine: str | None = None,
             seen: object = None) -> None:
        """Record an event that changes no state (operator action, machine fault, prompt); `seen`: what the
        live run saw of it, for the listeners alone."""
        with self._transaction() as db:
            job = None
            if job_id is not None and self._listeners:  # the job as it stands, for those who hear the event
                row = db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
                job = _job(row) if row is not None else None
            self._event(db, run_id, job if job is not None else job_id, machine, event, None, seen)

    def has_event(self, job_id: int, kind: EventKind) -> bool:
        """True if the job has an event of this kind (e.g. `EventKind.CARDS_SHOWN`)."""
        return bool(self._query("SELECT 1 FROM events WHERE job_id = ? AND kind = ? LIMIT 1", (job_id, kind.value)))

    def last_event(self, run_id: int, kind: EventKind) -> Recorded | None:
        """The run's newest event of `kind` (e.g. `EventKind.RUN_TAKEN`: who dealt it last), if any."""
        rows = self._query(f"SELECT {_EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind = ? "
                           "ORDER BY id DESC LIMIT 1", (run_id, kind.value))
        return _recorded(rows[0]) if rows else None

    def events(self, run_id: int, job_id: int | None = None) -> list[Recorded]:
        """A run's events (or one job's), oldest first."""
        sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE run_id = ?"
        args: list[Any] = [run_id]
        if job_id is not None:
            sql += " AND job_id = ?"
            args.append(job_id)
        return [_recorded(r) for r in self._query(sql + " ORDER BY id", args)]

    def each_event(self, run_id: int) -> Iterator[Recorded]:
        """A run's events, oldest first, read `EVENTS_A_READ` at a time: a fold over a long run holds one such
        page of events, never the whole run (a 9,999-board run writes some 80,000)."""
        return self.events_after({run_id: 0})

    def events_after(self, marks: Mapping[int, int]) -> Iterator[Recorded]:
        """The events of each run of `marks` written after its event numbered `marks[run]`, oldest first, read
        `EVENTS_A_READ` at a time (`each_event`). Each run is followed by its own numbers: a run's events are
        numbered in the order they are committed (one controller holds it and writes them one transaction after
        another), but those of runs written by several controllers at once are not (a number is given at the
        insert, and a reader may see a later number committed before an earlier one)."""
        marks = dict(marks)
        while marks:
            pairs = ", ".join("(?, ?)" for _ in marks)
            rows = self._query(
                f"WITH marks (mark_run, mark_id) AS (VALUES {pairs}) SELECT {_EVENT_COLUMNS} FROM events "
                "JOIN marks ON run_id = mark_run AND id > mark_id WHERE id > ? ORDER BY id LIMIT ?",
                [*(n for pair in marks.items() for n in pair), min(marks.values()), EVENTS_A_READ])
            for row in rows:
                recorded = _recorded(row)
                marks[recorded.run_id] = recorded.id
                yield recorded
            if len(rows) < EVENTS_A_READ:
                return

    def _event(self, db: Connection, run_id: int, job: Job | int | None, machine: str | None,
               event: Event, state: JobState | None, seen: object = None) -> None:
        """Write one event (of `job`, a job or its id, or of the run) and keep it for the listeners."""
        job_id = job.id if isinstance(job, Job) else job
        at = _now()
        event_id = db.execute(
            "INSERT INTO events (run_id, job_id, at, machine, kind, state, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (run_id, job_id, at, machine, kind_of(event), state.value if state else None,
             json.dumps(event.detail(), sort_keys=True))).fetchone()[0]
        if self._listeners:
            recorded = Recorded(int(event_id), run_id, job_id, at, machine, state, cast(AnyEvent, event))
            self._told.append((recorded, job if isinstance(job, Job) else None, seen))

    # --- audit ----------------------------------------------------------------------------------

    def check_consistency(self, run_id: int) -> list[str]:
        """Problems found by replaying every job's state events; an empty list means consistent.

        Each job's state must be the last state its events reached, and every step must be a legal
        transition from the one before, starting at PLANNED. Read in one snapshot, so a controller writing
        meanwhile never makes the journal look at odds with itself.
        """
        try:
            with self.reading():  # one snapshot: the jobs and their events as they stood together
                return state_problems(self._db, run_id)
        except self.ERRORS as exc:
            raise self._failure(exc, "read") from exc


_JOB_COLUMNS: Final = "id, run_id, seq, board, copy, section, set_name, deal_hash, state, machine, attempt, wire_job"
_RUN_COLUMNS: Final = "id, name, source, set_hash, replay, finished, uid"
DAMAGED_ADVICE: Final = N_("; it can be neither resumed nor added to: keep it aside. If boards of this deal set may "
                            "hold cards, recount them with `dealer check` before dealing anything")
"""What a damaged journal's one line says to do, whichever command met it (a run, a resume, a report)."""
LOST_ADVICE: Final = N_(". If boards of this deal set may hold cards (a journal lost, moved or replaced), "
                         "recount them with `dealer check` before dealing anything")


def one_line(problems: Sequence[str]) -> str:
    """SQLite's integrity check's findings (which may hold line breaks) as one line of a message."""
    return "; ".join(" ".join(p.split()) for p in problems)


def state_problems(db: Connection, run_id: int | None = None) -> list[str]:
    """What `Journal.check_consistency` finds, in one run or (None) in every run: jobs whose state is not where
    their state events end, and steps that are no legal transition."""
    only, args = ("AND j.run_id = ?", (run_id,)) if run_id is not None else ("", ())
    jobs = db.execute(f"SELECT j.id, j.board, j.copy, j.state FROM jobs j WHERE TRUE {only} ORDER BY j.id",
                      args).fetchall()
    steps: dict[int, list[tuple[int, str]]] = {}
    for job_id, event_id, state in db.execute(
            "SELECT e.job_id, e.id, e.state FROM events e JOIN jobs j ON e.job_id = j.id "
            f"WHERE e.state IS NOT NULL {only} ORDER BY e.id", args):
        steps.setdefault(job_id, []).append((event_id, state))
    problems: list[str] = []
    for job_id, board, copy, recorded in jobs:
        state = JobState.PLANNED
        for event_id, value in steps.get(job_id, []):
            nxt = JobState(value)
            if nxt not in TRANSITIONS[state]:
                problems.append(_("board {board} copy {copy}: {state} -> {next} at event {event}").format(
                    board=board, copy=copy, state=state, next=nxt, event=event_id))
            state = nxt
        if state is not JobState(recorded):
            problems.append(_("board {board} copy {copy}: state {recorded} but events end at {state}").format(
                board=board, copy=copy, recorded=JobState(recorded), state=state))
    return problems


def _never_written(path: str) -> bool:
    """True if the journal at `path` holds nothing: no file, or an empty one without a -wal that holds any."""
    try:
        if os.path.getsize(path) > 0:
            return False
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        return os.path.getsize(f"{path}-wal") == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _unmade(path: str, fresh: bool, error: JournalError) -> JournalError:
    """`error`, met while making the journal at `path`: one that held nothing before (`fresh`) holds no run
    now either, so its files are removed, and the same command works once the cause is gone; where they cannot
    be, the line says they can go."""
    if not fresh:
        return error
    left = []
    for name in (path, f"{path}-wal", f"{path}-shm"):
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
        except OSError:
            left.append(name)
    if not left:
        return error
    return type(error)(_("{error}; nothing was dealt: {files} can be removed").format(
        error=error, files=", ".join(left)))


def _connect(target: str, path: str, *, create: bool) -> sqlite3.Connection:
    """A connection to a journal to write, checked (empty, corrupt) and brought to the current schema."""
    try:
        db = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=30)
    except sqlite3.Error as exc:
        raise journal_failure(path, exc, "opened") from exc
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables:
            _refuse_unsound(db, path, tables)
        if not create and ("runs" not in tables or not db.execute("SELECT 1 FROM runs LIMIT 1").fetchone()):
            raise JournalError(_("{path}: the journal is empty (it holds no run), so there is no run to resume; it may "
                                 "have lost its data (a truncated or replaced file){advice}").format(
                path=path, advice=_(LOST_ADVICE)))
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_autocheckpoint=0")  # the journal checkpoints itself (`Journal._checkpoint`)
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(_SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        if target != ":memory:":
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # what a killed run left in the -wal, into the main file
    except JournalError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        if not is_damage(exc):  # the file is sound; the disk, its folder or a limit refused a write
            raise journal_failure(path, exc, "opened") from exc
        raise JournalError(_("{path}: not a usable journal ({error}){advice}").format(
            path=path, error=exc, advice=_(DAMAGED_ADVICE))) from exc
    return db


def _refuse_unsound(db: sqlite3.Connection, path: str, tables: set[str]) -> None:
    """Refuse a journal (not empty) that fails SQLite's integrity check (`sqlite3.DatabaseError`), is of another
    schema (`JournalError`) or disagrees with itself (`JournalDamaged`): the checks of every command that is to
    resume it or to say whether it can be, so that each gives the same advice."""
    problems = [r[0] for r in db.execute("PRAGMA integrity_check(3)")]  # indexes against their tables too
    if problems != ["ok"]:
        raise sqlite3.DatabaseError(one_line(problems))
    problem = schema_problem(db, path)
    if problem is not None:  # refused before anything is written to it
        raise JournalError(problem)
    torn = [problem for run, in db.execute("SELECT id FROM runs WHERE finished IS NULL")
            for problem in state_problems(db, run)] if "runs" in tables else []
    if torn:  # refused before anything is written to it, so that a -wal found later still mends it
        found = (torn[0] if len(torn) == 1 else _("{problem} (and {more} more)").format(
            problem=torn[0], more=len(torn) - 1))
        raise JournalDamaged(_(
            "{path}: the journal disagrees with itself ({found}): its main file was left part-written, as a "
            "checkpoint cut short leaves it when its -wal is then lost or cut; it can be neither resumed nor "
            "added to: keep it aside (with its -wal, if a copy is found){advice}").format(
            path=path, found=found, advice=_(LOST_ADVICE)))


def schema_problem(db: sqlite3.Connection, path: str) -> str | None:
    """Why the journal in `db` (not empty) is not one this version can read and write (`schema_verdict`), or None.
    A file without any of the journal's tables is not a journal at all."""
    found = {name: {r[1] for r in db.execute(f"PRAGMA table_info({name})")} for name in schema_columns()}
    if not any(found.values()):
        return _("{path}: not a journal (an SQLite file without the journal's tables)").format(path=path)
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if found["meta"] else None
    return schema_verdict(found, str(row[0]) if row is not None else None, path)


def schema_verdict(found: Mapping[str, set[str]], version: str | None, path: str) -> str | None:
    """Why a journal with tables of these columns (`found`) and schema `version` cannot be used, or None.

    A journal of a newer schema is left to the version that wrote it. One of an older schema, or without
    every table and column of `_SCHEMA`, was written by a development version before any release: nothing
    migrates it."""
    if version is not None and version.isdigit() and int(version) > SCHEMA_VERSION:
        return _("{path}: the journal's schema is version {version}, newer than this dealer's (version {ours}): "
                 "open it with the newer dealer that wrote it").format(path=path, version=version, ours=SCHEMA_VERSION)
    missing = [f"{name}.{column}" for name, columns in schema_columns().items()
               for column in sorted(columns - found[name])]
    if version != str(SCHEMA_VERSION) or missing:
        what = (_("schema version {version}").format(version=version) if version is not None
                else _("no schema version"))
        if missing:
            what = _("{what}, no {column}").format(what=what, column=missing[0])
        return _("{path}: written by an earlier development version of dealer ({what}; this dealer's is {ours}): it "
                 "cannot be resumed or reported").format(path=path, what=what, ours=SCHEMA_VERSION)
    return None


@cache
def schema_columns() -> dict[str, frozenset[str]]:
    """Table -> its columns, as `_SCHEMA` makes them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                  if not r[0].startswith("sqlite_")]  # SQLite's own (sqlite_sequence)
        return {name: frozenset(r[1] for r in db.execute(f"PRAGMA table_info({name})")) for name in tables}
    finally:
        db.close()


def wire_job_number(dealing: int) -> int:
    """The 16-bit job number sent to the machine for the journal's `dealing`-th dealing (never 0)."""
    return (dealing - 1) % 0xFFFF + 1


def _run(row: tuple[Any, ...]) -> Run:
    return Run(row[0], row[1], row[2], row[3], bool(row[4]), row[5] is not None, row[6] or "")


_EVENT_COLUMNS: Final = "id, run_id, job_id, at, machine, kind, state, detail"


def _recorded(row: tuple[Any, ...]) -> Recorded:
    return Recorded(row[0], row[1], row[2], row[3], row[4], JobState(row[6]) if row[6] else None,
                    decode(row[5], json.loads(row[7])))


def _job(row: tuple[Any, ...]) -> Job:
    return Job(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], JobState(row[8]), row[9], row[10],
               row[11])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _identity(path: str) -> tuple[int, int]:
    """(device, inode) of the file at `path`."""
    found = os.stat(path)
    return found.st_dev, found.st_ino
