"""One board's life on one machine (`BoardLife`): load, check the board, deal, recount, verify, and put
right what goes wrong on the way, journal first; and the machine's busy seconds on each job. Also what
crash recovery shares of it: `MAX_BOARD_CHECKS`, `BoardGivenUpError`, `DoubleFeedError`, `wire_job`, `fault_note`.

Driven by `station` (the loop) and `recovery`. May import `machine`, `context`, `progress`, `dealer.core`,
`dealer.verify`, `dealer.journal` and the label grammar; never `station` or `recovery`, which import it.
"""

from __future__ import annotations

from typing import NoReturn

from dealer.core.errors import DeviceTimeout
from dealer.dealing.context import RunContext
from dealer.dealing.machine import (
    BoardReading,
    DealingFault,
    DealResult,
    Machine,
    MachineFaultKind,
    OperatorPrompt,
    ProtocolFaultError,
)
from dealer.dealing.progress import LineKind
from dealer.journal import events
from dealer.journal.events import Interruption
from dealer.journal.store import Job, JobState
from dealer.language import _, n_
from dealer.verify import (
    Action,
    BoardFault,
    BoardRecount,
    FaultCategory,
    VerificationReport,
    check_empty,
    check_label,
    check_orientation,
    verify_board,
)
from firmware_protocol.labels import BoardLabel

MAX_BOARD_CHECKS = 3
"""Checks of a job's board that may fail in a row (wrong, unreadable or turned, cards in it, moved) before
the run stops asking and leaves the job to the director."""


class DoubleFeedError(Exception):
    """The pack ran out before 52 cards while the board holds more cards than the machine dealt: two cards
    went in at once, unnoticed."""

    def __init__(self, cards_dealt: int, in_board: int) -> None:
        self.cards_dealt = cards_dealt
        self.in_board = in_board
        super().__init__(n_("the pack ran out after {count} cards but the board holds {in_board}: two cards went "
                            "in at once (a double feed the machine did not see)",
                            "the pack ran out after {count} cards but the board holds {in_board}: two cards went "
                            "in at once (a double feed the machine did not see)", cards_dealt).format(
            count=cards_dealt, in_board=in_board))


class BoardGivenUpError(Exception):
    """A job's board failed its checks too often: the job is FAULTED, for the director."""


class AnotherBoardIn(Exception):  # noqa: N818 - not an error: the board put in is dealt first
    """The board in the machine is another one still to deal: its job (`job`) was taken in place of the one
    loaded, which went back to the queue."""

    def __init__(self, job: Job) -> None:
        super().__init__(f"board {job.board} was put in")
        self.job = job


def put_right_prompt(kind: MachineFaultKind) -> OperatorPrompt | None:
    """The prompt that asks the operator to put a resumable machine fault right (None: nothing to do)."""
    if kind is MachineFaultKind.BOARD_REMOVED:
        return OperatorPrompt.INSERT_BOARD
    if kind is MachineFaultKind.EMPTY_HOPPER:
        return OperatorPrompt.FIX_PACK
    return None if kind is MachineFaultKind.POWER_LOSS else OperatorPrompt.CLEAR_PATH


def wire_job(job: Job) -> int:
    """The job number of the job's current dealing, as sent to the machine (PROTOCOL.md 7.2: one job
    per dealing): given by the journal when its deal is loaded (`BoardLife.load`)."""
    if not job.wire_job:
        raise ValueError(f"job {job.id} (board {job.board}) was never loaded: it has no job number")
    return job.wire_job


def fault_note(fault: DealingFault, after: Interruption | None = None) -> events.MachineFaultResumed:
    """What the journal records of a machine fault that is put right and dealt on (never a card: not the
    detail of a DUPLICATE_CARD, which is the card read twice); `after`: the interruption that caused it."""
    prompt = put_right_prompt(fault.kind)
    detail = None if fault.kind is MachineFaultKind.DUPLICATE_CARD else fault.detail
    return events.MachineFaultResumed(code=fault.code or 0, name=fault.name, machine_detail=detail,
                                      prompt=prompt.value if prompt is not None else None, after=after)


def copy_text(job: Job) -> str:
    """" copy k" for a second or later copy of a board, else nothing (for progress lines)."""
    return " " + _("copy {copy}").format(copy=job.copy) if job.copy > 1 else ""


