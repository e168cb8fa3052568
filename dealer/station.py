"""One machine working through a run's jobs: the life of each board on it, journal first.

For each job (one copy of one board): load the deal (while the operator swaps boards), prompt for
the board, check its label before dealing (F8: refuse and ask again), journal DEALING, deal, recount,
verify, journal the outcome, eject. A fault sends the same deal back to the queue once the operator
has emptied the board (Law 6F: a copy is always redealt to its own deal, never a new one); another
board's deal in the pockets (F7) stops the whole run.

Crash safety: a job the journal holds as DEALING or DEALT may have cards in its board; such a job is
never dealt again until its board has been recounted - full and right: verified; empty: dealt now;
anything else: a fault. `resolve_uncertain` does this at start-up for jobs left by a crash.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dealer.boards import BoardLabel
from dealer.cards import pack
from dealer.dealset import DealSet
from dealer.errors import DealerError, DeviceTimeout
from dealer.journal import Job, Journal, JobState
from dealer.machine import CommandRefused, DealingFault, DeviceRestarted, Machine, Reconnected
from dealer.progress import RunProgress
from dealer.verify import Action, FaultCode, Pocket, Recount, VerificationReport, check_label, verify_board
from firmware_protocol import DeviceState, RecountReport, RefuseReason, ScanResult, Status, StatusFlag


@dataclass
class RunContext:
    """What every station of one run shares."""

    journal: Journal
    run_id: int
    deals: DealSet
    progress: RunProgress
    default_set: str = "A"
    board_timeout: float = 600.0
    deal_timeout: float = 300.0
    max_attempts: int = 3
    stop: threading.Event = field(default_factory=threading.Event)
    stop_reason: list[str] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)
    machine_names: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._index = {int(b): i for i, b in enumerate(self.deals.boards)}
        self._packed = pack(self.deals.deals)

    def deal_of(self, board: int) -> np.ndarray:
        """The intended (52,) deal of a board."""
        return self.deals.deals[self._index[board]]

    def packed(self, board: int) -> bytes:
        """The 13-byte packed deal of a board."""
        return bytes(self._packed[self._index[board]])

    def set_of(self, job: Job) -> str:
        """The physical board set a job's copy goes into."""
        return job.set_name or self.default_set

    def halt(self, reason: str) -> None:
        """Stop every station after its current board."""
        with self.lock:
            self.stop_reason.append(reason)
        self.stop.set()


def wire_job(job: Job) -> int:
    """The 16-bit job number sent to the machine (never 0)."""
    return job.id % 0xFFFF + 1


