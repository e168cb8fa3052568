"""One machine working through a run's jobs: the life of each board on it, journal first.

For each job (one copy of one board): load the deal (while the operator swaps boards), prompt for
the board on the machine's display, check its label before dealing (F8: refuse, ask again), journal
DEALING, deal, recount, verify, journal the outcome, eject. A fault is redealt on the same machine to
the same deal (Law 6F: a copy is always redealt to its own deal, never a new one) once the operator has
emptied the board; another board's deal in the pockets (F7) stops the whole run.

Crash safety: a job the journal holds as DEALING or DEALT may have cards in its board. Such a job is
never dealt again before its board is recounted: full and right, it is verified; empty, it is dealt;
anything else is a fault. A job left FAULTED (a stop came before its redeal, or it ran out of attempts
and the run is resumed with more) has its board emptied and is redealt, on the machine that holds it.
`resolve_uncertain` does both at start-up for jobs a crash left behind.

Each step that ends a stretch of work on a job (verified, faulted, redealt, given back) records the
machine's seconds on it (``busy``): the time on boards that run reports turn into boards per hour.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from dealer.boards import BoardLabel
from dealer.cards import DECK_SIZE, pack
from dealer.dealset import DealSet
from dealer.errors import DeviceTimeout
from dealer.journal import Job, JobState, Journal
from dealer.machine import CommandRefused, DealingFault, DeviceRestarted, Machine, Reconnected
from dealer.progress import RunProgress
from dealer.verify import Action, FaultCode, Pocket, Recount, VerificationReport, check_label, verify_board
from firmware_protocol import (
    DealDone,
    DeviceState,
    Fault,
    FaultFlag,
    Prompt,
    RecountReport,
    RefuseReason,
    Status,
    StatusFlag,
)
from firmware_protocol import FaultCode as FaultCode_

_IN_A_MACHINE = (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT)
"""States of a job a machine has taken up."""
FIX_PACK_ACTIONS = {Action.SEARCH_AND_RESTORE, Action.FIX_PACK_AND_REDEAL, Action.REMOVE_SURPLUS}
"""Faults whose fix includes making the pack whole before the redeal."""


@dataclass
class RunContext:
    """What every station of one run shares.

    A congress deals several runs (one per session) from one queue: `later_runs` are the runs after
    `run_id`, in the order their jobs are taken. Each job is dealt and verified against the deals of
    its own run.
    """

    journal: Journal
    run_id: int
    deals: DealSet
    progress: RunProgress
    default_set: str = "A"
    board_timeout: float = 600.0
    deal_timeout: float = 300.0
    max_attempts: int = 3
    machine_names: set[str] = field(default_factory=set)
    stop: threading.Event = field(default_factory=threading.Event)
    stop_reason: list[str] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    lost: set[str] = field(default_factory=set)
    later_runs: tuple[tuple[int, DealSet], ...] = ()

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

    def set_of(self, job: Job) -> str:
        """The physical board set a job's copy goes into."""
        return job.set_name or self.default_set

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

    def claim(self, job: Job) -> bool:
        """Take an uncertain job for one station (True once per job)."""
        with self.lock:
            if job.id in self.claimed:
                return False
            self.claimed.add(job.id)
            return True


def put_right_prompt(code: int | None) -> str | None:
    """The prompt that asks the operator to put a resumable machine fault right (None: nothing to do)."""
    if code == FaultCode_.BOARD_REMOVED:
        return Prompt.INSERT_BOARD.name
    if code == FaultCode_.EMPTY_HOPPER:
        return Prompt.FIX_PACK.name
    return None if code == FaultCode_.POWER_LOSS else Prompt.CLEAR_PATH.name


def wire_job(job: Job) -> int:
    """The 16-bit job number sent to the machine (never 0)."""
    return job.id % 0xFFFF + 1


