"""What a dealing run shows and keeps: live progress lines, fault reports, the summary, the report file.

Thread-safe: every station (machine) reports here. Nothing shown names a card unless the run was
asked to (`show_cards`): a fault line gives its code, Law, action and pockets; the report file, which
the director asked for, holds the full fault texts. A board whose cards were shown is verified with
the warning F12 (Law 16D), printed on its line.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from dealer.verify.check import BoardFault, VerificationReport


@dataclass
class MachineStats:
    """Per machine: boards verified, faults, time spent dealing and waiting."""

    verified: int = 0
    faulted: int = 0
    refused_boards: int = 0
    machine_faults: int = 0
    first_start: float | None = None
    last_end: float | None = None

    def boards_per_hour(self) -> float:
        """Verified boards per hour of this machine's working time."""
        if self.first_start is None or self.last_end is None or self.last_end <= self.first_start:
            return 0.0
        return self.verified * 3600.0 / (self.last_end - self.first_start)


@dataclass
class RunProgress:
    """Live progress of a run and what its summary and report file say."""

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

    def __post_init__(self) -> None:
        self._lock = threading.RLock()

    # --- events from stations ----------------------------------------------------------------

    def stats(self, machine: str) -> MachineStats:
        """The stats of a machine (created on first use)."""
        with self._lock:
            return self.machines.setdefault(machine, MachineStats())

    def say(self, machine: str, text: str) -> None:
        """One progress line: '[m1] board 5 copy 1: dealing'."""
        if not self.quiet:
            with self._lock:
                self.out.write(f"[{machine}] {text}\n")
                self.out.flush()

    def board_started(self, machine: str) -> None:
        """A board began on `machine` (its working time starts at its first board)."""
        stats = self.stats(machine)
        with self._lock:
            if stats.first_start is None:
                stats.first_start = self.clock()

    def board_verified(self, machine: str, board: int, copy: int, report: VerificationReport | None = None) -> None:
        """A board passed its recount (with the warnings of `report`, e.g. F12, if any)."""
        stats = self.stats(machine)
        with self._lock:
            stats.verified += 1
            stats.last_end = self.clock()
            self.verified += 1
            done = self.verified
        rate = stats.boards_per_hour()
        warnings = report.faults if report is not None else ()
        if warnings:
            self._record(machine, board, copy, warnings, "verified")
        self.say(machine, f"board {board}{_copy(copy)}: verified ({done}/{self.total_jobs} boards, "
                 f"{rate:.0f} boards/hour on this machine)" + "".join(f"; warning: {f.text()}" for f in warnings))

    def board_faulted(self, machine: str, report: VerificationReport, action: str) -> None:
        """A recount showed faults; `action` is what the run does about them."""
        stats = self.stats(machine)
        with self._lock:
            stats.faulted += 1
            stats.last_end = self.clock()
        self._record(machine, report.board, report.copy, report.faults, "recount")
        self.say(machine, f"{report.summary(blind=not self.show_cards)} -> {action}")

    def board_refused(self, machine: str, board: int, copy: int, fault: BoardFault) -> None:
        """A board was refused before dealing (wrong or unreadable label, Law 2)."""
        with self._lock:
            self.stats(machine).refused_boards += 1
        self._record(machine, board, copy, (fault,), "label")
        self.say(machine, f"board {board}{_copy(copy)}: REFUSED {fault.text()}")

    def board_given_up(self, machine: str, board: int, copy: int, fault: BoardFault, checks: int) -> None:
        """A board failed its checks before dealing `checks` times in a row: the run stops asking for it."""
        self.say(machine, f"board {board}{_copy(copy)}: NOT DEALT after {checks} failed check"
                 f"{'s' if checks > 1 else ''}: {fault.text()}: left for the director (put it right, then "
                 "run again with --resume)")

    def machine_fault(self, machine: str, board: int, copy: int, text: str, name: str = "") -> None:
        """The machine stopped on a fault while dealing (jam, empty hopper, ...) named `name`."""
        with self._lock:
            self.stats(machine).machine_faults += 1
            self.faults_by_code[f"machine {name}".strip()] += 1
            self.fault_log.append({"machine": machine, "board": board, "copy": copy, "stage": "dealing",
                                   "faults": [{"code": "machine", "text": text}]})
        self.say(machine, f"board {board}{_copy(copy)}: {text}")

    def _record(self, machine: str, board: int, copy: int, faults: tuple[BoardFault, ...], stage: str) -> None:
        with self._lock:
            for f in faults:
                self.faults_by_code[f"{f.code.name} {f.law}"] += 1
            self.fault_log.append({"machine": machine, "board": board, "copy": copy, "stage": stage,
                                   "faults": [f.to_dict() for f in faults]})

    # --- the end -----------------------------------------------------------------------------

    def summary(self) -> str:
        """The lines printed when the run ends."""
        wall = self.clock() - self.started
        lines = [f"{self.verified}/{self.total_jobs} boards verified in {wall:.1f} s"]
        for name, s in sorted(self.machines.items()):
            lines.append(f"  {name}: {s.verified} verified, {s.faulted} faulted, boards refused {s.refused_boards}, "
                         f"machine faults {s.machine_faults}, {s.boards_per_hour():.0f} boards/hour")
        if self.faults_by_code:
            lines.append("  faults caught: " + ", ".join(
                f"{code} x{n}" for code, n in sorted(self.faults_by_code.items())))
        return "\n".join(lines)

    def report(self, extra: dict[str, Any]) -> str:
        """The run report file's JSON text (fault details included)."""
        machines = {name: {"verified": s.verified, "faulted": s.faulted, "refused_boards": s.refused_boards,
                           "machine_faults": s.machine_faults, "boards_per_hour": round(s.boards_per_hour(), 1)}
                    for name, s in sorted(self.machines.items())}
        body = {"verified": self.verified, "jobs": self.total_jobs, "machines": machines,
                "faults_by_code": dict(self.faults_by_code), "faults": self.fault_log, **extra}
        return json.dumps(body, indent=2, sort_keys=True, default=str) + "\n"


def _copy(copy: int) -> str:
    return f" copy {copy}" if copy > 1 else ""
