"""A simulated machine on an in-memory cable: fast, deterministic integration tests without a pty.

`Loopback(config)` is the machine and its cable, in virtual time by default; `open()` gives the host's
end, a `LoopbackPort` with the part of pyserial's `serial.Serial` a host driver uses.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from typing import Final

from hil.bytefaults import TO_DEVICE, TO_HOST, ByteFaults, LineNoise, Manipulator, OneWayLine, chain
from hil.config import SimConfig
from hil.device import SimDevice
from hil.record import RecordFile

_OPEN: Final[set[Loopback]] = set()
MAX_WAIT: Final = 3600.0


def open_loopbacks() -> list[Loopback]:
    """Loopbacks created and not yet closed."""
    return list(_OPEN)


class VirtualClock:
    """A clock that only moves when told to: `clock()` reads it, `sleep(s)` moves it on."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


class Loopback:
    """A simulated machine and its cable.

    The host's end (`open()`) has `write`, `read(size)` honouring `timeout`, `in_waiting`,
    `reset_input_buffer` and `close`. Bytes in both directions pass through the plan's byte
    faults, the line's noise (`SimConfig.noise`) and an optional `manipulator` hook
    (`hil.bytefaults.Manipulator`); the machine is told what the host wrote before any damage
    (`SimDevice.load_deals`). With a `ledger` file in the
    config, the physical record is kept there (`hil.record`), last written at `close()`.

    By default time is virtual (`VirtualClock`): a `read` that would wait moves the clock straight to the
    next thing that happens, so a whole session runs in moments and always the same way. A host under
    test must then read the time from `port.clock()`, not from the real clock. Pass `clock=time.monotonic`
    (and `sleep=time.sleep`) to run in real time instead.

    While the cable is unplugged (a plan fault, or `unplug()`), `read` and `write` on an open port raise
    ``OSError(EIO)`` (as a pulled USB adapter does), and `open()` raises `FileNotFoundError` until
    `replug()`. Every `Loopback` is registered until `close()`d: `open_loopbacks()` is what a leak check
    asserts empty.
    """

    def __init__(self, config: SimConfig | None = None, *, manipulator: Manipulator | None = None,
                 clock: Callable[[], float] | None = None, sleep: Callable[[float], None] | None = None) -> None:
        self.config = config = config or SimConfig()
        virtual = VirtualClock()
        self.clock: Callable[[], float] = clock or virtual
        self._sleep = sleep or (virtual.sleep if clock is None else time.sleep)
        self.virtual = clock is None
        self.device = SimDevice(config, self.clock())
        self.byte_faults = ByteFaults(config.faults.faults, config.seed)
        self.noise = LineNoise(config.noise, config.seed)
        wire = chain(self.byte_faults, self.noise, *([manipulator] if manipulator else []))
        self.to_host = OneWayLine(TO_HOST, wire)
        self.to_device = OneWayLine(TO_DEVICE, wire)
        self.plugged = True
        self.port: LoopbackPort | None = None
        self._replug_at: float | None = None
        self.record = RecordFile(config.ledger) if config.ledger else None
        _OPEN.add(self)

    def __enter__(self) -> Loopback:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self, timeout: float | None = 1.0) -> LoopbackPort:
        """The host opens the port (one host at a time, as with `exclusive=True`)."""
        self.step()
        if not self.plugged:
            raise FileNotFoundError(errno.ENOENT, "loopback: the machine is unplugged")
        if self.port is not None and self.port.is_open:
            raise OSError(errno.EBUSY, "loopback: the port is already open")
        self.port = LoopbackPort(self, timeout)
        return self.port

    def close(self) -> None:
        """Close the host's port and forget the machine."""
        if self.port is not None:
            self.port.is_open = False
        if self.record is not None and self in _OPEN:
            self.record.write(self.device.room, self.wire_record)
        _OPEN.discard(self)

    def wire_record(self) -> dict[str, object]:
        """What the line saw, for the record file: the LoadDeals sent and accepted, the noise."""
        assert self.device is not None
        return {"load_deals": self.device.load_deals.to_json(), "noise": self.noise.to_json()}

    # --- the cable -------------------------------------------------------------------------------

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the cable; with `seconds`, plug it back in that much later."""
        self.plugged = False
        self.to_host.clear()
        self.to_device.clear()
        self._replug_at = None if seconds is None else self.clock() + seconds

    def replug(self) -> None:
        """Plug the cable back in; the host must open the port again."""
        self.plugged = True
        self._replug_at = None

    # --- running ---------------------------------------------------------------------------------

    def step(self) -> None:
        """Bring the machine and the cable up to the clock's time."""
        now = self.clock()
        if self._replug_at is not None and now >= self._replug_at:
            self.replug()
        self.device.receive(self.to_device.take(now), now)
        self.device.poll(now)
        for request in self.device.io_requests():
            self.unplug(request.seconds)
        out = self.device.data_to_send()
        if self.record is not None:
            self.record.update(self.device.room, self.wire_record)
        if self.plugged:
            self.to_host.put(out, now)
            arrived = self.to_host.take(now)
            if self.port is not None and self.port.is_open:
                self.port.rx += arrived

    def next_time(self) -> float | None:
        """When something next happens on the machine or the cable."""
        times = [t for t in (self.device.next_deadline(), self.to_host.next_time(), self.to_device.next_time(),
                             self._replug_at) if t is not None]
        return min(times) if times else None

    def run_until(self, deadline: float, stop: Callable[[], bool] = lambda: False) -> None:
        """Let time pass up to `deadline` (or until `stop()`), everything happening in order."""
        self.step()
        while not stop() and self.clock() < deadline:
            nxt = self.next_time()
            wake = deadline if nxt is None else min(deadline, max(nxt, self.clock()))
            self._sleep(max(0.0, wake - self.clock()))
            self.step()

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass."""
        self.run_until(self.clock() + seconds)


class LoopbackPort:
    """The host's end of a `Loopback`: the pyserial `serial.Serial` methods a host driver needs."""

    def __init__(self, loop: Loopback, timeout: float | None) -> None:
        self.loop = loop
        self.timeout = timeout
        self.is_open = True
        self.rx = bytearray()
        self.clock = loop.clock

    def _check(self) -> None:
        if not self.is_open:
            raise ValueError("loopback: the port is closed")
        if not self.loop.plugged or self.loop.port is not self:
            raise OSError(errno.EIO, "loopback: the machine was unplugged")

    def write(self, data: bytes) -> int:
        self._check()
        self.loop.device.load_deals.host_wrote(bytes(data))
        self.loop.to_device.put(bytes(data), self.clock())
        self.loop.step()
        return len(data)

    def read(self, size: int = 1) -> bytes:
        """Up to `size` bytes: waits until that many came or `timeout` passed (None: no limit)."""
        self._check()
        limit = MAX_WAIT if self.timeout is None else self.timeout
        self.loop.run_until(self.clock() + limit, lambda: len(self.rx) >= size or not self.loop.plugged)
        self._check()
        out = bytes(self.rx[:size])
        del self.rx[:size]
        return out

    @property
    def in_waiting(self) -> int:
        self._check()
        self.loop.step()
        return len(self.rx)

    def reset_input_buffer(self) -> None:
        self.loop.step()
        self.rx.clear()

    def flush(self) -> None:
        return None

    def close(self) -> None:
        self.is_open = False
