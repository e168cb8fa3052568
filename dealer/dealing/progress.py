"""What a dealing run shows: the fold of its journal's events (`RunProgress`), each handed as data
(`ProgressEvent`) to a `ProgressView` that says it in its own language (`Event.told`), with the run's own
lines (a prompt, the job in hand, a machine lost) in the same order; and the summary and report file made of
the same figures. Nothing shown names a card unless the run was asked to.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import IO, Any, Protocol, TypeVar

from dealer.journal.events import (
    BoardGivenUp,
    BoardRefused,
    Dealing,
    Event,
    FaultGroup,
    MachineMet,
    RecountFault,
    RecountUnverified,
    Verified,
    fault_text,
)
from dealer.journal.listeners import Delivery
from dealer.journal.run_report import MachineFigures, RunReport, SessionFigures, build, fold
from dealer.journal.store import Job, Journal, Recorded
from dealer.language import _, decimal, n_
from dealer.verify.board_check import BoardFault, VerificationReport
from dealer.verify.fault_table import CARD_FREE_DETAILS, FaultCategory, fault_name

T = TypeVar("T")
Words = Callable[[], str]
"""Words said when they are shown, in the language spoken there."""


@dataclass(frozen=True)
class JobInHand:
    """The job a machine holds (told by the run as the machine takes it up): what each of its progress
    lines names, so a congress's lines say which session and set a board is for."""

    session: str
    set_name: str
    board: int
    copy: int
    attempt: int

    def where(self) -> str:
        """'FRI1 set A2': the session and the physical board set."""
        return _("{session} set {set}").format(session=self.session, set=self.set_name)


class LineKind(StrEnum):
    """What an event asks of the person watching."""

    STEP = "step"          # routine: dealing, a board verified
    PROMPT = "prompt"      # the operator must act: put in a board
    FAULT = "fault"        # a fault caught, with its Law and what is done about it
    NOTE = "note"          # worth reading: a resynchronisation, a resumed board, a resumed run
    STOPPED = "stopped"    # a machine left the run


@dataclass(frozen=True)
class LineFigures:
    """The run's figures a verified board's line tells: boards verified of all, the machine's boards per hour
    (0: none yet) and the seconds left at the pace so far (None: not known, or nothing left)."""

    done: int
    total: int
    rate: float
    left: float | None

    def said(self) -> str:
        """' (3/12 boards, 412 boards/hour on this machine; about 5 min left)'."""
        ahead = f"; {time_left_text(self.left)}" if self.left is not None and self.done < self.total else ""
        rate = _rate_text(self.rate, " " + _("on this machine"))
        return " " + _("({done}/{total} boards{rate}{ahead})").format(done=self.done, total=self.total, rate=rate,
                                                                       ahead=ahead)


@dataclass(frozen=True)
class ProgressEvent:
    """One thing that happened on a machine (or to the run, when `machine` is empty), as data: its words are
    said when a view shows them (`text`, `line`, `step`, `row`), in the language spoken there."""

    machine: str
    say: Callable[[str], str]
    """What happened, given the words of the run's figures it tells ('' to leave them out)."""
    kind: LineKind
    job: JobInHand | None = None
    recorded: Event | None = None
    """The journal's event this line shows, if any: its faults, Law and action, as data."""
    about: tuple[int, int] | None = None
    """The board the line is about: its number and copy."""
    figures: LineFigures | None = None
    """The run's figures the line tells (a board verified), which a view showing them apart leaves out (`row`)."""

    @property
    def text(self) -> str:
        """What happened, with the run's figures it tells."""
        return self.say(self.figures.said() if self.figures is not None else "")

    def _of_board(self, what: str) -> str:
        """`what` said of the board the line is about ('board 26 copy 2: verified'), if any."""
        return about_board(*self.about, what) if self.about is not None else what

    def line(self) -> str:
        """The event as one line: '[M1] FRI1 set A2: board 26 copy 2: verified (...)'."""
        head = f"[{self.machine}] " if self.machine else ""
        where = f"{self.job.where()}: " if self.job is not None else ""
        return f"{head}{where}{self._of_board(self.text)}"

    def _held(self) -> bool:
        return self.job is not None and self.about == (self.job.board, self.job.copy)

    def step(self) -> str:
        """What happened, and the board it is about unless that is the job the machine holds (`job`, which a
        view shows in columns of its own)."""
        return self.text if self._held() else self._of_board(self.text)

    def row(self) -> str:
        """`step` without the run's figures (the live view gives those in its head line)."""
        text = self.say("")
        return text if self._held() else self._of_board(text)


