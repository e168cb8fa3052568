"""The dealing run: a deal set and its copies -> journal jobs -> machines, one station thread each.

`deal_session` is what `dealer deal` does: read the deal file, open (or resume) the run in the
journal, refuse a deal set used before (Law 6D2), put every job left half-way by a crash back where
it belongs, start one `Station` per machine, and end with a summary and an optional report file.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from dealer.dealset import DealSet
from dealer.errors import DealerError, JournalError, VerificationError
from dealer.journal import JobPlan, JobState, Journal
from dealer.machine import Machine
from dealer.outfile import write_text
from dealer.progress import RunProgress
from dealer.station import RunContext, Station


@dataclass
class RunOptions:
    """How to deal: ports, copies, journal, resume/replay, timeouts, what to show."""

    ports: Sequence[str]
    journal: Path
    names: Sequence[str] | None = None
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
    out: IO[str] = field(default_factory=lambda: sys.stderr)


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
    with Journal.open(options.journal) as journal:
        run_id = _open_run(journal, deals, source, plan, options, name or Path(source).stem)
        return _execute(journal, run_id, deals, options)


def _open_run(journal: Journal, deals: DealSet, source: str, plan: list[JobPlan], options: RunOptions,
              name: str) -> int:
    unfinished = journal.unfinished_run(deals.set_hash())
    if options.resume:
        if unfinished is None:
            raise JournalError(f"{journal.path}: no unfinished run of this deal set to resume")
        _release_loaded(journal, unfinished.id)
        return unfinished.id
    if unfinished is not None:
        raise JournalError(f"{journal.path}: run {unfinished.id} of this deal set is unfinished; "
                           f"continue it with --resume")
    return journal.begin_run(name, source, deals, plan, replay=options.replay).id


def _release_loaded(journal: Journal, run_id: int) -> None:
    """Jobs only loaded or scanned when the controller stopped: nothing was dealt; plan them again."""
    for job in journal.jobs(run_id, {JobState.LOADED, JobState.SCANNED}):
        journal.advance(job.id, JobState.PLANNED, kind="released", detail={"why": "resumed"})


def _execute(journal: Journal, run_id: int, deals: DealSet, options: RunOptions) -> RunResult:
    jobs = journal.jobs(run_id)
    progress = RunProgress(total_jobs=len(jobs), out=options.out, show_cards=options.show_cards,
                           quiet=options.quiet)
    progress.verified = sum(1 for j in jobs if j.state is JobState.VERIFIED)
    ctx = RunContext(journal, run_id, deals, progress, default_set=options.set_name,
                     board_timeout=options.board_timeout, deal_timeout=options.deal_timeout,
                     max_attempts=options.max_attempts, machine_names=set(options.names or options.ports))
    names = list(options.names or options.ports)
    factory = options.machine_factory or (lambda url: Machine(url))
    machines = [factory(url) for url in options.ports]
    for machine, name in zip(machines, names, strict=True):
        machine.name = name
    errors: list[str] = []
    threads = [threading.Thread(target=_station_thread, args=(Station(m, ctx), errors), name=m.name,
                                daemon=True) for m in machines]
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
    return _result(journal, run_id, ctx, errors, options)


def _station_thread(station: Station, errors: list[str]) -> None:
    try:
        station.run()
    except DealerError as exc:
        errors.append(f"{station.name}: {exc}")
        station.ctx.progress.say(station.name, f"stopped: {exc}")
        station.release_current()


def _result(journal: Journal, run_id: int, ctx: RunContext, errors: list[str], options: RunOptions) -> RunResult:
    jobs = journal.jobs(run_id)
    verified = sum(1 for j in jobs if j.state is JobState.VERIFIED)
    unresolved = [f"board {j.board} copy {j.copy}: {j.state}" for j in jobs if j.state is not JobState.VERIFIED]
    if verified == len(jobs):
        journal.finish_run(run_id)
    summary = ctx.progress.summary()
    if options.report is not None:
        write_text(options.report, ctx.progress.report({
            "run": run_id, "journal": str(options.journal), "unresolved": unresolved,
            "stopped": ctx.stop_reason, "errors": errors}), force=True)
    return RunResult(run_id, verified, len(jobs), unresolved, list(ctx.stop_reason), errors, summary)


def raise_for(result: RunResult) -> None:
    """Turn an incomplete run into the error its cause calls for."""
    if result.complete:
        return
    if result.stopped:
        raise VerificationError("the run stopped: " + "; ".join(result.stopped))
    if result.errors:
        raise DealerError(f"{result.errors[0]} ({len(result.unresolved)} boards left; continue with --resume)")
    raise VerificationError(f"{len(result.unresolved)} boards not verified: " + "; ".join(result.unresolved[:5]))
