"""The Room's figures kept between readings (`FiguresFold`) are the figures of a fresh reading of the whole
journal, after every step of a run written through the journal's own API: boards verified, recount faults,
a machine met, machines' time on boards, a second run begun after the first readings."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dealer.core.dealset import DealSet
from dealer.journal import events
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import JobState, Journal
from dealer.serve.figures import FiguresFold, run_figures


def deals(boards: int, seed: int) -> DealSet:
    rng = np.random.default_rng(seed)
    return DealSet.from_deals(np.stack([(rng.permutation(52) // 13).astype(np.uint8) for _ in range(boards)]))


def test_figures_folded_reading_by_reading_are_those_of_a_fresh_reading(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    kept = FiguresFold()  # every run of the journal, the second one too once it is begun
    compared = 0
    with Journal.open(path) as journal, Journal.open_read_only(path) as reader:

        def agree() -> None:
            nonlocal compared
            with reader.reading():
                folded = kept.read(reader)
            with reader.reading():
                fresh = run_figures(reader)
            assert folded == fresh
            compared += 1

        for name, seed in (("first", 1), ("second", 2)):
            run = journal.begin_run(name, f"{name}.pbn", deals(4, seed), [JobPlan(b, 1) for b in range(1, 5)])
            agree()
            for board in range(4):
                machine = ("m1", "m2")[board % 2]
                journal.note(run.id, events.MachineMet(serial=f"S{board}", simulated=True), machine=machine)
                job = journal.claim_next(run.id, machine)
                assert job is not None
                journal.advance(job.id, JobState.SCANNED, events.Scanned(label="A 1", busy=1.0), machine=machine)
                journal.advance(job.id, JobState.DEALING, events.Dealing(busy=0.5), machine=machine)
                agree()
                journal.advance(job.id, JobState.DEALT, events.Dealt(counts=(13,) * 4, busy=9.0), machine=machine)
                if board == 1:  # a recount fault, then the same deal dealt again
                    journal.advance(job.id, JobState.FAULTED, events.RecountFault(faults_found=("F1",), busy=2.0),
                                    machine=machine)
                    agree()
                    journal.redeal(job.id, machine)
                    journal.advance(job.id, JobState.SCANNED, machine=machine)
                    journal.advance(job.id, JobState.DEALING, events.Dealing(busy=0.4), machine=machine)
                    journal.advance(job.id, JobState.DEALT, events.Dealt(counts=(13,) * 4, busy=8.0), machine=machine)
                journal.advance(job.id, JobState.VERIFIED, events.Verified(busy=2.5), machine=machine)
                agree()
        last = kept.read(reader)
    assert compared == 2 * (1 + 4 * 2) + 2
    assert last["verified"] == last["total"] == 8 and last["faults"] == 2
    assert {m["name"]: m["verified"] for m in last["machines"]} == {"m1": 4, "m2": 4}


def test_the_live_runs_fold_is_the_fold_of_its_journal_read_back(tmp_path: Path) -> None:
    """One definition of every figure: the Room of a live run reads the run's own fold (`RunProgress.reading`);
    once the run is over, the same figures and grid come from its journal read back from disk, and the live
    view's pace is the Room's."""
    from dealer.dealing.progress import RunProgress
    from dealer.serve.figures import grid_cells, room_figures
    from hil.config import SimConfig
    from hil.fault_plan import FaultPlan
    from hil.loopback import Loopback
    from tests.support.loopback_run import deals_for, run_on_loopback

    kept: list[RunProgress] = []

    class Keeping:
        def open(self, progress: RunProgress) -> None:
            kept.append(progress)

        def show(self, event: object) -> None:
            pass

        def close(self) -> None:
            pass

    faults = FaultPlan.of({"kind": "jam", "board": 2, "card": 12}, {"kind": "misfeed", "board": 4, "card": 20})
    with Loopback(SimConfig(seed=4, faults=faults)) as loop:
        result, out = run_on_loopback(loop, deals_for((1, 2, 3, 4, 5)), tmp_path / "j.db", view=Keeping())
    assert result.verified == 5, out
    (progress,) = kept
    live = progress.reading(lambda rep: (grid_cells(rep), room_figures(rep)))
    with Journal.open_read_only(tmp_path / "j.db") as reader:
        from dealer.serve.grid import room_reading

        read_back = room_reading(reader)
    assert live == read_back
    assert live[1]["faults"] >= 1 and live[1]["verified"] == 5
    assert round(progress.boards_per_hour() * progress.time_scale) == live[1]["rate"] > 0
