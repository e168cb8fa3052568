"""Benches on a fake clock: the simulated machine and the protocol's links, with no I/O and no real time.

For tests of the simulator and benchmarks of the protocol and the machine, which must time and check the
same exchanges: `DeviceBench`, `one_board_exchange`, and deals and LoadDeal commands from a seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from firmware_protocol import (
    SCHEMA_HASH,
    Ack,
    Answered,
    BoardScanned,
    Boot,
    BootReason,
    DealDone,
    DealOutcome,
    Delivered,
    Frame,
    FrameDecoder,
    Hello,
    HelloAck,
    Link,
    LinkConfig,
    LoadDeal,
    Message,
    Pocket,
    Progress,
    Recount,
    RecountReport,
    Role,
    ScanBoard,
    ScanResult,
    StartDeal,
    decode_message,
    pack_seats,
    unpack_seats,
)
from hil.config import SimConfig
from hil.device import SimDevice, Unplug

M = TypeVar("M", bound=Message)

HELLO_ACK = HelloAck(1, SCHEMA_HASH, 1, 0, 0, 1, 3, 4, 1, b"")
"""The device's answer to the host's Hello in `handshaken_pair`."""


def seats_for(seed: int = 0) -> list[int]:
    """A deal (the seat of each card, 0..3) shuffled from `seed`."""
    seats = [s for s in range(4) for _ in range(13)]
    random.Random(seed).shuffle(seats)
    return seats


def load_commands(count: int, first_job: int = 1) -> list[Message]:
    """`count` LoadDeal commands with distinct job ids and a real deal each."""
    rng = random.Random(count)
    seats = [s for s in range(4) for _ in range(13)]
    out: list[Message] = []
    for i in range(count):
        rng.shuffle(seats)
        out.append(LoadDeal.for_deal((first_job + i) & 0xFFFF, i % 36 + 1, pack_seats(seats)))
    return out


def split_frames(data: bytes) -> list[bytes]:
    """Split a byte stream after each delimiter (the last piece may be a partial frame)."""
    pieces = data.split(b"\x00")
    out = [p + b"\x00" for p in pieces[:-1]]
    return out + ([pieces[-1]] if pieces[-1] else [])


# --- one board's frames on a clean wire -----------------------------------------------------------


@dataclass(frozen=True)
class WireFrame:
    """One frame of a recorded exchange: who sent it, which step of the board it belongs to, its bytes."""

    sender: str
    step: str
    seq: int
    message: Message
    wire: bytes


def handshaken_pair() -> tuple[Link, Link]:
    """A host and a device Link back to back, past the Boot notice and the handshake."""
    host, device = Link(Role.HOST), Link(Role.DEVICE)
    device.send(Boot(BootReason.POWER_ON, 1), 0.0)
    host.send(Hello(1, SCHEMA_HASH, 1), 0.0)
    for ev in device.receive(host.data_to_send(), 0.0):
        if isinstance(ev, Delivered):
            device.reply(ev, HELLO_ACK)
    host.receive(device.data_to_send(), 0.0)
    device.receive(host.data_to_send(), 0.0)
    assert host.idle and device.idle
    return host, device


def one_board_exchange(job: int = 101, board: int = 17) -> list[WireFrame]:
    """Every frame of one board after the handshake, on a clean wire: scan, load, check, deal, recount.

    A host Link and a device Link back to back; the device side is scripted: Ack to every command,
    BoardScanned (straight) after ScanBoard, a RecountReport of four empty pockets after the Recount that
    checks the board is empty before dealing, three Progress notices and DealDone after StartDeal, and a
    RecountReport (every card identified, in its pocket) after the Recount that verifies the board.
    """
    load = LoadDeal.for_deal(job, board, pack_seats(list(range(4)) * 13))
    seats = unpack_seats(load.deal)
    pockets = tuple(Pocket(tuple(c for c in range(52) if seats[c] == s), 0) for s in range(4))
    then: dict[str, list[Message]] = {
        "scan": [BoardScanned(ScanResult.OK, 0, f"RED:{board}:N0:8".encode())],
        "check": [RecountReport(job, tuple(Pocket((), 0) for _ in range(4)))],
        "deal": [Progress(job, 13), Progress(job, 26), Progress(job, 39),
                 DealDone(job, DealOutcome.COMPLETE, 52, (13, 13, 13, 13))],
        "recount": [RecountReport(job, pockets)],
    }
    host, device = handshaken_pair()
    frames: list[WireFrame] = []
    for step, command in (("scan", ScanBoard()), ("load", load), ("check", Recount(job)),
                          ("deal", StartDeal(job)), ("recount", Recount(job))):
        host.send(command, 0.0)
        while not (host.idle and device.idle):
            _carry(step, "host", host, device, frames, then)
            _carry(step, "device", device, host, frames, then)
    return frames


def _carry(step: str, sender: str, src: Link, dst: Link, frames: list[WireFrame],
           then: dict[str, list[Message]]) -> None:
    data = src.data_to_send()
    for wire in split_frames(data):
        (frame,) = FrameDecoder().feed(wire)
        assert isinstance(frame, Frame)
        frames.append(WireFrame(sender, step, frame.seq, decode_message(frame.type, frame.payload), wire))
    for ev in dst.receive(data, 0.0):
        if isinstance(ev, Delivered) and sender == "host":
            dst.reply(ev, Ack())
            for event in then.get(step, []):
                dst.send(event, 0.0)


# --- a simulated machine on a fake clock -----------------------------------------------------------


class DeviceBench:
    """A bare host `Link` wired straight to a `SimDevice` on a fake clock: `run` jumps from one deadline
    to the next, so a board at any speed takes only the CPU time of the two ends.

    What the host receives is kept: replies by request, events (`events`) and notices (`notices`) in
    order, every byte (`wire_to_host`), and the device's requests to unplug or replug (`unplugs`)."""

    def __init__(self, config: SimConfig | None = None) -> None:
        config = config or SimConfig()
        self.device = SimDevice(config, 0.0)
        self.now = 0.0
        self.link = Link(Role.HOST, LinkConfig.for_baud(config.baud, Role.HOST))
        self.events: list[Message] = []
        self.notices: list[Message] = []
        self.wire_to_host = bytearray()
        self.unplugs: list[Unplug] = []
        self._replies: dict[int, Message] = {}

    def exchange(self) -> None:
        """Carry bytes both ways until both ends are quiet."""
        while True:
            out = self.link.data_to_send()
            if out:
                self.device.receive(out, self.now)
            back = self.device.data_to_send()
            self.unplugs += self.device.io_requests()
            if not out and not back:
                return
            self.wire_to_host += back
            for ev in self.link.receive(back, self.now):
                if isinstance(ev, Answered):
                    self._replies[id(ev.request)] = ev.reply
                elif isinstance(ev, Delivered):
                    (self.notices if ev.message.KIND.value == "notice" else self.events).append(ev.message)

    def run(self, seconds: float, until: Callable[[], bool] = lambda: False) -> None:
        """Let `seconds` pass (or until `until()`), everything in time order."""
        end = self.now + seconds
        self.exchange()
        while not until() and self.now < end:
            times = [t for t in (self.device.next_deadline(), self.link.next_deadline()) if t is not None]
            self.now = min([end] + [max(t, self.now) for t in times])
            self.device.poll(self.now)
            self.link.poll(self.now)
            self.exchange()

    def cmd(self, msg: Message) -> Message:
        """Send a command; its reply (the device answers at once)."""
        self.link.send(msg, self.now)
        self.run(1.0, lambda: id(msg) in self._replies)
        return self._replies.pop(id(msg))

    def hello(self) -> Message:
        """The handshake; the device's HelloAck (or its refusal)."""
        return self.cmd(Hello(1, SCHEMA_HASH, 1))

    def wait_for(self, cls: type[M], seconds: float = 120.0, where: Callable[[M], bool] = lambda m: True) -> M:
        """The first event of class `cls` (not yet taken) that satisfies `where`, waiting for it if need be."""
        found: list[M] = []

        def seen() -> bool:
            for i, m in enumerate(self.events):
                if isinstance(m, cls) and where(m):
                    found.append(m)
                    del self.events[i]
                    return True
            return False

        self.run(seconds, seen)
        assert found, f"no {cls.__name__} within {seconds} s; events: {self.events}"
        return found[0]

    def take(self, cls: type[M]) -> list[M]:
        """Remove and return every event of class `cls` received so far."""
        got = [m for m in self.events if isinstance(m, cls)]
        self.events = [m for m in self.events if not isinstance(m, cls)]
        return got
