"""A test bench for the pure simulator: a host Link wired straight to a SimDevice, on a fake clock.

No I/O and no real time: `run(seconds)` jumps from one deadline to the next, so a board dealt at
speed 1 takes no real time and always the same course.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from firmware_protocol import (
    SCHEMA_HASH,
    Ack,
    Answered,
    BoardScanned,
    Delivered,
    Display,
    Hello,
    Link,
    LinkConfig,
    LoadDeal,
    Message,
    Prompt,
    Role,
    ScanBoard,
    pack_seats,
)
from hil.config import SimConfig
from hil.device import SimDevice, Unplug
from hil.fault_plan import FaultPlan

M = TypeVar("M", bound=Message)


def seats_for(seed: int = 0) -> list[int]:
    seats = [s for s in range(4) for _ in range(13)]
    random.Random(seed).shuffle(seats)
    return seats


class Bench:
    """A host link and a simulated machine on a fake clock."""

    def __init__(self, config: SimConfig | None = None, *faults: dict[str, Any], **options: Any) -> None:
        if config is None:
            config = SimConfig(faults=FaultPlan.of(*faults), **options)
        self.device = SimDevice(config, 0.0)
        self.now = 0.0
        self.link = Link(Role.HOST, LinkConfig.for_baud(config.baud, Role.HOST))
        self.events: list[Message] = []
        self.notices: list[Message] = []
        self.wire_to_host = bytearray()
        self.unplugs: list[Unplug] = []
        self._replies: dict[int, Message] = {}

    # --- moving bytes and time -------------------------------------------------------------------

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

    # --- common steps ----------------------------------------------------------------------------

    def prompt(self, prompt: Prompt, label: bytes = b"", board: int = 0) -> Message:
        return self.cmd(Display(prompt, board, label, b""))

    def board_in(self, seconds: float = 30.0) -> None:
        """Wait until a board is in the machine."""
        self.run(seconds, lambda: self.device.room.board_present)
        assert self.device.room.board_present, "no board was inserted"

    def read_label(self) -> BoardScanned:
        """Scan the board in the machine (a machine deals only into a board read since it went in)."""
        assert self.cmd(ScanBoard()) == Ack()
        return self.wait_for(BoardScanned)

    def load(self, job: int = 1, board: int = 1, seed: int = 0) -> list[int]:
        seats = seats_for(seed)
        reply = self.cmd(LoadDeal.for_deal(job, board, pack_seats(seats)))
        assert reply.TYPE == 0x01, reply
        return seats
