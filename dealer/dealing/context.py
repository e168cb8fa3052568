"""The run's context: what every station of one run shares (`RunContext`), and the run's limits (`RunLimits`,
whose defaults are written here alone). Built by `dealer.dealing.run`, read by each `station` and by its
`recovery`.

May import `dealer.core`, `dealer.dealing.machine`, `dealer.dealing.progress`, `dealer.journal` and
`firmware_protocol` (board labels).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from dealer.core.boards import format_board_range
from dealer.core.cards import pack
from dealer.core.dealset import DealSet
from dealer.dealing.machine import Machine, MachineIdentity
from dealer.dealing.progress import RunProgress
from dealer.journal.history import PRACTICE_FILE, DealHistory, HistoryChoice, HistoryPlace, check_reuse
from dealer.journal.store import Job, JobState, Journal
from dealer.language import N_, _
from firmware_protocol.labels import BoardLabel

_IN_A_MACHINE = (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT)
"""States of a job a machine has taken up."""


@dataclass(frozen=True)
class RunLimits:
    """How long a run waits and how often it deals a board: the defaults of every run, `dealer deal`'s and
    `dealer check`'s options, written once."""

    board_timeout: float = 600.0
    """Seconds to wait for the operator to put a board in (or back, or a machine fault right)."""
    deal_timeout: float = 300.0
    """Seconds a deal may take."""
    max_attempts: int = 3
    """Dealings of one board (the first and its redeals) before a fault is left to the director."""


