"""The journal: an SQLite (WAL) record of every board's life, written before each step is acted on.

It owns three guarantees of a dealing run:

- **Resume is exact.** Every job (one copy of one board) has a state; a step is committed before the
  controller acts on it (LOADED before the deal is sent, DEALING before the machine is told to deal),
  so after a crash or `kill -9` the journal says exactly which boards may hold cards.
- **Nothing is dealt twice.** A job whose state is DEALING or DEALT was possibly dealt: the run must
  recount its board before anything else happens to it (see :meth:`Journal.uncertain_jobs`).
- **No deal set is used twice (Law 6D2).** Each run records the hash of its deal set and of every
  deal; a new run whose deals were seen in another run is refused unless it is marked a replay.

The journal holds hashes and fault codes, never deals or seeds; the file is still created 0600.
Job life::

    PLANNED -> LOADED -> SCANNED -> DEALING -> DEALT -> VERIFIED
                  \\          \\         \\          \\-> FAULTED -> PLANNED (redeal the same deal)
                   `-> PLANNED `-> PLANNED `-> DEALT / FAULTED / PLANNED (after a recount)
                   `-> FAULTED `-> FAULTED (the board was refused too often: the director sees to it)
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from dealer.core.dealset import DealSet
from dealer.core.errors import JournalError
from dealer.dealing.jobplan import JobPlan

SCHEMA_VERSION: Final = 1


class JobState(StrEnum):
    """Where one copy of one board is in its life."""

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

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    set_hash TEXT NOT NULL,
    replay INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    finished TEXT
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
CREATE TABLE IF NOT EXISTS seen_deals (
    deal_hash TEXT NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    board INTEGER NOT NULL,
    PRIMARY KEY (deal_hash, run_id)
);
"""


@dataclass(frozen=True)
class Run:
    """One dealing run: a deal set dealt (in copies) from one source."""

    id: int
    name: str
    source: str
    set_hash: str
    replay: bool
    finished: bool


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


