"""The run manager: one dealing run at a time, in a worker thread, through `dealer.dealing` itself.

A run of a deal file is `dealer.dealing.run.deal_session`, a congress plan's `dealer.plan.run.deal_plan`,
with the options `dealer deal` would give them (dealing blind), a `HubView` as the progress view and a
stop event (`RunOptions.stop`): a stop lets each machine finish its board, then the run ends, resumable.
The run takes the journal like any controller (a journal another process holds is refused, exit 10's
error). Every journal the server has dealt on is remembered in its work folder, so a server started
again shows those runs. Machines are named m1, m2, ... in the order chosen (the same names on a resume).
"""

from __future__ import annotations

import contextlib
import io
import shlex
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, cast

from dealer.core.errors import DealerError, UsageError
from dealer.dealing import sim_ports
from dealer.dealing.run import RunOptions, RunResult, deal_session, raise_for
from dealer.journal import run_report as report
from dealer.language import N_, Later, Sentence, _
from dealer.serve import given, grid, past, sources
from dealer.serve.hub import EventHub
from dealer.serve.machines import Offer
from dealer.serve.sources import RunRequest
from dealer.serve.view import HubView, machine_dict

KNOWN_JOURNALS = "journals.txt"
STOP_WITHIN = 30.0
"""Seconds a stopping run's machines have to finish their boards (`RunManager.stop_within`, --stop-within)."""
"""In the work folder: the journals this server has dealt on, one path a line."""


@dataclass
class LiveRun:
    """The run being dealt (or the last one dealt) by this server."""

    key: str
    request: RunRequest
    journal: Path
    title: str
    view: HubView
    watcher: grid.GridWatcher
    stop: threading.Event = field(default_factory=threading.Event)
    give_up: threading.Event = field(default_factory=threading.Event)
    """Set when a stop took longer than `RunManager.stop_within`: every machine is given up at once."""
    status: str = "starting"
    message: str | Later = ""
    """What the room says of the run's state, in each browser's language."""
    summary: str | Later = ""
    thread: threading.Thread | None = None
    started: float = field(default_factory=time.time)
    plan: bool = False
    """The run deals a congress plan (else a deal file)."""
    history: Path | None = None
    """The deal history the run keeps (None: this computer's)."""


