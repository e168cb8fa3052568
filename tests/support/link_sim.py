"""A simulated serial wire for link tests: two Links, a fake clock, faults applied to bytes in flight.

`Channel` carries one direction with a latency and a byte time (9600 baud by default) through an
optional fault model: `ByteNoise` drops or flips single bytes (order kept, like a UART), `FrameFaults`
loses, duplicates, corrupts or delays whole frames (delays reorder them). `FakeMachine` is a device
that counts every command it carries out; `ScriptedHost` sends a list of commands one at a time.
`Simulation.run` advances the fake clock from event to event; nothing here reads a real clock. Its
device may be any `DeviceEnd`: `FakeMachine` on a Python `Link`, or a device written in another language
whose link is driven from here.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from firmware_protocol import (
    SCHEMA_HASH,
    Ack,
    Answered,
    Boot,
    BootReason,
    DealDone,
    DealOutcome,
    Delivered,
    GaveUp,
    GetStatus,
    Hello,
    HelloAck,
    Link,
    LinkEvent,
    LoadDeal,
    Message,
    Progress,
    Status,
)
from hil.bench import WireFrame, load_commands, one_board_exchange, split_frames

__all__ = ["ByteNoise", "Channel", "DeviceEnd", "FakeMachine", "FrameFaults", "LinkEnd", "ScriptedHost", "Simulation",
           "WireFrame", "load_commands", "one_board_exchange", "split_frames"]

BYTE_TIME = 10 / 9600
LATENCY = 0.002
Arrivals = list[tuple[float, bytes]]


@dataclass
class ByteNoise:
    """Each byte independently dropped (p_drop) or replaced by a different value (p_flip)."""

    rng: random.Random
    p_drop: float
    p_flip: float
    dropped: int = 0
    flipped: int = 0

    def __call__(self, data: bytes) -> Arrivals:
        out = bytearray()
        rnd = self.rng.random
        limit = self.p_drop + self.p_flip
        for b in data:
            r = rnd()
            if r >= limit:
                out.append(b)
            elif r < self.p_drop:
                self.dropped += 1
            else:
                self.flipped += 1
                out.append(b ^ self.rng.randrange(1, 256))
        return [(0.0, bytes(out))]


@dataclass
class FrameFaults:
    """Whole-frame faults: loss, duplication, corruption of one byte, and delays that reorder."""

    rng: random.Random
    p_loss: float = 0.0
    p_dup: float = 0.0
    p_corrupt: float = 0.0
    p_delay: float = 0.0
    max_delay: float = 0.5
    counts: Counter[str] = field(default_factory=Counter)

    def __call__(self, data: bytes) -> Arrivals:
        out: Arrivals = []
        for frame in split_frames(data):
            if self.rng.random() < self.p_loss:
                self.counts["lost"] += 1
                continue
            copies = 2 if self.rng.random() < self.p_dup else 1
            self.counts["duplicated"] += copies - 1
            for _ in range(copies):
                out.append((self._delay(), self._corrupt(frame)))
        return out

    def _delay(self) -> float:
        if self.rng.random() < self.p_delay:
            self.counts["delayed"] += 1
            return self.rng.uniform(0, self.max_delay)
        return 0.0

    def _corrupt(self, frame: bytes) -> bytes:
        if len(frame) < 2 or self.rng.random() >= self.p_corrupt:
            return frame
        self.counts["corrupted"] += 1
        buf = bytearray(frame)
        i = self.rng.randrange(len(buf) - 1)  # keep the delimiter, damage the body
        buf[i] = self.rng.randrange(1, 256)
        return bytes(buf)


class Channel:
    """One direction of the wire: bytes arrive after latency plus their transmission time."""

    def __init__(self, fault: Callable[[bytes], Arrivals] | None = None, latency: float = LATENCY,
                 byte_time: float = BYTE_TIME) -> None:
        self.fault = fault
        self.latency = latency
        self.byte_time = byte_time
        self.bytes_carried = 0
        self._line_free = 0.0
        self._heap: list[tuple[float, int, bytes]] = []
        self._order = 0

    def put(self, data: bytes, now: float) -> None:
        if not data:
            return
        self.bytes_carried += len(data)
        start = max(now, self._line_free)
        self._line_free = start + len(data) * self.byte_time
        arrivals = self.fault(data) if self.fault else [(0.0, data)]
        for extra, chunk in arrivals:
            if chunk:
                self._order += 1
                heapq.heappush(self._heap, (self._line_free + self.latency + extra, self._order, chunk))

    def next_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def take_due(self, now: float) -> list[bytes]:
        out = []
        while self._heap and self._heap[0][0] <= now:
            out.append(heapq.heappop(self._heap)[2])
        return out


class LinkEnd(Protocol):
    """What `Simulation` needs of one end's link (as `firmware_protocol.Link` offers it)."""

    def receive(self, data: bytes, now: float) -> list[LinkEvent]: ...

    def poll(self, now: float) -> list[LinkEvent]: ...

    def data_to_send(self) -> bytes: ...

    def next_deadline(self) -> float | None: ...