class Station:
    """One machine dealing jobs of a run."""

    def __init__(self, machine: Machine, ctx: RunContext) -> None:
        self.machine = machine
        self.ctx = ctx
        self.name = machine.name
        self._current: Job | None = None
        self._next: Job | None = None
        self._busy_job: int | None = None
        self._busy_since = 0.0
        self._busy_carry = False

    # --- the loop -----------------------------------------------------------------------------

    def run(self) -> None:
        """Deal jobs until none is left, the run stops, or the machine is lost."""
        self.machine.connect()
        self.resolve_uncertain()
        while not self.ctx.stop.is_set():
            job, self._next = self._next or self.ctx.journal.claim_next(self.ctx.run_ids, self.name), None
            if job is None:
                self._busy_carry = False  # waiting for work is not dealing time
                if not self.ctx.busy_elsewhere(self.name):
                    return
                self.machine.sleep(0.05)
                continue
            self._robust(self.deal_job, job)

    def release_current(self) -> None:
        """After this station failed: its job, if only loaded or scanned, goes back to the queue."""
        if self._current is None:
            return
        job = self.ctx.journal.job(self._current.id)
        if job.state in (JobState.LOADED, JobState.SCANNED):
            self.ctx.journal.advance(job.id, JobState.PLANNED, kind="released",
                                     detail={"why": "machine lost", **self._busy(job, done=True)})

    def _robust(self, step: Callable[[Job], None], job: Job) -> None:
        """Run one board's life; after a reconnection or a restart, resynchronise and carry on."""
        self._current = job
        for _ in range(5):
            try:
                step(job)
                return
            except (Reconnected, DeviceRestarted) as exc:
                self.ctx.progress.say(self.name, f"board {job.board}: {exc}; resynchronising")
                why = "reconnected" if isinstance(exc, Reconnected) else "restarted"
                self.ctx.journal.note(job.run_id, "link-resync", job_id=job.id, machine=self.name,
                                      detail={"why": why})
                job = self.ctx.journal.job(job.id)
                if job.state in (JobState.LOADED, JobState.SCANNED):
                    step = self.deal_job
                elif job.state in (JobState.DEALING, JobState.DEALT):
                    step = self._resolve_one
                else:
                    return
        raise DeviceTimeout(f"{self.name}: board {job.board}: the link kept failing")

    def _clock_in(self, job: Job) -> None:
        """This machine takes up a job (a board's life, or its next attempt, goes on if already begun).

        Straight after another job, its time runs on from that job's end (ejecting that board and taking
        this one are work too); after waiting for work, from now."""
        if self._busy_job != job.id:
            if not self._busy_carry:
                self._busy_since = self.machine.clock()
            self._busy_job, self._busy_carry = job.id, False

    def _busy(self, job: Job, *, done: bool = False) -> dict[str, float]:
        """The machine's seconds on `job` since it took it up or since the last step recorded them, for
        the journal (what the run report's boards per hour of dealing time are made of)."""
        now = self.machine.clock()
        seconds = now - self._busy_since if self._busy_job == job.id else 0.0
        self._busy_job, self._busy_since, self._busy_carry = (None if done else job.id), now, done
        return {"busy": round(max(0.0, seconds), 3)}

    # --- one board ------------------------------------------------------------------------------

    def deal_job(self, job: Job) -> None:
        """The whole life of a LOADED (or SCANNED) job on this machine."""
        ctx = self.ctx
        self._clock_in(job)
        ctx.progress.board_started(self.name)
        self.machine.load(wire_job(job), job.board, ctx.packed(job.board, job.run_id))
        label = self._await_board(job)
        if job.attempt > 1 and not self._board_is_empty(job):
            return
        if job.state is JobState.LOADED:
            ctx.journal.advance(job.id, JobState.SCANNED, detail={"label": label})
        job = ctx.journal.advance(job.id, JobState.DEALING)
        self._deal(job)

    def _deal(self, job: Job) -> None:
        """Deal a DEALING job, then verify it."""
        self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: dealing")
        try:
            self.machine.start_deal(wire_job(job))
            done = self._wait_dealt(job)
        except DealingFault as fault:
            self._machine_fault(job, fault)
            return
        self._dealt(job, done)

    def _dealt(self, job: Job, done: DealDone) -> None:
        job = self.ctx.journal.advance(job.id, JobState.DEALT, detail={"counts": list(done.pocket_counts)})
        self._verify(job)

    def _wait_dealt(self, job: Job) -> DealDone:
        """Wait for the deal's end; a resumable fault is put right by the operator and dealing goes on."""
        while True:
            try:
                return self.machine.wait_dealt(wire_job(job), self.ctx.deal_timeout)
            except DealingFault as fault:
                if not fault.resumable:
                    raise
                self.ctx.progress.machine_fault(self.name, job.board, job.copy, f"{fault}: put right, going on",
                                                fault.name)
                self.ctx.journal.note(job.run_id, "machine-fault-resumed", job_id=job.id, machine=self.name,
                                      detail={"code": fault.code, "name": fault.name, "detail": fault.fault.detail,
                                              "prompt": put_right_prompt(fault.code)})
                self._put_right(job, fault)
                self._resume_after_fault(job)

    def _put_right(self, job: Job, fault: DealingFault) -> None:
        """Prompt the operator to clear the cause of a resumable fault."""
        code, expected = fault.code, self._expected(job)
        if code == FaultCode_.BOARD_REMOVED:
            self.machine.display(Prompt.INSERT_BOARD, job.board, expected, "put the board back to go on")
            if not self.machine.wait_board(True, self.ctx.board_timeout):
                raise DeviceTimeout(f"{self.name}: board {job.board} was not put back in time")
            if check_label(self.machine.read_label()[1], job.board, self.ctx.set_of(job)) is not None:
                raise DealingFault(fault.fault, job.board, resumable=False)
        elif code == FaultCode_.EMPTY_HOPPER:
            self.machine.display(Prompt.FIX_PACK, job.board, expected, "the pack is short: put back the missing cards")
        elif code != FaultCode_.POWER_LOSS:
            self.machine.display(Prompt.CLEAR_PATH, job.board, expected, f"clear the card path: {fault}"[:80])

    def _resume_after_fault(self, job: Job) -> None:
        deadline = self.machine.clock() + self.ctx.board_timeout
        while True:
            try:
                self.machine.start_deal(wire_job(job))
                return
            except CommandRefused as exc:
                if exc.reason == RefuseReason.WRONG_STATE and exc.detail == DeviceState.DEALING:
                    return  # dealing again already
                if exc.reason != RefuseReason.FAULT_PRESENT or self.machine.clock() > deadline:
                    raise
                self.machine.sleep(0.25)

    def _machine_fault(self, job: Job, fault: DealingFault) -> None:
        """Dealing stopped for good partway: the board holds part of the deal; redeal it."""
        self.ctx.progress.machine_fault(self.name, job.board, job.copy, f"{fault}: the board will be redealt",
                                        fault.name)
        detail = {"code": fault.code, "name": fault.name, "cards_dealt": fault.fault.cards_dealt, **self._busy(job)}
        self.ctx.journal.advance(job.id, JobState.FAULTED, kind="machine-fault", detail=detail)
        self.machine.abort()
        self.machine.eject_board()
        self._send_back(job, fix_pack=False)

    def _verify(self, job: Job) -> None:
        report = self._recount_report(job)
        ctx = self.ctx
        if report.ok:
            ctx.journal.advance(job.id, JobState.VERIFIED, detail={
                "layout": report.layout_hash, "warnings": [c.name for c in report.codes],
                **self._busy(job, done=True)})
            ctx.progress.board_verified(self.name, job.board, job.copy)
            self.machine.eject_board()
            return
        ctx.journal.advance(job.id, JobState.FAULTED, kind="recount-fault", detail={
            "faults": [c.name for c in report.codes], "counts": list(report.counts), **self._busy(job)})
        self.machine.eject_board()
        if report.fault(FaultCode.F7) is not None:
            ctx.progress.board_faulted(self.name, report, "the run stops: re-synchronise the boards")
            ctx.halt(f"board {job.board}: {report.summary(blind=True)}")
            return
        action = report.action
        ctx.progress.board_faulted(self.name, report, f"{action.value if action else 'redeal'}, then redeal "
                                   "the same deal")
        self._send_back(job, fix_pack=action in FIX_PACK_ACTIONS)

    def _send_back(self, job: Job, *, fix_pack: bool) -> None:
        """Have the operator put things right and redeal the same deal on this machine (a new attempt)."""
        job = self.ctx.journal.job(job.id)
        if job.attempt >= self.ctx.max_attempts:
            self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: left FAULTED after "
                                  f"{job.attempt} attempts: the director must see to it")
            return
        text = "make the pack whole, empty the board, put it back" if fix_pack else "empty the board, put it back"
        self._have_emptied(job, text)
        self._next = self.ctx.journal.redeal(job.id, self.name, detail={"fix_pack": fix_pack, **self._busy(job)})

    def _have_emptied(self, job: Job, text: str) -> None:
        """Prompt the operator to empty the (ejected) board and wait until it is back in the machine."""
        self.machine.display(Prompt.EMPTY_BOARD, job.board, self._expected(job), text)
        if not self.machine.wait_board(True, self.ctx.board_timeout):
            raise DeviceTimeout(f"{self.name}: board {job.board} did not come back after emptying")

    def _recount_report(self, job: Job) -> VerificationReport:
        """Recount and verify; an unidentified card (F11) gets up to two more recounts."""
        for _ in range(2):
            report = self._verify_recount(job, self.machine.recount(wire_job(job)))
            if not report.unverified:
                return report
            self.ctx.journal.note(job.run_id, "recount-unverified", job_id=job.id, machine=self.name,
                                  detail={"faults": [c.name for c in report.codes]})
            self.ctx.progress.say(self.name, f"{report.summary(blind=True)} -> recounting")
        return self._verify_recount(job, self.machine.recount(wire_job(job)))

    def _verify_recount(self, job: Job, rr: RecountReport) -> VerificationReport:
        label = self.machine.read_label()[1]
        return verify_board(self.ctx.deal_of(job.board, job.run_id), to_recount(rr), board=job.board,
                            set_name=self.ctx.set_of(job), label=label, copy=job.copy,
                            session=self.ctx.deals_of(job))

    # --- boards and labels ----------------------------------------------------------------------

    def _expected(self, job: Job) -> str:
        return BoardLabel.for_board(self.ctx.set_of(job), job.board).payload()

    def _await_board(self, job: Job) -> str:
        """Prompt for the job's board until the right one is in the machine; returns its label."""
        m, ctx = self.machine, self.ctx
        expected, set_name = self._expected(job), ctx.set_of(job)
        while True:
            if not self.machine.board_present():
                m.display(Prompt.INSERT_BOARD, job.board, expected, f"insert board {set_name} {job.board}")
                ctx.progress.say(self.name, f"insert board {set_name} {job.board}{_copy(job)}")
                if not m.wait_board(True, ctx.board_timeout):
                    raise DeviceTimeout(f"{self.name}: board {job.board} was not inserted in time")
            present, label = self.machine.read_label()
            if not present:
                continue  # taken out again before it could be read
            fault = check_label(label, job.board, set_name)
            if fault is None:
                assert label is not None
                return label
            ctx.journal.note(job.run_id, "board-refused", job_id=job.id, machine=self.name,
                             detail={"read": label, "problem": fault.details.get("problem")})
            ctx.progress.board_refused(self.name, job.board, job.copy, fault)
            self.machine.eject_board()
            still_in = self.machine.board_present()  # a machine that cannot push it out: the operator takes it
            m.display(Prompt.INSERT_BOARD, job.board, expected,
                      f"wrong board: insert board {set_name} {job.board}")
            if still_in:
                m.wait_board(False, ctx.board_timeout)

    def _board_is_empty(self, job: Job) -> bool:
        """Before a redeal: the board must be empty; if not, have it emptied and try again later."""
        rr = self.machine.recount(wire_job(job))
        if cards_in(rr) == 0:
            return True
        self.ctx.journal.note(job.run_id, "board-not-empty", job_id=job.id, machine=self.name)
        self.machine.eject_board()
        self._have_emptied(job, "the board is not empty: empty it and put it back")
        self._next = self.ctx.journal.job(job.id)
        return False

    # --- after a crash ---------------------------------------------------------------------------

    def resolve_uncertain(self) -> None:
        """Settle the jobs a crash left behind, this machine's and any machine's no longer in the run:
        those in DEALING or DEALT (recount first), then those FAULTED before their redeal."""
        uncertain = [job for run in self.ctx.run_ids for job in self.ctx.journal.uncertain_jobs(run)]
        for job in uncertain:
            if self._mine(job) and self.ctx.claim(job):
                self._robust(self._resolve_one, job)
        st = self.machine.status()
        if st.flags & StatusFlag.BOARD_PRESENT and st.state in (DeviceState.DONE, DeviceState.IDLE):
            self.machine.eject_board()  # a board a crash left in the machine after its job was settled
        faulted = [job for run in self.ctx.run_ids for job in self.ctx.journal.jobs(run, {JobState.FAULTED})]
        for job in faulted:
            if self._mine(job) and job.attempt < self.ctx.max_attempts and self.ctx.claim(job):
                self._robust(self._redeal_left, job)

    def _mine(self, job: Job) -> bool:
        """A job left behind that this station settles: its own, or one of a machine not in the run."""
        return job.machine == self.name or job.machine not in self.ctx.machine_names

    def _redeal_left(self, job: Job) -> None:
        """A FAULTED job whose redeal a stop interrupted (or that ran out of attempts and is given more):
        have its board emptied, then deal it again, on this machine, from the same deal."""
        job = self.ctx.journal.job(job.id)
        if job.state is JobState.FAULTED:
            self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: faulted before the stop: "
                                  "the board will be emptied and redealt")
            self._send_back(job, fix_pack=False)
        elif job.state in (JobState.LOADED, JobState.SCANNED):
            self._next = job  # the redeal was recorded before a reconnection
        again, self._next = self._next, None
        if again is not None:
            self.deal_job(again)

    def _resolve_one(self, job: Job) -> None:
        """Find out what is in an uncertain job's board and finish the job from there."""
        job = self.ctx.journal.job(job.id)
        if job.state not in (JobState.DEALING, JobState.DEALT):
            return
        self._clock_in(job)
        self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: resuming after an interruption")
        self.ctx.journal.note(job.run_id, "resume-uncertain", job_id=job.id, machine=self.name,
                              detail={"state": job.state.value})
        st = self.machine.status()
        mine = st.job == wire_job(job)
        if mine and st.state == DeviceState.FAULT and self._resume_kept_job(job, st):
            return
        if mine and st.state == DeviceState.DEALING:
            self._finish_dealing(job)
            return
        if not (mine and st.flags & StatusFlag.BOARD_PRESENT):
            self.machine.load(wire_job(job), job.board, self.ctx.packed(job.board, job.run_id))
            self._await_board(job)
            st = self.machine.status()
        rr = self.machine.recount(wire_job(job))
        cards = cards_in(rr)
        if job.state is JobState.DEALING and cards == 0:
            self.ctx.journal.note(job.run_id, "resume-empty-board", job_id=job.id, machine=self.name)
            if st.state != DeviceState.LOADED or st.job != wire_job(job):
                self.machine.load(wire_job(job), job.board, self.ctx.packed(job.board, job.run_id))
            self._deal(job)
            return
        finished = mine and st.state == DeviceState.DONE
        if job.state is JobState.DEALING and cards < DECK_SIZE and not finished:
            self._interrupted(job, cards)
            return
        if job.state is JobState.DEALING:
            job = self.ctx.journal.advance(job.id, JobState.DEALT, kind="resume-dealt", detail={"cards": cards})
        self._verify(job)

    def _finish_dealing(self, job: Job) -> None:
        """The machine is still dealing this job: wait for the end, then verify."""
        try:
            self._dealt(job, self._wait_dealt(job))
        except DealingFault as fault:
            self._machine_fault(job, fault)

    def _resume_kept_job(self, job: Job, st: Status) -> bool:
        """A machine that kept the job over a fault (e.g. power loss): put it right and go on dealing.

        Returns False (after aborting) if the machine will not resume."""
        fault = DealingFault(Fault(st.fault, st.fault_detail, st.job, st.cards_dealt, FaultFlag.RESUMABLE), job.board)
        self.ctx.journal.note(job.run_id, "machine-fault-resumed", job_id=job.id, machine=self.name,
                              detail={"code": fault.code, "name": fault.name, "detail": st.fault_detail,
                                      "prompt": put_right_prompt(fault.code)})
        self.ctx.progress.machine_fault(self.name, job.board, job.copy, f"{fault}: put right, going on",
                                                fault.name)
        try:
            self._put_right(job, fault)
            self._resume_after_fault(job)
        except CommandRefused:
            self.machine.abort()
            return False
        self._finish_dealing(job)
        return True

    def _interrupted(self, job: Job, cards: int) -> None:
        """Dealing stopped partway and the machine lost the job: empty the board and redeal."""
        self.ctx.journal.advance(job.id, JobState.FAULTED, kind="interrupted-deal",
                                 detail={"cards": cards, **self._busy(job)})
        self.ctx.progress.say(self.name, f"board {job.board}{_copy(job)}: dealing was interrupted after "
                              f"{cards} cards: the board will be emptied and redealt")
        self.machine.eject_board()
        self._send_back(job, fix_pack=False)


def cards_in(rr: RecountReport) -> int:
    """Cards the machine found in the board, identified or not."""
    return sum(len(p.cards) + p.unidentified for p in rr.pockets)


def to_recount(rr: RecountReport) -> Recount:
    """The verifier's `Recount` from the machine's RecountReport (its first four pockets)."""
    pockets = [Pocket(tuple(p.cards), p.unidentified) for p in rr.pockets[:4]]
    while len(pockets) < 4:
        pockets.append(Pocket(()))
    return Recount((pockets[0], pockets[1], pockets[2], pockets[3]))


def _copy(job: Job) -> str:
    return f" copy {job.copy}" if job.copy > 1 else ""