class Station:
    """One machine dealing jobs of a run."""

    def __init__(self, machine: Machine, ctx: RunContext, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.machine = machine
        self.ctx = ctx
        self.name = machine.name
        self._sleep = sleep
        self._current: Job | None = None

    # --- the loop -----------------------------------------------------------------------------

    def run(self) -> None:
        """Deal jobs until none is left, the run stops, or the machine is lost."""
        self.machine.connect()
        self.resolve_uncertain()
        while not self.ctx.stop.is_set():
            job = self.ctx.journal.claim_next(self.ctx.run_id, self.name)
            if job is None:
                if not self._others_busy():
                    return
                self._sleep(0.05)
                continue
            self._robust(self.deal_job, job)

    def _others_busy(self) -> bool:
        counts = self.ctx.journal.counts(self.ctx.run_id)
        return any(counts[s] for s in (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT))

    def release_current(self) -> None:
        """After this station failed: its job, if only loaded or scanned, goes back to the queue."""
        if self._current is None:
            return
        job = self.ctx.journal.job(self._current.id)
        if job.state in (JobState.LOADED, JobState.SCANNED):
            self.ctx.journal.advance(job.id, JobState.PLANNED, kind="released", detail={"why": "machine lost"})

    def _robust(self, step: Callable[[Job], None], job: Job) -> None:
        """Run one board's life; after a reconnection or a restart, resynchronise and carry on."""
        self._current = job
        for _ in range(5):
            try:
                step(job)
                return
            except (Reconnected, DeviceRestarted) as exc:
                self.ctx.progress.say(self.name, f"board {job.board}: {exc}; resynchronising")
                job = self.ctx.journal.job(job.id)
                if job.state in (JobState.LOADED, JobState.SCANNED):
                    self.ctx.journal.advance(job.id, JobState.PLANNED, kind="released", detail={"why": str(exc)})
                    return
                if job.state in (JobState.DEALING, JobState.DEALT):
                    step = self._resolve_one
                    continue
                return
        raise DeviceTimeout(f"{self.name}: board {job.board}: the link kept failing")

    # --- one board ------------------------------------------------------------------------------

    def deal_job(self, job: Job) -> None:
        """The whole life of a LOADED job on this machine."""
        m, ctx = self.machine, self.ctx
        ctx.progress.board_started(self.name)
        m.load(wire_job(job), job.board, ctx.packed(job.board))
        label = self._await_board(job)
        if job.attempt > 1 and not self._board_is_empty(job):
            return
        ctx.journal.advance(job.id, JobState.SCANNED, detail={"label": label})
        job = ctx.journal.advance(job.id, JobState.DEALING)
        self._deal(job)

    def _deal(self, job: Job) -> None:
        """Deal a DEALING job, then verify it."""
        m, ctx = self.machine, self.ctx
        ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: dealing")
        try:
            m.start_deal(wire_job(job))
            done = self._wait_dealt(job)
        except DealingFault as fault:
            self._machine_fault(job, fault)
            return
        ctx.journal.advance(job.id, JobState.DEALT, detail={"counts": list(done.pocket_counts)})
        self._verify(job)

    def _wait_dealt(self, job: Job):  # type: ignore[no-untyped-def]
        while True:
            try:
                return self.machine.wait_dealt(wire_job(job), self.ctx.deal_timeout)
            except DealingFault as fault:
                if not fault.resumable:
                    raise
                self.ctx.progress.machine_fault(self.name, job.board, job.copy, f"{fault}: clear it to go on")
                self.machine.prompt(job.board, self._expected(job), f"clear {fault.args[0]} to continue")
                self._resume_after_fault(job)

    def _resume_after_fault(self, job: Job) -> None:
        deadline = time.monotonic() + self.ctx.board_timeout
        while True:
            try:
                self.machine.start_deal(wire_job(job))
                return
            except CommandRefused as exc:
                if exc.reason != RefuseReason.FAULT_PRESENT or time.monotonic() > deadline:
                    raise
                self._sleep(0.05)

    def _machine_fault(self, job: Job, fault: DealingFault) -> None:
        """Dealing stopped for good partway: the board holds part of the deal."""
        ctx = self.ctx
        ctx.progress.machine_fault(self.name, job.board, job.copy, str(fault))
        ctx.journal.advance(job.id, JobState.FAULTED, kind="machine-fault",
                            detail={"code": fault.code, "cards_dealt": fault.fault.cards_dealt})
        self.machine.abort()
        self._eject()
        self._send_back(job, "empty the board and reinsert it: it will be redealt")

    def _verify(self, job: Job) -> None:
        report = self._recount_report(job)
        ctx = self.ctx
        if report.ok:
            ctx.journal.advance(job.id, JobState.VERIFIED, detail={
                "layout": report.layout_hash, "warnings": [c.name for c in report.codes]})
            ctx.progress.board_verified(self.name, job.board, job.copy)
            self._eject()
            return
        ctx.journal.advance(job.id, JobState.FAULTED, kind="recount-fault", detail={
            "faults": [c.name for c in report.codes], "counts": list(report.counts)})
        self._eject()
        if report.fault(FaultCode.F7) is not None:
            ctx.progress.board_faulted(self.name, report, "the run stops: re-synchronise the boards")
            ctx.halt(f"board {job.board}: {report.summary(blind=True)}")
            return
        action = report.action.value if report.action else "redeal"
        ctx.progress.board_faulted(self.name, report, f"{action}; then redeal the same deal")
        self._send_back(job, f"{action}; empty the board and reinsert it to redeal")

    def _send_back(self, job: Job, instruction: str) -> None:
        """A faulted job goes back to the queue to be redealt (same deal), unless tried too often."""
        job = self.ctx.journal.job(job.id)
        if job.attempt >= self.ctx.max_attempts:
            self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: left FAULTED after "
                                  f"{job.attempt} attempts: the director must see to it")
            return
        self.machine.prompt(job.board, self._expected(job), instruction)
        self.ctx.journal.advance(job.id, JobState.PLANNED, kind="redeal", detail={"why": instruction})

    def _recount_report(self, job: Job) -> VerificationReport:
        """Recount and verify; an unreadable card (F11) gets up to two more recounts."""
        report = None
        for _ in range(3):
            report = self._verify_recount(job, self.machine.recount(wire_job(job)))
            if not report.unverified:
                break
        assert report is not None
        return report

    def _verify_recount(self, job: Job, rr: RecountReport) -> VerificationReport:
        label = self._read_label()
        return verify_board(self.ctx.deal_of(job.board), to_recount(rr), board=job.board,
                            set_name=self.ctx.set_of(job), label=label, copy=job.copy, session=self.ctx.deals)

    # --- boards and labels ----------------------------------------------------------------------

    def _expected(self, job: Job) -> str:
        return BoardLabel.for_board(self.ctx.set_of(job), job.board).payload()

    def _await_board(self, job: Job) -> str:
        """Prompt for the job's board until the right one is in the machine; returns its label."""
        m, ctx = self.machine, self.ctx
        expected = self._expected(job)
        while True:
            if not self._board_present():
                m.prompt(job.board, expected, f"insert board {ctx.set_of(job)} {job.board}")
                ctx.progress.say(self.name, f"insert board {ctx.set_of(job)} {job.board}{_copy(job)}")
                if not m.wait_board(True, ctx.board_timeout):
                    raise DeviceTimeout(f"{self.name}: board {job.board} was not inserted in time")
            label = self._read_label()
            fault = check_label(label, job.board, ctx.set_of(job))
            if fault is None:
                assert label is not None
                return label
            ctx.journal.note(ctx.run_id, "board-refused", job_id=job.id, machine=self.name,
                             detail={"read": label, "problem": fault.details.get("problem")})
            ctx.progress.board_refused(self.name, job.board, job.copy, fault)
            m.prompt(job.board, expected, f"wrong board: take it out and insert board {ctx.set_of(job)} {job.board}")
            self._eject()
            m.wait_board(False, ctx.board_timeout)

    def _board_present(self) -> bool:
        return bool(self.machine.status().flags & StatusFlag.BOARD_PRESENT)

    def _read_label(self) -> str | None:
        scanned = self.machine.scan()
        if scanned.result != ScanResult.OK:
            return None
        return scanned.label.decode("ascii", "replace")

    def _board_is_empty(self, job: Job) -> bool:
        """Before a redeal: the board must be empty; if not, ask for it emptied and release the job."""
        rr = self.machine.recount(wire_job(job))
        if sum(len(p.cards) + p.unidentified for p in rr.pockets) == 0:
            return True
        self.machine.prompt(job.board, self._expected(job), "the board is not empty: empty it and reinsert it")
        self._eject()
        self.ctx.journal.advance(job.id, JobState.PLANNED, kind="released", detail={"why": "board not empty"})
        return False

    def _eject(self) -> None:
        try:
            self.machine.eject()
        except CommandRefused as exc:
            if exc.reason != RefuseReason.NO_BOARD:
                raise

    # --- after a crash ---------------------------------------------------------------------------

    def resolve_uncertain(self) -> None:
        """Settle the jobs this machine left in DEALING or DEALT (a crash of the controller)."""
        for job in self.ctx.journal.uncertain_jobs(self.ctx.run_id):
            orphan = job.machine not in self.ctx.machine_names
            if (job.machine == self.name or orphan) and self._claim(job):
                self._robust(self._resolve_one, job)
        self._clear_leftover_board()

    def _claim(self, job: Job) -> bool:
        with self.ctx.lock:
            if job.id in self.ctx.claimed:
                return False
            self.ctx.claimed.add(job.id)
            return True

    def _resolve_one(self, job: Job) -> None:
        """Find out what is in an uncertain job's board and finish the job from there."""
        job = self.ctx.journal.job(job.id)
        if job.state not in (JobState.DEALING, JobState.DEALT):
            return
        self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: resuming after an interruption")
        st = self.machine.status()
        mine = st.job == wire_job(job)
        if mine and st.state == DeviceState.FAULT:
            self.machine.abort()
            st = self.machine.status()
        if mine and st.state == DeviceState.DEALING:
            try:
                done = self._wait_dealt(job)
            except DealingFault as fault:
                self._machine_fault(job, fault)
                return
            self.ctx.journal.advance(job.id, JobState.DEALT, detail={"counts": list(done.pocket_counts)})
            self._verify(job)
            return
        if not (mine and st.flags & StatusFlag.BOARD_PRESENT):
            self.machine.load(wire_job(job), job.board, self.ctx.packed(job.board))
            self._await_board(job)
        rr = self.machine.recount(wire_job(job))
        cards = sum(len(p.cards) + p.unidentified for p in rr.pockets)
        if cards == 0 and job.state is JobState.DEALING:
            self.ctx.journal.note(self.ctx.run_id, "resume-empty-board", job_id=job.id, machine=self.name)
            if not (mine and st.state == DeviceState.LOADED):
                self.machine.load(wire_job(job), job.board, self.ctx.packed(job.board))
            self._deal(job)
            return
        if job.state is JobState.DEALING and mine and st.state == DeviceState.DONE:
            job = self.ctx.journal.advance(job.id, JobState.DEALT, detail={"counts": list(st.pocket_counts)})
        self._verify(job)

    def _clear_leftover_board(self) -> None:
        """A board left in the machine by a crash after its job was finished: push it out."""
        st: Status = self.machine.status()
        if st.flags & StatusFlag.BOARD_PRESENT and st.state in (DeviceState.DONE, DeviceState.IDLE):
            self._eject()


def to_recount(rr: RecountReport) -> Recount:
    """The verifier's `Recount` from the machine's RecountReport (first four pockets)."""
    pockets = [Pocket(tuple(p.cards), p.unidentified) for p in rr.pockets[:4]]
    while len(pockets) < 4:
        pockets.append(Pocket(()))
    return Recount((pockets[0], pockets[1], pockets[2], pockets[3]))


def _copy(job: Job) -> str:
    return f" copy {job.copy}" if job.copy > 1 else ""


__all__ = ["RunContext", "Station", "to_recount", "wire_job", "Action", "DealerError"]
