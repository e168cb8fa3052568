"""A whole simulated machine behind its serial port, pure: firmware, link, room, operator, fault plan.

`SimDevice` is what an I/O layer (`hil.loopback`, `hil.pty_sim`) drives. The room, its boards and the
ledger survive everything; the firmware and its link are lost with the power.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from firmware_protocol.codes import BootReason, DeviceState
from firmware_protocol.link import Delivered, Link, LinkConfig, LinkEvent, Role
from firmware_protocol.messages import Ack, Boot, Display, Kind, LoadDeal, Message
from hil.config import SimConfig
from hil.dealing import LoadedJob, Stop
from hil.fault_plan import FaultEngine, FaultKind, FaultSpec
from hil.model import Firmware
from hil.operator import Operator
from hil.physical import Ledger, PhysicalBoard, Rack
from hil.room import Room
from hil.schedule import Schedule
from hil.wire_record import LoadDealLog

BOOT_NOISE: Final = b"\r\nDealer SIM bootloader 1.0\r\n"


@dataclass(frozen=True)
class Unplug:
    """The plan pulls the USB cable: the I/O layer drops the port; `seconds` later (None: when told) it
    plugs it back in."""

    seconds: float | None


class SimDevice:
    """One simulated machine, as an I/O layer drives it::

        device = SimDevice(config, now)
        device.receive(bytes_from_host, now)   # commands are carried out and answered at once
        device.poll(now)                       # the machine and the operator get on with their work
        device.data_to_send()                  # bytes for the host
        device.next_deadline()                 # when poll next has work (None: nothing planned)
        device.io_requests()                   # the plan asks the I/O layer to unplug the cable

    The firmware speaks through a `firmware_protocol.Link` in the device role. A power loss (from the
    fault plan) or a Reset(REBOOT) throws the firmware and the link away; the device is dead for a while,
    then boots with a new boot_id and sends Boot. The room, its boards and the ledger survive everything.
    """

    def __init__(self, config: SimConfig | None = None, now: float = 0.0) -> None:
        self.config = config = config or SimConfig()
        self.schedule = Schedule()
        rack = Rack(config.rack_set, config.boards, config.copies, open_rack=config.open_rack)
        self.room = Room(rack, random.Random(f"packs:{config.seed}"))
        self.engine = FaultEngine(config.faults, config.seed)
        self.link_config = LinkConfig.for_baud(config.baud, Role.DEVICE)
        self.boots = 0
        self._boot_base = random.Random(f"boot:{config.seed}").randrange(1, 0xFFFF)
        self.powered = False
        self._out = bytearray()
        self.load_deals = LoadDealLog()
        """Every LoadDeal the host wrote (told by the I/O layer) and every one the firmware accepted."""
        self._io: list[Unplug] = []
        self._reboot = False
        self._held: list[Message] | None = None
        """While a command is carried out: the events it raised, sent after its reply."""
        self._switched_off: Callable[[float], None] | None = None
        self._frame_faults = any(f.frame is not None and f.kind in (FaultKind.POWER_LOSS, FaultKind.UNPLUG)
                                 for f in config.faults.faults)
        self.link = Link(Role.DEVICE, self.link_config)
        self.firmware = self._new_firmware(0)
        self.operator = Operator(config, self.room, self.engine, self.schedule, lambda: self.firmware)
        self.room.on_board_change = self._board_changed
        self.room.on_door_change = self._door_changed
        self._power_on(now, BootReason.POWER_ON)
        self.operator.start(now)

    @property
    def ledger(self) -> Ledger:
        return self.room.ledger

    # --- the I/O layer's side --------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        """Bytes from the host arrived at `now`."""
        self.poll(now)
        if not self.powered or not data:
            return
        if not self._frame_faults:
            self._handle(self.link.receive(data, now), now)
            return
        start = 0
        while start < len(data) and self.powered:  # frame by frame, to count frames for the plan
            end = data.find(b"\x00", start) + 1 or len(data)
            before = self.link.counters.frames_received
            events = self.link.receive(data[start:end], now)
            start = end
            if self.link.counters.frames_received > before and self._frame_fault(now):
                return
            self._handle(events, now)

    def poll(self, now: float) -> None:
        """Let the machine and the operator work up to `now`, and retransmit what is due."""
        self.schedule.run_due(now)
        if self.powered:
            self.link.poll(now)

    def next_deadline(self) -> float | None:
        times = [t for t in (self.schedule.next_time(), self.link.next_deadline() if self.powered else None)
                 if t is not None]
        return min(times) if times else None

    def data_to_send(self) -> bytes:
        """Bytes to write to the host now."""
        if self.powered:
            self._out += self.link.data_to_send()
        out = bytes(self._out)
        self._out.clear()
        return out

    def io_requests(self) -> list[Unplug]:
        """What the plan asks of the I/O layer since the last call (unplugging the cable)."""
        out, self._io = self._io, []
        return out

    # --- power -----------------------------------------------------------------------------------

    def _new_firmware(self, boot_id: int) -> Firmware:
        return Firmware(self.config, self.room, self.engine, self.schedule, self, boot_id)

    def _power_on(self, t: float, reason: BootReason) -> None:
        self.boots += 1
        boot_id = (self._boot_base + self.boots) & 0xFFFF or 1
        self.link = Link(Role.DEVICE, self.link_config)
        self.firmware = self._new_firmware(boot_id)
        self.powered = True
        if self.config.boot_noise:
            self._out += BOOT_NOISE
        self.link.send(Boot(reason, boot_id), t)

    def power_loss(self, t: float, seconds: float | None = 0.5, reason: BootReason = BootReason.POWER_ON) -> None:
        """The power goes at `t` and comes back `seconds` later (None: when `switch_on` is called): the
        firmware's memory is lost."""
        old = self.firmware
        old.halt()
        state, dealing, fault = old.state, old.dealing, old.fault
        if dealing and dealing.record and state in (DeviceState.DEALING, DeviceState.FAULT):
            dealing.record.outcome = "power loss"
        self.powered = False
        self._out.clear()
        self.link.data_to_send()
        self._switched_off = lambda t2: self._restart(t2, reason, state, dealing, fault)
        if seconds is not None:
            self.schedule.at(t + seconds, self.switch_on, "power")

    def switch_on(self, t: float) -> None:
        """The machine is switched on again at `t` after a power cut or a hang (`silent`): it boots."""
        restart, self._switched_off = self._switched_off, None
        if restart is not None and not self.powered:
            restart(t)

    def _restart(self, t: float, reason: BootReason, state: DeviceState, dealing: LoadedJob | None,
                 fault: Stop | None) -> None:
        self._power_on(t, reason)
        if self.config.keeps_job:
            self.firmware.restore(state, dealing, fault, t)
        else:
            self.operator.on_dealing_ended(t)

    def _frame_fault(self, now: float) -> bool:
        """An intact frame came in; True if the plan cuts the power on it."""
        return any(self._system_fault(spec, now) for spec in self.engine.frame_received())

    def _system_fault(self, spec: FaultSpec, t: float) -> bool:
        if spec.kind is FaultKind.POWER_LOSS:
            self.power_loss(t, 0.5 if spec.seconds is None else spec.seconds)
            return True
        if spec.kind is FaultKind.SILENT:  # hung: as good as no power, until switched off and on
            self.power_loss(t, spec.seconds)
            return True
        self._io.append(Unplug((1.0 if spec.seconds is None else spec.seconds) if spec.replug else None))
        return False

    # --- commands --------------------------------------------------------------------------------

    def _handle(self, events: list[LinkEvent], now: float) -> None:
        for ev in events:
            if not (isinstance(ev, Delivered) and ev.message.KIND is Kind.COMMAND):
                continue
            held: list[Message] = []
            self._held = held  # events the command raises go out after its reply (PROTOCOL.md 4.3)
            try:
                reply = self.firmware.command(ev.message, now)
            finally:
                self._held = None
            if isinstance(ev.message, LoadDeal) and isinstance(reply, Ack):
                self.load_deals.accept(ev.message)
            self.link.reply(ev, reply)
            for msg in held:
                self.emit(msg, now)
            if self._reboot:  # the Ack goes out, then the firmware restarts
                self._reboot = False
                ack = self.link.data_to_send()
                self.power_loss(now, 0.0, BootReason.RESET_COMMAND)
                self._out += ack
                self.schedule.run_due(now)
                return

    # --- what the firmware tells (FirmwareListener) ----------------------------------------------

    def emit(self, msg: Message, t: float) -> None:
        if self._held is not None:
            self._held.append(msg)
        elif self.powered:
            self.link.send(msg, t)

    def on_display(self, msg: Display, t: float) -> None:
        self.operator.on_display(msg, t)

    def on_loaded(self, board_number: int, t: float) -> None:
        self.operator.on_loaded(board_number, t)

    def on_dealing_ended(self, t: float) -> None:
        self.operator.on_dealing_ended(t)

    def on_ejected(self, board: PhysicalBoard | None, t: float) -> None:
        self.operator.on_ejected(board, t)

    def on_reboot(self, t: float) -> None:
        self._reboot = True

    def on_label_read(self, t: float) -> None:
        for spec in self.engine.scanned():
            self.operator.swap_board(spec, t)

    def on_card_fault(self, spec: FaultSpec, t: float) -> bool:
        if spec.kind is FaultKind.BOARD_REMOVED:
            self.operator.pull_board(spec, t)
        elif spec.kind is FaultKind.DOOR_OPEN:
            self.operator.open_door(spec, t)
        else:
            return self._system_fault(spec, t)
        return False

    def _board_changed(self, t: float) -> None:
        if self.powered:
            self.firmware.board_changed(t)

    def _door_changed(self, t: float) -> None:
        if self.powered:
            self.firmware.door_changed(t)
