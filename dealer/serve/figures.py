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
from dealer.journal.store import Journal, Recorded


def run_figures(journal: Journal, run_ids: Sequence[int] | None = None) -> dict[str, Any]:
    """The figures of runs `run_ids` (default: every run of the journal), for the room."""
    spans: list[tuple[float, float]] = []

    def span(recorded: Recorded) -> None:
        if recorded.machine and recorded.event.busy > 0:
            end = datetime.fromisoformat(recorded.at).timestamp()
            spans.append((end - recorded.event.busy, end))

    rep = run_report.build(journal, run_ids, also=span)
    dealing = union_length(spans)
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
