"""Run reports: what happened in dealing runs, rebuilt from the journal alone, for a director the day after.

:func:`build` reads it from the journal's events; :func:`summary_text`, :func:`to_csv` (one table, a row
per figure, for a spreadsheet) and :func:`to_json` write it out. Like the journal, a report holds no deal,
no seed and no fault text naming cards (the live run's own report file does: `dealer.dealing.report_file`).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final, assert_never

from dealer.core.dealset import DealSet
from dealer.journal import events
from dealer.journal.events import (
    BEFORE_DEALING,
    GIVEN_UP,
    PUT_RIGHT_WORDS,
    REDEAL,
    START_CANCELLED,
    FaultGroup,
    fault_text,
)
from dealer.journal.store import Job, JobState, Journal, Recorded
from dealer.language import N_, Sentence, _, listed, n_
from dealer.stats import SampleStats, analyse
from dealer.stats.stats_report import wild_line
from dealer.stats.summary import director_sentence
from dealer.verify.fault_table import FaultCategory

CSV_COLUMNS: Final = ("table", "session", "machine", "item", "law", "value")


@dataclass
class MachineFigures:
    """One machine over the runs reported."""

    verified: int = 0
    dealings: int = 0
    busy: float = 0.0
    """Time on boards: the ``busy`` seconds each station records with a job's steps (from taking the board
    up to verifying it, a fault, or a redeal), so hours between two runs of the controller, or waiting for
    the other machines, are not counted."""
    recount_faults: int = 0
    machine_faults: int = 0
    interruptions: int = 0
    refused_boards: int = 0
    """Boards refused by a check before dealing (`BoardRefused`)."""
    met: list[str | Sentence] = field(default_factory=list)
    """The machines that answered on this station (serial, and whether simulated), in order, each once."""

    @property
    def boards_per_hour(self) -> float:
        """Boards verified per hour on boards (0 when no time was recorded)."""
        return self.verified * 3600.0 / self.busy if self.busy > 0 else 0.0


@dataclass
class SessionFigures:
    """One run (a session of a congress, or a deal file dealt)."""

    run: int
    name: str
    replay: bool
    finished: bool
    jobs: int = 0
    verified: int = 0
    faulted: int = 0
    dealings: int = 0

    @property
    def left(self) -> int:
        return self.jobs - self.verified


@dataclass
class BoardCell:
    """One job of the runs reported (one copy of one board) and the state the journal's events left it in."""

    run: int
    session: str
    set_name: str
    board: int
    copy: int
    state: JobState = JobState.PLANNED


@dataclass
class RunReport:
    """The figures of some runs of a journal: per machine the boards verified, the dealings started, the
    time on boards and the boards per hour of it; the faults by type and Law (the verifier's F-codes with
    their Law; the machine's own stops by name); the operator's actions (boards refused by their label,
    redeals, put-right prompts, boards found not empty before a redeal); per session the boards verified
    and left; and, where the deals are at hand, their statistics (`add_deal_statistics`)."""

    journal: str
    sessions: list[SessionFigures] = field(default_factory=list)
    machines: dict[str, MachineFigures] = field(default_factory=dict)
    faults: Counter[tuple[str, str, str, str]] = field(default_factory=Counter)
    """(session, machine, fault type, Law) -> how many times it was found."""
    actions: Counter[tuple[str, str, Sentence]] = field(default_factory=Counter)
    """(session, machine, operator action) -> how many times."""
    deal_stats: SampleStats | None = None
    """The statistics of the deals, when they are at hand (see `add_deal_statistics`)."""
    boards: dict[int, BoardCell] = field(default_factory=dict)
    """Every job of the runs, by its id, in the state its events left it (`add_jobs`)."""
    spans: list[tuple[float, float]] = field(default_factory=list)
    """When a machine was on a board: each step's ``busy`` seconds before the moment it was recorded."""

    @property
    def verified(self) -> int:
        """Boards verified in the runs reported."""
        return sum(s.verified for s in self.sessions)

    @property
    def dealing_seconds(self) -> float:
        """The time any machine was on a board (`spans`, overlaps counted once): the hours between a stop and its
        resume are not counted, nor are the boards of one part divided by the time of another."""
        return union_length(self.spans)

    @property
    def boards_per_hour(self) -> float:
        """Boards verified per hour of dealing (`dealing_seconds`), every machine together: the run's pace, the
        one the live view, the Room and the time left go by (0 before any time was recorded)."""
        dealing = self.dealing_seconds
        return self.verified * 3600.0 / dealing if dealing > 0 else 0.0

    def add_jobs(self, session: SessionFigures, jobs: Iterable[Job]) -> None:
        """The jobs of `session`'s run, each planned until its events say otherwise."""
        for job in jobs:
            self.boards[job.id] = BoardCell(session.run, session.name, job.set_name or "A", job.board, job.copy)

    def machine(self, name: str | None) -> MachineFigures:
        return self.machines.setdefault(name or "?", MachineFigures())

    def fault_totals(self) -> Counter[tuple[str, str]]:
        """(fault type, Law) -> count over every session and machine."""
        out: Counter[tuple[str, str]] = Counter()
        for (_session, _machine, kind, law), n in self.faults.items():
            out[kind, law] += n
        return out

    def action_totals(self) -> Counter[Sentence]:
        out: Counter[Sentence] = Counter()
        for (_session, _machine, action), n in self.actions.items():
            out[action] += n
        return out


