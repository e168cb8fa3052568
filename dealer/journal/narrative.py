"""What happened on a dealing run, told from its journal: each incident, how it was caught, how it ended.

Read-only over `dealer.journal.store`; each incident told in its event's words (`Event.text`). No card is named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from dealer.journal import events
from dealer.journal.events import AnyEvent
from dealer.journal.store import Job, JobState, Journal
from dealer.language import N_, _


@dataclass(frozen=True)
class Incident:
    """One thing that went wrong on a board and what came of it: an event that found a fault (`Event.faults`:
    a board refused before dealing, a machine fault, a recount's faults, a power cut, a cable pulled, ...)
    or a board given up, with the outcome of the board (verified on attempt k, or still open)."""

    board: int
    copy: int
    machine: str
    caught: str
    resolved: str

    def text(self) -> str:
        where = (_("board {board} copy {copy} on {machine}") if self.copy > 1 else _("board {board} on {machine}"))
        return where.format(board=self.board, copy=self.copy, machine=self.machine) + \
            f": {self.caught} -> {self.resolved}"


def incidents(journal: Journal, run_id: int) -> list[Incident]:
    """Every incident of a run, in the order they happened."""
    jobs = {job.id: job for job in journal.jobs(run_id)}
    out = []
    for recorded in journal.each_event(run_id):
        job = jobs.get(recorded.job_id) if recorded.job_id is not None else None
        if job is None:
            continue
        fixed = _fixed(recorded.event)
        if fixed is not None:
            out.append(Incident(job.board, job.copy, recorded.machine or "?", recorded.event.text(),
                                _outcome(job, fixed)))
    return out


def _fixed(event: AnyEvent) -> str | None:
    """None if the event is no incident; else what was done about it on the spot (a whole clause), if the
    board went on to be verified ('' when nothing needs saying)."""
    match event:
        case events.BoardRefused():
            return _("the right board, checked straight and empty, was dealt")
        case events.MachineFaultResumed():  # after an interruption: its outcome, told by the interruption's incident
            return _("the operator put it right and dealing went on") if event.faults() else None
        case events.RecountUnverified():
            return _("recounted again")
        case events.LinkResync():
            return _("dealing was taken up where it stopped")
        case events.InterruptedDeal():  # after a power cut, a cable pulled...: told by the interruption's incident
            return "" if event.faults() else None
        case (events.BoardGivenUp() | events.ProtocolFault() | events.DoubleFeed() | events.MachineFault()
              | events.RecountFault()):
            return ""
        case (events.RunStarted() | events.RunFinished() | events.RunTaken() | events.Loaded() | events.Scanned()
              | events.Dealing() | events.Dealt() | events.Verified() | events.Released() | events.Redeal()
              | events.StartCancelled() | events.RecountInterrupted() | events.CardsShown() | events.BoardMoved()
              | events.ResumeUncertain() | events.ResumeEmptyBoard() | events.ResumeDealt() | events.MachineMet()
              | events.Unknown()):
            return None
        case _:
            assert_never(event)


def _outcome(job: Job, fixed: str) -> str:
    if job.state is JobState.VERIFIED:
        verified = (_("verified after a redeal of the same deal (attempt {attempt})") if job.attempt > 1
                    else _("verified (attempt {attempt})"))
        verified = verified.format(attempt=job.attempt)
        return _("{done}; {outcome}").format(done=fixed, outcome=verified) if fixed else verified
    return _("still {state}: the director must see to it").format(state=_(_STATE_WORDS[job.state]))


_STATE_WORDS = {JobState.PLANNED: N_("planned"), JobState.LOADED: N_("loaded"), JobState.SCANNED: N_("scanned"),
                JobState.DEALING: N_("dealing"), JobState.DEALT: N_("dealt"), JobState.VERIFIED: N_("verified"),
                JobState.FAULTED: N_("faulted")}
"""A board's state as said to a person (`JobState` is the journal's word for it)."""