class DeviceEnd(Protocol):
    """The device end of a `Simulation`: its link, its power-up, and what it does with its link's events."""

    @property
    def link(self) -> LinkEnd: ...

    def start(self, now: float) -> None: ...

    def handle(self, events: Sequence[LinkEvent], now: float) -> None: ...


class FakeMachine:
    """Device side: answers every command, counts what it carries out, sends DealDone per LoadDeal."""

    def __init__(self, link: Link, boot_id: int = 1) -> None:
        self.link = link
        self.boot_id = boot_id
        self.loads: Counter[int] = Counter()
        self.commands: Counter[str] = Counter()
        self.events: list[LinkEvent] = []

    def start(self, now: float) -> None:
        self.link.send(Boot(BootReason.POWER_ON, self.boot_id), now)

    def handle(self, events: Sequence[LinkEvent], now: float) -> None:
        for ev in events:
            self.events.append(ev)
            if isinstance(ev, Delivered):
                self.commands[type(ev.message).__name__] += 1
                self.link.reply(ev, self.answer(ev.message, now))

    def answer(self, msg: Message, now: float) -> Message:
        if isinstance(msg, Hello):
            return HelloAck(1, SCHEMA_HASH, 1, 0, 0, self.boot_id, 3, 4, 1, b"SIM-1")
        if isinstance(msg, GetStatus):
            return Status(0, 0, 0, 0, 0, 0, 0, 0, 0, self.boot_id, (0, 0, 0, 0))
        if isinstance(msg, LoadDeal):
            self.loads[msg.job] += 1
            self.link.send(Progress(msg.job, 26), now)
            self.link.send(DealDone(msg.job, DealOutcome.COMPLETE, 52, (13, 13, 13, 13)), now)
        return Ack()


class ScriptedHost:
    """Host side: Hello, then each command in turn once the previous one (and its DealDone) is back."""

    def __init__(self, link: Link, commands: Sequence[Message]) -> None:
        self.link = link
        self.script = [Hello(1, SCHEMA_HASH, 1), *commands]
        self.next_index = 0
        self.replies: list[Answered] = []
        self.deals_done: Counter[int] = Counter()
        self.delivered: list[Message] = []
        self.gave_up: list[GaveUp] = []
        self._waiting_for: int | None = None
        self._awaiting_reply = False

    @property
    def finished(self) -> bool:
        return self.next_index == len(self.script) and not self._awaiting_reply and self._waiting_for is None

    def start(self, now: float) -> None:
        self._send_next(now)

    def handle(self, events: Sequence[LinkEvent], now: float) -> None:
        for ev in events:
            if isinstance(ev, Answered):
                self.replies.append(ev)
                self._awaiting_reply = False
            elif isinstance(ev, Delivered):
                self.delivered.append(ev.message)
                if isinstance(ev.message, DealDone):
                    self.deals_done[ev.message.job] += 1
                    if ev.message.job == self._waiting_for:
                        self._waiting_for = None
            elif isinstance(ev, GaveUp):
                self.gave_up.append(ev)
                self._awaiting_reply = False
        if not self._awaiting_reply and self._waiting_for is None and not self.gave_up:
            self._send_next(now)

    def _send_next(self, now: float) -> None:
        if self.next_index < len(self.script):
            msg = self.script[self.next_index]
            self.next_index += 1
            self.link.send(msg, now)
            self._awaiting_reply = True
            if isinstance(msg, LoadDeal):
                self._waiting_for = msg.job


class Simulation:
    """Host and device links joined by two channels, run on a fake clock.

    With `echo`, each end also hears everything it sends (as on a 2-wire RS-485 bus).
    """

    def __init__(self, host: ScriptedHost, machine: DeviceEnd, h2d: Channel | None = None,
                 d2h: Channel | None = None, echo: bool = False) -> None:
        self.host = host
        self.machine = machine
        self.h2d = h2d or Channel()
        self.d2h = d2h or Channel()
        self.echo = echo
        self.now = 0.0

    def run(self, time_limit: float = 1e6) -> None:
        """Run until the host's script is done (or it gave up); fails if the clock passes `time_limit`."""
        self.machine.start(self.now)
        self.host.start(self.now)
        self._flush()
        while not (self.host.finished or self.host.gave_up):
            times = [t for t in (self.h2d.next_time(), self.d2h.next_time(), self.host.link.next_deadline(),
                                 self.machine.link.next_deadline()) if t is not None]
            assert times, "nothing left to happen but the script is not finished"
            self.now = max(self.now, min(times))
            assert self.now < time_limit, f"still running at t={self.now:.1f} s"
            self._step()

    def _step(self) -> None:
        now = self.now
        for data in self.h2d.take_due(now):
            self.machine.handle(self.machine.link.receive(data, now), now)
            if self.echo:
                self.host.handle(self.host.link.receive(data, now), now)
        for data in self.d2h.take_due(now):
            self.host.handle(self.host.link.receive(data, now), now)
            if self.echo:
                self.machine.handle(self.machine.link.receive(data, now), now)
        self.machine.handle(self.machine.link.poll(now), now)
        self.host.handle(self.host.link.poll(now), now)
        self._flush()

    def _flush(self) -> None:
        self.h2d.put(self.host.link.data_to_send(), self.now)
        self.d2h.put(self.machine.link.data_to_send(), self.now)
