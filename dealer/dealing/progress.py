"""What a dealing run shows and keeps: live progress events, fault reports, the summary, the report file.

Thread-safe: every station reports here, each event naming the machine and the job in its hands
(`JobInHand`). A `ProgressView` shows them (`PlainView`, or the terminal's `dealer.cli.live`). Nothing
shown names a card unless the run was asked to (`RunProgress`).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import IO, Any, Protocol

from dealer.journal.events import Event, FaultGroup
from dealer.verify.board_check import BoardFault, VerificationReport
from dealer.verify.fault_table import CARD_FREE_DETAILS, FaultCategory


@dataclass
class MachineStats:
    """Per machine: boards verified, faults, time spent dealing and waiting."""

    verified: int = 0
    faulted: int = 0
    refused_boards: int = 0
    machine_faults: int = 0
    interruptions: int = 0
    first_start: float | None = None
    last_end: float | None = None

    def boards_per_hour(self) -> float:
        """Verified boards per hour of this machine's working time."""
        if self.first_start is None or self.last_end is None or self.last_end <= self.first_start:
            return 0.0
        return self.verified * 3600.0 / (self.last_end - self.first_start)


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
        return f"{self.session} set {self.set_name}"


class LineKind(StrEnum):
    """What an event asks of the person watching."""

    STEP = "step"          # routine: dealing, a board verified
    PROMPT = "prompt"      # the operator must act: put in a board
    FAULT = "fault"        # a fault caught, with its Law and what is done about it
    NOTE = "note"          # worth reading: a resynchronisation, a resumed board, a resumed run
    STOPPED = "stopped"    # a machine left the run


@dataclass(frozen=True)
class ProgressEvent:
    """One thing that happened on a machine (or to the run, when `machine` is empty)."""

    machine: str
    text: str
    kind: LineKind
    job: JobInHand | None = None
    recorded: Event | None = None
    """The journal's event this line shows, if any: its faults, Law and action, as data."""

    def line(self) -> str:
        """The event as one line: '[M1] FRI1 set A2: board 26 copy 2: verified (...)'."""
        head = f"[{self.machine}] " if self.machine else ""
        where = f"{self.job.where()}: " if self.job is not None else ""
        return f"{head}{where}{self.text}"

    def step(self) -> str:
        """The text without the board it is about (the live view shows the board in its own column)."""
        if self.job is None:
            return self.text
        for prefix in (f"board {self.job.board}{_copy(self.job.copy)}: ", f"board {self.job.board}: "):
            if self.text.startswith(prefix):
                return self.text[len(prefix):]
        return self.text


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
        return "under a minute left"
    if minutes < 60:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


@dataclass(frozen=True)
class MachineRow:
    """What the live view shows of one machine."""

    name: str
    port: str
    job: JobInHand | None
    last: ProgressEvent | None
    stats: MachineStats
    lost: str | None