class BoardLife:
    """One board's life on one machine, one job (one copy of one board) at a time, journal first.

    For each job: load the deal (while the operator swaps boards), prompt for the board on the machine's
    display, and check it before dealing (PROTOCOL.md 6.1): its label names the board (F8), it lies straight
    (F6), its pockets are empty (F4; another board's deal, F7, stops the run), and it did not move since its
    label was read (else check again). A board refused is taken out and asked for again, at most
    `MAX_BOARD_CHECKS` times in a row: then the job is left FAULTED for the director, with one line saying
    why. Then journal DEALING, deal, recount, verify, journal the outcome, eject. A fault is redealt on the
    same machine to the same deal (Law 6F: a copy is always redealt to its own deal, never a new one) once
    the operator has emptied the board (the redeal waits in `next_job`); another board's deal in the pockets
    (F7) stops the whole run. A report of the machine that does not match what was asked (`ProtocolFaultError`)
    faults the board: nothing is verified on it. A pack that runs out before 52 cards while the board holds
    more cards than the machine dealt was a double feed: the board is recounted and verified as it stands
    (Law 13A1 or 13C).

    Each step that ends a stretch of work on a job (verified, faulted, redealt, given back) records the
    machine's seconds on it (``busy``, a lap of `busy_lap`): the time on boards that run reports turn into
    boards per hour.
    """

    def __init__(self, machine: Machine, ctx: RunContext, name: str) -> None:
        self.machine = machine
        self.ctx = ctx
        self.name = name
        self.next_job: Job | None = None  # the redeal of the board just faulted, for this machine to take next
        self._busy_job: int | None = None
        self._busy_since = 0.0
        self._busy_carry = False

    # --- the machine's time on a job -------------------------------------------------------------

    def clock_in(self, job: Job) -> None:
        """This machine takes up a job (a board's life, or its next attempt, goes on if already begun).

        Straight after another job, its time runs on from that job's end (ejecting that board and taking
        this one are work too); after waiting for work, from now."""
        if self._busy_job != job.id:
            if not self._busy_carry:
                self._busy_since = self.machine.clock()
            self._busy_job, self._busy_carry = job.id, False

    def busy_lap(self, job: Job, *, done: bool = False) -> float:
        """The machine's seconds on `job` since it took it up or since the last step recorded them, for
        the journal (what the run report's boards per hour of dealing time are made of)."""
        now = self.machine.clock()
        seconds = now - self._busy_since if self._busy_job == job.id else 0.0
        self._busy_job, self._busy_since, self._busy_carry = (None if done else job.id), now, done
        return round(max(0.0, seconds), 3)

    def idle(self) -> None:
        """The machine waits for work: that is not dealing time (the next job's starts when it is taken up)."""
        self._busy_carry = False

    # --- one board ------------------------------------------------------------------------------

    def deal_job(self, job: Job) -> None:
        """The whole life of a LOADED (or SCANNED) job on this machine."""
        ctx = self.ctx
        self.clock_in(job)
        try:
            label = self.ready_board(job, any_wanted=True, load=True)
        except BoardGivenUpError:
            return
        except AnotherBoardIn as put_in:  # the operator put in another board still to deal: it is dealt first
            self.next_job = put_in.job
            return
        except ProtocolFaultError as fault:
            self.protocol_fault(job, fault)
            return
        scanned: list[tuple[JobState, events.Event | None]] = (
            [(JobState.SCANNED, events.Scanned(label=label))] if job.state is JobState.LOADED else [])
        job = ctx.journal.advance_through(job.id, [*scanned, (JobState.DEALING, None)])
        ctx.dealing_began(job)
        self.deal(job)

    def load(self, job: Job) -> Job:
        """Load the job's deal into the machine as a new dealing: a job number never given before to this
        machine, by this journal or any run on this computer (`RunContext.job_numbers`), recorded before it is
        sent, so that no report of an earlier dealing (of this board or any other) can be taken for this one.
        Returns the job with its new number."""
        job = self.ctx.journal.new_dealing(job.id, self.name, self.ctx.job_numbers(self.name))
        self.machine.load(wire_job(job), job.board, self.ctx.packed(job.board, job.run_id))
        return job

    def deal(self, job: Job) -> None:
        """Deal a DEALING job whose board was just checked, then verify it. A board that moved since its
        label was read (seen by the host, or by the machine refusing the start) is checked again first."""
        cancelled = 0
        try:
            while self.machine.board_moved() or not self.machine.start_deal(wire_job(job)):
                cancelled += 1
                self.ctx.journal.note(job.run_id, events.StartCancelled(why="the board moved after its label was read"),
                                      job_id=job.id, machine=self.name)
                if cancelled >= MAX_BOARD_CHECKS:
                    self.give_up(job, [self.moved_fault(job, cancelled)])
                self.ready_board(job)
            done = self.wait_dealt(job)
        except BoardGivenUpError:
            return
        except DealingFault as fault:
            self.machine_fault(job, fault)
            return
        except DoubleFeedError as feed:
            self.double_feed(job, feed)
            return
        except ProtocolFaultError as fault:
            self.protocol_fault(job, fault)
            return
        self.dealt(job, done)

    def dealt(self, job: Job, done: DealResult) -> None:
        """A DEALING job whose dealing ended: journal DEALT, then verify."""
        job = self.ctx.journal.advance(job.id, JobState.DEALT, events.Dealt(counts=tuple(done.pocket_counts)))
        self.verify(job, announced=done.pocket_counts)

    def wait_dealt(self, job: Job) -> DealResult:
        """Wait for the deal's end; a resumable fault is put right by the operator and dealing goes on.
        A pack run out while the board holds more cards than were dealt raises `DoubleFeedError`."""
        while True:
            try:
                return self.machine.wait_dealt(wire_job(job), self.ctx.limits.deal_timeout)
            except DealingFault as fault:
                if not fault.resumable:
                    raise
                if fault.kind is MachineFaultKind.EMPTY_HOPPER:
                    self._check_double_feed(job, fault)
                self.ctx.journal.note(job.run_id, fault_note(fault), job_id=job.id, machine=self.name)
                self.put_right(job, fault)
                self.resume_after_fault(job, fault)

    def _check_double_feed(self, job: Job, fault: DealingFault) -> None:
        """The pack ran out: recount the board (a recount is allowed in FAULT). More cards in it than the
        machine dealt means two cards went in at once: fixing the pack cannot help; `DoubleFeedError`."""
        recount = self.machine.recount(wire_job(job))
        in_board = sum(recount.counts) if recount is not None else 0
        if in_board > fault.cards_dealt:
            raise DoubleFeedError(fault.cards_dealt, in_board)

    def put_right(self, job: Job, fault: DealingFault) -> None:
        """Prompt the operator to clear the cause of a resumable fault."""
        kind, expected = fault.kind, self._expected(job)
        prompt = put_right_prompt(kind)
        if kind is MachineFaultKind.BOARD_REMOVED:
            self.machine.display(OperatorPrompt.INSERT_BOARD, job.board, expected, _("put the board back to go on"))
            if not self.machine.wait_board(True, self.ctx.limits.board_timeout):
                raise DeviceTimeout(_("{machine}: board {board} was not put back in time").format(
                    machine=self.name, board=job.board))
            if self.board_fault(job, self.machine.read_board()) is not None:
                raise fault.final(job.board)
        elif kind is MachineFaultKind.EMPTY_HOPPER:
            self.machine.display(OperatorPrompt.FIX_PACK, job.board, expected,
                                 _("the pack is short: put back the missing cards"))
        elif prompt is not None:
            self.machine.display(prompt, job.board, expected, _("clear the card path: {fault}").format(fault=fault))

    def resume_after_fault(self, job: Job, fault: DealingFault) -> None:
        """Deal on once the operator has put the fault right (the machine refuses while its cause is there).
        A board that moved meanwhile (or a machine that restarted) has its label read again first: another
        board, or the board turned, ends the dealing (the fault becomes final)."""
        deadline = self.machine.clock() + self.ctx.limits.board_timeout
        while not (going := self.machine.resume_deal(wire_job(job))):
            if self.machine.clock() > deadline:
                raise DeviceTimeout(_("{machine}: board {board}: the machine fault was not put right in time").format(
                    machine=self.name, board=job.board))
            if going is None:
                if self.board_fault(job, self.machine.read_board()) is not None:
                    raise fault.final(job.board)
                continue
            self.machine.sleep(0.25)

    def machine_fault(self, job: Job, fault: DealingFault) -> None:
        """Dealing stopped for good partway: the board holds part of the deal; redeal it."""
        stopped = events.MachineFault(code=fault.code or 0, name=fault.name, cards_dealt=fault.cards_dealt,
                                      busy=self.busy_lap(job))
        self.ctx.journal.advance(job.id, JobState.FAULTED, stopped)
        self.machine.abort()
        self.machine.eject_board()
        self.send_back(job, fix_pack=False)

    def double_feed(self, job: Job, feed: DoubleFeedError) -> None:
        """Two cards went in at once: stop dealing, and verify the board as it stands (the verifier names
        the fault by the recount: a pocket over and another under, Law 13A1; a surplus card, Law 13C)."""
        self.machine.abort()
        job = self.ctx.journal.advance(job.id, JobState.DEALT,
                                       events.DoubleFeed(cards_dealt=feed.cards_dealt, in_board=feed.in_board))
        self.verify(job)

    def protocol_fault(self, job: Job, fault: ProtocolFaultError) -> None:
        """The machine's report does not match what was asked: nothing is verified on it. The board is
        faulted, emptied and redealt (or left to the director after the last attempt)."""
        job = self.ctx.journal.job(job.id)
        misreport = events.ProtocolFault(about=fault.about, values=fault.values, busy=self.busy_lap(job))
        self.ctx.journal.advance(job.id, JobState.FAULTED, misreport)
        if job.state in (JobState.DEALING, JobState.DEALT):
            self.machine.abort()
        self.machine.eject_board()
        self.send_back(job, fix_pack=False)

    def verify(self, job: Job, announced: tuple[int, ...] | None = None) -> None:
        """Recount and verify a DEALT job; `announced`: the pocket counts the machine gave at the end of
        dealing, which the recount must match."""
        ctx = self.ctx
        try:
            report = self._recount_report(job)
            if report.ok and announced is not None and tuple(announced) != report.counts:
                raise ProtocolFaultError.of("miscounted", announced=list(announced),
                                            counts=list(report.counts))
        except ProtocolFaultError as fault:
            self.protocol_fault(job, fault)
            return
        codes = tuple(c.name for c in report.codes)
        if report.ok:
            verified = events.Verified(layout=report.layout_hash, warnings=codes, busy=self.busy_lap(job, done=True))
            ctx.journal.advance(job.id, JobState.VERIFIED, verified, seen=report)
            self.machine.eject_board()
            return
        found = events.RecountFault(faults_found=codes, counts=tuple(report.counts),
                                    announced=None if announced is None else tuple(announced), busy=self.busy_lap(job))
        ctx.journal.advance(job.id, JobState.FAULTED, found, seen=report)
        if ctx.progress.show_cards and report.names_cards:
            ctx.journal.note(job.run_id, events.CardsShown(faults_found=codes), job_id=job.id, machine=self.name)
        self.machine.eject_board()
        if report.fault(FaultCategory.F7) is not None:
            ctx.halt(report.summary(blind=True))
            return
        self.send_back(job, fix_pack=report.action in events.FIX_PACK_ACTIONS)

    def send_back(self, job: Job, *, fix_pack: bool) -> None:
        """Have the operator put things right and redeal the same deal on this machine (a new attempt)."""
        job = self.ctx.journal.job(job.id)
        if job.attempt >= self.ctx.limits.max_attempts:
            attempts = job.attempt
            self.ctx.progress.say(self.name, lambda: n_(
                "left FAULTED after {count} attempt: the director must see to it",
                "left FAULTED after {count} attempts: the director must see to it",
                attempts).format(count=attempts), LineKind.FAULT, about=job)
            return
        text = _("make the pack whole, empty the board, put it back") if fix_pack else _("empty the board, put it back")
        self._have_emptied(job, text)
        redeal = events.Redeal(fix_pack=fix_pack, busy=self.busy_lap(job))
        self.next_job = self.ctx.journal.redeal(job.id, self.name, redeal)

    def _have_emptied(self, job: Job, text: str) -> None:
        """Prompt the operator to empty the (ejected) board and wait until a board is back in the machine
        (which board, and whether it is empty, the checks before dealing tell)."""
        self.machine.board_moved()  # forget the movements so far: another board put in before the prompt
        self.machine.display(OperatorPrompt.EMPTY_BOARD, job.board, self._expected(job), text)
        if not self.machine.wait_board(True, self.ctx.limits.board_timeout):
            raise DeviceTimeout(_("{machine}: board {board} did not come back after emptying").format(
                machine=self.name, board=job.board))

    def _recount_report(self, job: Job) -> VerificationReport:
        """Recount and verify; an unidentified card (F11) gets up to two more recounts."""
        for _recount in range(2):
            report = self._verify_recount(job)
            if not report.unverified:
                return report
            unverified = events.RecountUnverified(faults_found=tuple(c.name for c in report.codes))
            self.ctx.journal.note(job.run_id, unverified, job_id=job.id, machine=self.name, seen=report)
        return self._verify_recount(job)

    def _verify_recount(self, job: Job) -> VerificationReport:
        """Read the label, recount in the board's own pockets and verify. A board that leaves the machine
        during it is asked back and read again (a few times, then judged as the machine sees it)."""
        for _check in range(MAX_BOARD_CHECKS):
            reading = self.machine.read_board()
            recount = self.machine.recount(wire_job(job), reading.turns) if reading.present else None
            if recount is not None and not self.machine.board_moved():
                break
            self.ctx.journal.note(job.run_id, events.RecountInterrupted(), job_id=job.id, machine=self.name)
            self._insert_prompt(job)
        else:
            reading, recount = BoardReading(False, None), None
        exposed = self.ctx.journal.has_event(job.id, events.EventKind.CARDS_SHOWN)
        return verify_board(self.ctx.deal_of(job.board, job.run_id), recount or BoardRecount.from_hands([[]] * 4),
                            board=job.board, set_name=self.ctx.set_of(job), label=reading.label, copy=job.copy,
                            session=self.ctx.deals_of(job), operator_exposed=exposed, just_dealt=True)

    # --- boards and labels ----------------------------------------------------------------------

    def _expected(self, job: Job) -> str:
        return BoardLabel.for_board(self.ctx.set_of(job), job.board).payload()

    def board_fault(self, job: Job, reading: BoardReading) -> BoardFault | None:
        """What is wrong with the board read for `job` (another board or none, breaks Law 2: F8; turned:
        F6); None if it is the right board, lying straight."""
        return (check_label(reading.label, job.board, self.ctx.set_of(job))
                or check_orientation(reading.turns, job.board))

    def _insert_prompt(self, job: Job, why: str | None = None) -> None:
        """Prompt for the job's board if none is in the machine, and wait for one to go in. `why`: the
        machine's display text when the board before was refused (what was wrong and what to do), kept
        on the display until a board goes in."""
        m, ctx = self.machine, self.ctx
        if m.board_present() and not (m.board_left_in and m.take_board_out(
                job.board, self._expected(job), _("take the board out"), ctx.limits.board_timeout)):
            return  # (a board this station finished with, left in a machine that cannot push it out, goes first)
        set_name = ctx.set_of(job)
        text = why or _("insert board {set} {board}").format(set=set_name, board=job.board)
        if m.has_display:
            m.display(OperatorPrompt.INSERT_BOARD, job.board, self._expected(job), text[:80])
            ctx.progress.say(self.name, lambda: _("insert board {set} {board}").format(set=set_name, board=job.board)
                             + copy_text(job), LineKind.PROMPT)
        else:  # nothing on the machine tells its operator which board: any board still to deal is dealt
            wanted = ctx.wanted_text(job)
            ctx.progress.say(self.name, lambda: _("put in any board still to deal: {boards}").format(boards=wanted),
                             LineKind.PROMPT)
        if not m.wait_board(True, ctx.limits.board_timeout):
            raise DeviceTimeout(_("{machine}: board {board} was not inserted in time").format(
                machine=self.name, board=job.board))

    def await_board(self, job: Job, checks: list[BoardFault] | None = None, *,
                    any_wanted: bool = False) -> BoardReading:
        """Prompt for the job's board until the right one lies straight in the machine; returns what was
        read. Each refusal is counted in `checks`; `BoardGivenUpError` after `MAX_BOARD_CHECKS` in a row.
        `any_wanted` (a job only loaded): another board still to deal, found in the machine, is taken in the
        job's place (`AnotherBoardIn`), so that boards may be put in in any order."""
        checks = [] if checks is None else checks
        why: str | None = None
        while True:
            self._insert_prompt(job, why)
            reading = self.machine.read_board()
            if not reading.present:
                continue  # taken out again before it could be read
            fault = self.board_fault(job, reading)
            if fault is None:
                return reading
            if any_wanted and fault.code is FaultCategory.F8:
                self._take_instead(job, reading.label)
            self._refuse(job, fault, checks, reading.label)
            why = (_("{fault}: insert board {set} {board} straight") if fault.code is FaultCategory.F6
                   else _("{fault}: insert board {set} {board}")).format(fault=fault.name(), set=self.ctx.set_of(job),
                                                                          board=job.board)
            self._take_out(job, _("{fault}: take the board out").format(fault=fault.name()), why)

    def _take_instead(self, job: Job, label: str | None) -> None:
        """The board read is another one still to deal: give `job` back and take that board's job in one
        step (`AnotherBoardIn`); nothing, if the label names no board still to deal."""
        wanted = self.ctx.planned_for(label)
        if wanted is None:
            return
        released = events.Released(why=f"board {wanted.board} was put in instead", busy=self.busy_lap(job, done=True))
        taken = self.ctx.journal.take_instead(job.id, wanted.id, self.name, released)
        if taken is not None:
            raise AnotherBoardIn(taken)

    def ready_board(self, job: Job, *, any_wanted: bool = False, load: bool = False) -> str:
        """Have the job's board in the machine, checked for dealing (PROTOCOL.md 6.1): the right board,
        straight, empty, not moved since it was read. Returns its label; `BoardGivenUpError` when it failed
        `MAX_BOARD_CHECKS` checks in a row; another board's deal in it (F7) stops the run (`BoardGivenUpError`).
        `load`: the job's deal is loaded once its board is read, so that a board put in out of order costs one
        LoadDeal, its own."""
        checks: list[BoardFault] = []
        moves = 0
        ctx = self.ctx
        while True:
            reading = self.await_board(job, checks, any_wanted=any_wanted)
            if load:
                job, load = self.load(job), False
            recount = self.machine.recount(wire_job(job), reading.turns)
            if recount is None or self.machine.board_moved():
                moves += 1
                ctx.journal.note(job.run_id, events.BoardMoved(), job_id=job.id, machine=self.name)
                if moves >= MAX_BOARD_CHECKS:
                    self.give_up(job, [self.moved_fault(job, moves)])
                continue
            fault = check_empty(recount, ctx.deal_of(job.board, job.run_id), board=job.board,
                                session=ctx.deals_of(job), name=f"{job.set_name} {job.board}")
            if fault is None:
                assert reading.label is not None
                return reading.label
            if fault.code is FaultCategory.F7:
                self._refuse(job, fault, [], reading.label)
                self.give_up(job, [fault], halt=True)
            if fault.code is FaultCategory.F4:  # the operator's step, not a failed check: waited for, never given up
                emptied = events.BoardRefused(code=fault.code.value, problem=_problem(fault), read=reading.label)
                ctx.journal.note(job.run_id, emptied, job_id=job.id, machine=self.name, seen=fault)
            else:
                self._refuse(job, fault, checks, reading.label)
            self.machine.eject_board()
            self._have_emptied(job, fault.message)

    def _refuse(self, job: Job, fault: BoardFault, checks: list[BoardFault], read: str | None) -> None:
        """A check of the job's board failed: journal it (the first few) and say so; `BoardGivenUpError` if it is one
        too many."""
        checks.append(fault)
        refused = events.BoardRefused(code=fault.code.value, problem=_problem(fault), read=read)
        self.ctx.journal.note(job.run_id, refused, job_id=job.id, machine=self.name, seen=fault)
        if len(checks) >= MAX_BOARD_CHECKS:
            self.give_up(job, checks)

    @staticmethod
    def moved_fault(job: Job, moves: int) -> BoardFault:
        return BoardFault.make(FaultCategory.F8, n_(
            "board {board} moved {count} times between the check of its label and the start of dealing: it was "
            "never checked just before dealing",
            "board {board} moved {count} times between the check of its label and the start of dealing: it was "
            "never checked just before dealing", moves).format(board=job.board, count=moves),
            action=Action.REFUSE_BOARD, problem="moved")

    def give_up(self, job: Job, checks: list[BoardFault], *, halt: bool = False) -> NoReturn:
        """Stop asking: the job is FAULTED with the count of failed checks, one line says why; raises
        `BoardGivenUpError`."""
        fault = checks[-1]
        job = self.ctx.journal.job(job.id)
        given_up = events.BoardGivenUp(checks=len(checks), code=fault.code.value, problem=_problem(fault),
                                       busy=self.busy_lap(job, done=True))
        self.ctx.journal.advance(job.id, JobState.FAULTED, given_up, seen=fault)
        if halt:
            self.ctx.halt(_("board {board}: {fault}").format(board=job.board, fault=fault.text()))
        self.machine.eject_board()
        raise BoardGivenUpError(fault.text())

    def _take_out(self, job: Job, out: str, text: str) -> None:
        """Have the board in the machine taken out (ejected, or by the operator, told `out`) and the job's
        board asked for (told `text`)."""
        m = self.machine
        m.take_board_out(job.board, self._expected(job), out, self.ctx.limits.board_timeout)
        m.display(OperatorPrompt.INSERT_BOARD, job.board, self._expected(job), text[:80])


def _problem(fault: BoardFault) -> str | None:
    problem = fault.details.get("problem")
    return None if problem is None else str(problem)
