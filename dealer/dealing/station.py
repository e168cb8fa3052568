"""One machine working through a run's jobs: the station loop.

Take the next job (the redeal of a board just faulted first, else the queue's next), hand it to the board's
life on this machine (`dealer.dealing.board.BoardLife`) and resynchronise after a reconnection, a restart or
a silence; give the job in hand back when the station stops. At start, `dealer.dealing.recovery` settles
the jobs a crash left in doubt. May import `board`, `recovery`, `context`, `machine`, `progress`,
`dealer.core` and `dealer.journal`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial

from dealer.core.errors import DeviceTimeout, SerialConflict
from dealer.dealing.board import BoardLife
from dealer.dealing.context import RunContext
from dealer.dealing.machine import Cancelled, DeviceRestarted, Machine, MachineIdentity, MachineSilent, Reconnected
from dealer.dealing.progress import JobInHand
from dealer.dealing.recovery import Recovery
from dealer.journal import events
from dealer.journal.events import Interruption
from dealer.journal.store import Job, JobState
from dealer.language import _, listed, n_


class Station:
    """One machine dealing jobs of a run: the loop around its boards' lives (`life`)."""

    def __init__(self, machine: Machine, ctx: RunContext) -> None:
        self.machine = machine
        self.ctx = ctx
        self.name = machine.name
        self.life = BoardLife(machine, ctx, self.name)
        self.recovery = Recovery(self.life)
        self._current: Job | None = None
        machine.on_noisy_line = self._noisy_line

    def _noisy_line(self, retries: int) -> None:
        self.ctx.progress.say(self.name, lambda: n_(
            "the line to the machine is noisy: {count} retries in the last minute; dealing goes on, more slowly",
            "the line to the machine is noisy: {count} retries in the last minute; dealing goes on, more slowly",
            retries).format(count=retries))

    def run(self) -> None:
        """Deal jobs until none is left, the run stops, or the machine is lost."""
        try:
            identity = self.machine.connect()
        except BaseException:
            self.ctx.machine_met(self.name, None)
            raise
        self.ctx.machine_met(self.name, identity)
        before = self._serial_before()
        met = events.MachineMet(serial=identity.serial, firmware=identity.firmware,
                                protocol=identity.protocol_version, simulated=identity.simulated)
        for run_id in self.ctx.run_ids:  # who deals the dealings this station records from now on
            self.ctx.journal.note(run_id, met, machine=self.name)
        self._judge_serial(identity, before)
        self.ctx.machine_answered(self.name, identity)
        self.machine.issued(self.ctx.journal.wire_jobs(), self.ctx.last_job(self.name))
        held = self.machine.status()  # PROTOCOL.md 4.4: Status first, on every contact
        if self.ctx.stop.is_set():
            return
        self.recovery.settle(self.run_with_resync)
        self.recovery.judge_held(held)
        life = self.life
        while not self.ctx.stop.is_set():
            job, life.next_job = life.next_job or self.ctx.journal.claim_next(self.ctx.run_ids, self.name), None
            if job is None:
                life.idle()  # waiting for work is not dealing time
                if not self.ctx.busy_elsewhere(self.name):
                    return
                self.machine.sleep(0.05)
                continue
            self.run_with_resync(life.deal_job, job)

    def _serial_before(self) -> str | None:
        """The serial of the machine this station last dealt on in the journal's runs (a resume); None if none."""
        met = [(r.id, r.event.serial) for run_id in self.ctx.run_ids for r in self.ctx.journal.each_event(run_id)
               if r.machine == self.name and isinstance(r.event, events.MachineMet)]
        return max(met)[1] if met else None

    def _judge_serial(self, identity: MachineIdentity, before: str | None) -> None:
        """What the serial says (PROTOCOL.md 5), before anything is dealt: a run whose two ports answer with one
        serial is refused, as is a real machine of version 2 without one; a version-1 machine's serial proves
        nothing, and is said to; a resume that meets another machine than the journal's says so."""
        serial = identity.serial
        if identity.protocol_version >= 2 and not identity.simulated and not serial.strip():
            self.ctx.stop.set()
            raise SerialConflict(_(
                "{machine}: the machine gives no serial number, which its protocol version ({version}) requires of "
                "a real machine: it cannot be told from another, so nothing is dealt on it").format(
                machine=self.name, version=identity.protocol_version))
        shared = self.ctx.shared_serial(self.name) if len(self.ctx.machine_names) > 1 else []
        if shared:
            self.ctx.stop.set()
            if min([self.name, *shared]) != self.name:  # the first of them says it, once
                raise Cancelled(self.name)
            raise SerialConflict(_(
                "the machines on {ports} give one serial number ({serial}): one machine on two ports, or two machines "
                "that cannot be told apart; nothing was dealt").format(
                ports=listed([self.name, *shared]), serial=serial or _("(no serial)")))
        if identity.protocol_version < 2:
            self.ctx.progress.say(self.name, lambda: _(
                "the machine speaks protocol version 1, which binds no serial number: its serial ({serial}) cannot "
                "prove which machine it is, so a swap to another machine looks like a cable pulled out and put back"
            ).format(serial=serial or _("(no serial)")))
        if before is not None and before != serial:
            self.ctx.progress.say(self.name, lambda: _(
                "another machine than the one this run dealt on before: serial {serial}, where it was serial {before}; "
                "every board in it is read and recounted before anything is dealt").format(
                serial=serial or _("(no serial)"), before=before or _("(no serial)")))

    def release_current(self, why: str = "machine lost") -> None:
        """After this station stopped (`why`): its job, if only loaded or scanned, goes back to the queue."""
        if self._current is None:
            return
        job = self.ctx.journal.job(self._current.id)
        if job.state in (JobState.LOADED, JobState.SCANNED):
            released = events.Released(why=why, busy=self.life.busy_lap(job, done=True))
            self.ctx.journal.advance(job.id, JobState.PLANNED, released)

    def run_with_resync(self, step: Callable[[Job], None], job: Job) -> None:
        """Run `step` (one board's life, or its settling) on `job`, the job this station now holds; after a
        reconnection, a restart or a stretch of silence in the middle of a command, resynchronise: carry on
        from where the journal says the board is (deal a LOADED or SCANNED job, settle a DEALING or DEALT
        one), a few times at most. Meanwhile the run's progress knows the job in hand, so every line it shows
        names the session and the board set (a congress deals board 26 copy 2 into set A2 and into BLUE)."""
        self._current = job
        self.ctx.progress.job_taken(self.name, JobInHand(self.ctx.journal.run(job.run_id).name, self.ctx.set_of(job),
                                                         job.board, job.copy, job.attempt))
        try:
            self._resync_loop(step, job)
        finally:
            self.ctx.progress.job_left(self.name)

    def _resync_loop(self, step: Callable[[Job], None], job: Job) -> None:
        for attempt in range(5):
            try:
                if attempt:
                    self.machine.status()  # PROTOCOL.md 9: after the new handshake, Status before any other command
                step(job)
                return
            except (Reconnected, DeviceRestarted, MachineSilent) as exc:
                cause = interruption_of(exc)
                resync = events.LinkResync(why=cause, silent=exc.silent if isinstance(exc, MachineSilent) else None)
                self.ctx.journal.note(job.run_id, resync, job_id=job.id, machine=self.name)
                job = self.ctx.journal.job(job.id)
                if job.state in (JobState.LOADED, JobState.SCANNED):
                    step = self.life.deal_job
                elif job.state in (JobState.DEALING, JobState.DEALT):
                    step = partial(self.recovery.resolve_one, cause=cause)
                else:  # the job is settled; the next one's commands come after the machine's Status
                    with contextlib.suppress(Reconnected, DeviceRestarted, MachineSilent):
                        self.machine.status()
                    return
        raise DeviceTimeout(_("{machine}: board {board}: the connection to the machine kept failing").format(
            machine=self.name, board=job.board))


def interruption_of(exc: Reconnected | DeviceRestarted | MachineSilent) -> Interruption:
    """What cut the connection, as the machine driver learnt it."""
    if isinstance(exc, Reconnected):
        return Interruption.CABLE_PULLED
    if isinstance(exc, MachineSilent):
        return Interruption.SILENT_LINE
    return Interruption.POWER_CUT if exc.power_cut else Interruption.MACHINE_RESTARTED
