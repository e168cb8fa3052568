"""What the journal costs per board, and whether its main file alone resumes, against two other ways of
reaching the disk.

Run from the project root: ``python benchmarks/journal.py [--boards 200] [--rounds 3] [--dir FOLDER] [--quick]``.
FOLDER (default: a temporary folder) should be on the disk a real journal lives on: the costs are
syncs. In the same run, one after the other and in turn over the rounds (the median is shown):

* ``checkpoint``: ours, the `Journal` as a run uses it (WAL; the run's start and end, every step into
  DEALING and every verification checkpointed into the main file and synced);
* ``sync-dealing``: the named baseline, the journal as it was (WAL; only the step into DEALING synced,
  into the -wal file; SQLite's own checkpoints; the main file may hold nothing until a clean close);
* ``rollback``: a rollback journal with every commit synced (journal_mode=DELETE, synchronous=FULL).

The baselines run the statements the journal runs, on its schema, with bare `sqlite3` (written out below).
Each board goes the way a verified board goes in a run: claimed (LOADED), SCANNED, DEALING, DEALT,
VERIFIED, plus one note. Figures: milliseconds of wall time per board, the same against the baseline, and
whether a copy of the main file alone, taken while the journal is still open (as a kill leaves it), holds
every board verified.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from _support import header

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer.core.dealset import DealSet  # noqa: E402
from dealer.journal import store  # noqa: E402
from dealer.journal.events import BoardMoved  # noqa: E402
from dealer.journal.jobplan import JobPlan  # noqa: E402
from dealer.journal.store import JobState, Journal  # noqa: E402

OURS = "checkpoint"
BASELINE = "sync-dealing"
BASELINES = {BASELINE: "the journal before: WAL, only the step into DEALING synced (into the -wal file)",
             "rollback": "a rollback journal, every commit synced (journal_mode=DELETE, synchronous=FULL)"}
STEPS = (JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED)


def deal_set(boards: int, seed: int) -> DealSet:
    rng = np.random.default_rng(seed)
    deals = np.stack([(rng.permutation(52) // 13).astype(np.uint8) for _ in range(boards)])
    return DealSet.from_deals(deals)


def ours(path: Path, deals: DealSet, copy: Path) -> float:
    """Seconds for the run through the `Journal` API; `copy` gets the main file before the journal closes."""
    journal = Journal.open(path)
    try:
        start = time.perf_counter()
        run = journal.begin_run("bench", "bench.pbn", deals, [JobPlan(int(b), 1) for b in deals.boards])
        for _ in deals.boards:
            job = journal.claim_next(run.id, "m1")
            assert job is not None
            for state in STEPS:
                journal.advance(job.id, state)
            journal.note(run.id, BoardMoved(), job_id=job.id, machine="m1")
        elapsed = time.perf_counter() - start
        shutil.copyfile(path, copy)
    finally:
        journal.close()
    return elapsed


def bare(path: Path, deals: DealSet, copy: Path, mode: str) -> float:
    """Seconds for the same run with the journal's statements on bare `sqlite3`, as `mode` reaches the disk."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        if mode == "rollback":
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("PRAGMA synchronous=FULL")
        else:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(store._SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(store.SCHEMA_VERSION),))
        start = time.perf_counter()
        run_id = begin(db, deals)
        for _ in deals.boards:
            (job_id,) = db.execute("SELECT id FROM jobs WHERE run_id = ? AND state = ? ORDER BY seq LIMIT 1",
                                   (run_id, JobState.PLANNED.value)).fetchone()
            step(db, run_id, job_id, JobState.LOADED, {}, sync=False)
            for state in STEPS:
                step(db, run_id, job_id, state, {"bench": True}, sync=mode == "sync-dealing"
                     and state is JobState.DEALING)
            with transaction(db):
                event(db, run_id, job_id, "board-out", None, {})
        elapsed = time.perf_counter() - start
        shutil.copyfile(path, copy)
    finally:
        db.close()
    return elapsed


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT, as the journal writes."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def begin(db: sqlite3.Connection, deals: DealSet) -> int:
    hashes = dict(zip((int(b) for b in deals.boards), deals.deal_hashes(), strict=True))
    with transaction(db):
        db.execute(f"SELECT 1 FROM seen_deals WHERE deal_hash IN ({','.join('?' * len(hashes))}) LIMIT 1",
                   list(hashes.values())).fetchone()
        cur = db.execute("INSERT INTO runs (name, source, set_hash, replay, created, uid) VALUES (?, ?, ?, ?, ?, ?)",
                         ("bench", "bench.pbn", deals.set_hash(), 0, now(), uuid.uuid4().hex))
        run_id = int(cur.lastrowid or 0)
        db.executemany("INSERT OR IGNORE INTO seen_deals VALUES (?, ?, ?)", [(h, run_id, b) for b, h in hashes.items()])
        db.executemany("INSERT INTO jobs (run_id, seq, board, copy, section, set_name, deal_hash, state) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, i, b, 1, "", "", h, JobState.PLANNED.value)
                        for i, (b, h) in enumerate(hashes.items())])
        event(db, run_id, None, "run-started", None, {"name": "bench", "jobs": len(hashes), "replay": False})
    return run_id