class Journal:
    """The SQLite journal of dealing runs. Thread-safe: one connection, one lock."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self._lock = threading.RLock()
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """Open or create a journal file (mode 0600) in WAL mode."""
        path = str(path)
        if path != ":memory:" and not os.path.exists(path):
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{path}: not a usable journal ({exc})") from exc
        return cls(db, path)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, sync: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction; `sync` makes its commit (and every earlier one) reach the disk."""
        with self._lock:
            if sync:
                self._db.execute("PRAGMA synchronous=FULL")
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            finally:
                if sync:
                    self._db.execute("PRAGMA synchronous=NORMAL")

    # --- runs ---------------------------------------------------------------------------------

    def begin_run(self, name: str, source: str, deals: DealSet, plan: list[JobPlan], *,
                  replay: bool = False) -> Run:
        """Record a new run and its jobs; refuses a deal already used in another run (Law 6D2).

        `deals` holds the boards of the run (each board once); `plan` the copies to deal, in order.
        """
        return self.begin_runs([RunSpec(name, source, deals, plan, replay)])[0]

    def begin_runs(self, specs: list[RunSpec], *, hint: str | None = None) -> list[Run]:
        """Record several runs (a congress: one per session) in one transaction: all of them or none.

        Each run is checked against Law 6D2 like `begin_run`, the runs before it in `specs` included,
        so two sessions of one plan cannot share a deal unless the later is a replay. `hint` replaces
        the advice given with a refusal (what the user should do about it).
        """
        for spec in specs:
            boards = {int(b) for b in spec.deals.boards}
            missing = sorted({p.board for p in spec.plan} - boards)
            if missing:
                raise JournalError(f"the plan names boards not in the deal set: {missing[:5]}")
        with self._transaction() as db:
            ids = [self._insert_run(db, spec, hint) for spec in specs]
        return [self.run(i) for i in ids]

    def _insert_run(self, db: sqlite3.Connection, spec: RunSpec, hint: str | None) -> int:
        hashes = dict(zip((int(b) for b in spec.deals.boards), spec.deals.deal_hashes(), strict=True))
        if not spec.replay:
            self._refuse_reuse(db, hashes, spec.name, hint)
        cur = db.execute(
            "INSERT INTO runs (name, source, set_hash, replay, created) VALUES (?, ?, ?, ?, ?)",
            (spec.name, spec.source, spec.deals.set_hash(), int(spec.replay), _now()))
        run_id = int(cur.lastrowid or 0)
        db.executemany("INSERT OR IGNORE INTO seen_deals VALUES (?, ?, ?)",
                       [(h, run_id, b) for b, h in hashes.items()])
        db.executemany(
            "INSERT INTO jobs (run_id, seq, board, copy, section, set_name, deal_hash, state) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, i, p.board, p.copy, p.section, p.set_name, hashes[p.board], JobState.PLANNED.value)
             for i, p in enumerate(spec.plan)])
        self._event(db, run_id, None, None, "run-started",
                    None, {"name": spec.name, "jobs": len(spec.plan), "replay": spec.replay})
        return run_id

    def _refuse_reuse(self, db: sqlite3.Connection, hashes: dict[int, str], name: str, hint: str | None) -> None:
        marks = ",".join("?" * len(hashes))
        row = db.execute(
            f"SELECT s.board, r.name, r.id FROM seen_deals s JOIN runs r ON r.id = s.run_id "
            f"WHERE s.deal_hash IN ({marks}) LIMIT 1", list(hashes.values())).fetchone()
        if row:
            advice = hint or ("resume that run with --resume, or mark a replay event with --replay")
            raise JournalError(
                f"{name}: Law 6D2: a deal of this set was already dealt as board {row[0]} of run "
                f"{row[2]} ({row[1]}); a deal may not be imported from another session ({advice})")

    def run(self, run_id: int) -> Run:
        """A run by id; `JournalError` if there is none."""
        row = self._db.execute(
            "SELECT id, name, source, set_hash, replay, finished FROM runs WHERE id = ?", (run_id,)
        ).fetchone()
        if row is None:
            raise JournalError(f"{self.path}: no run {run_id}")
        return Run(row[0], row[1], row[2], row[3], bool(row[4]), row[5] is not None)

    def runs(self) -> list[Run]:
        """Every run, oldest first."""
        ids = [r[0] for r in self._db.execute("SELECT id FROM runs ORDER BY id")]
        return [self.run(i) for i in ids]

    def deal_hashes(self, run_id: int) -> dict[int, str]:
        """Board number -> the hash of the deal the run recorded for it (what proves a deal file is the one
        dealt, without the journal holding any deal)."""
        rows = self._db.execute("SELECT board, deal_hash FROM seen_deals WHERE run_id = ? ORDER BY board",
                                (run_id,)).fetchall()
        return {int(board): str(digest) for board, digest in rows}

    def unfinished_run(self, set_hash: str) -> Run | None:
        """The newest unfinished run of a deal set, if any (what --resume continues)."""
        row = self._db.execute(
            "SELECT id FROM runs WHERE set_hash = ? AND finished IS NULL ORDER BY id DESC LIMIT 1",
            (set_hash,)).fetchone()
        return None if row is None else self.run(row[0])

    def finish_run(self, run_id: int) -> None:
        """Mark a run finished; refused while any job is not verified."""
        with self._transaction() as db:
            left = db.execute("SELECT COUNT(*) FROM jobs WHERE run_id = ? AND state != ?",
                              (run_id, JobState.VERIFIED.value)).fetchone()[0]
            if left:
                raise JournalError(f"run {run_id} has {left} boards not verified")
            db.execute("UPDATE runs SET finished = ? WHERE id = ?", (_now(), run_id))
            self._event(db, run_id, None, None, "run-finished", None, {})

    # --- jobs ---------------------------------------------------------------------------------

    def jobs(self, run_id: int, states: set[JobState] | None = None) -> list[Job]:
        """The run's jobs in dealing order, optionally only those in `states`."""
        sql = f"SELECT {_JOB_COLUMNS} FROM jobs WHERE run_id = ?"
        args: list[int | str] = [run_id]
        if states is not None:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [s.value for s in states]
        return [_job(r) for r in self._db.execute(sql + " ORDER BY seq", args).fetchall()]

    def job(self, job_id: int) -> Job:
        """A job by id."""
        row = self._db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise JournalError(f"{self.path}: no job {job_id}")
        return _job(row)

    def uncertain_jobs(self, run_id: int) -> list[Job]:
        """Jobs whose board may hold unverified cards (DEALING, DEALT): recount before anything else."""
        return self.jobs(run_id, set(UNCERTAIN))

    def advance(self, job_id: int, state: JobState, *, machine: str | None = None,
                kind: str | None = None, detail: dict[str, Any] | None = None) -> Job:
        """Move a job to `state` and record why, in one transaction; refuses an illegal transition.

        Going back to PLANNED from FAULTED starts a new attempt at the same deal. The step into
        DEALING is synced to disk before this returns (it is what prevents dealing a board twice);
        the other steps are durable against a crash of the controller, and a power loss can only
        undo them back to a state from which the run redoes the step safely.
        """
        with self._transaction(sync=state is JobState.DEALING) as db:
            row = db.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                raise JournalError(f"{self.path}: no job {job_id}")
            job = _job(row)
            if state not in TRANSITIONS[job.state]:
                raise JournalError(f"job {job_id} (board {job.board}): cannot go from {job.state} to {state}")
            attempt = job.attempt + (job.state is JobState.FAULTED and state is JobState.PLANNED)
            new_machine = None if state is JobState.PLANNED else (machine or job.machine)
            db.execute("UPDATE jobs SET state = ?, machine = ?, attempt = ? WHERE id = ?",
                       (state.value, new_machine, attempt, job_id))
            self._event(db, job.run_id, job_id, machine or job.machine, kind or state.value, state,
                        detail or {})
        return replace(job, state=state, machine=new_machine, attempt=attempt)

    def claim_next(self, run_id: int | Sequence[int], machine: str, *,
                   detail: dict[str, Any] | None = None) -> Job | None:
        """Take the first PLANNED job of the run for `machine`, moving it to LOADED; None when none is left.

        This is the scheduler of a run with several machines: each claim is one transaction, so two
        machines never get the same job. Given several runs (a congress), the first run in the order
        given that has a job left gives it.
        """
        with self._lock:
            for one in (run_id,) if isinstance(run_id, int) else run_id:
                row = self._db.execute(
                    "SELECT id FROM jobs WHERE run_id = ? AND state = ? ORDER BY seq LIMIT 1",
                    (one, JobState.PLANNED.value)).fetchone()
                if row is not None:
                    return self.advance(row[0], JobState.LOADED, machine=machine, detail=detail)
            return None

    def redeal(self, job_id: int, machine: str, *, detail: dict[str, Any] | None = None) -> Job:
        """A FAULTED job back to PLANNED (a new attempt at the same deal) and at once LOADED on `machine`,
        atomically, so the board is redealt on the machine that holds it."""
        with self._lock:
            self.advance(job_id, JobState.PLANNED, kind="redeal", detail=detail)
            return self.advance(job_id, JobState.LOADED, machine=machine)

    def counts(self, run_id: int) -> dict[JobState, int]:
        """How many jobs of the run are in each state."""
        rows = self._db.execute("SELECT state, COUNT(*) FROM jobs WHERE run_id = ? GROUP BY state",
                                (run_id,)).fetchall()
        found = {JobState(r[0]): r[1] for r in rows}
        return {s: found.get(s, 0) for s in JobState}

    def note(self, run_id: int, kind: str, detail: dict[str, Any] | None = None, *,
             job_id: int | None = None, machine: str | None = None) -> None:
        """Record an event that changes no state (operator action, machine fault, prompt)."""
        with self._transaction() as db:
            self._event(db, run_id, job_id, machine, kind, None, detail or {})

    def events(self, run_id: int, job_id: int | None = None) -> list[dict[str, Any]]:
        """A run's events (or one job's), oldest first, as dicts."""
        sql = "SELECT id, job_id, at, machine, kind, state, detail FROM events WHERE run_id = ?"
        args: list[Any] = [run_id]
        if job_id is not None:
            sql += " AND job_id = ?"
            args.append(job_id)
        rows = self._db.execute(sql + " ORDER BY id", args).fetchall()
        return [{"id": r[0], "job_id": r[1], "at": r[2], "machine": r[3], "kind": r[4],
                 "state": r[5], "detail": json.loads(r[6])} for r in rows]

    def _event(self, db: sqlite3.Connection, run_id: int, job_id: int | None, machine: str | None,
               kind: str, state: JobState | None, detail: dict[str, Any]) -> None:
        db.execute(
            "INSERT INTO events (run_id, job_id, at, machine, kind, state, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, job_id, _now(), machine, kind, state.value if state else None,
             json.dumps(detail, sort_keys=True)))

    # --- audit ----------------------------------------------------------------------------------

    def check_consistency(self, run_id: int) -> list[str]:
        """Problems found by replaying every job's state events; an empty list means consistent.

        Each job's state must be the last state its events reached, and every step must be a legal
        transition from the one before, starting at PLANNED.
        """
        problems: list[str] = []
        for job in self.jobs(run_id):
            state = JobState.PLANNED
            for ev in self.events(run_id, job.id):
                if ev["state"] is None:
                    continue
                nxt = JobState(ev["state"])
                if nxt not in TRANSITIONS[state]:
                    problems.append(f"board {job.board} copy {job.copy}: {state} -> {nxt} at event {ev['id']}")
                state = nxt
            if state is not job.state:
                problems.append(f"board {job.board} copy {job.copy}: state {job.state} but events end at {state}")
        return problems


_JOB_COLUMNS: Final = "id, run_id, seq, board, copy, section, set_name, deal_hash, state, machine, attempt"


def _job(row: tuple[Any, ...]) -> Job:
    return Job(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], JobState(row[8]), row[9], row[10])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
