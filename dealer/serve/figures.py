"""The room's figures of a run, whole across its stops and resumes, read from the journal (which records
every attempt): boards verified of all, per machine the boards verified, faults, time on boards and boards
per hour (`dealer.journal.run_report`, counted as the report counts them), and the time the run has been
dealing: the time any machine was on a board (each event's ``busy`` seconds before it, overlaps counted
once), so the hours between a stop and its resume are not counted, nor are the boards of one part divided
by the time of another.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from dealer.journal import run_report
from dealer.journal.store import Journal


def run_figures(journal: Journal, run_ids: Sequence[int] | None = None) -> dict[str, Any]:
    """The figures of runs `run_ids` (default: every run of the journal), for the room, in one reading."""
    return FiguresFold(run_ids).read(journal)


class FiguresFold:
    """The room's figures of runs `run_ids` (None: every run of the journal), kept between readings: each
    `read` folds only the events written since the one before (`dealer.journal.run_report.fold`, as the
    report counts them), so a reading costs what was written since, not the whole run."""

    def __init__(self, run_ids: Sequence[int] | None = None) -> None:
        self.run_ids = None if run_ids is None else list(run_ids)
        self.report = run_report.RunReport("")
        self._sessions: dict[int, run_report.SessionFigures] = {}
        self._spans: list[tuple[float, float]] = []
        self._last = 0
        """The number of the last event folded."""

    def read(self, journal: Journal) -> dict[str, Any]:
        """Fold what the journal holds now that the last reading did not; the figures of everything folded.
        Call it inside `Journal.reading` with the reads it must agree with."""
        runs = journal.runs() if self.run_ids is None else [journal.run(r) for r in self.run_ids]
        for run in runs:
            if run.id not in self._sessions:
                jobs = len(journal.jobs(run.id))
                session = run_report.SessionFigures(run.id, run.name, run.replay, run.finished, jobs)
                self._sessions[run.id] = session
                self.report.sessions.append(session)
        for recorded in journal.events_since(self._last, list(self._sessions)):
            run_report.fold(self.report, self._sessions[recorded.run_id], recorded)
            if recorded.machine and recorded.event.busy > 0:
                end = datetime.fromisoformat(recorded.at).timestamp()
                self._spans.append((end - recorded.event.busy, end))
            self._last = recorded.id
        return self._figures()

    def _figures(self) -> dict[str, Any]:
        rep = self.report
        dealing = union_length(self._spans)
        faults: Counter[str] = Counter()
        for (_, machine, _, _), n in rep.faults.items():
            faults[machine] += n
        verified = sum(s.verified for s in rep.sessions)
        machines = [{"name": name, "verified": m.verified, "dealings": m.dealings, "faults": faults[name],
                     "busy": round(m.busy, 1), "rate": round(m.boards_per_hour)}
                    for name, m in sorted(rep.machines.items())]
        return {"total": sum(s.jobs for s in rep.sessions), "verified": verified, "dealing": round(dealing, 3),
                "rate": round(verified * 3600.0 / dealing) if dealing > 0 else 0,
                "faults": sum(faults.values()), "machines": machines}


def union_length(spans: Sequence[tuple[float, float]]) -> float:
    """The length of time the spans (start, end) cover together, each moment counted once."""
    total = 0.0
    reach: float | None = None
    start = 0.0
    for a, b in sorted(spans):
        if reach is None or a > reach:
            if reach is not None:
                total += reach - start
            start, reach = a, b
        else:
            reach = max(reach, b)
    if reach is not None:
        total += reach - start
    return total
