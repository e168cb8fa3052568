"""A congress dealt (`deal_plan`, what ``dealer deal --plan`` does): each session one run of the plan's
journal (Law 6D2 per session, replays as the plan marks them), all begun in one transaction, held by
this process; the machines take every session's jobs from one queue, earliest session first. Resume is
per session. On a journal a room shares, one session at a time instead (`dealer.plan.room`). What is refused,
and why: `dealer.plan.problems`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from dealer.core.dealset import DealSet
from dealer.core.errors import Interrupted, SystemRefused
from dealer.dealing.run import (
    RunOptions,
    RunResult,
    check_run_options,
    execute,
    interrupted,
    practice,
    release_loaded,
    remember,
    with_advice,
)
from dealer.dealing.transport import check_traces
from dealer.journal.history import DealHistory, check_reuse
from dealer.journal.lock import JournalLock
from dealer.journal.opening import open_journal
from dealer.journal.store import Journal, Run, RunSpec
from dealer.language import _
from dealer.plan import Plan, Session
from dealer.plan import problems as check
from dealer.plan.room import deal_in_the_room

REPLAY_HINT = check.REPLAY_HINT


def deal_plan(plan: Plan, options: RunOptions, sessions: list[str] | None = None) -> RunResult:
    """Deal the plan's sessions (all, or those named) on the plan's machines, on the journal of
    `options` (the CLI passes the plan's journal unless told otherwise)."""
    chosen = [plan.session(name) for name in sessions] if sessions else list(plan.sessions)
    chosen = [s for s in plan.sessions if s in chosen]  # plan order, each once
    refused = check.prepared_problems(plan, chosen)  # first: nothing is made for a plan the Laws refuse
    if refused:
        raise refused[0]
    if plan.event.teaching:
        options = replace(options, teaching=True)
    # first: a live run is named, nothing else (a journal in a database is held run by run, as each is opened)
    lock = JournalLock.acquire(options.journal, "dealer deal --plan") if isinstance(options.journal, Path) else None
    try:
        options = practice(options, [m.url for m in plan.machines])
        found = check.problems(plan, chosen, check.journal_runs(options.journal), resume=options.resume,
                               journal=str(options.journal), history=options.history,
                               elsewhere=check.held_elsewhere(options.journal))
        if found:
            raise found[0]
        check_traces(m.url for m in plan.machines)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    deal_sets = {s.name: plan.deal_set(s) for s in chosen}
    options = replace(options, ports=[m.url for m in plan.machines],
                      machine_names=[m.name for m in plan.machines])
    try:
        check_run_options(options)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    try:
        journal = open_journal(options.journal, create=not options.resume, command="dealer deal --plan", lock=lock)
    except SystemRefused as exc:
        raise with_advice(exc, None, list(deal_sets.values())) from exc
    with journal:
        try:
            if journal.shared:  # a room: the next session nobody holds, one at a time
                return deal_in_the_room(journal, plan, chosen, deal_sets, options,
                                        {s.name: _source_text(plan, s) for s in chosen})
            runs = _open_runs(journal, plan, chosen, deal_sets, options)
            if not runs:
                return _nothing_left(journal, plan, chosen, options)
            names = {run_id: name for name, run_id in runs}
            extra = {"plan": plan.path, "sessions": {name: run_id for name, run_id in runs}}
            result = execute(journal, [(run_id, deal_sets[names[run_id]]) for _, run_id in runs], options, extra)
        except SystemRefused as exc:  # before the stations began: resume, or the same command again
            raise with_advice(exc, journal, list(deal_sets.values())) from exc
        except KeyboardInterrupt as exc:  # before the machines started: how far the sessions had got
            if isinstance(exc, Interrupted) and exc.left is not None:
                raise
            wanted = {s.name for s in chosen}
            raise interrupted(exc, journal, [r.id for r in journal.runs()
                                             if r.name in wanted and not r.finished]) from None
    return result


def _open_runs(journal: Journal, plan: Plan, chosen: list[Session], deal_sets: dict[str, DealSet],
               options: RunOptions) -> list[tuple[str, int]]:
    """The (session, run id) pairs to deal now, in plan order: unfinished runs continued (with resume),
    missing ones begun; finished sessions left out."""
    runs = journal.runs()
    found = {s.name: check.session_run(plan, s, runs) for s in chosen}
    refused = check.unfinished_problems(found, resume=options.resume, journal=str(journal.path))
    if refused:
        raise refused[0]
    unfinished = [(name, run) for name, run in found.items() if run is not None and not run.finished]
    for name, done in found.items():
        if done is not None and done.finished:
            options.out.write(_("session {session}: dealt already (run {run}, finished)").format(
                session=name, run=done.id) + "\n")
    dealt_now = [s for s in chosen if not _finished(found[s.name])]
    clashes = check.board_clashes(dealt_now)
    if clashes:
        raise clashes[0]
    fresh = [s for s in dealt_now if found[s.name] is None]
    with DealHistory.open(options.history) as history:
        for s in fresh:
            for fault in check_reuse(history, deal_sets[s.name], name=s.name, replay=s.replay, hint=_(REPLAY_HINT)):
                options.out.write(_("note: {note}").format(note=fault.text()) + "\n")
        for name, run in unfinished:
            remember(history, journal, run, deal_sets[name], options, hint=_(REPLAY_HINT))
        # their deals go into the history one by one, as each one's dealing begins
        begun = journal.begin_runs([RunSpec(s.name, _source_text(plan, s), deal_sets[s.name], s.jobs(), s.replay)
                                    for s in fresh], hint=_(REPLAY_HINT))
    run_of = {run.name: run.id for run in begun}
    for name, run in unfinished:
        release_loaded(journal, run.id)
        run_of[name] = run.id
    return [(s.name, run_of[s.name]) for s in dealt_now]


def _finished(run: Run | None) -> bool:
    return run is not None and run.finished


def _source_text(plan: Plan, session: Session) -> str:
    return f"plan {Path(plan.path).name}: {session.source.describe()}"


def _nothing_left(journal: Journal, plan: Plan, chosen: list[Session], options: RunOptions) -> RunResult:
    """Every session asked for is dealt already: a complete result, nothing dealt."""
    runs = journal.runs()
    found = [check.session_run(plan, s, runs) for s in chosen]
    ids = tuple(r.id for r in found if r is not None)
    jobs = sum(len(journal.jobs(i)) for i in ids)
    summary = _("every session asked for is dealt already ({runs} runs, {jobs} boards verified)").format(
        runs=len(ids), jobs=jobs)
    options.out.write(summary + "\n")
    return RunResult(ids[0], jobs, jobs, [], [], [], summary, ids)
