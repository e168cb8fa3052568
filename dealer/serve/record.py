"""The Room of a record the room's computers share (``dealer serve --journal postgresql://...``): every run of
the journal, as the controllers of every computer deal it, read from the database about once a second and sent
to the browsers as the console's own run is (the board grid, the figures, each machine's last step, the faults).
Each machine is named with the computer that deals on it (the run's last `RunTaken`): a machine is its port on its
computer ('/dev/ttyUSB0 · desk-2'). The console deals nothing itself then: the dealing computers do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Final

from dealer.core.errors import DealerError
from dealer.journal.database_url import DatabaseURL
from dealer.journal.events import Dealing, Event, RunTaken, Verified
from dealer.journal.opening import journal_found, read_journal
from dealer.journal.run_report import SessionFigures
from dealer.journal.store import Job, Journal, Recorded, Run
from dealer.language import N_, Later, Sentence, _, n_
from dealer.serve.figures import FiguresFold, grid_cells, room_figures
from dealer.serve.grid import READ_SECONDS, cell_id
from dealer.serve.hub import EventHub
from dealer.serve.past import fault_rows, job_where

RECORD_RUN: Final = "record"
"""The `run` key of every message of the record's room."""
NO_RUN_YET: Final = N_("the record has no run yet: the runs the room's computers begin on it are shown here")


def _step_said(event: Event) -> str:
    """A machine's last step as the room shows it: what happened, and what the run did about it."""
    action = event.action()
    return event.text() + (f": {action}" if action else "")


@dataclass(frozen=True)
class MachineSeen:
    """A machine of the record as its last event left it: the run it deals, that event, and the board."""

    name: str
    run: int
    computer: str
    """The computer that dealt on it (a machine of a run another computer took over is stopped)."""
    recorded: Recorded
    job: dict[str, Any] | None

    def shown(self, run: Run | None, held: bool) -> dict[str, Any]:
        """The machine as the room shows it (`dealer.serve.view.machine_dict`'s fields): its step while its run is
        held by a controller; done once the run is finished; stopped while nobody deals the run."""
        event = self.recorded.event
        faulted = bool(event.faults())
        step: Later | str = Later(partial(_step_said, event))
        if run is not None and run.finished:
            state, kind = "done", "note"
        elif not held:
            state, kind = "stopped", "stopped"
            step = Later(lambda: _("stopped: nobody deals its run now; continue it with --resume on any computer"))
        else:
            kind = "fault" if faulted else "step"
            state = ("fault" if faulted else "dealing" if isinstance(event, Dealing)
                     else "board verified" if isinstance(event, Verified) else "working")
        return {"name": self.name, "port": "", "state": state, "kind": kind, "step": step, "job": self.job,
                "prompt": "", "rate": 0, "verified": 0}


class RecordFold(FiguresFold):
    """The figures of every run of the record, and what the room shows beside them: each machine's last event,
    named with its computer, and every fault in the order it was recorded."""

    def __init__(self) -> None:
        super().__init__(None)
        self.jobs: dict[int, Job] = {}
        self.machines: dict[str, MachineSeen] = {}
        self.faults: list[dict[str, Any]] = []
        self.dealt_by: dict[int, str] = {}
        """Per run, the computer that deals it now (its last `RunTaken`)."""

    def added(self, run: Run, jobs: Sequence[Job]) -> None:
        self.jobs.update((job.id, job) for job in jobs)

    def heading(self, run_id: int, session: str) -> str:
        """A run's boards' heading in the grid: its session and the computer that deals it ('Session 2 · desk-2')."""
        computer = self.dealt_by.get(run_id)
        return f"{session} · {computer}" if computer else session

    def folded(self, session: SessionFigures, recorded: Recorded) -> None:
        if isinstance(recorded.event, RunTaken):
            self.dealt_by[recorded.run_id] = recorded.event.computer or recorded.event.controller
        computer = self.dealt_by.get(recorded.run_id, "")
        if recorded.machine and computer:
            recorded = replace(recorded, machine=f"{recorded.machine} · {computer}")
        super().folded(session, recorded)
        job = job_where(session.name, self.jobs.get(recorded.job_id) if recorded.job_id is not None else None)
        if recorded.machine:
            self.machines[recorded.machine] = MachineSeen(recorded.machine, recorded.run_id, computer, recorded, job)
        for fault in fault_rows(recorded, job):
            self.faults.append({**fault, "n": len(self.faults) + 1})


@dataclass
class _Room:
    """The record's room of one reading."""

    cells: list[dict[str, Any]]
    figures: dict[str, Any] | None
    machines: list[dict[str, Any]]
    seen: list[tuple[int, str]]
    """Per machine of `machines`, what it was last seen doing: its last event's number and its state."""
    faults: list[dict[str, Any]]
    status: str
    message: Later


