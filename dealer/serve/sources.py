"""What a run deals and where, checked before anything starts: the validation the Start page shows.

A deal file (any format `dealer deal` reads) or a congress plan (``.toml``) of the console's work folder
(put there by the operator or uploaded: `dealer.serve.given`), on machines the console offers
(`dealer.serve.machines`). A plan naming a file outside the work folder or a machine not offered is
refused before it is read. A deal file is read in full (each board once, every deal whole) and checked by
`dealer.dealing.run.session_problems`, the rules `dealer deal` and the run itself apply (board sets, journal,
an unfinished run, Law 6D2, deals made under conditions outside a teaching run, Law 6E4), its advice naming the
page's boxes (resume, replay, teaching). A plan is checked
by `dealer.plan.problems`, the checks `dealer plan` and `dealer deal --plan` make; a plan deals on its own
machines. Deals dealt on simulated machines only are recorded in a deal history of the work folder, not
in this computer's (as `dealer demo` does). The request checked (`RunRequest`) is defined here, below the run
manager (`runs`) that starts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError, UsageError
from dealer.dealing.run import Advice, RunOptions, journal_held, session_problems
from dealer.formats.reading import ReadReport
from dealer.journal.database_url import DatabaseURL
from dealer.journal.history import (
    DealHistory,
    check_reuse,
    practice_history,
    practice_note,
    teaching_history,
    teaching_note,
)
from dealer.journal.opening import read_journal
from dealer.language import N_, _, n_
from dealer.plan import Plan
from dealer.plan import problems as plan_check
from dealer.serve import given
from dealer.serve.machines import Offer


@dataclass(frozen=True)
class RunRequest:
    """What the Start page asks for."""

    source: Path
    ports: tuple[str, ...] = ()
    """The URLs of the machines chosen (resolved by the console from the ids a client sent)."""
    copies: int = 1
    set_name: str = "A"
    resume: bool = False
    machines: tuple[str, ...] = ()
    """The ids of the machines chosen, as the client sent them."""
    replay: bool = False
    """The event replays deals dealt before (Law 6D2), as ``dealer deal --replay``."""
    teaching: bool = False
    """A teaching run (prepared boards may be dealt, Law 6E4; the deals go into the practice history), as ``dealer
    deal --teaching``."""


@dataclass
class Checked:
    """A request checked: what it deals, on which ports, with which journal; the problems found."""

    source: Path
    workdir: Path
    title: str = ""
    journal: Path = Path()
    ports: tuple[str, ...] = ()
    machines: tuple[str, ...] = ()
    deals: DealSet | None = None
    plan: Plan | None = None
    history: Path | None = None
    lines: list[str] = field(default_factory=list)
    problems: list[DealerError] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    """The files the check read: a problem quotes their text only if the client uploaded them all."""

    def told(self, problem: DealerError) -> str:
        """A problem as the client reads it (`dealer.serve.given.told`)."""
        return given.told(problem, self.workdir, self.files or [self.source])

    def to_dict(self) -> dict[str, Any]:
        """What the Start page shows (no deal, no seed, no path beyond the work folder's own names)."""
        return {"source": given.shown(str(self.source), self.workdir), "title": self.title,
                "journal": given.shown(str(self.journal), self.workdir), "machines": list(self.machines),
                "lines": [given.shown(line, self.workdir) for line in self.lines],
                "problems": [self.told(p) for p in self.problems], "ok": not self.problems}


def history_for(ports: tuple[str, ...], workdir: Path, teaching: bool = False) -> Path | None:
    """The deal history a run is checked against as it starts: the work folder's practice history for a teaching
    run (`teaching_history`) or when its ports look simulated (`practice_history`, the rule every command
    follows), else the one named or this computer's. Where each machine's deals then go is decided by what it
    says in its Hello (`HistoryChoice`), except in a teaching run: the practice history for every machine."""
    return teaching_history(workdir) if teaching else practice_history(ports, workdir)


def check(request: RunRequest, workdir: Path, offer: Offer) -> Checked:
    """Every problem that would stop the run, found before it starts."""
    checked = Checked(request.source, workdir, title=request.source.name, machines=request.machines,
                      files=[request.source])
    if not (request.source.is_file() and given.inside(request.source, workdir)):
        checked.problems.append(UsageError(_("{file}: not a file of the console's work folder").format(
            file=request.source.name)))
        return checked
    try:
        if request.source.suffix.lower() == ".toml":
            _check_plan(checked, request, workdir, offer)
        else:
            _check_file(checked, request, workdir)
    except DealerError as exc:
        checked.problems.append(exc)
    return checked


ADVICE = Advice(resume=N_("tick 'resume the unfinished run'"),
                replay=N_("if this event is a replay of those deals, tick 'a replay of deals dealt before'"),
                teaching=N_("to deal them for a lesson, tick 'teaching (prepared boards, practice history)'"))
"""The console's words for the choices a refusal names: its boxes, not the command line's options (said with
`advice`)."""


def advice() -> Advice:
    """`ADVICE` in the language spoken."""
    return Advice(resume=_(ADVICE.resume), replay=_(ADVICE.replay), teaching=_(ADVICE.teaching))


def _check_file(checked: Checked, request: RunRequest, workdir: Path) -> None:
    if not request.ports:
        checked.problems.append(UsageError(_("choose at least one machine")))
    report = ReadReport()
    deals = formats.read_file(request.source, report=report)
    if report.guessed is not None:  # never dealt under a guess: a PBN beside it, or converted, names the boards
        raise UsageError(report.guessed)
    if len(np.unique(deals.boards)) != len(deals):
        raise UsageError(_("{file}: a board number comes twice").format(file=request.source))
    checked.deals = deals
    checked.ports = request.ports
    checked.journal = Path(str(request.source) + ".journal")
    checked.history = history_for(request.ports, workdir, request.teaching)
    boards = [int(b) for b in deals.boards]
    copies = n_("{n} copy", "{n} copies", request.copies).format(n=request.copies)
    machines = n_("{n} machine", "{n} machines", len(request.ports)).format(n=len(request.ports))
    told = (_("{boards} boards ({first}-{last}) in {file}; {copies}, board set {set}; {machines}; a replay")
            if request.replay
            else _("{boards} boards ({first}-{last}) in {file}; {copies}, board set {set}; {machines}"))
    checked.lines.append(told.format(boards=len(boards), first=boards[0], last=boards[-1], file=request.source.name,
                                     copies=copies, set=request.set_name, machines=machines))
    checked.lines.append(_("journal: {journal}").format(journal=checked.journal))
    if checked.history is not None:
        checked.lines.append((teaching_note if request.teaching else practice_note)(checked.history))
    options = RunOptions(ports=request.ports, journal=checked.journal, copies=request.copies,
                         set_name=request.set_name, resume=request.resume, replay=request.replay,
                         history=checked.history, practice=checked.history is not None, teaching=request.teaching)
    checked.problems += session_problems(deals, options, request.source.stem, advice(), source=request.source.name)
    unfinished = _unfinished(checked.journal, deals)
    if unfinished is not None and request.resume:
        checked.lines.append(_("resumes run {run}").format(run=unfinished))
    if unfinished is None and not request.resume and not checked.problems:
        with DealHistory.open(checked.history) as history:  # a replay's notes (Law 6D2, F10)
            for fault in check_reuse(history, deals, name=request.source.stem, replay=request.replay):
                checked.lines.append(_("note: {note}").format(note=fault.text()))


def _check_journal_free(checked: Checked) -> None:
    """Name the run's journal, and a problem if another controller holds it."""
    checked.lines.append(_("journal: {journal}").format(journal=checked.journal))
    held = journal_held(checked.journal)
    if held is not None:
        checked.problems.append(held)


def _unfinished(journal: Path, deals: DealSet) -> int | None:
    if not journal.is_file() or journal.stat().st_size == 0:
        return None
    with read_journal(journal) as held:
        held.check_sound()  # as a resume would find it: one advice
        run = held.unfinished_run(deals.set_hash())
    return None if run is None else run.id


def _check_plan(checked: Checked, request: RunRequest, workdir: Path, offer: Offer) -> None:
    beyond, files = given.plan_reach(request.source, workdir, offer.plan_port_problem)
    if beyond:
        checked.problems += [UsageError(f"{request.source.name}: {problem}") for problem in beyond]
        return
    checked.files = [request.source, *files]
    plan = Plan.load(request.source)
    if isinstance(plan.event.journal, DatabaseURL):
        raise UsageError(_("{file}: its journal is the room's record {journal}: deal it on the dealing computers "
                           "(dealer deal --plan), and watch it with dealer serve --journal").format(
            file=request.source.name, journal=plan.event.journal))
    outside = [p for p in (plan.event.journal, plan.event.deal_folder) if not given.inside(p, workdir)]
    if outside:  # (a default place, through a link)
        raise UsageError(_("{file}: the console reads and writes files in its work folder only").format(
            file=request.source.name))
    if request.replay:
        checked.problems.append(UsageError(_("{file}: a plan marks its replay sessions itself (replay = true): "
                                             "untick 'a replay of deals dealt before'").format(
            file=request.source.name)))
    if request.teaching:
        checked.problems.append(UsageError(_("{file}: a plan says itself whether it is for teaching (kind = "
                                             "\"teaching\"): untick 'teaching (prepared boards, practice "
                                             "history)'").format(file=request.source.name)))
    checked.plan = plan
    checked.title = plan.event.name
    checked.journal = Path(plan.event.journal)
    checked.ports = tuple(m.url for m in plan.machines)
    checked.machines = tuple(m.name for m in plan.machines)
    checked.history = history_for(checked.ports, workdir, plan.event.teaching)
    sessions, jobs, machines = len(plan.sessions), sum(len(s.jobs()) for s in plan.sessions), len(plan.machines)
    checked.lines.append(_("congress plan {name}: {sessions}, {jobs}, on the plan's {machines} ({names})").format(
        name=plan.event.name, sessions=n_("{count} session", "{count} sessions", sessions).format(count=sessions),
        jobs=n_("{count} job", "{count} jobs", jobs).format(count=jobs),
        machines=n_("{count} machine", "{count} machines", machines).format(count=machines),
        names=", ".join(m.name for m in plan.machines)))
    if checked.history is not None:
        checked.lines.append((teaching_note if plan.event.teaching else practice_note)(checked.history))
    _check_journal_free(checked)
    checked.problems += plan_check.problems(plan, None, plan_check.journal_runs(checked.journal), resume=request.resume,
                                       journal=str(checked.journal), history=checked.history)

