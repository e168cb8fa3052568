"""What physically happened against what the run recorded: the checks every dealing run must pass.

Read from the simulator's ledger (`hil.physical.Ledger`, every dealing card by card) and its boards, and
from the journal, independently of the run's own view:

* every dealing went into an empty board (nothing dealt on top), lying straight, that carries the number
  of the deal dealt into it (never deal n into board m);
* every board the journal calls VERIFIED holds exactly its deal, hand by hand in its own pockets;
* each board was dealt into exactly as often as the journal started dealing it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dealer.core.dealset import DealSet
from dealer.journal.store import Job, JobState, Journal, Recorded
from hil.physical import Ledger, PhysicalBoard


def number_of(label: str) -> int | None:
    """The board number a label names (`SET:N:DV:C`), None if it names none."""
    parts = label.split(":")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def hands_of_deal(deal: np.ndarray) -> list[list[int]]:
    """The cards of each seat N E S W of a (52,) deal, in card order."""
    return [sorted(int(c) for c in np.flatnonzero(deal == s)) for s in range(4)]


@dataclass
class RunRecord:
    """What a run left: its jobs and their events (from the journal)."""

    jobs: list[Job]
    events: dict[int, list[Recorded]]

    def job(self, board: int, copy: int = 1) -> Job:
        return next(j for j in self.jobs if (j.board, j.copy) == (board, copy))

    def kinds(self, board: int, copy: int = 1) -> list[str]:
        return [e.kind for e in self.events[self.job(board, copy).id]]


def read_run(journal: Path, run_id: int) -> RunRecord:
    """The jobs and events of a run, after checking the journal is consistent."""
    with Journal.open(journal) as j:
        assert j.check_consistency(run_id) == []
        jobs = j.jobs(run_id)
        return RunRecord(jobs, {job.id: j.events(run_id, job.id) for job in jobs})


def check_physical_truth(ledger: Ledger, boards: Iterable[PhysicalBoard], deals: DealSet, journal: Path,
                         run_id: int, set_name: str = "A") -> RunRecord:
    """Assert the module's three checks; returns what the journal holds for further checks."""
    for r in ledger.records:
        assert r.cards_before == 0, f"{r.board}: dealt on top of {r.cards_before} cards (job {r.job})"
        assert r.turns == 0, f"{r.board}: dealt while turned {r.turns} (job {r.job})"
        assert number_of(r.label) == r.board_number, f"{r.board} ({r.label}) got the deal of board {r.board_number}"
    run = read_run(journal, run_id)
    by_label = {b.label.decode(): b for b in boards if not b.retired}
    for job in run.jobs:
        label = next((name for name in by_label if name.startswith(f"{job.set_name or set_name}:{job.board}:")),
                     None)
        starts = sum(e.state is JobState.DEALING for e in run.events[job.id])
        dealt = ledger.times_dealt(label) if label is not None else 0
        assert dealt == starts, f"board {job.board}: dealt {dealt} times, the journal started {starts}"
        if job.state is JobState.VERIFIED:
            assert label is not None
            want = hands_of_deal(deals.deals[deals.index_of(job.board)])
            assert [sorted(h) for h in by_label[label].hands()] == want, f"board {job.board}: verified but differs"
    return run
