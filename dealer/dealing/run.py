"""The dealing run: a deal set and its copies -> journal jobs -> machines, one station thread each.

`deal_session` is what `dealer deal FILE` does: read the deal file, take the journal (refused while
another process holds it), open (or resume) the run in the journal, refuse a deal set used before (Law
6D2: in this journal, or on this computer by the deal history), put every job left half-way by a crash
back where it belongs, start one `Station` per machine, and end with a summary and an optional report
file.
`execute` deals the jobs of one run or of several (a congress, `dealer.plan.run`) from one queue.
A machine that is lost stops its station; the others go on, and its unsettled jobs wait for a resume.
Such a run is not a success even if the others dealt every board: `raise_for` raises the lost machine's
error (its exit code), and the summary names the machine, its port and why.

What the run shows goes through `RunProgress` to the view of `RunOptions` (plain lines by default);
each station tells it which job it holds (`JobInHand`: session, board set, board, copy, attempt).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError, JournalError, VerificationError
from dealer.dealing import report
from dealer.dealing.history import DealHistory, check_reuse
from dealer.dealing.jobplan import JobPlan
from dealer.dealing.journal import Job, JobState, Journal, Run
from dealer.dealing.machine import Machine
from dealer.dealing.progress import JobInHand, ProgressView, RunProgress
from dealer.dealing.station import RunContext, Station


@dataclass
class RunOptions:
    """How to deal: ports, copies, journal, resume/replay, timeouts, what to show."""

    ports: Sequence[str]
    journal: Path
    copies: int = 1
    set_name: str = "A"
    resume: bool = False
    replay: bool = False
    report: Path | None = None
    force: bool = False
    show_cards: bool = False
    quiet: bool = False
    board_timeout: float = 600.0
    deal_timeout: float = 300.0
    max_attempts: int = 3
    machine_factory: Callable[[str], Machine] | None = None
    machine_names: Sequence[str] | None = None
    """What the run calls each machine (one per port): in the journal, the progress lines, the report."""
    history: Path | None = None
    """The deal history (Law 6D2 beyond this journal); None: this computer's (`history.default_path`)."""
    out: IO[str] = field(default_factory=lambda: sys.stderr)
    view: ProgressView | None = None
    """How progress is shown (default: one plain line an event on `out`)."""
    title: str = ""
    """What the run deals, for the head of a live view."""
    stop: threading.Event | None = None
    """Set from another thread to stop the run cleanly: each machine finishes its board, then the run ends
    (resumable, like Ctrl-C); None: the run makes its own."""


@dataclass
class RunResult:
    """How a run ended."""

    run_id: int
    verified: int
    jobs: int
    unresolved: list[str]
    stopped: list[str]
    errors: list[str]
    summary: str
    run_ids: tuple[int, ...] = ()
    """Every run dealt (one per session in a congress), in dealing order."""
    failures: tuple[tuple[str, DealerError], ...] = ()
    """Each machine that left the run, with the error that stopped it."""

    @property
    def complete(self) -> bool:
        """Every job verified."""
        return self.verified == self.jobs


def copies_plan(deals: DealSet, copies: int, set_name: str) -> list[JobPlan]:
    """Jobs for `copies` copies of every board: copy 1 of every board first (one board set at a time).

    Copy k goes into board set `set_name` + k when there are several copies (A1, A2, ...).
    """
    if copies < 1:
        raise DealerError(f"--copies must be at least 1; got {copies}")
    return [JobPlan(int(b), c, "", set_name if copies == 1 else f"{set_name}{c}")
            for c in range(1, copies + 1) for b in deals.boards]


def deal_session(deals: DealSet, source: str, options: RunOptions, name: str | None = None) -> RunResult:
    """Deal a deal set with its copies on the machines of `options`; resumable through the journal."""
    plan = copies_plan(deals, options.copies, options.set_name)
    with Journal.open(options.journal, create=not options.resume, command="dealer deal") as journal:
        run_id = _open_run(journal, deals, source, plan, options, name or Path(source).stem)
        return execute(journal, [(run_id, deals)], options)