# --- reading the journal ----------------------------------------------------------------------------


def build(journal: Journal, run_ids: Sequence[int] | None = None) -> RunReport:
    """The report of runs `run_ids` (default: every run of the journal), from its events alone."""
    runs = journal.runs() if run_ids is None else [journal.run(r) for r in run_ids]
    rep = RunReport(journal.path)
    for run in runs:
        jobs = journal.jobs(run.id)
        figures = SessionFigures(run.id, run.name, run.replay, run.finished, len(jobs))
        rep.sessions.append(figures)
        rep.add_jobs(figures, jobs)
        for event in journal.each_event(run.id):
            fold(rep, figures, event)
    return rep


def add_deal_statistics(rep: RunReport, deals: DealSet, name: str = "the deals of these runs") -> None:
    """Add the statistics of `deals` (each board once) to the report: the one-line verdict on whether they
    look like a perfect shuffle's, and the share of wild deals; statistics only. The run just dealt has its
    deals; `dealer report` finds them again where the runs' deal files are at hand (`dealer.journal.dealt`)."""
    if len(deals):
        rep.deal_stats = analyse(deals.deals, name)


def fold(rep: RunReport, session: SessionFigures, recorded: Recorded) -> None:
    """Add one event of `session` to the figures: its faults (`Event.faults`, by title and Law, counted by
    group) and what it tells of the machine's work and the operator's actions. The one counting code: a
    report folds a journal's events with it, and a run its own as they are recorded."""
    where, event = recorded.machine, recorded.event
    if isinstance(event, events.Verified):
        session.verified += 1
    if isinstance(event, events.RunFinished):
        session.finished = True
    cell = rep.boards.get(recorded.job_id) if recorded.job_id is not None else None
    if cell is not None and recorded.state is not None and recorded.state is not cell.state:
        session.faulted += (recorded.state is JobState.FAULTED) - (cell.state is JobState.FAULTED)
        cell.state = recorded.state
    if where is None:
        return  # the run's own events (begun, finished, a board set renamed)
    m = rep.machine(where)
    m.busy += event.busy
    if event.busy > 0:
        end = datetime.fromisoformat(recorded.at).timestamp()
        rep.spans.append((end - event.busy, end))
    for fault in event.faults():
        rep.faults[session.name, where, fault.title, fault.law] += 1
        if fault.group is FaultGroup.MACHINE:
            m.machine_faults += 1
        elif fault.group is FaultGroup.INTERRUPTION:
            m.interruptions += 1
    actions = rep.actions
    match event:
        case events.Dealing():
            m.dealings += 1
            session.dealings += 1
        case events.Verified():
            m.verified += 1
        case events.RecountFault():
            m.recount_faults += 1
        case events.MachineFaultResumed(prompt=prompt):
            asked = Sentence.of(PUT_RIGHT_WORDS.get(prompt or "", NO_PROMPT))
            actions[session.name, where, Sentence.of(N_("put-right prompt: {asked}"), asked=asked)] += 1
        case events.BoardRefused():
            m.refused_boards += not event.emptied  # a board emptied is the operator's step, not a refusal
            actions[session.name, where, Sentence.of(BEFORE_DEALING.get(event.code,
                                                                       BEFORE_DEALING[FaultCategory.F8.value]))] += 1
        case events.BoardGivenUp():
            actions[session.name, where, Sentence.of(GIVEN_UP)] += 1
        case events.StartCancelled():
            actions[session.name, where, Sentence.of(START_CANCELLED)] += 1
        case events.Redeal(fix_pack=fix_pack):
            actions[session.name, where, Sentence.of(REDEAL)] += 1
            if fix_pack:
                actions[session.name, where, Sentence.of(N_("pack made whole before a redeal"))] += 1
        case events.MachineMet(serial=serial, simulated=simulated):
            named: str | Sentence = serial or Sentence.of(N_("(no serial)"))
            who = Sentence.of(N_("{serial} (simulated)"), serial=named) if simulated else named
            if not m.met or m.met[-1] != who:
                m.met.append(who)
        case (events.RunStarted() | events.RunFinished() | events.RunTaken() | events.Loaded() | events.Scanned()
              | events.Dealt() | events.Released() | events.LinkResync() | events.MachineFault() | events.DoubleFeed()
              | events.ProtocolFault() | events.RecountUnverified() | events.RecountInterrupted()
              | events.CardsShown() | events.BoardMoved() | events.ResumeUncertain() | events.ResumeEmptyBoard()
              | events.ResumeDealt() | events.InterruptedDeal() | events.Unknown()):
            pass  # counted by their faults alone, or nothing to count
        case _:
            assert_never(event)


