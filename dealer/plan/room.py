"""A plan dealt by a room (`deal_in_the_room`): on a journal several controllers share (in a database), each
controller takes the next session of the plan that nobody holds, deals it on its own machines, and takes the
next, until every session is dealt or held by another; two controllers never take one session (the run is held
by the one that took it, and begun once: `Journal.begin_runs` with ``unless_begun``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dealer.core.dealset import DealSet
from dealer.dealing.run import RunOptions, RunResult, execute, release_loaded, remember
from dealer.journal.history import DealHistory, check_reuse
from dealer.journal.store import Journal, Run, RunSpec
from dealer.language import _
from dealer.plan import Plan, Session
from dealer.plan import problems as check


def deal_in_the_room(journal: Journal, plan: Plan, chosen: Sequence[Session], deal_sets: dict[str, DealSet],
                     options: RunOptions, source: dict[str, str]) -> RunResult:
    """Deal `chosen` sessions one at a time, each the next one nobody holds (`next_session`), until none is left
    to this controller or a session does not end well (a machine lost, the journal, a signal: what a resume
    continues). `source`: how each session's deals are described in its run."""
    results: list[RunResult] = []
    dealt: list[int] = []
    names: list[str] = []
    while (taken := next_session(journal, plan, chosen, deal_sets, options, source)) is not None:
        name, run_id = taken
        options.out.write(_("session {session}: taken by this computer (run {run})").format(
            session=name, run=run_id) + "\n")
        options.out.flush()
        result = execute(journal, [(run_id, deal_sets[name])], options, {"plan": plan.path, "sessions": {name: run_id}},
                         reported_with=dealt)
        results.append(result)
        dealt.append(run_id)
        names.append(name)
        if not result.complete:
            break
    if not results:
        return nothing_left(journal, plan, chosen, options)
    return together(results, names)


def next_session(journal: Journal, plan: Plan, chosen: Sequence[Session], deal_sets: dict[str, DealSet],
                 options: RunOptions, source: dict[str, str]) -> tuple[str, int] | None:
    """The next of `chosen`, in plan order, that this controller now holds, begun if it was not: not finished,
    not held by another controller, and (without ``--resume``) not begun and left by one; None if none is."""
    held = journal.held_runs()
    runs = journal.runs()
    for session in chosen:
        run = check.session_run(plan, session, runs)
        if run is not None and (run.finished or run.id in held):
            continue
        if run is not None and not options.resume and not journal.never_began(run.id):
            continue  # left by a controller that stopped: a --resume continues it
        if run is None:
            run = _begin(journal, session, deal_sets[session.name], options, source[session.name])
        if not journal.take(run.id):
            continue  # another controller took it between the look and now
        run = journal.run(run.id)
        if run.finished:
            continue
        if not journal.never_began(run.id):
            with DealHistory.open(options.history) as history:
                remember(history, journal, run, deal_sets[session.name], options, hint=_(check.REPLAY_HINT))
        release_loaded(journal, run.id)
        return session.name, run.id
    return None


def _begin(journal: Journal, session: Session, deals: DealSet, options: RunOptions, source: str) -> Run:
    """The session's run, begun now (Law 6D2 checked against the deal history first), or the one another controller
    began meanwhile."""
    with DealHistory.open(options.history) as history:
        for fault in check_reuse(history, deals, name=session.name, replay=session.replay, hint=_(check.REPLAY_HINT)):
            options.out.write(_("note: {note}").format(note=fault.text()) + "\n")
    (run,) = journal.begin_runs([RunSpec(session.name, source, deals, session.jobs(), session.replay)],
                                hint=_(check.REPLAY_HINT), unless_begun=True)
    return run


def nothing_left(journal: Journal, plan: Plan, chosen: Sequence[Session], options: RunOptions) -> RunResult:
    """No session left to this controller: each is dealt already, held by another controller, or waiting for a
    resume; said session by session."""
    runs = journal.runs()
    held = journal.held_runs()
    lines = []
    for session in chosen:
        run = check.session_run(plan, session, runs)
        if run is None:
            continue
        if run.finished:
            lines.append(_("session {session}: dealt (run {run})").format(session=session.name, run=run.id))
        elif run.id in held:
            lines.append(_("session {session}: being dealt by {holder} (run {run})").format(
                session=session.name, holder=held[run.id], run=run.id))
        else:
            lines.append(_("session {session}: stopped before its end (run {run}); continue it with --resume").format(
                session=session.name, run=run.id))
    summary = "\n".join([_("no session of the plan is left to this computer:"), *("  " + line for line in lines)])
    ids = tuple(r.id for s in chosen if (r := check.session_run(plan, s, runs)) is not None)
    return RunResult(ids[0] if ids else 0, 0, 0, [], [], [], summary, ids)


def together(results: Sequence[RunResult], sessions: Sequence[str]) -> RunResult:
    """The sessions one controller dealt, as one result: counted together, each summary said under its
    session's name."""
    if len(results) == 1:
        return results[0]
    last = results[-1]
    summaries = [_("session {session}: {summary}").format(session=name, summary=r.summary)
                 for r, name in zip(results, sessions, strict=True) if r.summary]
    return replace(last, run_id=results[0].run_id, verified=sum(r.verified for r in results),
                   jobs=sum(r.jobs for r in results), unresolved=[u for r in results for u in r.unresolved],
                   stopped=[s for r in results for s in r.stopped], errors=[e for r in results for e in r.errors],
                   summary="\n".join(summaries),
                   run_ids=tuple(i for r in results for i in r.run_ids),
                   failures=tuple(f for r in results for f in r.failures),
                   exhausted=sum(r.exhausted for r in results))