@dataclass
class RunProgress:
    """Live progress of a run and what its summary and report file say. Nothing shown names a card unless
    the run was asked to (`show_cards`): a fault line gives its code, Law, action and pockets; the report
    file, which the director asked for, holds the full fault texts. A board whose cards were shown is
    verified with the warning F12 (Law 16D), printed on its line."""

    total_jobs: int
    out: IO[str] = field(default_factory=lambda: sys.stderr)
    show_cards: bool = False
    quiet: bool = False
    clock: Callable[[], float] = time.monotonic
    machines: dict[str, MachineStats] = field(default_factory=dict)
    faults_by_code: Counter[str] = field(default_factory=Counter)
    fault_log: list[dict[str, Any]] = field(default_factory=list)
    verified: int = 0
    started: float = field(default_factory=time.monotonic)
    view: ProgressView | None = None
    """How the events are shown (default: `PlainView` on `out`)."""
    ports: dict[str, str] = field(default_factory=dict)
    """Each machine's port, as the run was given it (the summary names a machine that failed by both)."""
    title: str = ""
    """What the run deals, for the live view's head line (a file name, a congress)."""

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._view: ProgressView = self.view if self.view is not None else PlainView(self.out)
        self._in_hand: dict[str, JobInHand] = {}
        self._last: dict[str, ProgressEvent] = {}
        self.lost: dict[str, str] = {}
        """Machines that left the run, with why."""
        self._opened = False

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

    def _emit(self, machine: str, text: str, kind: LineKind, recorded: Event | None = None) -> None:
        with self._lock:
            event = ProgressEvent(machine, text, kind, self._in_hand.get(machine), recorded)
            if machine:
                self._last[machine] = event
        if not self.quiet:
            self._view.show(event)

    # --- events from the run and its stations --------------------------------------------------

    def stats(self, machine: str) -> MachineStats:
        """The stats of a machine (created on first use)."""
        with self._lock:
            return self.machines.setdefault(machine, MachineStats())

    def job_taken(self, machine: str, job: JobInHand) -> None:
        """`machine` takes up a job: its events name it until `job_left`."""
        with self._lock:
            self._in_hand[machine] = job

    def job_left(self, machine: str) -> None:
        """`machine` has done with its job (verified, given back or left to the director)."""
        with self._lock:
            self._in_hand.pop(machine, None)

    def say(self, machine: str, text: str, kind: LineKind = LineKind.NOTE) -> None:
        """One progress event in a station's words: '[m1] board 5 copy 1: dealing' (`LineKind.STEP`)."""
        self._emit(machine, text, kind)

    def recorded(self, machine: str, board: int, copy: int, event: Event, action: str | None = None) -> None:
        """An event the journal recorded, in its own words (`Event.text`), then what is done (`action`, by
        default `Event.action`); its faults are counted by their group."""
        found = event.faults()
        with self._lock:
            stats = self.stats(machine)
            for fault in found:
                self.faults_by_code[fault.text()] += 1
                if fault.group is FaultGroup.MACHINE:
                    stats.machine_faults += 1
                elif fault.group is FaultGroup.INTERRUPTION:
                    stats.interruptions += 1
            if found:
                self.fault_log.append({"machine": machine, "board": board, "copy": copy, "stage": "dealing",
                                       "faults": [{"code": f.group.value, "name": f.title, "text": event.text()}
                                                  for f in found]})
        then = event.action() if action is None else action
        self._emit(machine, f"board {board}{_copy(copy)}: {event.text()}" + (f": {then}" if then else ""),
                   LineKind.FAULT if found else LineKind.NOTE, event)

    def note(self, text: str) -> None:
        """An event of the run as a whole (not of one machine): 'resuming run 3: ...'."""
        self._emit("", text, LineKind.NOTE)

    def board_started(self, machine: str) -> None:
        """A board began on `machine` (its working time starts at its first board)."""
        stats = self.stats(machine)
        with self._lock:
            if stats.first_start is None:
                stats.first_start = self.clock()

    def board_verified(self, machine: str, board: int, copy: int, report: VerificationReport | None = None,
                       event: Event | None = None) -> None:
        """A board passed its recount (with the warnings of `report`, e.g. F12, if any)."""
        stats = self.stats(machine)
        with self._lock:
            stats.verified += 1
            stats.last_end = self.clock()
            self.verified += 1
            done = self.verified
            left = self.time_left()
        rate = stats.boards_per_hour()
        warnings = report.faults if report is not None else ()
        if warnings:
            self._record(machine, board, copy, warnings, "verified", event)
        ahead = f"; {time_left_text(left)}" if left is not None and done < self.total_jobs else ""
        shown = "".join(f"; warning: {f.text()}" for f in warnings)
        self._emit(machine, f"board {board}{_copy(copy)}: verified ({done}/{self.total_jobs} boards, "
                   f"{rate:.0f} boards/hour on this machine{ahead}){shown}", LineKind.STEP, event)

    def board_faulted(self, machine: str, report: VerificationReport, action: str, event: Event) -> None:
        """A recount showed faults (`event`, as the journal has it); `action` is what the run does about them."""
        stats = self.stats(machine)
        with self._lock:
            stats.faulted += 1
            stats.last_end = self.clock()
        self._record(machine, report.board, report.copy, report.faults, "recount", event)
        self._emit(machine, f"{report.summary(blind=not self.show_cards, advice=False)} -> {action}",
                   LineKind.FAULT, event)

    def board_unverified(self, machine: str, report: VerificationReport, event: Event) -> None:
        """A recount could not identify every card (`event`): the board is recounted."""
        with self._lock:
            for fault in event.faults():
                self.faults_by_code[fault.text()] += 1
        self._emit(machine, f"{report.summary(blind=True, advice=False)} -> {event.action()}", LineKind.FAULT,
                   event)

    def board_refused(self, machine: str, board: int, copy: int, fault: BoardFault, event: Event) -> None:
        """A board was refused before dealing (wrong or unreadable label, Law 2; turned; not empty)."""
        with self._lock:
            self.stats(machine).refused_boards += 1
        self._record(machine, board, copy, (fault,), "label", event)
        self._emit(machine, f"board {board}{_copy(copy)}: REFUSED {fault.text()}", LineKind.FAULT, event)

    def board_given_up(self, machine: str, board: int, copy: int, fault: BoardFault, checks: int,
                       event: Event) -> None:
        """A board failed its checks before dealing `checks` times in a row: the run stops asking for it."""
        self._emit(machine, f"board {board}{_copy(copy)}: NOT DEALT after {checks} failed check"
                   f"{'s' if checks > 1 else ''}: {fault.text()}: left for the director (put it right, then "
                   "run again with --resume)", LineKind.FAULT, event)

    def machine_lost(self, machine: str, why: str) -> None:
        """`machine` left the run for good (its port failed, it stopped answering)."""
        with self._lock:
            self.stats(machine)
            self.lost[machine] = why
            self._in_hand.pop(machine, None)
        self._emit(machine, f"stopped: {why}", LineKind.STOPPED)

    def _record(self, machine: str, board: int, copy: int, faults: tuple[BoardFault, ...], stage: str,
                event: Event | None) -> None:
        with self._lock:
            for seen in event.faults() if event is not None else ():
                self.faults_by_code[seen.text()] += 1
            self.fault_log.append({"machine": machine, "board": board, "copy": copy, "stage": stage,
                                   "faults": [f.to_dict() for f in faults]})

    # --- what the live view reads ----------------------------------------------------------------

    def boards_per_hour(self) -> float:
        """Boards verified per hour, every machine still in the run together: the sum of the machines' own
        rates (`MachineStats.boards_per_hour`), so the head line and the machines' lines say one rate."""
        with self._lock:
            return sum(s.boards_per_hour() for name, s in self.machines.items() if name not in self.lost)

    def time_left(self) -> float | None:
        """Seconds until every board is verified at the pace so far; None before the first board."""
        rate = self.boards_per_hour()
        if rate <= 0:
            return None
        return max(0, self.total_jobs - self.verified) * 3600.0 / rate

    def rows(self) -> list[MachineRow]:
        """Each machine as the live view shows it, in the order the run names them."""
        with self._lock:
            names = list(dict.fromkeys([*self.ports, *self.machines]))
            return [MachineRow(name, self.ports.get(name, ""), self._in_hand.get(name), self._last.get(name),
                               self.stats(name), self.lost.get(name)) for name in names]

    # --- the end -----------------------------------------------------------------------------

    def summary(self) -> str:
        """The lines printed when the run ends; a machine that left the run is named, with its port
        and why."""
        wall = self.clock() - self.started
        lines = [f"{self.verified}/{self.total_jobs} boards verified in {wall:.1f} s"]
        for name, s in sorted(self.machines.items()):
            lines.append(f"  {name}: {s.verified} verified, {s.faulted} faulted, boards refused {s.refused_boards}, "
                         f"machine faults {s.machine_faults}, interruptions {s.interruptions}, "
                         f"{s.boards_per_hour():.0f} boards/hour")
        for name, why in sorted(self.lost.items()):
            port = self.ports.get(name, "")
            at = f" ({port})" if port and port != name and port not in why else ""
            dealt = self.machines[name].verified
            when = "dealt no board" if dealt == 0 else f"stopped after {dealt} board{'' if dealt == 1 else 's'}"
            who = "" if name in why else f"machine {name}{at} "  # the port named once
            lines.append(f"  {who}{when}: {why}")
        if self.faults_by_code:
            lines.append("  faults caught: " + ", ".join(
                f"{code} x{n}" for code, n in sorted(self.faults_by_code.items())))
        return "\n".join(lines)

    def report(self, extra: dict[str, Any], *, show_cards: bool = False) -> str:
        """The run report file's JSON text: every fault with its code, Law, action and the details that
        name no card; with `show_cards`, the full fault texts and the cards they name too."""
        machines = {name: {"verified": s.verified, "faulted": s.faulted, "refused_boards": s.refused_boards,
                           "machine_faults": s.machine_faults, "interruptions": s.interruptions,
                           "boards_per_hour": round(s.boards_per_hour(), 1)}
                    for name, s in sorted(self.machines.items())}
        with self._lock:
            log = self.fault_log if show_cards else [{**entry, "faults": [blind_fault(f) for f in entry["faults"]]}
                                                     for entry in self.fault_log]
        body = {"verified": self.verified, "jobs": self.total_jobs, "machines": machines,
                "faults_by_code": dict(self.faults_by_code), "faults": log, **extra}
        return json.dumps(body, indent=2, sort_keys=True, default=str) + "\n"


def blind_fault(fault: dict[str, Any]) -> dict[str, Any]:
    """A fault of `RunProgress.fault_log` with nothing that names a card: a board fault's code, title, Law,
    action, whether it blocks, how many cards its text named, and its details that name none
    (`CARD_FREE_DETAILS`); a machine's fault by its name alone (a duplicate card's detail is the card)."""
    if fault.get("code") in (FaultGroup.MACHINE.value, FaultGroup.INTERRUPTION.value):
        return {"code": fault["code"], "name": fault.get("name", "")}
    code = FaultCategory(fault["code"])
    details = fault.get("details") or {}
    return {"code": code.value, "title": code.title, "law": fault.get("law", ""), "action": fault.get("action", ""),
            "blocking": fault.get("blocking"), "cards_named": len(fault.get("cards") or ()),
            "details": {k: v for k, v in details.items() if k in CARD_FREE_DETAILS}}


def _copy(copy: int) -> str:
    return f" copy {copy}" if copy > 1 else ""