NO_PROMPT: Final = N_("none needed (the machine went on)")
"""A resumable machine fault that asked nothing of the operator."""


# --- writing it out -----------------------------------------------------------------------------------


def union_length(spans: Sequence[tuple[float, float]]) -> float:
    """The length of time the spans (start, end) cover together, each moment counted once."""
    total = 0.0
    reach: float | None = None
    start = 0.0
    for a, b in sorted(spans):
        if reach is None or a > reach:
            if reach is not None:
                total += reach - start
            start, reach = a, b
        else:
            reach = max(reach, b)
    if reach is not None:
        total += reach - start
    return total


def summary_text(rep: RunReport) -> str:
    """The report as a director reads it (no deal, no card)."""
    jobs, verified = sum(s.jobs for s in rep.sessions), sum(s.verified for s in rep.sessions)
    lines = [_("Run report of {journal}: {runs} run(s), {jobs} boards to deal (copies counted), {verified} "
               "verified").format(journal=rep.journal, runs=len(rep.sessions), jobs=jobs, verified=verified)]
    lines.append(_("Sessions"))
    for s in rep.sessions:
        state = (_("finished") if s.finished
                 else _("{left} left ({faulted} faulted)").format(left=s.left, faulted=s.faulted))
        run = (_("run {run}, replay") if s.replay else _("run {run}")).format(run=s.run)
        said = _("{name} ({run}): {jobs} boards, {verified} verified, {dealings} dealings; {state}")
        lines.append("  " + said.format(
            name=s.name, run=run, jobs=s.jobs, verified=s.verified, dealings=s.dealings, state=state))
    lines.append(_("Machines"))
    for name, m in sorted(rep.machines.items()):
        who = " (" + n_("machine {serials}", "machines {serials}, one after the other", len(m.met)).format(
            serials=listed([str(w) for w in m.met])) + ")" if m.met else ""
        lines.append(f"  {name}{who}: " + _(
            "{verified} boards verified, {dealings} dealings, {busy} on boards, {rate:.0f} boards/hour; "
            "{recount_faults} recount faults, {machine_faults} machine faults, {interruptions} interruptions").format(
            verified=m.verified, dealings=m.dealings, busy=_clock(m.busy), rate=m.boards_per_hour,
            recount_faults=m.recount_faults, machine_faults=m.machine_faults, interruptions=m.interruptions))
    lines.append(_("Faults by type and Law"))
    lines += _breakdown({(k, law): n for (k, law), n in rep.fault_totals().items()},
                        lambda key: fault_text(key[0], key[1]),
                        lambda key: _per_machine((m, n) for (_session, m, k, law), n in rep.faults.items()
                                                 if (k, law) == key))
    lines.append(_("Operator actions"))
    lines += _breakdown(dict(rep.action_totals()), str,
                        lambda key: _per_machine((m, n) for (_session, m, a), n in rep.actions.items() if a == key))
    if rep.deal_stats is not None:
        lines += [_("Deal statistics ({name})").format(name=rep.deal_stats.name),
                  f"  {director_sentence(rep.deal_stats)}", f"  {wild_line(rep.deal_stats)}"]
    return "\n".join(lines) + "\n"


