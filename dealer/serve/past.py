"""The faults of runs no longer dealing, read back from the journal: what the room shows after the
console was started again (the live list lives only as long as its run).

Each fault is its event's (`dealer.journal.events`): its title and Law (`Event.faults`), what the run did
(`Event.action`), as the live list and the terminal word it. No card is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from dealer.journal.events import Event, title_said
from dealer.journal.opening import read_journal
from dealer.journal.store import Job, Recorded
from dealer.language import Later
from dealer.verify.fault_table import law_said


def fault_entries(event: Event) -> list[dict[str, Later]]:
    """The room's entries of an event's faults: text, Law and action, one a fault (the live list's too), said in
    the language of whoever reads them."""
    return [{"text": Later(partial(title_said, fault.title)), "law": Later(partial(law_said, fault.law)),
             "action": Later(event.action)} for fault in event.faults()]


def job_where(session: str, job: Job | None) -> dict[str, Any] | None:
    """Where a board is, as the room shows a fault's or a machine's board (None: an event of no job)."""
    if job is None:
        return None
    return {"session": session, "set": job.set_name or "A", "board": job.board, "copy": job.copy,
            "attempt": job.attempt}


def fault_rows(recorded: Recorded, where: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The room's rows of a recorded event's faults (none for a plain step): machine, board, the entry, time."""
    return [{"machine": recorded.machine or "", "job": where, **entry,
             "t": datetime.fromisoformat(recorded.at).timestamp()} for entry in fault_entries(recorded.event)]


def journal_faults(path: Path, run_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """The faults of the runs (default: every run of the journal) in the order they happened."""
    found: list[dict[str, Any]] = []
    with read_journal(path) as journal:
        runs = {r.id: r for r in journal.runs()}
        for run_id in run_ids if run_ids is not None else list(runs):
            jobs = {job.id: job for job in journal.jobs(run_id)}
            for recorded in journal.each_event(run_id):
                job = jobs.get(recorded.job_id) if recorded.job_id is not None else None
                found += fault_rows(recorded, job_where(runs[run_id].name, job))
    found.sort(key=lambda f: f["t"])
    for n, fault in enumerate(found, start=1):
        fault["n"] = n
    return found