def step(db: sqlite3.Connection, run_id: int, job_id: int, state: JobState, detail: dict[str, object], *,
         sync: bool) -> None:
    if sync:
        db.execute("PRAGMA synchronous=FULL")
    with transaction(db):
        db.execute("SELECT id, run_id, seq, board, copy, section, set_name, deal_hash, state, machine, attempt "
                   "FROM jobs WHERE id = ?", (job_id,)).fetchone()
        db.execute("UPDATE jobs SET state = ?, machine = ?, attempt = ? WHERE id = ?", (state.value, "m1", 1, job_id))
        event(db, run_id, job_id, state.value, state, detail)
    if sync:
        db.execute("PRAGMA synchronous=NORMAL")


def event(db: sqlite3.Connection, run_id: int, job_id: int | None, kind: str, state: JobState | None,
          detail: dict[str, object]) -> None:
    db.execute("INSERT INTO events (run_id, job_id, at, machine, kind, state, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
               (run_id, job_id, now(), "m1", kind, state.value if state else None, json.dumps(detail, sort_keys=True)))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def one_run(folder: Path, mode: str, deals: DealSet) -> tuple[float, int]:
    """Seconds per board for a run of every board of `deals`, and the boards verified in a copy of the main
    file alone taken before the journal is closed."""
    path = folder / f"{mode}.journal"
    for side in ("", "-wal", "-shm", "-journal", ".lock"):
        Path(f"{path}{side}").unlink(missing_ok=True)
    copy = folder / f"{mode}-main-file-alone.journal"
    elapsed = ours(path, deals, copy) if mode == OURS else bare(path, deals, copy, mode)
    return elapsed / len(deals.boards), verified_in(copy)


def verified_in(path: Path) -> int:
    try:
        with Journal.open_read_only(path) as alone:
            return sum(alone.counts(run.id)[JobState.VERIFIED] for run in alone.runs())
    except Exception:  # an empty main file holds no run at all
        return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the journals are written")
    parser.add_argument("--quick", action="store_true", help="a first look: 12 boards, one round")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards, args.rounds = 12, 1
    header("journal: cost per board of each way the journal reaches the disk, and whether its main file alone "
           "holds the run", BASELINES,
           f"{args.boards} boards, median of {args.rounds} rounds, journals in "
           f"{args.dir or tempfile.gettempdir()}; ours: {OURS}")
    print()
    folder = Path(tempfile.mkdtemp(prefix="dealer-journal-bench-", dir=args.dir))
    modes = [BASELINE, OURS, *(name for name in BASELINES if name != BASELINE)]
    per_board: dict[str, list[float]] = {m: [] for m in modes}
    alone: dict[str, int] = {}
    try:
        for r in range(args.rounds):
            for mode in modes[r % len(modes):] + modes[:r % len(modes)]:
                cost, verified = one_run(folder, mode, deal_set(args.boards, r))
                per_board[mode].append(cost)
                alone[mode] = verified
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    base = statistics.median(per_board[BASELINE])
    print(f"{'durability':<14} {'ms/board':>9} {'vs baseline':>12}  {'main file alone holds'}")
    for mode in modes:
        ms = statistics.median(per_board[mode]) * 1000
        extra = (statistics.median(per_board[mode]) - base) * 1000
        held = f"{alone[mode]}/{args.boards} boards verified"
        print(f"{mode:<14} {ms:>9.2f} {extra:>+10.2f}ms  {held}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
