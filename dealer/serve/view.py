"""A dealing run's progress as blind messages for the browsers: the `ProgressView` the server runs with.

Each event becomes one message: the machine, its kind and state, the step's words, the job in hand, the
machine's boards per hour, and each fault of the journal's event with its title, Law and action
(`dealer.serve.past.fault_entries`); every word is said by each browser's stream in its own language. The
server deals blind, so no word names a card. Faults are kept in order, for a browser that opens the room later.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from dealer.dealing.progress import LineKind, MachineRow, ProgressEvent, RunProgress
from dealer.journal.events import Dealing, Verified
from dealer.language import Later, _
from dealer.serve.hub import EventHub
from dealer.serve.past import fault_entries


def state_of(event: ProgressEvent) -> str:
    """A machine's state in the room, from its last event (its kind and the journal's event it shows, never its
    words): 'dealing', 'board verified', 'waiting for the operator', 'fault', 'stopped', 'working'."""
    if event.kind is LineKind.PROMPT:
        return "waiting for the operator"
    if event.kind is LineKind.FAULT:
        return "fault"
    if event.kind is LineKind.STOPPED:
        return "stopped"
    if isinstance(event.recorded, Dealing):
        return "dealing"
    if isinstance(event.recorded, Verified):
        return "board verified"
    return "working"


def job_dict(row_job: Any) -> dict[str, Any] | None:
    if row_job is None:
        return None
    return {"session": row_job.session, "set": row_job.set_name, "board": row_job.board, "copy": row_job.copy,
            "attempt": row_job.attempt}


def machine_dict(row: MachineRow) -> dict[str, Any]:
    """One machine as the room shows it."""
    job = row.job or (row.last.job if row.last is not None else None)
    if row.lost is not None:
        lost = row.lost
        state, step = "stopped", Later(lambda: _("stopped: {why}").format(why=lost))
    elif row.last is None:
        state, step = "connecting", Later(lambda: _("connecting"))
    else:
        state, step = state_of(row.last), Later(row.last.step)
    kind = "stopped" if row.lost is not None else str(row.last.kind) if row.last is not None else "note"
    return {"name": row.name, "port": row.port, "state": state, "kind": kind, "step": step, "job": job_dict(job),
            "prompt": step if kind == "prompt" else "", "rate": round(row.rate),
            "verified": row.verified}


class HubView:
    """Publishes every event of a run to the hub, blind; keeps the faults in order."""

    def __init__(self, hub: EventHub, run_key: str, clock: Any = time.time) -> None:
        self.hub = hub
        self.run_key = run_key
        self.clock = clock
        self.progress: RunProgress | None = None
        self._lock = threading.Lock()
        self.faults: list[dict[str, Any]] = []
        self.events = 0

    def open(self, progress: RunProgress) -> None:
        self.progress = progress
        self.hub.publish({"type": "opened", "run": self.run_key, "t": self.clock(), "total": progress.total_jobs,
                          "verified": progress.verified, "title": progress.title})

    def show(self, event: ProgressEvent) -> None:
        progress = self.progress
        message: dict[str, Any] = {"type": "event", "run": self.run_key, "t": self.clock(),
                                   "machine": event.machine, "kind": str(event.kind), "text": Later(event.step),
                                   "state": state_of(event), "job": job_dict(event.job)}
        if progress is not None and event.machine:  # (the run's counts come with the grid: `dealer.serve.grid`)
            message["rate"] = round(progress.rate(event.machine))
        if event.recorded is not None:
            faults: list[dict[str, Any]] = []
            for entry in fault_entries(event.recorded):
                fault = {"machine": event.machine, "job": message["job"], **entry, "t": message["t"]}
                with self._lock:
                    fault["n"] = len(self.faults) + 1
                    self.faults.append(fault)
                faults.append(fault)
            if faults:
                message["faults"] = faults
        with self._lock:
            self.events += 1
        self.hub.publish(message)

    def keep_faults(self, earlier: list[dict[str, Any]]) -> None:
        """Begin the list with faults found before (an earlier part of a resumed run), numbered 1, 2, ..."""
        with self._lock:
            self.faults = [*earlier, *self.faults]
            for n, fault in enumerate(self.faults, start=1):
                fault["n"] = n

    def close(self) -> None:
        """Nothing to take down (the run manager says when the run has ended)."""

    def fault_list(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.faults)