def _open_run(journal: Journal, deals: DealSet, source: str, plan: list[JobPlan], options: RunOptions,
              name: str) -> int:
    unfinished = journal.unfinished_run(deals.set_hash())
    if options.resume:
        if unfinished is None:
            raise JournalError(f"{journal.path}: no unfinished run of this deal set to resume")
        with DealHistory.open(options.history) as history:
            remember(history, journal, unfinished, deals, options)
        release_loaded(journal, unfinished.id)
        return unfinished.id
    if unfinished is not None:  # this process holds the journal: no other controller is dealing it
        raise JournalError(f"{journal.path}: run {unfinished.id} of this deal set is unfinished; "
                           f"continue it with --resume")
    with DealHistory.open(options.history) as history:
        _tell(options, check_reuse(history, deals, name=name, replay=options.replay))
        run = journal.begin_run(name, source, deals, plan, replay=options.replay)
        history.record(deals, run_uid=run.uid, run_name=run.name, journal=journal.path, replay=run.replay)
    return run.id


def remember(history: DealHistory, journal: Journal, run: Run, deals: DealSet, options: RunOptions,
             hint: str | None = None) -> None:
    """A run to resume: checked against the deal history (its own entries excepted), then recorded in it
    (again, if it was: a run killed before recording its deals has them recorded now)."""
    replay = run.replay or options.replay
    _tell(options, check_reuse(history, deals, name=run.name, replay=replay, run_uid=run.uid, hint=hint))
    history.record(deals, run_uid=run.uid, run_name=run.name, journal=journal.path, replay=replay)


def _tell(options: RunOptions, warnings: Sequence[Any]) -> None:
    for fault in warnings:
        options.out.write(f"note: {fault.text()}\n")


def release_loaded(journal: Journal, run_id: int) -> None:
    """Jobs only loaded or scanned when the controller stopped: nothing was dealt; plan them again."""
    for job in journal.jobs(run_id, {JobState.LOADED, JobState.SCANNED}):
        journal.advance(job.id, JobState.PLANNED, kind="released", detail={"why": "resumed"})


def execute(journal: Journal, runs: Sequence[tuple[int, DealSet]], options: RunOptions,
            extra: dict[str, Any] | None = None) -> RunResult:
    """Deal the jobs of `runs` (run id, its deal set), in that order, from one queue on every machine of
    `options`; finish each run whose jobs are all verified; write the report file if one is asked for."""
    run_ids = [run for run, _ in runs]
    jobs = [j for run in run_ids for j in journal.jobs(run)]
    names = list(options.machine_names or options.ports)
    progress = RunProgress(total_jobs=len(jobs), out=options.out, show_cards=options.show_cards,
                           quiet=options.quiet, view=options.view, ports=dict(zip(names, options.ports, strict=True)),
                           title=options.title)
    progress.verified = sum(1 for j in jobs if j.state is JobState.VERIFIED)
    ctx = RunContext(journal, run_ids[0], runs[0][1], progress, default_set=options.set_name,
                     board_timeout=options.board_timeout, deal_timeout=options.deal_timeout,
                     max_attempts=options.max_attempts, machine_names=set(names), later_runs=tuple(runs[1:]),
                     stop=options.stop if options.stop is not None else threading.Event())
    sessions = {run: journal.run(run).name for run in run_ids}
    errors: list[tuple[str, DealerError]] = []
    progress.open()
    try:
        if options.resume:
            progress.note(f"resuming {_runs_text(sessions)}: {progress.verified} of {len(jobs)} boards verified "
                          "already")
        machines = _machines(options, names)
        threads = [threading.Thread(target=_station_thread, args=(ShownStation(m, ctx, sessions), errors),
                                    name=m.name, daemon=True) for m in machines]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        finally:
            ctx.stop.set()
            for t in threads:
                t.join(timeout=30)
            for m in machines:
                m.close()
    finally:
        progress.close()
    dealt = DealSet.concat(deals for _, deals in runs)
    return _result(journal, run_ids, ctx, errors, options, extra or {}, dealt)