class RunManager:
    """Starts, stops and resumes runs; builds what a browser sees when it opens the room."""

    def __init__(self, hub: EventHub, workdir: Path, offer: Offer, stop_within: float = STOP_WITHIN) -> None:
        self.hub = hub
        self.workdir = workdir
        self.offer = offer
        self.stop_within = stop_within
        """Seconds a stopping run is given for its machines to finish their boards before they are given up."""
        self._lock = threading.Lock()
        self.current: LiveRun | None = None
        self._count = 0

    # --- journals ----------------------------------------------------------------------------

    def journals(self) -> list[Path]:
        """The journals this server (now or before a restart) has dealt on, that still exist."""
        listed = self.workdir / KNOWN_JOURNALS
        if not listed.is_file():
            return []
        paths = dict.fromkeys(Path(line) for line in listed.read_text(encoding="utf-8").splitlines() if line)
        return [p for p in paths if p.is_file()]

    def _remember(self, journal: Path) -> None:
        if journal in self.journals():
            return
        with (self.workdir / KNOWN_JOURNALS).open("a", encoding="utf-8") as out:
            out.write(f"{journal}\n")

    # --- runs --------------------------------------------------------------------------------

    def dealing(self) -> bool:
        with self._lock:
            return self.current is not None and self.current.status in ("starting", "dealing", "stopping")

    def start(self, request: RunRequest) -> LiveRun:
        """Check the request as the Start page showed it, then deal it in a worker thread."""
        checked = sources.check(request, self.workdir, self.offer)
        if checked.problems:
            raise UsageError(checked.told(checked.problems[0]))
        with self._lock:
            if self.current is not None and self.current.status in ("starting", "dealing", "stopping"):
                raise UsageError(_("a run is dealing already ({title}): stop it first").format(
                    title=self.current.title))
            self._count += 1
            key = f"{self._count}-{int(time.time())}"
            view = HubView(self.hub, key)
            watcher = grid.GridWatcher(checked.journal, lambda cells, shown: self.hub.publish(
                {"type": "grid", "run": key, "cells": cells, "figures": shown}))
            live = LiveRun(key, request, checked.journal, checked.title, view, watcher, plan=checked.plan is not None,
                           history=checked.history)
            self.current = live
        self._remember(checked.journal)
        if not request.resume:  # a new session: the simulated machines' boards come back empty from the tables
            sim_ports.boards_back_from_the_tables(checked.ports)
        options = RunOptions(ports=list(checked.ports), journal=checked.journal, copies=request.copies,
                             set_name=request.set_name, resume=request.resume, replay=request.replay,
                             teaching=request.teaching, show_cards=False,
                             machine_names=[f"m{k + 1}" for k in range(len(checked.ports))],
                             view=_Poking(view, watcher, live, lambda: self.hub.publish(self.snapshot())),
                             title=checked.title, stop=live.stop,
                             history=checked.history, practice=checked.history is not None, give_up=live.give_up,
                             out=cast(IO[str], _Notes(self.hub, key)))
        live.thread = threading.Thread(target=self._deal, args=(live, checked, options), name="run", daemon=True)
        live.status = "dealing"
        live.message = Later(lambda: _("resumed: the boards left are dealt")) if request.resume else ""
        self.hub.publish({"type": "status", "run": key, "status": live.status, "title": live.title,
                          "message": live.message})
        live.thread.start()
        return live

    def stop(self) -> LiveRun:
        """Stop the run cleanly: each machine finishes its board (resume goes on from there)."""
        with self._lock:
            live = self.current
            if live is not None and live.status == "stopping":
                raise UsageError(_("the run is stopping already: each machine finishes its board"))
            if live is None or live.status not in ("starting", "dealing"):
                raise UsageError(_("no run is dealing"))
            live.status = "stopping"
            live.stop.set()
        self.hub.publish({"type": "status", "run": live.key, "status": live.status, "title": live.title,
                          "message": Later(lambda: _("each machine finishes its board, then the run stops"))})
        threading.Thread(target=self._stop_within, args=(live,), name="stop-within", daemon=True).start()
        return live

    def _stop_within(self, live: LiveRun) -> None:
        """A stopping run whose machines have not finished their boards within `stop_within` seconds is ended:
        each machine is given up where it stands (the resume settles its board, as after a crash)."""
        thread = live.thread
        if thread is None:
            return
        thread.join(self.stop_within)
        if not thread.is_alive():
            return
        seconds = self.stop_within
        self.give_up(live, Later(lambda: _(
            "a machine did not finish its board within {seconds:g} s of the stop: the run ended without it; the "
            "resume recounts that board before dealing on").format(seconds=seconds)))

    def give_up(self, live: LiveRun | None = None, why: str | Later = "") -> None:
        """End the run now (a second signal, or a stop that took too long): every machine is given up."""
        live = live or self.current
        if live is None or live.give_up.is_set() or live.status not in ("starting", "dealing", "stopping"):
            return
        live.give_up.set()
        if why:
            live.message = why
            self.hub.publish({"type": "status", "run": live.key, "status": live.status, "title": live.title,
                              "message": why})

    def stop_for_shutdown(self) -> bool:
        """The server is shutting down: stop the run if it deals (one already stopping goes on stopping);
        True if a run was dealing or stopping."""
        with contextlib.suppress(UsageError):
            self.stop()
        return self.dealing()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the current run's thread (the server shutting down, a test)."""
        live = self.current
        if live is not None and live.thread is not None:
            live.thread.join(timeout)

    def _deal(self, live: LiveRun, checked: sources.Checked, options: RunOptions) -> None:
        result: RunResult | None = None
        try:
            if checked.plan is not None:
                from dealer.plan.run import deal_plan

                result = deal_plan(checked.plan, replace(options, machine_names=None))
            else:
                assert checked.deals is not None
                result = deal_session(checked.deals, str(checked.source.resolve()), options)
            raise_for(result)
            live.status, live.message = "finished", Later(lambda: _("every board verified"))
        except DealerError as exc:  # (the run sets its stop event as it ends: the status says who stopped it)
            asked = live.status == "stopping"
            live.status = "stopped" if asked else "failed"
            gave_up = live.give_up.is_set()
            live.message = (Later(lambda: _stopped(gave_up, result)) if asked
                            else given.shown(str(exc), self.workdir))
        except Exception as exc:  # a bug: shown, and the server goes on
            kind, error = type(exc).__name__, str(exc)
            live.status, live.message = "failed", Later(lambda: _("unexpected error: {kind}: {error}").format(
                kind=kind, error=error))
        finally:
            live.watcher.stop()
            live.summary = self._summary(live) or (result.summary if result is not None else "")
            at_rest = self.snapshot()  # the machines at rest, and the run's last reading
            self.hub.publish(at_rest)
            self.hub.publish({"type": "ended", "run": live.key, "status": live.status, "message": live.message,
                              "summary": live.summary, "figures": at_rest["figures"],
                              "resume": self._how_to_resume(live)})

    # --- after a stop --------------------------------------------------------------------------

    def _summary(self, live: LiveRun) -> Later | None:
        """The run report's summary of the runs dealt (`dealer.journal.run_report`): every part of them, said in
        each reader's language (None: the journal cannot be read)."""
        figures = live.watcher.report()  # the room's own fold, gone on to the journal's last event
        if figures is None:
            return None
        workdir = self.workdir
        return Later(lambda: given.shown(report.summary_text(figures), workdir))

    def _how_to_resume(self, live: LiveRun) -> dict[str, Any] | None:
        """How a run that ended with boards left goes on: the Room's Resume button, and the command line
        that does the same from the work folder; None when nothing is left to deal."""
        if live.status not in ("stopped", "failed") or not grid.unfinished_runs(live.journal):
            return None
        return {"command": resume_command(live.request, live.plan, live.history, self.workdir)}


    # --- what a browser sees first --------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The room as it stands: the live run's machines, grid and faults, or the last run of the journals."""
        live = self.current
        if live is not None:
            progress = live.view.progress
            machines = [machine_dict(r) for r in progress.rows()] if progress is not None else []
            cells, shown = live.watcher.room()
            ended = live.status not in ("starting", "dealing", "stopping")
            if ended:
                machines = [at_rest(m, live.status) for m in machines]
            return {"type": "snapshot", "run": live.key, "title": live.title, "status": live.status,
                    "message": live.message, "summary": live.summary,
                    "journal": given.shown(str(live.journal), self.workdir),
                    "total": progress.total_jobs if progress is not None else 0,
                    "verified": shown["verified"] if shown is not None else 0,
                    "figures": shown, "resume": self._how_to_resume(live) if ended else None,
                    "machines": machines, "grid": cells, "faults": live.view.fault_list(),
                    "t": time.time()}
        for journal in reversed(self.journals()):
            cells, read = _journal_room(journal)
            done = sum(1 for c in cells if c["state"] == "verified")
            return {"type": "snapshot", "run": "",
                    "title": Sentence.of(N_("{journal} (from the journal)"), journal=journal.name),
                    "status": "idle", "message": _resting(journal), "summary": "",
                    "journal": given.shown(str(journal), self.workdir), "total": len(cells), "verified": done,
                    "figures": read, "resume": None, "machines": [],
                    "grid": cells, "faults": past.journal_faults(journal), "t": time.time()}
        return {"type": "snapshot", "run": "", "title": Later(lambda: _("no run yet")), "status": "idle",
                "message": Later(lambda: _("start a run on the Start page")), "summary": "", "journal": "", "total": 0,
                "verified": 0, "figures": None, "resume": None, "machines": [], "grid": [], "faults": [],
                "t": time.time()}


