"""What a journal's listeners cost the writer: the stations' writes with a listener that sleeps, and one that
raises, beside them.

Run from the project root: ``python benchmarks/journal_listeners.py [--boards 40] [--sleep 2] [--quick]``.
BOARDS boards are written through the `Journal` API (each board loaded, scanned, dealing, dealt, verified:
five committed events) by two writer threads, as two stations write; the time of each write is kept:

* ours: the journal as the program runs it, with a listener that sleeps SLEEP seconds at every event and one
  that raises at every event;
* ``no listener``: the same writes with nothing listening (the floor);
* ``listener called by the writer``: the named baseline, the same sleeping listener called on the writer's
  thread after each commit, as listeners were called before.

Figures: the median and the slowest write in milliseconds, and the writes' whole time in seconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _support import header

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer.core.dealset import DealSet  # noqa: E402
from dealer.journal.events import Verified  # noqa: E402
from dealer.journal.jobplan import JobPlan  # noqa: E402
from dealer.journal.store import JobState, Journal  # noqa: E402

STEPS = (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT)


def deals(boards: int) -> DealSet:
    rng = np.random.default_rng(7)
    return DealSet.from_deals(np.stack([(rng.permutation(52) // 13).astype(np.uint8) for _ in range(boards)]))


def write_run(folder: Path, boards: int, hook: Callable[[Journal], None]) -> tuple[list[float], float]:
    """Each write's seconds and the whole time, two writers dealing `boards` boards between them."""
    with Journal.open(folder / f"j{time.monotonic_ns()}.journal") as journal:
        run = journal.begin_run("bench", "bench.pbn", deals(boards), [JobPlan(b) for b in range(1, boards + 1)])
        hook(journal)
        jobs = journal.jobs(run.id)
        times: list[float] = []
        lock = threading.Lock()

        def writer(mine: list[Any]) -> None:
            for job in mine:
                for state in (*STEPS, JobState.VERIFIED):
                    began = time.perf_counter()
                    journal.advance(job.id, state, Verified() if state is JobState.VERIFIED else None,
                                    machine="m1")
                    with lock:
                        times.append(time.perf_counter() - began)

        began = time.perf_counter()
        threads = [threading.Thread(target=writer, args=(jobs[k::2],)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        whole = time.perf_counter() - began
    return times, whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--quick", action="store_true", help="a tiny run (4 boards, 0.01 s sleeps)")
    args = parser.parse_args()
    boards, sleep = (4, 0.01) if args.quick else (args.boards, args.sleep)
    header("The stations' journal writes beside listeners that are slow or fail",
           {"no listener": "the same writes, nothing listening (the floor)",
            "listener called by the writer": f"a listener sleeping {sleep:g} s called on the writer's thread "
                                             "after each commit (as before)"},
           f"{boards} boards, {boards * 5} writes by two writer threads; a listener sleeping {sleep:g} s an event")

    def sleeping(*_: object) -> None:
        time.sleep(sleep)

    def failing(*_: object) -> None:
        raise RuntimeError("a view that fails")

    def ours(journal: Journal) -> None:
        journal.listen(sleeping)
        journal.listen(failing, failed=lambda exc: None)

    def called_by_writer(journal: Journal) -> None:
        advance = journal.advance

        def advance_then_tell(*a: Any, **k: Any) -> Any:
            job = advance(*a, **k)
            sleeping()
            return job
        journal.advance = advance_then_tell  # type: ignore[method-assign]

    cases = {"ours": ours, "no listener": lambda journal: None, "listener called by the writer": called_by_writer}
    if not args.quick and boards * 5 * sleep > 600:
        print("  (the baseline that calls the listener on the writer's thread is left out: it would take "
              f"{boards * 5 * sleep:.0f} s; run with fewer --boards or a shorter --sleep to see it)")
        del cases["listener called by the writer"]
    with tempfile.TemporaryDirectory() as folder:
        for name, hook in cases.items():
            times, whole = write_run(Path(folder), boards, hook)
            print(f"{name:32} median write {statistics.median(times) * 1000:8.2f} ms, slowest "
                  f"{max(times) * 1000:9.2f} ms, all {len(times)} writes in {whole:7.2f} s")
            sys.stdout.flush()
    print("(ours: the journal closed after its writers, giving each listener up to 30 s to take what was queued)")


if __name__ == "__main__":
    main()
