"""What the journal costs per board, and whether its main file alone resumes, for each way it can reach the disk.

Run from the project root: ``python benchmarks/journal.py [--boards 200] [--rounds 3] [--dir FOLDER] [--quick]``.
FOLDER (default: a temporary folder) should be on the disk a real journal lives on: the costs are
syncs. For each `dealer.journal.store.Durability`, in the same run, one after the other and in
turn over the rounds (the median is shown):

* ``sync-dealing``: the named baseline, the journal as it was (WAL; only the step into DEALING synced,
  into the -wal file; the main file holds nothing until a clean close);
* ``checkpoint``: the journal now (WAL; the run's start and end, every step into DEALING and every
  verification checkpointed into the main file and synced);
* ``rollback``: a rollback journal with every commit synced (synchronous=FULL).

Each board goes the way a verified board goes in a run: claimed (LOADED), SCANNED, DEALING, DEALT,
VERIFIED, plus one note, through the `Journal` API a run uses. Figures: milliseconds of wall time per
board, the same against the baseline, and whether a copy of the main file alone, taken while the
journal is still open (as a kill leaves it), holds every board verified.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _support import header

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer.core.dealset import DealSet  # noqa: E402
from dealer.journal.jobplan import JobPlan  # noqa: E402
from dealer.journal.store import Durability, JobState, Journal  # noqa: E402

BASELINE = Durability.SYNC_DEALING
STEPS = (JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED)


def deal_set(boards: int, seed: int) -> DealSet:
    rng = np.random.default_rng(seed)
    deals = np.stack([(rng.permutation(52) // 13).astype(np.uint8) for _ in range(boards)])
    return DealSet.from_deals(deals)


def one_run(folder: Path, durability: Durability, deals: DealSet) -> tuple[float, int]:
    """Seconds per board for a run of every board of `deals`, and the boards verified in a copy of the main
    file alone taken before the journal is closed."""
    path = folder / f"{durability.value}.journal"
    for side in ("", "-wal", "-shm", "-journal", ".lock"):
        Path(f"{path}{side}").unlink(missing_ok=True)
    journal = Journal.open(path, durability=durability)
    try:
        start = time.perf_counter()
        run = journal.begin_run("bench", "bench.pbn", deals, [JobPlan(int(b), 1) for b in deals.boards])
        for _ in deals.boards:
            job = journal.claim_next(run.id, "m1")
            assert job is not None
            for state in STEPS:
                journal.advance(job.id, state, detail={"bench": True})
            journal.note(run.id, "board-out", job_id=job.id, machine="m1")
        elapsed = time.perf_counter() - start
        copy = folder / f"{durability.value}-main-file-alone.journal"
        shutil.copyfile(path, copy)
    finally:
        journal.close()
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
           "holds the run",
           {BASELINE.value: "the journal before: WAL, only the step into DEALING synced (into the -wal file)",
            Durability.ROLLBACK.value: "a rollback journal, every commit synced (synchronous=FULL)"},
           f"{args.boards} boards, median of {args.rounds} rounds, journals in "
           f"{args.dir or tempfile.gettempdir()}; ours: {Durability.CHECKPOINT.value}")
    print()
    folder = Path(tempfile.mkdtemp(prefix="dealer-journal-bench-", dir=args.dir))
    options = list(Durability)
    per_board: dict[Durability, list[float]] = {d: [] for d in options}
    alone: dict[Durability, int] = {}
    try:
        for r in range(args.rounds):
            order = options[r % len(options):] + options[:r % len(options)]
            for durability in order:
                cost, verified = one_run(folder, durability, deal_set(args.boards, r))
                per_board[durability].append(cost)
                alone[durability] = verified
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    base = statistics.median(per_board[BASELINE])
    print(f"{'durability':<14} {'ms/board':>9} {'vs baseline':>12}  {'main file alone holds'}")
    for durability in options:
        ms = statistics.median(per_board[durability]) * 1000
        extra = (statistics.median(per_board[durability]) - base) * 1000
        held = f"{alone[durability]}/{args.boards} boards verified"
        print(f"{durability.value:<14} {ms:>9.2f} {extra:>+10.2f}ms  {held}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
