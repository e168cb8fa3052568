"""The machine's firmware: the states and commands of PROTOCOL.md section 6, timing, sensors. Pure.

Everything here is the machine's volatile memory: a power loss or a reboot replaces the `Firmware` object
(the device does that); the room, the boards and the ledger live on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from firmware_protocol.codes import (
    Activity,
    Capability,
    DealOutcome,
    DeviceState,
    FaultCode,
    FaultFlag,
    RefuseReason,
    ResetMode,
    ScanResult,
    StatusFlag,
)
from firmware_protocol.deal import deal_hash, seat_counts, unpack_seats
from firmware_protocol.layout import Pocket
from firmware_protocol.messages import (
    PROTOCOL_VERSION,
    SCHEMA_HASH,
    Abort,
    Ack,
    BoardChanged,
    BoardScanned,
    DealDone,
    Display,
    Eject,
    Fault,
    GetStatus,
    Hello,
    HelloAck,
    LoadDeal,
    Message,
    Progress,
    Recount,
    RecountReport,
    Refused,
    Reset,
    ScanBoard,
    StartDeal,
    Status,
)
from hil.config import SimConfig
from hil.dealing import CardPath, LoadedJob, Stop
from hil.fault_plan import FaultEngine, FaultKind, FaultSpec
from hil.physical import LabelState, PhysicalBoard
from hil.room import Room, Slot
from hil.schedule import Schedule

FIRMWARE_VERSION: Final = (1, 0, 0)
PROGRESS_AT: Final = (13, 26, 39)
PROGRESS_GAP: Final = 0.1
"""Seconds between two Progress notices at least (PROTOCOL.md 4.7)."""
NEEDS: Final[dict[type[Message], Capability]] = {
    ScanBoard: Capability.BARCODE_READER, Recount: Capability.CARD_RECOUNT, Eject: Capability.EJECT,
    Display: Capability.DISPLAY}


class FirmwareListener(Protocol):
    """What the firmware tells the rest of the simulation (the device implements it)."""

    def emit(self, msg: Message, t: float) -> None: ...
    def on_display(self, msg: Display, t: float) -> None: ...
    def on_loaded(self, board_number: int, t: float) -> None: ...
    def on_dealing_ended(self, t: float) -> None: ...
    def on_ejected(self, board: PhysicalBoard | None, t: float) -> None: ...
    def on_reboot(self, t: float) -> None: ...
    def on_label_read(self, t: float) -> None:
        """A scan read a board's label (the operator may swap the board right after, by mistake)."""
        ...
    def on_card_fault(self, spec: FaultSpec, t: float) -> bool:
        """A power loss, unplug, hang, board pulled out or door opened fires at a card; True: the firmware
        is gone (no power, or hung)."""
        ...