def at_rest(machine: dict[str, Any], status: str) -> dict[str, Any]:
    """A machine of a run that has ended: done (or stopped), no board in hand; its last step kept only if it
    was a fault, a prompt or why it stopped (a step's time left and pace belong to a run dealing)."""
    kept = machine["kind"] in ("fault", "prompt", "stopped")
    return {**machine, "state": "done" if status == "finished" else machine["state"] if kept else "stopped",
            "job": machine["job"] if kept else None, "step": machine["step"] if kept else "", "kind": machine["kind"]
            if kept else "note"}


def _stopped(gave_up: bool, result: RunResult | None) -> str:
    """What a run stopped as asked says: its machines ended (`gave_up`) or each finished its board, and the
    boards left after its result ('; 13 of 16 boards left'; nothing when there is none)."""
    if result is None:
        return (_("stopped as asked: ended") if gave_up
                else _("stopped as asked: each machine finished the board it had"))
    left, jobs = result.jobs - result.verified, result.jobs
    if gave_up:
        return _("stopped as asked: ended; {left} of {jobs} boards left").format(left=left, jobs=jobs)
    return _("stopped as asked: each machine finished the board it had; {left} of {jobs} boards left").format(
        left=left, jobs=jobs)


def _resting(journal: Path) -> Later:
    """What the room says of a journal no run of this console is dealing (the console was started again)."""
    unfinished = grid.unfinished_runs(journal)
    if not unfinished:
        return Later(lambda: _("no run is dealing; the journal's runs are shown"))
    return Later(lambda: _(
        "no run is dealing; run {run} of {journal} is unfinished: to go on, tick 'resume the unfinished run' "
        "on the Start page (or type the dealer deal command that dealt it, with --resume)").format(
        run=unfinished[0], journal=journal.name))