@dataclass
class RunContext:
    """What every station of one run shares: the journal and the deal sets of the queue's runs, the
    progress view, the machines and their names, the claims of jobs left in doubt, the run's stop, and
    its limits.

    A congress deals several runs (one per session) from one queue: `later_runs` are the runs after
    `run_id`, in the order their jobs are taken. Each job is dealt and verified against the deals of
    its own run.
    """

    journal: Journal
    run_id: int
    deals: DealSet
    progress: RunProgress
    default_set: str = "A"
    limits: RunLimits = RunLimits()
    machine_names: set[str] = field(default_factory=set)
    stop: threading.Event = field(default_factory=threading.Event)
    stop_reason: list[str] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    lost: set[str] = field(default_factory=set)
    later_runs: tuple[tuple[int, DealSet], ...] = ()
    machines: list[Machine] = field(default_factory=list)
    """The run's machines, each given up at once by `abandon`."""
    histories: HistoryChoice = HistoryChoice(None, None, None)
    """Which deal history each machine's deals go into as their dealing begins (None: `DealHistory.open`'s own)."""
    history_of: dict[str, HistoryPlace | None] = field(default_factory=dict)
    """The deal history of each machine that answered, by what it says it is (`machine_answered`)."""
    serial_of: dict[str, str] = field(default_factory=dict)
    """The serial each machine that answered gave (`machine_answered`): whose job numbers a dealing takes."""

    met: dict[str, MachineIdentity | None] = field(default_factory=dict)
    """Each machine's answer to its first handshake (None: it did not answer), as its station learnt it."""
    _all_met: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self._deal_sets = {self.run_id: self.deals, **dict(self.later_runs)}
        self._index = {run: {int(b): i for i, b in enumerate(d.boards)} for run, d in self._deal_sets.items()}
        self._packed = {run: pack(d.deals) for run, d in self._deal_sets.items()}

    @property
    def run_ids(self) -> tuple[int, ...]:
        """Every run dealt from this queue, in the order their jobs are taken."""
        return tuple(self._deal_sets)

    def deals_of(self, job: Job) -> DealSet:
        """The deal set of a job's run (its session)."""
        return self._deal_sets[job.run_id]

    def deal_of(self, board: int, run_id: int | None = None) -> npt.NDArray[np.uint8]:
        """The intended (52,) deal of a board (of run `run_id`, by default the first run)."""
        run = self.run_id if run_id is None else run_id
        deal: npt.NDArray[np.uint8] = self._deal_sets[run].deals[self._index[run][board]]
        return deal

    def packed(self, board: int, run_id: int | None = None) -> bytes:
        """The 13-byte packed deal of a board (of run `run_id`, by default the first run)."""
        run = self.run_id if run_id is None else run_id
        return bytes(self._packed[run][self._index[run][board]])

    def machine_answered(self, name: str, identity: MachineIdentity) -> None:
        """Machine `name` answered its handshake: its deals go into the history of what it says it is. One
        other than the history the run was checked against is checked now, before the machine deals
        (`DealReused` stops this machine), and the change is said once."""
        path = self.histories.of(identity.simulated)
        with self.lock:
            self.serial_of[name] = identity.serial
            if name in self.history_of:
                return
            self.history_of[name] = path
        if not self.histories.differs(path):
            return
        with _open_history(path) as history:
            for run_id in self.run_ids:
                run = self.journal.run(run_id)
                check_reuse(history, self._deal_sets[run_id], name=run.name, replay=run.replay, run_uid=run.uid)
            where = history.path
        if identity.simulated:
            said = N_("a simulated machine: its deals are kept in a practice history ({path}), not the club's")
        else:
            said = N_("a real dealing machine (it does not say it is simulated): its deals go into this computer's "
                      "deal history ({path})")
        self.progress.say(name, lambda: _(said).format(path=where))

    def dealing_began(self, job: Job) -> None:
        """The job's step into DEALING is in the journal: its deal goes into the deal history (Law 6D2) of the
        machine that deals it before the machine is told to deal."""
        run = self.journal.run(job.run_id)
        path = self.history_of.get(job.machine or "", self.histories.checked)
        with _open_history(path) as history:
            history.record(self.deals_of(job), run_uid=run.uid, run_name=run.name, journal=self.journal.path,
                           replay=run.replay, boards=[job.board])

    def machine_met(self, name: str, identity: MachineIdentity | None) -> None:
        """Machine `name` answered its first handshake (`identity`), or will not (None)."""
        with self._all_met:
            self.met[name] = identity
            self._all_met.notify_all()

    def shared_serial(self, name: str, timeout: float = 60.0) -> list[str]:
        """Once every machine of the run has answered (or failed to): the other machines that gave machine
        `name`'s serial (PROTOCOL.md 5: a serial is one unit's), in the run's order."""
        with self._all_met:
            self._all_met.wait_for(lambda: len(self.met) >= len(self.machine_names) or self.stop.is_set(), timeout)
            mine = self.met.get(name)
            if mine is None:
                return []
            return sorted(other for other, them in self.met.items()
                          if other != name and them is not None and them.serial == mine.serial)

    def job_numbers(self, name: str) -> Callable[[int], int]:
        """How machine `name` takes its next job number (`Journal.new_dealing`'s `reserve`): above every number
        a run on this computer gave the same machine (its serial), as its deal history keeps them."""
        def reserve(at_least: int) -> int:
            serial = self.serial_of.get(name)
            if serial is None:
                return at_least
            with _open_history(self.history_of.get(name, self.histories.checked)) as history:
                return history.reserve_job(serial, at_least)
        return reserve

    def last_job(self, name: str) -> int:
        """The last job number a run on this computer gave machine `name` (by its serial; 0: none)."""
        serial = self.serial_of.get(name)
        if serial is None:
            return 0
        with _open_history(self.history_of.get(name, self.histories.checked)) as history:
            return history.last_job(serial)

    def set_of(self, job: Job) -> str:
        """The physical board set a job's copy goes into."""
        return job.set_name or self.default_set

    def planned_for(self, label: str | None) -> Job | None:
        """The job still to deal (PLANNED, first in the queue's order) whose board a label read names: its set
        and number, marked as Law 2 says; None for a label unread, of a board not in the queue, already taken
        or dealt, or marked against Law 2."""
        try:
            read = BoardLabel.parse(label) if label is not None else None
        except ValueError:
            return None
        if read is None or not read.conforms:
            return None
        return next((job for job in self._planned()
                     if job.board == read.board and self.set_of(job).upper() == read.set_name), None)

    def wanted_text(self, job: Job) -> str:
        """The boards a machine may be given now, for an operator with no prompt on the machine to go by: `job`'s
        and every board no machine has taken yet, by board set ("A 1-3,5,8")."""
        jobs = [job, *self._planned()]
        sets: dict[str, list[int]] = {}
        for one in jobs:
            sets.setdefault(self.set_of(one), []).append(one.board)
        return "; ".join(f"{name} {format_board_range(sorted(set(boards)))}" for name, boards in sets.items())

    def _planned(self) -> list[Job]:
        """The jobs no machine has taken yet, in the queue's order."""
        return [job for run in self.run_ids for job in self.journal.jobs(run, {JobState.PLANNED})]

    def busy_elsewhere(self, machine: str) -> bool:
        """True while another machine still working holds a job of the queue (it may give it back)."""
        for run in self.run_ids:
            for job in self.journal.jobs(run, set(_IN_A_MACHINE)):
                if job.machine != machine and job.machine not in self.lost:
                    return True
        return False

    def machine_lost(self, machine: str) -> None:
        """A station stopped for good: nobody waits for its jobs any more (they wait for a resume)."""
        with self.lock:
            self.lost.add(machine)

    def halt(self, reason: str) -> None:
        """Stop every station after its current board."""
        with self.lock:
            self.stop_reason.append(reason)
        self.stop.set()

    def abandon(self) -> None:
        """Stop every station now (a signal, a journal that cannot be written): each gives its machine up
        at once, in the middle of whatever it does, and leaves its job as a crash at that instant would, for
        the journal's crash recovery to settle on resume."""
        self.stop.set()
        for machine in self.machines:
            machine.abandon()

    def claim(self, job: Job) -> bool:
        """Take an uncertain job for one station (True once per job)."""
        with self.lock:
            if job.id in self.claimed:
                return False
            self.claimed.add(job.id)
            return True


def _open_history(path: HistoryPlace | None) -> DealHistory:
    """The deal history at `path` (None: this computer's); a practice history is made if there is none yet."""
    return DealHistory.open(path, create=isinstance(path, Path) and path.name == PRACTICE_FILE)