class RecordRoom:
    """Reads the record about once a second in a thread of its own and publishes what changed to the hub; gives
    a browser the room as the last reading left it (`snapshot`)."""

    def __init__(self, hub: EventHub, place: DatabaseURL, read_seconds: float = READ_SECONDS) -> None:
        self.hub = hub
        self.place = place
        self.read_seconds = read_seconds
        self._fold = RecordFold()
        self._journal: Journal | None = None
        self._lock = threading.Lock()
        self._room = _Room([], None, [], [], [], "idle", Later(lambda: _("reading the record")))
        self._cells: dict[str, tuple[str, str]] = {}
        self._machines: dict[str, tuple[int, str]] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="record", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        if self._thread.ident is not None:
            self._thread.join()
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def _loop(self) -> None:
        while not self._done.is_set():
            self.read()
            self._done.wait(self.read_seconds)

    def read(self) -> None:
        """Read what the record holds that the last reading did not; publish what changed."""
        try:
            if self._journal is None:
                if not journal_found(self.place):  # a record whose first run is yet to begin
                    self._publish_status("idle", Later(lambda: _(NO_RUN_YET)))
                    return
                self._journal = read_journal(self.place)
            with self._journal.reading():
                rep = self._fold.fold(self._journal)
                held = self._journal.held_runs()
        except DealerError as exc:
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            why = str(exc)
            self._publish_status("idle", Later(lambda: _("the record cannot be read now ({why}): read again each "
                                                         "second").format(why=why)))
            return
        fold = self._fold
        dealing = {run_id: fold.dealt_by.get(run_id, holder) for run_id, holder in held.items()
                   if run_id in fold.runs and not fold.runs[run_id].finished}
        seen = sorted(fold.machines.values(), key=lambda m: m.name)
        machines = [m.shown(fold.runs.get(m.run), dealing.get(m.run) == m.computer) for m in seen]
        cells = [{**cell, "session": fold.heading(cell["run"], cell["session"])} for cell in grid_cells(rep)]
        room = _Room(cells, room_figures(rep), machines,
                     [(m.recorded.id, shown["state"]) for m, shown in zip(seen, machines, strict=True)],
                     list(fold.faults), "dealing" if dealing else "idle", self._said(dealing))
        with self._lock:
            before, self._room = self._room, room
        self._publish_changes(before, room)

    def _said(self, dealing: dict[int, str]) -> Later:
        """What the room says of the record: the runs dealing and by which computers, or the unfinished run
        nobody deals."""
        runs = self._fold.runs
        if dealing:
            where = sorted((runs[run_id].name, computer) for run_id, computer in dealing.items())
            return Later(lambda: n_("{count} run of the record is dealing: {runs}",
                                    "{count} runs of the record are dealing: {runs}", len(where)).format(
                count=len(where), runs="; ".join(_("{session} on {computer}").format(session=name, computer=computer)
                                                 for name, computer in where)))
        left = [run for run in runs.values() if not run.finished]
        if left:
            first = left[0]
            return Later(lambda: _("no run of the record is dealing; run {run} ({name}) is unfinished: continue it "
                                   "with --resume on any dealing computer").format(run=first.id, name=first.name))
        if runs:
            return Later(lambda: _("no run of the record is dealing; its runs are shown"))
        return Later(lambda: _(NO_RUN_YET))

    def _publish_status(self, status: str, message: Later) -> None:
        """Say the record's status (only when it changed: a record that cannot be read is said so once)."""
        with self._lock:
            before, self._room = self._room, replace(self._room, status=status, message=message)
        self._publish_status_change(before, self._room)

    def _publish_status_change(self, before: _Room, room: _Room) -> None:
        if (room.status, str(room.message)) != (before.status, str(before.message)):
            self.hub.publish({"type": "status", "run": RECORD_RUN, "status": room.status, "message": room.message})

    def _publish_changes(self, before: _Room, room: _Room) -> None:
        changed = [c for c in room.cells if self._cells.get(cell_id(c)) != (c["state"], c["session"])]
        self._cells.update((cell_id(c), (c["state"], c["session"])) for c in changed)
        if changed or room.figures != before.figures:
            self.hub.publish({"type": "grid", "run": RECORD_RUN, "cells": changed, "figures": room.figures})
        now = time.time()
        for machine, key in zip(room.machines, room.seen, strict=True):
            if self._machines.get(machine["name"]) == key:
                continue
            self._machines[machine["name"]] = key
            self.hub.publish({"type": "event", "run": RECORD_RUN, "t": now, "machine": machine["name"],
                              "kind": machine["kind"], "text": machine["step"], "state": machine["state"],
                              "job": machine["job"]})
        if len(room.faults) > len(before.faults):
            self.hub.publish({"type": "event", "run": RECORD_RUN, "t": now, "machine": "",
                              "faults": room.faults[len(before.faults):]})
        self._publish_status_change(before, room)

    def snapshot(self) -> dict[str, Any]:
        """The record's room as the last reading left it."""
        with self._lock:
            room = self._room
        figures = room.figures
        return {"type": "snapshot", "run": RECORD_RUN,
                "title": Sentence.of(N_("the record {journal}"), journal=str(self.place)),
                "status": room.status, "message": room.message, "summary": "", "journal": str(self.place),
                "total": figures["total"] if figures else 0, "verified": figures["verified"] if figures else 0,
                "figures": figures, "resume": None, "controls": False, "machines": room.machines,
                "grid": room.cells, "faults": room.faults, "t": time.time()}