def _journal_room(journal: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The grid and the figures of a journal no run of this console deals, of one reading (a journal that
    cannot be read: its grid, as `read_grid` refuses it, and no figures)."""
    try:
        return grid.read_room(journal)
    except DealerError:
        return grid.read_grid(journal), None


def resume_command(request: RunRequest, plan: bool, history: Path | None, workdir: Path) -> str:
    """The command line that resumes a run of the console, as typed in its work folder: the same file,
    machines, copies, board set, replay, teaching and deal history."""
    def here(path: Path | str) -> str:
        return given.shown(str(path), workdir)

    args = ["dealer", "deal"]
    if plan:
        args += ["--plan", here(request.source)]
    else:
        args.append(here(request.source))
        for port in request.ports:
            args += ["--port", here(port)]
        if request.copies != 1:
            args += ["--copies", str(request.copies)]
        if request.set_name != "A":
            args += ["--set", request.set_name]
        if request.replay:
            args.append("--replay")
        if request.teaching:
            args.append("--teaching")
    if history is not None:
        args += ["--history", here(history)]
    return " ".join(shlex.quote(a) for a in [*args, "--resume"])


class _Poking:
    """The run's view: the hub's view, and each event wakes the grid watcher. As the run opens, the faults
    of the runs it deals (an earlier part's too, on a resume) are read from the journal, and every browser
    is sent the room afresh (`opened`)."""

    def __init__(self, view: HubView, watcher: grid.GridWatcher, live: LiveRun, opened: Any) -> None:
        self.view = view
        self.watcher = watcher
        self.live = live
        self.opened = opened

    def open(self, progress: Any) -> None:
        self.watcher.run_ids = grid.unfinished_runs(self.live.journal)
        self.watcher.progress = progress  # the room reads the run's own fold from here on
        with contextlib.suppress(DealerError):  # (the live list goes on without them)
            self.view.keep_faults(past.journal_faults(self.live.journal, self.watcher.run_ids))
        self.view.open(progress)
        self.watcher.start()
        self.opened()
        self.watcher.poke()

    def show(self, event: Any) -> None:
        self.view.show(event)
        self.watcher.poke()

    def close(self) -> None:
        self.view.close()


class _Notes(io.TextIOBase):
    """The run's `out` (notes such as a replay's F10 warning): each line a note in the room."""

    def __init__(self, hub: EventHub, key: str) -> None:
        super().__init__()
        self.hub = hub
        self.key = key

    def write(self, text: str) -> int:
        for line in text.splitlines():
            if line.strip():
                self.hub.publish({"type": "event", "run": self.key, "t": time.time(), "machine": "",
                                  "kind": "note", "text": line.strip(), "job": None})
        return len(text)