class Firmware:
    """One boot of the machine's firmware.

    `Firmware.command(msg, now)` carries out one command and returns its reply (Ack, Refused or the
    command's response); what happens later (a scan's result, each card, the recount) runs from the
    shared `Schedule` at the machine's own pace (`Timing` divided by the speed), and every event or notice
    goes out through `FirmwareListener.emit`. The physical work is done by `CardPath` in the `Room`;
    the fault plan decides, through `FaultEngine`, what goes wrong on each card.
    """

    def __init__(self, config: SimConfig, room: Room, engine: FaultEngine, schedule: Schedule,
                 listener: FirmwareListener, boot_id: int) -> None:
        self.config = config
        self.room = room
        self.engine = engine
        self.schedule = schedule
        self.listener = listener
        self.boot_id = boot_id
        self.caps = config.all_capabilities
        self.path = CardPath(room)
        self.state = DeviceState.IDLE
        self.activity = Activity.NONE
        self.dealing: LoadedJob | None = None
        self.fault: Stop | None = None
        self.display: Display | None = None
        self._recount_job = 0
        self._scanned = False
        """The board in the machine was scanned (its label read) since it went in (PROTOCOL.md 6)."""
        self._previous_deal: bytes | None = None
        self._last_progress: float | None = None
        self._tag = f"fw{boot_id}"
        self._handlers: dict[type[Message], Callable[[Message, float], Message]] = {
            Hello: self._hello, GetStatus: self._status, ScanBoard: self._scan, LoadDeal: self._load,
            StartDeal: self._start, Abort: self._abort, Recount: self._recount, Eject: self._eject,
            Reset: self._reset, Display: self._display}

    # --- the host's commands ---------------------------------------------------------------------

    def command(self, msg: Message, now: float) -> Message:
        """Carry out a command; returns its reply."""
        need = NEEDS.get(type(msg))
        if need is not None and not self.caps & need:
            return Refused(RefuseReason.UNSUPPORTED, msg.TYPE)
        return self._handlers[type(msg)](msg, now)

    def _hello(self, msg: Message, now: float) -> Message:
        major, minor, patch = FIRMWARE_VERSION
        return HelloAck(PROTOCOL_VERSION, SCHEMA_HASH, major, minor, patch, self.boot_id, self.caps, 4, 1,
                        self.config.serial_number.encode("ascii")[:32])

    def _status(self, msg: Message, now: float) -> Message:
        return self.status()

    def status(self) -> Status:
        """The Status reply as things stand."""
        d, f = self.dealing, self.fault
        flags = StatusFlag(0)
        if self.room.board_present and self.caps & Capability.BOARD_SENSOR:
            flags |= StatusFlag.BOARD_PRESENT
        if self.room.door_open:
            flags |= StatusFlag.DOOR_OPEN
        if self.room.hopper_empty:
            flags |= StatusFlag.HOPPER_EMPTY
        if self.state is DeviceState.FAULT and self.fault is not None and self.fault.resumable:
            flags |= StatusFlag.FAULT_RESUMABLE
        if d is None:
            return Status(self.state, self.activity, flags, 0, 0, 0, 0, 0, 0, self.boot_id, ())
        return Status(self.state, self.activity, flags, d.job, d.board_number, d.deal_hash, d.cards_dealt,
                      f.code if f else 0, f.detail if f else 0, self.boot_id, tuple(d.counts))

    def _busy_or_boardless(self) -> Refused | None:
        if self.state is DeviceState.DEALING:
            return Refused(RefuseReason.WRONG_STATE, self.state)
        if self.activity is not Activity.NONE:
            return Refused(RefuseReason.BUSY, self.activity)
        if not self.room.board_present:
            return Refused(RefuseReason.NO_BOARD, 0)
        return None

    def _scan(self, msg: Message, now: float) -> Message:
        refused = self._busy_or_boardless()
        if refused:
            return refused
        self._begin(Activity.SCANNING, now + self.config.scaled(self.config.timing.scan), self._scan_done)
        return Ack()

    def _load(self, msg: Message, now: float) -> Message:
        assert isinstance(msg, LoadDeal)
        if self.state in (DeviceState.DEALING, DeviceState.FAULT):
            return Refused(RefuseReason.WRONG_STATE, self.state)
        counts = seat_counts(msg.deal)
        if counts != (13, 13, 13, 13):
            return Refused(RefuseReason.BAD_DEAL, next(s for s, n in enumerate(counts) if n != 13))
        if deal_hash(msg.deal) != msg.deal_hash:
            return Refused(RefuseReason.BAD_HASH, deal_hash(msg.deal))
        if self.dealing is not None:
            self._previous_deal = self.dealing.deal
        self.dealing = LoadedJob(msg.job, msg.board, msg.deal, msg.deal_hash)
        self.state = DeviceState.LOADED
        self.listener.on_loaded(msg.board, now)
        return Ack()

    def _start(self, msg: Message, now: float) -> Message:
        assert isinstance(msg, StartDeal)
        d, fault = self.dealing, self.fault
        if d is None or self.state not in (DeviceState.LOADED, DeviceState.FAULT) or (
                self.state is DeviceState.FAULT and not (fault and fault.resumable)):
            return Refused(RefuseReason.WRONG_STATE, self.state)
        if self.activity is not Activity.NONE:
            return Refused(RefuseReason.BUSY, self.activity)
        if not self.room.board_present:
            return Refused(RefuseReason.NO_BOARD, 0)
        if msg.job != d.job:
            return Refused(RefuseReason.WRONG_JOB, d.job & 0xFF)
        if self.caps & Capability.BOARD_SENSOR and self.caps & Capability.BARCODE_READER and not self._scanned:
            return Refused(RefuseReason.NOT_SCANNED, 0)
        cause = self._cause_present()
        if cause is not None:
            return Refused(RefuseReason.FAULT_PRESENT, cause)
        if self.state is DeviceState.LOADED:
            self.path.prepare(d, self.engine.start_dealing())
            self._stale(d)
        self._note_board(d)
        self.state, self.fault = DeviceState.DEALING, None
        self.schedule.at(now + self.config.scaled(self.config.timing.deal_start), self._card, self._tag + ":card")
        return Ack()

    def _stale(self, d: LoadedJob) -> None:
        """A stale dealing buffer (fault plan): deal the deal loaded before this one, say nothing."""
        if self._previous_deal is not None and self.engine.firmware(FaultKind.STALE_DEAL) is not None:
            d.seats = unpack_seats(self._previous_deal)

    def _cause_present(self) -> int | None:
        """In FAULT: the fault code whose cause is still there, else None."""
        f = self.fault
        if f is None:
            return None
        room = self.room
        held = f.code in (FaultCode.JAM, FaultCode.UNREADABLE_CARD, FaultCode.FOREIGN_CARD,
                          FaultCode.DUPLICATE_CARD)
        if (held and room.path is not None) or (f.code is FaultCode.EMPTY_HOPPER and room.hopper_empty):
            return f.code
        if room.door_open:
            return FaultCode.DOOR_OPEN
        return None

    def _note_board(self, d: LoadedJob) -> None:
        """Start a ledger record for the board in the slot, unless this dealing already has one for it."""
        slot = self.room.slot
        assert slot is not None
        if d.record is None or d.record.board != slot.board.ident:
            d.record = self.room.ledger.start(slot.board, d.job, d.board_number, d.deal, slot.turns)
        d.record.outcome = "dealing"

    def _abort(self, msg: Message, now: float) -> Message:
        d = self.dealing
        if d is not None and self.state in (DeviceState.DEALING, DeviceState.FAULT):
            self.schedule.cancel(self._tag + ":card")
            self.state, self.fault = DeviceState.DONE, None
            if d.record:
                d.record.outcome = "aborted"
            self.listener.emit(DealDone(d.job, DealOutcome.ABORTED, d.cards_dealt, tuple(d.counts)), now)
            self.listener.on_dealing_ended(now)
        return Ack()

    def _recount(self, msg: Message, now: float) -> Message:
        assert isinstance(msg, Recount)
        refused = self._busy_or_boardless()
        if refused:
            return refused
        assert self.room.slot is not None
        t = self.config.timing
        n = self.room.slot.board.card_count
        self._recount_job = msg.job
        self._begin(Activity.RECOUNTING, now + self.config.scaled(t.recount_start + n * t.recount_card),
                    self._recount_done)
        return Ack()

    def _eject(self, msg: Message, now: float) -> Message:
        refused = self._busy_or_boardless()
        if refused:
            return refused
        self._begin(Activity.EJECTING, now + self.config.scaled(self.config.timing.eject), self._eject_done)
        return Ack()

    def _reset(self, msg: Message, now: float) -> Message:
        assert isinstance(msg, Reset)
        if msg.mode == ResetMode.REBOOT:
            self.listener.on_reboot(now)
            return Ack()
        if msg.mode != ResetMode.CLEAR:  # a mode this firmware does not know is never taken for CLEAR
            return Refused(RefuseReason.UNSUPPORTED, msg.TYPE)
        self.halt()
        self._scanned = False  # the board must be read again before it is dealt into
        if self.dealing and self.dealing.record and self.state is DeviceState.DEALING:
            self.dealing.record.outcome = "reset"
        self.state, self.activity, self.dealing, self.fault = DeviceState.IDLE, Activity.NONE, None, None
        self.listener.on_dealing_ended(now)
        return Ack()

    def _display(self, msg: Message, now: float) -> Message:
        assert isinstance(msg, Display)
        self.display = msg
        self.listener.on_display(msg, now)
        return Ack()

    def halt(self) -> None:
        """Stop every timer of this firmware (a reset, or the power going)."""
        self.schedule.cancel(self._tag + ":card")
        self.schedule.cancel(self._tag + ":act")

    # --- activities ------------------------------------------------------------------------------

    def _begin(self, activity: Activity, until: float, done: Callable[[float], None]) -> None:
        self.activity = activity
        self.schedule.at(until, done, self._tag + ":act")

    def _scan_done(self, t: float) -> None:
        self.activity = Activity.NONE
        slot = self.room.slot
        if slot is None:
            self.listener.emit(BoardScanned(ScanResult.NO_BOARD, 0, b""), t)
        elif self._label_unseen(slot) or slot.board.label_state is not LabelState.OK:
            self.listener.emit(BoardScanned(ScanResult.NO_READ, 0, b""), t)
        else:
            self._scanned = True
            self.listener.emit(BoardScanned(ScanResult.OK, slot.turns, slot.board.label[:64]), t)
            self.listener.on_label_read(t)

    def _label_unseen(self, slot: Slot) -> bool:
        """The label faces no reader: a turned board on a machine that reads only its North side."""
        return slot.turns != 0 and slot.label_hidden and not self.config.reads_every_edge

    def _recount_done(self, t: float) -> None:
        self.activity = Activity.NONE
        slot = self.room.slot
        count = slot.board.card_count if slot else 0
        glitches = {n for n in range(1, count + 1) if self.engine.at_recount(n)}
        pockets = self.path.read_back(self._recount_job, glitches)
        job = self._recount_job
        extra = self.engine.firmware(FaultKind.EXTRA_POCKET)
        if extra is not None and pockets:
            pockets += (Pocket(tuple(range(extra.count or 3)), 0),)
        if self.engine.firmware(FaultKind.WRONG_JOB, "recount") is not None:
            job = _another(job)
        self.listener.emit(RecountReport(job, pockets), t)

    def _eject_done(self, t: float) -> None:
        self.activity = Activity.NONE
        board = self.room.take_out(t)
        self.listener.on_ejected(board, t)

    # --- sensors ---------------------------------------------------------------------------------

    def board_changed(self, t: float) -> None:
        """The board sensor changed (a board went in or came out)."""
        present = self.room.board_present
        self._scanned = False
        if self.caps & Capability.BOARD_SENSOR:
            self.listener.emit(BoardChanged(int(present)), t)
        if present:
            return
        if self.activity is Activity.SCANNING:
            self.schedule.cancel(self._tag + ":act")
            self.activity = Activity.NONE
            self.listener.emit(BoardScanned(ScanResult.NO_BOARD, 0, b""), t)
        elif self.activity is Activity.RECOUNTING:
            self.schedule.cancel(self._tag + ":act")
            self.activity = Activity.NONE
            self.listener.emit(RecountReport(self._recount_job, ()), t)
        if self.state is DeviceState.DEALING:
            self._stop(Stop(FaultCode.BOARD_REMOVED, 0, True), t)

    def door_changed(self, t: float) -> None:
        """The door sensor changed."""
        if self.room.door_open and self.state is DeviceState.DEALING:
            self._stop(Stop(FaultCode.DOOR_OPEN, 0, True), t)

    # --- dealing ---------------------------------------------------------------------------------

    def _card(self, t: float) -> None:
        d = self.dealing
        if d is None or self.state is not DeviceState.DEALING:
            return
        effects = []
        for spec in self.engine.at_card(d.cards_dealt + 1):
            if spec.kind in (FaultKind.POWER_LOSS, FaultKind.UNPLUG, FaultKind.BOARD_REMOVED, FaultKind.DOOR_OPEN,
                             FaultKind.SILENT):
                if self.listener.on_card_fault(spec, t):
                    return  # the power is gone: this firmware is no more
            else:
                effects.append(spec)
        if self.state is not DeviceState.DEALING:
            return  # the board was pulled out or the door opened
        if self.engine.firmware(FaultKind.WRONG_JOB, "fault", d.cards_dealt + 1) is not None:
            self._stop(Stop(FaultCode.JAM, d.cards_dealt, True), t, job=_another(d.job))
            return
        stop = Stop(FaultCode.DOOR_OPEN, 0, True) if self.room.door_open else self.path.feed(d, effects)
        if stop is not None:
            self._stop(stop, t)
            return
        self._progress(d, t)
        if d.cards_dealt >= 52:
            self.state = DeviceState.DONE
            if d.record:
                d.record.outcome = "complete"
            job, counts = d.job, list(d.counts)
            if self.engine.firmware(FaultKind.WRONG_JOB, "deal_done") is not None:
                job = _another(d.job)
            if self.engine.firmware(FaultKind.MISCOUNT) is not None:
                counts[1], counts[2] = counts[1] + 1, counts[2] - 1
            self.listener.emit(DealDone(job, DealOutcome.COMPLETE, d.cards_dealt, tuple(counts)), t)
            self.listener.on_dealing_ended(t)
        else:
            self.schedule.at(t + self.config.scaled(self.config.timing.card), self._card, self._tag + ":card")

    def _progress(self, d: LoadedJob, t: float) -> None:
        if d.cards_dealt in PROGRESS_AT and (self._last_progress is None or t - self._last_progress >= PROGRESS_GAP):
            self._last_progress = t
            self.listener.emit(Progress(d.job, d.cards_dealt), t)

    def _stop(self, stop: Stop, t: float, job: int | None = None) -> None:
        """LoadedJob stops on a fault, reported for `job` (the dealing's own job unless the plan says not)."""
        d = self.dealing
        assert d is not None
        self.schedule.cancel(self._tag + ":card")
        resumable = stop.resumable and bool(self.caps & Capability.RESUME_AFTER_FAULT)
        self.state, self.fault = DeviceState.FAULT, Stop(stop.code, stop.detail, resumable)
        if d.record:
            d.record.outcome = f"fault {stop.code.name}"
        flags = FaultFlag.RESUMABLE if resumable else FaultFlag(0)
        self.listener.emit(Fault(stop.code, stop.detail, d.job if job is None else job, d.cards_dealt, flags), t)

    def restore(self, state: DeviceState, dealing: LoadedJob | None, fault: Stop | None, t: float) -> None:
        """Take over the job of the previous boot (a KEEPS_JOB_OVER_POWER_LOSS machine): a dealing under
        way comes back as FAULT(POWER_LOSS), resumable; a fault as it was; other states as they were."""
        if dealing is None:
            return
        self.dealing = dealing
        if state is DeviceState.DEALING:
            self._stop(Stop(FaultCode.POWER_LOSS, 0, True), t)
        elif state is DeviceState.FAULT and fault is not None:
            self._stop(fault, t)
        else:
            self.state = state


def _another(job: int) -> int:
    """A job number other than `job` (what a firmware fault puts in a report)."""
    return job % 0xFFFF + 1
