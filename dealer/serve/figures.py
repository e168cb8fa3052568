"""The room's figures and board grid of a run, whole across its stops and resumes: what `room_figures` and
`grid_cells` make of the run's fold (`dealer.journal.run_report`, the one counting code of the live run, the
report and a journal read back). `FiguresFold` folds a journal read from disk, reading by reading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from dealer.journal import run_report
from dealer.journal.store import Job, JobState, Journal, Recorded, Run

SHOWN: Final = {
    JobState.PLANNED: "planned",
    JobState.LOADED: "loaded",
    JobState.SCANNED: "label checked",
    JobState.DEALING: "dealing",
    JobState.DEALT: "recount",
    JobState.VERIFIED: "verified",
    JobState.FAULTED: "faulted",
}
"""What the room calls each journal state."""


def run_figures(journal: Journal, run_ids: Sequence[int] | None = None) -> dict[str, Any]:
    """The figures of runs `run_ids` (default: every run of the journal), for the room, in one reading."""
    return FiguresFold(run_ids).read(journal)


def room_figures(rep: run_report.RunReport) -> dict[str, Any]:
    """The room's figures of a fold: boards verified of all, the time the run has been dealing and its pace
    (`RunReport.boards_per_hour`), faults, and per machine its boards, dealings, faults, time on boards and
    pace."""
    faults: Counter[str] = Counter()
    for (_, machine, _, _), n in rep.faults.items():
        faults[machine] += n
    machines = [{"name": name, "verified": m.verified, "dealings": m.dealings, "faults": faults[name],
                 "busy": round(m.busy, 1), "rate": round(m.boards_per_hour)}
                for name, m in sorted(rep.machines.items())]
    return {"total": sum(s.jobs for s in rep.sessions), "verified": rep.verified,
            "dealing": round(rep.dealing_seconds, 3), "rate": round(rep.boards_per_hour),
            "faults": sum(faults.values()), "machines": machines}


def grid_cells(rep: run_report.RunReport) -> list[dict[str, Any]]:
    """Every job of the fold's runs with the room's name of its state, in the order of the runs and jobs."""
    return [{"run": c.run, "session": c.session, "set": c.set_name, "board": c.board, "copy": c.copy,
             "state": SHOWN[c.state]} for c in rep.boards.values()]


class FiguresFold:
    """The fold of a journal's runs `run_ids` (None: every run of the journal) read from disk, kept between
    readings: each `read` folds only the events written since the one before, so a reading costs what was
    written since, not the whole run. Each run is followed by its own event numbers (`Journal.events_after`)."""

    def __init__(self, run_ids: Sequence[int] | None = None) -> None:
        self.run_ids = None if run_ids is None else list(run_ids)
        self.report = run_report.RunReport("")
        self._sessions: dict[int, run_report.SessionFigures] = {}
        self._marks: dict[int, int] = {}
        """Per run, the number of its last event folded."""
        self.finished: set[int] = set()
        """The runs whose every event is folded: finished before the reading that folded them."""
        self.runs: dict[int, Run] = {}
        """The runs folded, as the last reading found them."""

    def fold(self, journal: Journal) -> run_report.RunReport:
        """Fold what the journal holds now that the last reading did not (call it inside `Journal.reading` with
        the reads it must agree with); the fold."""
        self.report.journal = str(journal.path)
        runs = journal.runs() if self.run_ids is None else [journal.run(r) for r in self.run_ids]
        self.runs = {run.id: run for run in runs}
        for run in runs:
            if run.id not in self._sessions:
                jobs = journal.jobs(run.id)
                session = run_report.SessionFigures(run.id, run.name, run.replay, False, len(jobs))
                self._sessions[run.id] = session
                self._marks[run.id] = 0
                self.report.sessions.append(session)
                self.report.add_jobs(session, jobs)
                self.added(run, jobs)
        done_before = {run.id for run in runs if run.finished} - self.finished
        for recorded in journal.events_after({r: n for r, n in self._marks.items() if r not in self.finished}):
            self.folded(self._sessions[recorded.run_id], recorded)
            self._marks[recorded.run_id] = recorded.id
        self.finished |= done_before
        return self.report

    def added(self, run: Run, jobs: Sequence[Job]) -> None:
        """A run met for the first time, with its jobs (a fold that names more than the figures keeps them)."""

    def folded(self, session: run_report.SessionFigures, recorded: Recorded) -> None:
        """Fold one event of `session`'s run into the figures."""
        run_report.fold(self.report, session, recorded)

    def read(self, journal: Journal) -> dict[str, Any]:
        """`fold`, then the room's figures of everything folded."""
        return room_figures(self.fold(journal))
