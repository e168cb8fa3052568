"""`dealer plan PLAN.toml [--generate]`: check a congress plan and show what it will deal, never a seed or a deal.

A plan that reads well but that `dealer deal --plan` would refuse (`dealer.plan.problems`) is shown, then every
problem is listed and the command fails with the first one's exit code.
"""

from __future__ import annotations

import argparse
import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dealer.cli.history import history_option, history_target
from dealer.cli.live import add_view_option, task_progress
from dealer.cli.options import speak_the_plans
from dealer.core.boards import format_board_range
from dealer.journal.database_url import DatabaseURL, JournalPlace, record_folder, record_place
from dealer.journal.events import EventKind, RunTaken
from dealer.journal.history import HistoryPlace, practice_history, practice_note, teaching_history, teaching_note
from dealer.journal.opening import read_journal
from dealer.journal.store import Run
from dealer.language import N_, _, n_, said_from
from dealer.plan import DealingOrder, Plan, PlanError, Session
from dealer.plan import problems as check
from dealer.plan.model import SOURCE_WORDS

_ORDER_TEXT = {DealingOrder.SET: N_("set by set"), DealingOrder.BOARD: N_("all copies of a board, board by board")}


def register(sub: Any) -> None:
    p = sub.add_parser("plan", help=_("check a congress plan file and show its sessions and jobs"),
                       description=textwrap.fill(
                           _("Check a congress plan (TOML) and show its sessions, sections, board sets, jobs and "
                             "machines, and everything `dealer deal --plan` would refuse. Deals and seeds are never "
                             "shown."), 100),
                       epilog=_(EPILOG), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plan", metavar="PLAN.toml", help=_("the plan file (see examples/congress.toml)"))
    p.add_argument("--generate", action="store_true",
                   help=_("write the deal files of fresh sessions that do not exist yet (never replaces one)"))
    p.add_argument("--journal", metavar="JOURNAL",
                   help=_("the journal of the plan's runs, if not the plan's own (a room's: postgresql://...)"))
    add_view_option(p)
    history_option(p)
    p.set_defaults(func=run)


EPILOG = N_("""examples:
  dealer plan examples/congress.toml              check the plan: sessions, sets, jobs, machines, problems
  dealer plan examples/congress.toml --generate   ... and write the fresh deals, once, into its deal folder

PLAN.toml names the event, the machines (name and port), and the sessions with their boards, deal
source, sections, copies and board sets; the schema is in examples/congress.toml. The plan is checked
as `dealer deal --plan` checks it before dealing: this command lists every problem that would refuse
it (and fails with the first one's exit code), the deal run the first alone.""")


def run(args: argparse.Namespace) -> int:
    """Show per session the boards, the kind of deal source, the sections, copies, board sets and job count,
    then the machines and the totals. `--generate` first writes the deal files of fresh sessions that do
    not exist yet (never over an existing one). A bad plan exits non-zero with one line naming the file,
    the line and the field. What `dealer deal --plan` refuses: no machine, reused deals, two sessions in
    one physical board, a run to resume, deals this computer's deal history holds from another run."""
    plan = Plan.load(args.plan)
    speak_the_plans(args, plan.event.lang)
    if args.generate:
        _generate(plan, args.plain)
    try:
        notes = plan.check_reuse()
    except PlanError:
        notes = []  # listed with the problems below
    print("\n".join(describe(plan)))
    history: HistoryPlace | None = history_target(args)
    folder = record_folder(plan.event.journal)
    if plan.event.teaching:
        teaching = teaching_history(folder, create=False)
        print(teaching_note(teaching))
        practice: Path | None = teaching
    else:
        practice = practice_history((m.url for m in plan.machines), folder, given=history, create=False)
        if practice is not None:
            print(practice_note(practice))
    history = practice or history
    journal = record_place(args.journal) if args.journal else plan.event.journal
    runs = check.journal_runs(journal)
    elsewhere = check.held_elsewhere(journal)
    for line in session_states(plan, journal, runs, elsewhere):
        print(line)
    _problems, history_notes = check.history_problems(plan, plan.sessions, runs, history)
    for note in notes + history_notes:
        print(_("note: {note}").format(note=note.text()))
    found = check.problems(plan, runs=runs, history=history, journal=str(journal), elsewhere=elsewhere)
    if not found:
        if plan.sessions and all(check.finished(check.session_run(plan, s, runs)) for s in plan.sessions):
            print(_("every session of the plan is dealt already (its journal {journal}): nothing left to deal").format(
                journal=journal))
            return 0
        print(_("ready to deal: dealer deal --plan {plan}").format(plan=args.plan))
        return 0
    print(n_("dealer deal --plan would refuse this plan ({count} problem):",
             "dealer deal --plan would refuse this plan ({count} problems):", len(found)).format(count=len(found)))
    for problem in found:
        print(f"  - {problem}")
    first = found[0]  # its kind gives the exit code; its words are in the list, not said twice
    raise type(first)(n_("{plan}: {count} problem to put right before dealing (listed above)",
                         "{plan}: {count} problems to put right before dealing (listed above)", len(found)).format(
        plan=args.plan, count=len(found)))


def session_states(plan: Plan, journal: JournalPlace, runs: Sequence[Run], held: Mapping[int, str]) -> list[str]:
    """Where each session of the plan stands in its journal, once one is begun: dealt, being dealt (by whom, in a
    room: `held`), stopped before its end, or not begun; who took it last, where the journal says (a room's)."""
    begun = {s.name: run for s in plan.sessions if (run := check.session_run(plan, s, runs)) is not None}
    if not begun:
        return []
    with read_journal(journal) as reading:
        takers = {run.id: taken.event.controller for run in begun.values()
                  if (taken := reading.last_event(run.id, EventKind.RUN_TAKEN)) is not None
                  and isinstance(taken.event, RunTaken)}
    lines = [_("sessions in the journal {journal}:").format(journal=journal)]
    for session in plan.sessions:
        run = begun.get(session.name)
        if run is None:
            said = _("not begun")
        elif run.finished:
            said = (_("dealt (run {run}) by {controller}") if run.id in takers else _("dealt (run {run})")).format(
                run=run.id, controller=takers.get(run.id))
        elif run.id in held:
            said = _("being dealt by {controller} (run {run})").format(controller=held[run.id], run=run.id)
        else:
            said = _("stopped before its end (run {run}): continue it with --resume").format(run=run.id)
        lines.append("  " + _("{session}: {state}").format(session=session.name, state=said))
    return lines


def _generate(plan: Plan, plain: bool) -> None:
    """Write the fresh deals of the plan's sessions, showing how far it has gone."""
    pending = plan.to_generate()
    if not pending:
        return
    with task_progress(_("generating the fresh deals"), sum(len(s.boards) for s in pending), plain=plain) as advance:
        def written(session: Session, path: Path) -> None:
            advance(len(session.boards))
            print(n_("generated {path} ({count} boards of session {session})",
                     "generated {path} ({count} boards of session {session})", len(session.boards)).format(
                path=_shown(path), count=len(session.boards), session=session.name), flush=True)

        plan.generate(written)


def describe(plan: Plan) -> list[str]:
    """The plan as lines of text for the director: no deal and no seed in them."""
    event = plan.event
    out = [_("plan {path}: {name}").format(path=plan.path, name=event.name),
           "  " + _("deal folder {folder}, journal {journal}, dealing order {order}").format(
               folder=_shown(event.deal_folder), journal=_shown(event.journal), order=_(_ORDER_TEXT[event.order]))]
    for session in plan.sessions:
        out.extend(_session_lines(plan, session))
    sets = plan.board_sets()
    out.append(_("board sets ({count}): {sets}").format(
        count=len(sets), sets=", ".join(f"{name} {format_board_range(list(boards))}" for name, boards in sets.items())))
    if plan.machines:
        out.append(_("machines ({count}): {machines}").format(
            count=len(plan.machines), machines="; ".join(f"{m.name} {m.url}" for m in plan.machines)))
    else:
        out.append(_("machines: none (a dealing run needs at least one)"))
    pending = sum(plan.needs_generation(s) and plan.deal_file(s) is not None for s in plan.sessions)
    sessions, machines = len(plan.sessions), len(plan.machines)
    total = _("total: {sessions}, {boards}, {jobs}, {machines}").format(
        sessions=n_("{count} session", "{count} sessions", sessions).format(count=sessions),
        boards=n_("{count} board", "{count} boards", plan.board_count).format(count=plan.board_count),
        jobs=n_("{count} job", "{count} jobs", plan.job_count).format(count=plan.job_count),
        machines=n_("{count} machine", "{count} machines", machines).format(count=machines))
    if pending:
        total = _("{total}; {generate}").format(total=total, generate=n_(
            "{count} deal file to generate (--generate)", "{count} deal files to generate (--generate)",
            pending).format(count=pending))
    out.append(total)
    return out


def _session_lines(plan: Plan, session: Session) -> list[str]:
    source = said_from(session.source.describe(), SOURCE_WORDS)
    path = plan.deal_file(session)
    if path is not None:
        state = _("to be generated") if plan.needs_generation(session) else _("exists")
        source += f", {_shown(path)} ({state})"
    elif plan.needs_generation(session):
        source += " (" + _("to be generated") + ")"
    head = _("session {number} {name}: boards {boards} ({count}), {source}, {jobs}").format(
        number=session.number, name=session.name, boards=session.board_text, count=len(session.boards),
        source=source, jobs=n_("{count} job", "{count} jobs", session.job_count).format(count=session.job_count))
    if session.replay:
        head = _("{session}, replay").format(session=head)
    if session.order is not plan.event.order:
        head = _("{session}, dealt {order}").format(session=head, order=_(_ORDER_TEXT[session.order]))
    lines = [head]
    for section in session.sections:
        copies = n_("{count} copy", "{count} copies", section.copies).format(count=section.copies)
        line = "  " + _("section {name}: {copies}, sets {sets}").format(
            name=section.name, copies=copies, sets=" ".join(section.sets))
        if section.boards is not None:
            line = _("{section}, boards {boards}").format(section=line, boards=format_board_range(list(section.boards)))
        lines.append(line)
    return lines


def _shown(path: Path | DatabaseURL) -> str:
    """A path as short as it can be said from the current folder (a database's URL as it is, without password)."""
    if isinstance(path, DatabaseURL):
        return str(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("../../") else str(path)
