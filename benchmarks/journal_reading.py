"""What reading a journal's events back costs: the fold `dealer report`, a resume, the live summary and the
Room's once-a-second reading all make of them.

Run from the project root: ``python benchmarks/journal_reading.py [--boards 500] [--rounds 5] [--quick]``.
A journal of BOARDS boards is written through the `Journal` API (each board claimed, scanned, dealt with its
machine's seconds and counts, verified, plus one note), then read whole by `run_report.build`, in turn over
the rounds (the median is shown):

* ours: `run_report.build` as the program runs it;
* ``annotations resolved each decode``: the named baseline, the same with each event's field types resolved
  from its class's annotations at every event read (as the reader did before);
* ``rows and JSON alone``: the events' rows read and their JSON parsed, nothing decoded or folded (the floor).

Then the Room's reading once a second while a run deals (the grid and the figures, `dealer.serve.grid`), with
one board's steps written between two readings: ours keeps its fold and folds what was written since;
the baseline ``every event folded afresh`` folds the whole run at every reading.

Figures: milliseconds per thousand events, and each against ours; milliseconds per Room reading.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import typing
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
from _support import header

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer.core.dealset import DealSet  # noqa: E402
from dealer.journal import events, run_report  # noqa: E402
from dealer.journal.jobplan import JobPlan  # noqa: E402
from dealer.journal.store import JobState, Journal  # noqa: E402
from dealer.serve.figures import FiguresFold  # noqa: E402
from dealer.serve.grid import room_reading  # noqa: E402

OURS = "ours"
BASELINE = "annotations resolved each decode"
FLOOR = "rows and JSON alone"
AFRESH = "every event folded afresh"
BASELINES = {BASELINE: "each event's field types resolved from its class's annotations at every event read "
                       "(the reader before)",
             FLOOR: "the events' rows read and their JSON parsed, nothing decoded or folded",
             AFRESH: "the Room's reading folding the whole run each time (the reading before)"}


def write_journal(path: Path, boards: int, between: Callable[[], None] = lambda: None) -> int:
    """A journal of `boards` verified boards (`between` called after each); returns how many events it holds."""
    rng = np.random.default_rng(boards)
    deals = DealSet.from_deals(np.stack([(rng.permutation(52) // 13).astype(np.uint8) for _ in range(boards)]))
    with Journal.open(path) as journal:
        run = journal.begin_run("bench", "bench.pbn", deals, [JobPlan(int(b), 1) for b in deals.boards])
        for _ in deals.boards:
            job = journal.claim_next(run.id, "m1")
            assert job is not None
            journal.advance(job.id, JobState.SCANNED, events.Scanned(label="A 1", busy=1.5), machine="m1")
            journal.advance(job.id, JobState.DEALING, events.Dealing(busy=0.5), machine="m1")
            journal.advance(job.id, JobState.DEALT, events.Dealt(counts=(13, 13, 13, 13), busy=11.0), machine="m1")
            journal.advance(job.id, JobState.VERIFIED, events.Verified(layout="straight", busy=2.0), machine="m1")
            journal.note(run.id, events.BoardMoved(), job_id=job.id, machine="m1")
            between()
        journal.finish_run(run.id)
        return len(journal.events(run.id))


def room_readings(folder: Path, boards: int, kept: bool) -> list[float]:
    """Seconds of each Room reading of a run of `boards` boards, one reading after each board."""
    path = folder / f"room-{kept}.sqlite"
    took: list[float] = []
    reader: list[Journal] = []
    fold = FiguresFold() if kept else None

    def read() -> None:
        if not reader:
            reader.append(Journal.open_read_only(path))
        start = time.perf_counter()
        room_reading(reader[0], None, fold)
        took.append(time.perf_counter() - start)

    try:
        write_journal(path, boards, read)
    finally:
        for journal in reader:
            journal.close()
    return took


def resolved_each_time(cls: type[events.Event]) -> tuple[tuple[str, str, Any], ...]:
    """The baseline: the field types resolved again at every event read."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, events.journal_key(f), hints[f.name]) for f in fields(cls))


def fold_all(path: Path) -> None:
    with Journal.open_read_only(path) as journal:
        run_report.build(journal)


def rows_alone(path: Path) -> None:
    with Journal.open_read_only(path) as journal:
        for run in journal.runs():
            rows = journal._query("SELECT id, job_id, at, machine, kind, state, detail FROM events WHERE run_id = ? "
                                  "ORDER BY id", (run.id,))
            for row in rows:
                json.loads(row[6])


def timed(run: Callable[[Path], None], path: Path) -> float:
    start = time.perf_counter()
    run(path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a first look: 12 boards, one round")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards, args.rounds = 12, 1
    header("journal reading: the cost of reading a journal's events back and folding them as dealer report does",
           BASELINES, f"{args.boards} boards, median of {args.rounds} rounds")
    print()
    folder = Path(tempfile.mkdtemp(prefix="dealer-journal-reading-"))
    ours_fields = events._fields_of
    ways: dict[str, Callable[[Path], None]] = {OURS: fold_all, BASELINE: fold_all, FLOOR: rows_alone}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    try:
        path = folder / "journal.sqlite"
        count = write_journal(path, args.boards)
        for r in range(args.rounds):
            names = list(ways)
            for name in names[r % len(names):] + names[:r % len(names)]:
                events._fields_of = resolved_each_time if name == BASELINE else ours_fields
                try:
                    seconds[name].append(timed(ways[name], path))
                finally:
                    events._fields_of = ours_fields
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ours = statistics.median(seconds[OURS])
    print(f"{count} events in the journal")
    print(f"{'reader':<34} {'ms per 1000 events':>19} {'against ours':>13}")
    for name in ways:
        took = statistics.median(seconds[name])
        print(f"{name:<34} {took * 1000 / count * 1000:>19.1f} {took / ours:>12.2f}x")
    print()
    folder = Path(tempfile.mkdtemp(prefix="dealer-room-reading-"))
    try:
        readings = {"ours (the fold kept)": room_readings(folder, args.boards, True),
                    AFRESH: room_readings(folder, args.boards, False)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"the Room's reading after each of {args.boards} boards, in ms: first tenth, last tenth (medians), all")
    for name, each in readings.items():
        tenth = max(1, len(each) // 10)
        first, last = statistics.median(each[:tenth]) * 1000, statistics.median(each[-tenth:]) * 1000
        print(f"{name:<34} {first:>8.2f} {last:>8.2f} {sum(each) * 1000:>10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