def _runs_text(sessions: dict[int, str]) -> str:
    if len(sessions) == 1:
        ((run, name),) = sessions.items()
        return f"run {run} ({name})"
    return "runs " + ", ".join(f"{run} ({name})" for run, name in sessions.items())


class ShownStation(Station):
    """A station that tells the run's progress which job it holds, so that every line it shows names the
    session and the board set (a congress deals board 26 copy 2 into set A2 and into set BLUE alike)."""

    def __init__(self, machine: Machine, ctx: RunContext, sessions: dict[int, str]) -> None:
        super().__init__(machine, ctx)
        self.sessions = sessions

    def robust(self, step: Callable[[Job], None], job: Job) -> None:
        progress = self.ctx.progress
        progress.job_taken(self.name, JobInHand(self.sessions.get(job.run_id, str(job.run_id)),
                                                self.ctx.set_of(job), job.board, job.copy, job.attempt))
        try:
            super().robust(step, job)
        finally:
            progress.job_left(self.name)


def _machines(options: RunOptions, names: list[str]) -> list[Machine]:
    """One `Machine` per port, named as the run calls it (its port, or the name the plan gives it)."""
    factory = options.machine_factory or (lambda url: Machine(url))
    machines = []
    for url, name in zip(options.ports, names, strict=True):
        machine = factory(url)
        machine.name = name
        machines.append(machine)
    return machines


def _station_thread(station: Station, errors: list[tuple[str, DealerError]]) -> None:
    try:
        station.run()
    except DealerError as exc:
        errors.append((station.name, exc))
        station.ctx.machine_lost(station.name)
        station.ctx.progress.machine_lost(station.name, str(exc).removeprefix(f"{station.name}: "))
        station.release_current()


def _result(journal: Journal, run_ids: list[int], ctx: RunContext, errors: list[tuple[str, DealerError]],
            options: RunOptions,
            extra: dict[str, Any], deals: DealSet) -> RunResult:
    several = len(run_ids) > 1
    verified = total = 0
    unresolved: list[str] = []
    for run_id in run_ids:
        jobs = journal.jobs(run_id)
        done = sum(1 for j in jobs if j.state is JobState.VERIFIED)
        verified, total = verified + done, total + len(jobs)
        where = f"{journal.run(run_id).name} " if several else ""
        unresolved += [f"{where}board {j.board} copy {j.copy}: {j.state}" for j in jobs
                       if j.state is not JobState.VERIFIED]
        if done == len(jobs) and not journal.run(run_id).finished:
            journal.finish_run(run_id)
    summary = ctx.progress.summary()
    if options.report is not None:
        run_info = {"run": run_ids[0] if not several else run_ids, "journal": str(options.journal),
                    "unresolved": unresolved, "stopped": ctx.stop_reason,
                    "errors": [f"{name}: {exc}" for name, exc in errors], **extra}
        report.write_run_report(options.report, journal, run_ids, ctx.progress, run_info,
                                show_cards=options.show_cards, deals=deals)
    return RunResult(run_ids[0], verified, total, unresolved, list(ctx.stop_reason),
                     [f"{name}: {exc}" for name, exc in errors], summary, tuple(run_ids), tuple(errors))


def raise_for(result: RunResult) -> None:
    """Turn a run that did not end well into the error its cause calls for: a stop on a fault (F7), then a
    machine that left the run (its own error, so a port that never answered exits as it does in every
    command, even when the other machines dealt every board), then boards left unverified."""
    if result.stopped:
        raise VerificationError("the run stopped: " + "; ".join(result.stopped))
    if result.failures:
        name, exc = result.failures[0]
        more = f" (and {len(result.failures) - 1} more machines)" if len(result.failures) > 1 else ""
        left = (f"{len(result.unresolved)} boards left; continue with --resume" if not result.complete
                else "the other machines dealt every board")
        text = str(exc) if str(exc).startswith(f"{name}:") else f"{name}: {exc}"
        raise type(exc)(f"{text}{more} ({left})") from exc
    if not result.complete:
        raise VerificationError(f"{len(result.unresolved)} boards not verified: "
                                + "; ".join(result.unresolved[:5]))