def words(text: str) -> Callable[[str], str]:
    """A line's words that are the same in every language (a machine's own text)."""
    return lambda _figures: text


class ProgressView(Protocol):
    """Shows a run's events as they come: opened before the first, closed after the last."""

    def open(self, progress: RunProgress) -> None: ...

    def show(self, event: ProgressEvent) -> None: ...

    def close(self) -> None: ...


class PlainView:
    """One line an event, as it comes: for a log file, a pipe, or ``--plain``."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._lock = threading.Lock()

    def open(self, progress: RunProgress) -> None:
        """Nothing to set up."""

    def show(self, event: ProgressEvent) -> None:
        with self._lock:
            self.out.write(event.line() + "\n")
            self.out.flush()

    def close(self) -> None:
        """Nothing to take down."""


def time_left_text(seconds: float) -> str:
    """'under a minute left', 'about 12 min left', 'about 1 h 05 min left'."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return _("under a minute left")
    if minutes < 60:
        return _("about {minutes} min left").format(minutes=minutes)
    return _("about {hours} h {minutes:02d} min left").format(hours=minutes // 60, minutes=minutes % 60)


@dataclass(frozen=True)
class MachineRow:
    """What the live view shows of one machine."""

    name: str
    port: str
    job: JobInHand | None
    last: ProgressEvent | None
    verified: int
    rate: float
    """Boards verified per hour on boards (`RunProgress.rate`)."""
    lost: str | None


@dataclass
class RunProgress:
    """A run's progress: the fold of its journal's events (`follow`), each told as a line as it is recorded,
    and the summary and report file made of the same figures. Nothing shown names a card unless the run was
    asked to (`show_cards`): a fault line gives its code, Law, action and pockets; the report file, which the
    director asked for, holds the full fault texts (what the live run saw, never in the journal). A board
    whose cards were shown is verified with the warning F12 (Law 16D), printed on its line."""

    total_jobs: int
    out: IO[str] = field(default_factory=lambda: sys.stderr)
    show_cards: bool = False
    quiet: bool = False
    clock: Callable[[], float] = time.monotonic
    started: float = field(default_factory=time.monotonic)
    view: ProgressView | None = None
    """How the events are shown (default: `PlainView` on `out`)."""
    ports: dict[str, str] = field(default_factory=dict)
    """Each machine's port, as the run was given it (the summary names a machine that failed by both)."""
    title: str = ""
    """What the run deals, for the live view's head line (a file name, a congress)."""
    time_scale: float = 1.0
    """Seconds of a real machine in each second the journal recorded (machines simulated faster than real
    ones make pictures of real rates so)."""
    figures: RunReport = field(default_factory=lambda: RunReport(""))
    """The fold: the journal's figures of the run's sessions, as `dealer report` counts them."""
    fault_log: list[dict[str, Any]] = field(default_factory=list)
    """The faults as the live run saw them, for the report file (their full texts only with show_cards)."""

    host_protocol: int = 0
    """The protocol version this program speaks: a machine that speaks an earlier one is told of once."""

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._view: ProgressView = self.view if self.view is not None else PlainView(self.out)
        self._in_hand: dict[str, JobInHand] = {}
        self._last: dict[str, ProgressEvent] = {}
        self._sessions: dict[int, SessionFigures] = {s.run: s for s in self.figures.sessions}
        self.lost: dict[str, str] = {}
        """Machines that left the run, with why."""
        self._opened = False
        self._dealt_before = 0.0
        """Seconds of dealing the journal held of the run before this part (a resumed run's)."""
        self._delivery: Delivery | None = None
        """While following a journal: the queue its events come by, which the run's own lines join."""

    # --- the record it folds ---------------------------------------------------------------------------

    def follow(self, journal: Journal, run_ids: Sequence[int]) -> Callable[[], None]:
        """Fold what the journal holds of runs `run_ids` (a resumed run's earlier events too, so the figures
        cover the whole run), then every event it records of them, as the journal hands them over (after
        each write, in the order written, on a thread of their own); the run's own lines (`say`, `job_taken`,
        ...) join the same queue, so they are told in the order they happened. Returns what stops the
        listening, once everything queued is told."""
        with self._lock:
            self.figures = build(journal, run_ids)
            self._sessions = {s.run: s for s in self.figures.sessions}
            self._dealt_before = self.figures.dealing_seconds
        delivery = self._delivery = journal.listen(self.recorded, failed=self._view_failed)

        def stop() -> None:
            delivery.stop()
            self._delivery = None
        return stop

    def _view_failed(self, exc: BaseException) -> None:
        """A view failed (told once; the run, its journal and the other views go on)."""
        self.out.write(_("a view of the run failed and is left behind ({kind}: {error}); the run and its journal go "
                         "on").format(kind=type(exc).__name__, error=exc) + "\n")

    def _in_order(self, told: Callable[[], None]) -> None:
        """Do `told` after every event the journal has handed over so far (now, when following none)."""
        delivery = self._delivery
        if delivery is None:
            told()
        else:
            delivery.post(told)

    def recorded(self, recorded: Recorded, job: Job | None, seen: object = None) -> None:
        """An event the journal recorded (of `job`, as it is after it), with what the live run saw of it
        (`seen`: the verifier's report of a recount, the fault of a board refused): folded, then shown."""
        with self._lock:
            session = self._sessions.get(recorded.run_id)
            if session is None:
                return  # a run this one does not deal
            fold(self.figures, session, recorded)
            self._log(recorded, job, seen)
            shown = self._shown(recorded, job, seen)
        if shown is not None and recorded.machine is not None:
            say, kind, figures = shown
            self._emit(recorded.machine, say, kind, recorded.event, about=job, figures=figures)

    def _shown(self, recorded: Recorded, job: Job | None,
               seen: object) -> tuple[Callable[[str], str], LineKind, LineFigures | None] | None:
        """How an event is shown after its board (None: a step the lines around it tell): the event's own
        words (`Event.told`, said when shown), its kind of line, and the run's figures it tells."""
        event = recorded.event
        if isinstance(event, MachineMet):  # said once a machine, under the run's first session
            if recorded.run_id != next(iter(self._sessions)) or event.told(self.host_protocol) is None:
                return None
            return (lambda _f: event.told(self.host_protocol) or ""), LineKind.NOTE, None
        if job is None or recorded.machine is None or event.told(seen) is None:
            return None
        blind = not self.show_cards
        figures = None
        if isinstance(event, Verified):
            figures = LineFigures(self.verified, self.total_jobs, self.rate(recorded.machine), self.time_left())
            kind = LineKind.STEP
        elif isinstance(event, Dealing):
            kind = LineKind.STEP
        elif event.faults() or isinstance(event, RecountFault | RecountUnverified | BoardRefused | BoardGivenUp):
            kind = LineKind.FAULT
        else:
            kind = LineKind.NOTE
        return (lambda said: event.told(seen, blind=blind, figures=said) or ""), kind, figures

    def _log(self, recorded: Recorded, job: Job | None, seen: object) -> None:
        """Keep the faults of an event as the live run saw them, for the report file."""
        event, machine = recorded.event, recorded.machine
        if job is None or machine is None:
            return
        where = {"machine": machine, "board": job.board, "copy": job.copy}
        told = isinstance(event, Verified | RecountFault)
        if isinstance(seen, VerificationReport) and told and seen.faults:
            stage = "verified" if isinstance(event, Verified) else "recount"
            self.fault_log.append({**where, "stage": stage, "faults": [f.to_dict() for f in seen.faults]})
        elif isinstance(seen, BoardFault) and isinstance(event, BoardRefused):
            self.fault_log.append({**where, "stage": "label", "faults": [seen.to_dict()]})
        elif event.faults() and not isinstance(event, Verified | RecountFault | RecountUnverified | BoardRefused):
            self.fault_log.append({**where, "stage": "dealing", "faults": [
                {"code": f.group.value, "name": f.title, "text": event.text()} for f in event.faults()]})

    def reading(self, read: Callable[[RunReport], T]) -> T:
        """`read` of the fold as it stands (every event handed over so far folded, none half-way)."""
        with self._lock:
            return read(self.figures)

    @property
    def verified(self) -> int:
        """Boards verified in the run's sessions (a resumed run's earlier ones too)."""
        with self._lock:
            return sum(s.verified for s in self._sessions.values())

    def machine(self, name: str) -> MachineFigures:
        """The figures of a machine (none yet: zeros)."""
        with self._lock:
            return self.figures.machines.get(name) or MachineFigures()

    def rate(self, name: str) -> float:
        """A machine's boards verified per hour on boards, as `dealer report` gives it (in real machine
        time: `time_scale`)."""
        return self.machine(name).boards_per_hour / self.time_scale

    # --- the view ------------------------------------------------------------------------------

    def open(self) -> None:
        """Start showing (a live view takes the terminal from here to `close`)."""
        with self._lock:
            self.started = self.clock()
        if not self.quiet:
            self._view.open(self)
            self._opened = True

    def close(self) -> None:
        """Stop showing (a live view leaves its last state on the screen)."""
        if self._opened:
            self._opened = False
            self._view.close()

    def _emit(self, machine: str, say: Callable[[str], str], kind: LineKind, recorded: Event | None = None, *,
              about: Job | None = None, figures: LineFigures | None = None) -> None:
        where = (about.board, about.copy) if about is not None else None
        with self._lock:
            event = ProgressEvent(machine, say, kind, self._in_hand.get(machine), recorded, where, figures)
            if machine:
                self._last[machine] = event
        if not self.quiet:
            self._view.show(event)

    # --- what no journal event holds (told in order with the events) -------------------------------

    def job_taken(self, machine: str, job: JobInHand) -> None:
        """`machine` takes up a job: its lines name it until `job_left`."""
        def taken() -> None:
            with self._lock:
                self._in_hand[machine] = job
        self._in_order(taken)

    def job_left(self, machine: str) -> None:
        """`machine` has done with its job (verified, given back or left to the director)."""
        def left() -> None:
            with self._lock:
                self._in_hand.pop(machine, None)
        self._in_order(left)

    def say(self, machine: str, said: Words, kind: LineKind = LineKind.NOTE, *, about: Job | None = None) -> None:
        """A line no journal event tells: a prompt to the operator ('[m1] insert board A 5'), a noisy line;
        told after the board of the job it is `about`, if any. `said` gives its words when it is shown."""
        self._in_order(lambda: self._emit(machine, lambda _figures: said(), kind, about=about))

    def note(self, said: Words) -> None:
        """A line of the run as a whole (not of one machine): 'resuming run 3: ...'."""
        self._in_order(lambda: self._emit("", lambda _figures: said(), LineKind.NOTE))

    def machine_lost(self, machine: str, why: str) -> None:
        """`machine` left the run for good (its port failed, it stopped answering)."""
        def lost() -> None:
            with self._lock:
                self.lost[machine] = why
                self._in_hand.pop(machine, None)
            self._emit(machine, lambda _figures: _("stopped: {why}").format(why=why), LineKind.STOPPED)
        self._in_order(lost)

    # --- what the live view reads ----------------------------------------------------------------

    def boards_per_hour(self) -> float:
        """The run's pace: boards verified per hour of dealing, every machine together, over the whole run
        (`RunReport.boards_per_hour`, as the Room and `dealer report` give it), in real machine time."""
        with self._lock:
            return self.figures.boards_per_hour / self.time_scale

    def time_left(self) -> float | None:
        """Seconds until every board is verified at the pace so far; None before the first board."""
        rate = self.boards_per_hour()
        if rate <= 0:
            return None
        return max(0, self.total_jobs - self.verified) * 3600.0 / rate

    def _names(self) -> list[str]:
        return list(dict.fromkeys([*self.ports, *self.figures.machines, *self.lost]))

    def rows(self) -> list[MachineRow]:
        """Each machine as the live view shows it, in the order the run names them."""
        with self._lock:
            return [MachineRow(name, self.ports.get(name, ""), self._in_hand.get(name), self._last.get(name),
                               self.machine(name).verified, self.rate(name), self.lost.get(name))
                    for name in self._names()]

    # --- the end -----------------------------------------------------------------------------

    def summary(self) -> str:
        """The lines printed when the run ends, from the fold (the whole run, a resumed one too); a machine
        that left the run is named, with its port and why."""
        wall = self.clock() - self.started
        lines = [n_("{verified}/{total} boards verified in {seconds} s",  # (English has one form: a ratio)
                    "{verified}/{total} boards verified in {seconds} s", self.total_jobs).format(
            verified=self.verified, total=self.total_jobs, seconds=decimal(wall, 1))]
        if self._dealt_before > 0:  # a resumed run: this part's time, and the whole run's
            lines[0] += " " + _("(this part; {seconds} s of dealing over the whole run)").format(
                seconds=decimal(self.figures.dealing_seconds, 1))
        with self._lock:
            machines = sorted({*self.figures.machines, *self.lost})
            for name in machines:
                m = self.machine(name)
                lines.append("  " + _("{machine}: {verified} verified, {faulted} faulted, boards refused {refused}, "
                                      "machine faults {machine_faults}, interruptions {interruptions}").format(
                    machine=name, verified=m.verified, faulted=m.recount_faults, refused=m.refused_boards,
                    machine_faults=m.machine_faults, interruptions=m.interruptions) + _rate_text(self.rate(name)))
            for name, why in sorted(self.lost.items()):
                port = self.ports.get(name, "")
                at = f" ({port})" if port and port != name and port not in why else ""
                dealt = self.machine(name).verified
                when = (_("dealt no board") if dealt == 0
                        else n_("stopped after {n} board", "stopped after {n} boards", dealt).format(n=dealt))
                who = "" if name in why else _("machine {machine}").format(machine=name + at) + " "  # the port once
                lines.append(f"  {who}{when}: {why}")
            caught = self.figures.fault_totals()
        if caught:
            lines.append("  " + _("faults caught: {faults}").format(
                faults=", ".join(_("{fault} x{count}").format(fault=fault_text(title, law), count=n)
                                 for (title, law), n in sorted(caught.items()))))
        return "\n".join(lines)

    def faults_by_code(self) -> dict[str, int]:
        """Each fault found, by its title and Law ('F1 missing card (Law 14A)'), over the run's sessions."""
        with self._lock:
            return {f"{title} ({law})" if law else title: n for (title, law), n in self.figures.fault_totals().items()}

    def report(self, extra: dict[str, Any], *, show_cards: bool = False) -> str:
        """The run report file's JSON text: every fault with its code, Law, action and the details that
        name no card; with `show_cards`, the full fault texts and the cards they name too."""
        with self._lock:
            machines = {name: {"verified": m.verified, "faulted": m.recount_faults, "refused_boards": m.refused_boards,
                               "machine_faults": m.machine_faults, "interruptions": m.interruptions,
                               "boards_per_hour": round(self.rate(name), 1)}
                        for name, m in sorted(self.figures.machines.items())}
            log = self.fault_log if show_cards else [{**entry, "faults": [blind_fault(f) for f in entry["faults"]]}
                                                     for entry in self.fault_log]
        body = {"verified": self.verified, "jobs": self.total_jobs, "machines": machines,
                "faults_by_code": self.faults_by_code(), "faults": log, **extra}
        return json.dumps(body, indent=2, sort_keys=True, default=str) + "\n"


def blind_fault(fault: dict[str, Any]) -> dict[str, Any]:
    """A fault of `RunProgress.fault_log` with nothing that names a card: a board fault's code, title, Law,
    action, whether it blocks, how many cards its text named, and its details that name none
    (`CARD_FREE_DETAILS`); a machine's fault by its name alone (a duplicate card's detail is the card)."""
    if fault.get("code") in (FaultGroup.MACHINE.value, FaultGroup.INTERRUPTION.value):
        return {"code": fault["code"], "name": fault.get("name", "")}
    code = FaultCategory(fault["code"])
    details = fault.get("details") or {}
    return {"code": code.value, "title": fault_name(code), "law": fault.get("law", ""),
            "action": fault.get("action", ""), "blocking": fault.get("blocking"),
            "cards_named": len(fault.get("cards") or ()),
            "details": {k: v for k, v in details.items() if k in CARD_FREE_DETAILS}}


def _rate_text(rate: float, where: str = "") -> str:
    """', 412 boards/hour' (and `where`); nothing before there is a rate (no board's time recorded yet)."""
    return ", " + _("{rate:.0f} boards/hour").format(rate=rate) + where if rate > 0 else ""


def about_board(board: int, copy: int, what: str) -> str:
    """'board 26 copy 2: verified', a line about one board ('board 7: verified' for a first copy)."""
    return (_("board {board} copy {copy}: {what}").format(board=board, copy=copy, what=what) if copy > 1
            else _("board {board}: {what}").format(board=board, what=what))