def _per_machine(counts: Iterable[tuple[str, int]]) -> Counter[str]:
    """Counts summed per machine (over every session: a machine's counts come once per session)."""
    out: Counter[str] = Counter()
    for machine, n in counts:
        out[machine] += n
    return out


def _clock(seconds: float) -> str:
    """Seconds as h:mm:ss."""
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _breakdown(totals: dict[Any, int], name: Any, per_machine: Any) -> list[str]:
    if not totals:
        return ["  " + _("none")]
    out = []
    for key, n in sorted(totals.items(), key=lambda item: (-item[1], str(item[0]))):
        machines: Counter[str] = per_machine(key)
        out.append(f"  {name(key)}: {n} (" + ", ".join(f"{m} {c}" for m, c in sorted(machines.items())) + ")")
    return out


def csv_rows(rep: RunReport) -> list[tuple[str, str, str, str, str, str]]:
    """The report as rows of `CSV_COLUMNS`: table, session, machine, item, law, value."""
    rows: list[tuple[str, str, str, str, str, str]] = []
    for s in rep.sessions:
        for item, value in (("boards to deal", s.jobs), ("verified", s.verified), ("left", s.left),
                            ("faulted", s.faulted), ("dealings started", s.dealings),
                            ("finished", "yes" if s.finished else "no"), ("replay", "yes" if s.replay else "no")):
            rows.append(("session", s.name, "", item, "", str(value)))
    for name, m in sorted(rep.machines.items()):
        for item, value in (("boards verified", str(m.verified)), ("dealings started", str(m.dealings)),
                            ("hours on boards", f"{m.busy / 3600:.4f}"),
                            ("boards per hour", f"{m.boards_per_hour:.1f}"),
                            ("recount faults", str(m.recount_faults)), ("machine faults", str(m.machine_faults)),
                            ("interruptions", str(m.interruptions))):
            rows.append(("machine", "", name, item, "", value))
        rows += [("machine", "", name, "machine that answered", "", str(who)) for who in m.met]
    for (session, machine, kind, law), n in sorted(rep.faults.items()):
        rows.append(("fault", session, machine, kind, law, str(n)))
    for (session, machine, action), n in sorted(rep.actions.items()):
        rows.append(("operator action", session, machine, str(action), "", str(n)))
    if rep.deal_stats is not None:
        rows += [("deal statistics", "", "", item, "", value) for item, value in _stats_items(rep.deal_stats).items()]
    return rows


def _stats_items(stats: SampleStats) -> dict[str, str]:
    return {"deals": str(stats.deals), "verdict": director_sentence(stats),
            "chance of a result at least this uneven": f"{stats.chance:.4g}",
            "chance computed by": stats.chance_method, "wild deals": str(stats.figure("wild").counts[0]),
            "wild share": f"{stats.wild_share:.4f}", "wild share of a perfect shuffle": f"{stats.wild_expected:.4f}"}


def to_csv(rep: RunReport, extra_rows: Sequence[tuple[str, ...]] = ()) -> str:
    """The CSV text of the report (header row first)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(csv_rows(rep))
    writer.writerows(extra_rows)
    return out.getvalue()


def to_dict(rep: RunReport) -> dict[str, Any]:
    """Plain form for JSON."""
    return {
        "journal": rep.journal,
        "boards_per_hour": round(rep.boards_per_hour, 1),
        "dealing_seconds": round(rep.dealing_seconds, 3),
        "sessions": [{**asdict(s), "left": s.left} for s in rep.sessions],
        "machines": {name: {**asdict(m), "met": [str(w) for w in m.met], "busy": round(m.busy, 3),
                            "boards_per_hour": round(m.boards_per_hour, 1)}
                     for name, m in sorted(rep.machines.items())},
        "faults": [{"session": s, "machine": m, "type": k, "law": law, "count": n}
                   for (s, m, k, law), n in sorted(rep.faults.items())],
        "operator_actions": [{"session": s, "machine": m, "action": str(a), "count": n}
                             for (s, m, a), n in sorted(rep.actions.items())],
        "deal_statistics": None if rep.deal_stats is None else {"of": rep.deal_stats.name,
                                                                **_stats_items(rep.deal_stats)},
    }


def to_json(rep: RunReport) -> str:
    return json.dumps(to_dict(rep), indent=2, sort_keys=True) + "\n"


def render(rep: RunReport, path: str | Path) -> str:
    """The report in the form `path`'s extension asks for: .csv, .json, else the readable summary."""
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return to_csv(rep)
    if suffix == ".json":
        return to_json(rep)
    return summary_text(rep)
