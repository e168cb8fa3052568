"""Crash recovery (`Recovery`): settling, at a station's start, the jobs an earlier run left in doubt,
and a board whose dealing a reconnection cut short; through the steps of its life on the machine
(`dealer.dealing.board.BoardLife`). May import `board`, `machine`, `dealer.core`, `dealer.verify` and
`dealer.journal`; never `station`, which imports it.
"""

from __future__ import annotations

from collections.abc import Callable

from dealer.core.cards import DECK_SIZE
from dealer.dealing.board import (
    MAX_BOARD_CHECKS,
    BoardGivenUpError,
    BoardLife,
    DoubleFeedError,
    fault_note,
    wire_job,
)
from dealer.dealing.machine import CommandRefused, DealingFault, MachineState, MachineStatus, ProtocolFaultError
from dealer.journal import events
from dealer.journal.events import Interruption
from dealer.journal.store import Job, JobState
from dealer.language import _, n_
from dealer.verify import BoardRecount


class Recovery:
    """Settles the uncertain and interrupted jobs of one station's run, on its machine (`life`).

    A job the journal holds as DEALING or DEALT may have cards in its board. Such a job is never dealt
    again before its board is found and recounted: the label of the board in the machine is read first
    (whatever the machine still holds: a board may have been swapped while the controller was down), then
    the board is recounted: full and right, it is verified; empty, it is dealt; partly dealt and abandoned by
    the machine, it is a fault (the board is emptied and redealt). A machine that kept the job over a fault
    (e.g. a power loss) deals on only once its board is read and recounted and holds what the machine
    dealt (else the board is emptied and redealt), and the fault is put right. A job left FAULTED (a stop
    came before its redeal, or it ran out of attempts and the run is resumed with more) has its board
    emptied and is redealt, on the machine that settles it.

    A station settles its own jobs and those of machines no longer in the run; each job is claimed once.
    """

    def __init__(self, life: BoardLife) -> None:
        self.life = life
        self.ctx = life.ctx
        self.machine = life.machine
        self.name = life.name

    def settle(self, hold: Callable[[Callable[[Job], None], Job], None]) -> None:
        """Settle the jobs a crash left behind, this machine's and any machine's no longer in the run:
        those in DEALING or DEALT (recount first), then those FAULTED before their redeal. Each is settled
        through `hold` (the station's job in hand, resynchronised after a reconnection)."""
        uncertain = [job for run in self.ctx.run_ids for job in self.ctx.journal.uncertain_jobs(run)]
        for job in uncertain:
            if self._mine(job) and self.ctx.claim(job):
                hold(self.resolve_one, job)
        faulted = [job for run in self.ctx.run_ids for job in self.ctx.journal.jobs(run, {JobState.FAULTED})]
        for job in faulted:
            if self._mine(job) and job.attempt < self.ctx.limits.max_attempts and self.ctx.claim(job):
                hold(self._redeal_left, job)

    def judge_held(self, held: MachineStatus) -> None:
        """What the machine held at first contact (`held`, its Status read before any other command), once this
        run's own jobs are settled: a job of no dealing of this journal (an earlier run's, kept over a power cut
        or left by another controller) is said, never taken for this run's, and a dealing of it still stopped
        on a fault or under way is aborted, so that the next LoadDeal is accepted (PROTOCOL.md 4.4)."""
        if held.state not in (MachineState.DONE, MachineState.FAULT, MachineState.DEALING) or not held.job:
            return
        if held.job not in self.ctx.journal.wire_jobs():
            self.machine.issued([held.job])
            what = {MachineState.DONE: _("dealt"), MachineState.DEALING: _("being dealt")}.get(
                held.state, _("stopped on a fault"))
            self.ctx.progress.say(self.name, lambda: _(
                "the machine holds job {job} (board {board}, {what}) of no dealing of this run: nothing of it is taken "
                "for this run, and every board is read and recounted before anything is dealt into it").format(
                job=held.job, board=held.board, what=what))
        now = self.machine.status()
        if now.state in (MachineState.FAULT, MachineState.DEALING):
            self.machine.abort()

    def _mine(self, job: Job) -> bool:
        """A job left behind that this station settles: its own, or one of a machine not in the run."""
        return job.machine == self.name or job.machine not in self.ctx.machine_names

    def _redeal_left(self, job: Job) -> None:
        """A FAULTED job whose redeal a stop interrupted (or that ran out of attempts and is given more):
        have its board emptied, then deal it again, on this machine, from the same deal."""
        life = self.life
        job = self.ctx.journal.job(job.id)
        if job.state is JobState.FAULTED:
            self.ctx.progress.say(self.name, lambda: _("faulted before the stop: the board will be emptied and "
                                                       "redealt"), about=job)
            life.send_back(job, fix_pack=False)
        elif job.state in (JobState.LOADED, JobState.SCANNED):
            life.next_job = job  # the redeal was recorded before a reconnection
        again, life.next_job = life.next_job, None
        if again is not None:
            life.deal_job(again)

    def resolve_one(self, job: Job, cause: Interruption = Interruption.CONTROLLER_STOPPED) -> None:
        """Find out what is in an uncertain job's board and finish the job from there; `cause`: what
        interrupted it (by default the controller's own stop: a job found at start-up)."""
        life, machine = self.life, self.machine
        job = self.ctx.journal.job(job.id)
        if job.state not in (JobState.DEALING, JobState.DEALT):
            return
        life.clock_in(job)
        resuming = events.ResumeUncertain(state=job.state.value, cause=cause)
        self.ctx.journal.note(job.run_id, resuming, job_id=job.id, machine=self.name)
        st = machine.status()
        mine = bool(job.wire_job) and st.job == job.wire_job
        if mine and st.state is MachineState.FAULT and self._resume_kept_job(job, st, cause):
            return
        if mine and st.state is MachineState.DEALING:
            self._finish_dealing(job)
            return
        loaded = not mine
        if loaded:  # the machine lost the dealing: a new one, to recount and perhaps deal the board
            job = life.load(job)
        try:
            recount = self._find_board(job)
        except BoardGivenUpError:
            return
        except ProtocolFaultError as fault:
            life.protocol_fault(job, fault)
            return
        cards = sum(recount.counts)
        if job.state is JobState.DEALING and cards == 0:
            self.ctx.journal.note(job.run_id, events.ResumeEmptyBoard(), job_id=job.id, machine=self.name)
            if not loaded and st.state is not MachineState.LOADED:
                job = life.load(job)
            life.deal(job)
            return
        finished = mine and st.state is MachineState.DONE
        if job.state is JobState.DEALING and cards < DECK_SIZE and not finished:
            self._interrupted(job, cards, cause)
            return
        if job.state is JobState.DEALING:
            job = self.ctx.journal.advance(job.id, JobState.DEALT, events.ResumeDealt(cards=cards))
        life.verify(job)

    def _find_board(self, job: Job) -> BoardRecount:
        """The job's board in the machine, read by its label and lying straight, and its recount. Never
        judged by what the machine holds: the board in it may not be the one it was when the run stopped."""
        for _check in range(MAX_BOARD_CHECKS):
            reading = self.life.await_board(job)
            recount = self.machine.recount(wire_job(job), reading.turns)
            if recount is not None and not self.machine.board_moved():
                return recount
            self.ctx.journal.note(job.run_id, events.BoardMoved(), job_id=job.id, machine=self.name)
        self.life.give_up(job, [self.life.moved_fault(job, MAX_BOARD_CHECKS)])

    def _finish_dealing(self, job: Job) -> None:
        """The machine is still dealing this job: wait for the end, then verify."""
        try:
            self.life.dealt(job, self.life.wait_dealt(job))
        except DealingFault as fault:
            self.life.machine_fault(job, fault)
        except DoubleFeedError as feed:
            self.life.double_feed(job, feed)
        except ProtocolFaultError as fault:
            self.life.protocol_fault(job, fault)

    def _told_already(self, job: Job, name: str) -> bool:
        """Whether the journal has the machine's fault `name` for the job's dealing under way: the controller
        stopped while it was being put right, and it was counted then."""
        told = False
        for recorded in self.ctx.journal.events(job.run_id, job.id):
            if isinstance(recorded.event, events.Dealing):
                told = False  # a later dealing: its faults are its own
            elif isinstance(recorded.event, events.MachineFaultResumed | events.MachineFault):
                told = told or recorded.event.name == name
        return told

    def _resume_kept_job(self, job: Job, st: MachineStatus, cause: Interruption) -> bool:
        """A machine that kept the job over a fault (e.g. power loss): put it right and go on dealing. The
        fault is the interruption's (`cause`, counted by its own event) unless the controller had stopped.

        Returns False (after aborting) if the machine will not resume."""
        fault = DealingFault.of_status(st, job.board)
        elsewhere = cause is not Interruption.CONTROLLER_STOPPED or self._told_already(job, fault.name)
        resumed = fault_note(fault, cause if elsewhere else None)  # one fault, counted once across a restart
        self.ctx.journal.note(job.run_id, resumed, job_id=job.id, machine=self.name)
        try:
            cards = self._not_as_left(job, st)
            if cards is not None:  # the dealing under way is abandoned: the board is emptied and redealt
                self.machine.abort()
                self._interrupted(job, cards, cause)
                return True
        except BoardGivenUpError:  # the job is left FAULTED, its board out: the machine must not keep it
            self.machine.abort()
            return True
        except ProtocolFaultError as misreport:
            self.life.protocol_fault(job, misreport)
            return True
        try:
            self.life.put_right(job, fault)
            self.life.resume_after_fault(job, fault)
        except CommandRefused:
            self.machine.abort()
            return False
        self._finish_dealing(job)
        return True

    def _not_as_left(self, job: Job, st: MachineStatus) -> int | None:
        """Before dealing on after an interruption (PROTOCOL.md 9): the job's board is in the machine, read
        by its label and lying straight (another board is refused, F8, and the right one asked for), and
        recounted: it holds what the machine says it dealt, each card in the pocket of its hand. None if it
        does; else the cards it holds (some taken out or put in meanwhile): the dealing cannot go on."""
        recount = self._find_board(job)
        deal = self.ctx.deal_of(job.board, job.run_id)
        held = all(deal[card] == seat for seat, pocket in enumerate(recount.pockets) for card in pocket.cards)
        if held and not recount.unidentified and recount.counts == tuple(st.pocket_counts):
            return None
        cards = sum(recount.counts)
        dealt = st.cards_dealt
        self.ctx.progress.say(self.name, lambda: n_(
            "the board does not hold what the machine dealt into it ({count} card for {dealt}): it cannot be "
            "dealt on",
            "the board does not hold what the machine dealt into it ({count} cards for {dealt}): it cannot be "
            "dealt on", cards).format(count=cards, dealt=dealt), about=job)
        return cards

    def _interrupted(self, job: Job, cards: int, cause: Interruption) -> None:
        """Dealing stopped partway (`cause`) and the machine lost the job: empty the board and redeal."""
        cut = events.InterruptedDeal(cards=cards, cause=cause, busy=self.life.busy_lap(job))
        self.ctx.journal.advance(job.id, JobState.FAULTED, cut)
        self.machine.eject_board()
        self.life.send_back(job, fix_pack=False)
