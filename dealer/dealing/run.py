"""The dealing run: a deal set and its copies -> journal jobs -> machines, one station thread each.

`deal_session` is what `dealer deal FILE` does: read the deal file, open (or resume) the run in the
journal, refuse a deal set used before (Law 6D2), put every job left half-way by a crash back where
it belongs, start one `Station` per machine, and end with a summary and an optional report file.
`execute` deals the jobs of one run or of several (a congress, `dealer.plan.run`) from one queue.
A machine that is lost stops its station; the others go on, and its unsettled jobs wait for a resume.
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
from dealer.dealing.jobplan import JobPlan
from dealer.dealing.journal import JobState, Journal
from dealer.dealing.machine import Machine
from dealer.dealing.progress import RunProgress
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
    run_ids: tuple[int, ...] = ()
    """Every run dealt (one per session in a congress), in dealing order."""

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
        return execute(journal, [(run_id, deals)], options)


def _open_run(journal: Journal, deals: DealSet, source: str, plan: list[JobPlan], options: RunOptions,
              name: str) -> int:
    unfinished = journal.unfinished_run(deals.set_hash())
    if options.resume:
        if unfinished is None:
            raise JournalError(f"{journal.path}: no unfinished run of this deal set to resume")
        release_loaded(journal, unfinished.id)
        return unfinished.id
    if unfinished is not None:
        raise JournalError(f"{journal.path}: run {unfinished.id} of this deal set is unfinished; "
                           f"continue it with --resume")
    return journal.begin_run(name, source, deals, plan, replay=options.replay).id


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
    progress = RunProgress(total_jobs=len(jobs), out=options.out, show_cards=options.show_cards,
                           quiet=options.quiet)
    progress.verified = sum(1 for j in jobs if j.state is JobState.VERIFIED)
    names = list(options.machine_names or options.ports)
    ctx = RunContext(journal, run_ids[0], runs[0][1], progress, default_set=options.set_name,
                     board_timeout=options.board_timeout, deal_timeout=options.deal_timeout,
                     max_attempts=options.max_attempts, machine_names=set(names), later_runs=tuple(runs[1:]))
    machines = _machines(options, names)
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
    dealt = DealSet.concat(deals for _, deals in runs)
    return _result(journal, run_ids, ctx, errors, options, extra or {}, dealt)


def _machines(options: RunOptions, names: list[str]) -> list[Machine]:
    """One `Machine` per port, named as the run calls it (its port, or the name the plan gives it)."""
    factory = options.machine_factory or (lambda url: Machine(url))
    machines = []
    for url, name in zip(options.ports, names, strict=True):
        machine = factory(url)
        machine.name = name
        machines.append(machine)
    return machines


def _station_thread(station: Station, errors: list[str]) -> None:
    try:
        station.run()
    except DealerError as exc:
        errors.append(f"{station.name}: {exc}")
        station.ctx.machine_lost(station.name)
        station.ctx.progress.say(station.name, f"stopped: {exc}")
        station.release_current()


def _result(journal: Journal, run_ids: list[int], ctx: RunContext, errors: list[str], options: RunOptions,
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
                    "unresolved": unresolved, "stopped": ctx.stop_reason, "errors": errors, **extra}
        report.write_run_report(options.report, journal, run_ids, ctx.progress, run_info,
                                show_cards=options.show_cards, deals=deals)
    return RunResult(run_ids[0], verified, total, unresolved, list(ctx.stop_reason), errors, summary,
                     tuple(run_ids))


def raise_for(result: RunResult) -> None:
    """Turn an incomplete run into the error its cause calls for."""
    if result.complete:
        return
    if result.stopped:
        raise VerificationError("the run stopped: " + "; ".join(result.stopped))
    if result.errors:
        raise DealerError(f"{result.errors[0]} ({len(result.unresolved)} boards left; continue with --resume)")
    raise VerificationError(f"{len(result.unresolved)} boards not verified: " + "; ".join(result.unresolved[:5]))
