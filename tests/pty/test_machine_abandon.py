"""`Machine.abandon`, from another thread, ends the wait in hand at once with `Cancelled` - a long wait for a
report that never comes, on a real pseudo-terminal port (its blocked read interrupted, not polled) - and
every later command too, without taking the closed port for a lost one (no reconnection)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.dealing.machine import Cancelled, Machine
from dealer.dealing.ports import open_transport
from dealer.dealing.transport import SerialTransport
from firmware_protocol import RecountReport
from hil import PtySimulator, SimConfig

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtySimulator]:
    machine = PtySimulator(SimConfig(speed=100, seed=3), link=tmp_path / "machine")
    machine.start()
    try:
        yield machine
    finally:
        machine.stop()


LONG_READ = 2.0
"""Seconds of a read that waits for the machine (the link's retransmissions wait 0.117 s at 115200 baud)."""


class WatchedPort:
    """The port, telling whether a long read (a wait with nothing to retransmit) is under way with nothing
    to read: blocked until bytes come, its timeout, or an interruption."""

    def __init__(self, inner: SerialTransport) -> None:
        self.inner, self.name = inner, inner.name
        self.blocked = False

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        self.blocked = timeout > LONG_READ and not self.inner._port.in_waiting
        try:
            return self.inner.read(timeout)
        finally:
            self.blocked = False

    def interrupt(self) -> None:
        self.inner.interrupt()

    def close(self) -> None:
        self.inner.close()


def test_abandon_ends_a_blocked_wait_at_once_and_every_later_command(sim: PtySimulator) -> None:
    ports: list[WatchedPort] = []

    def opener(url: str) -> WatchedPort:
        port = open_transport(url)
        assert isinstance(port, SerialTransport)
        ports.append(WatchedPort(port))
        return ports[-1]

    machine = Machine(sim.path, opener=opener)
    machine.connect()
    ended: list[BaseException] = []

    def wait() -> None:
        try:
            machine.wait_event(RecountReport, 600.0)  # nobody asked for a recount: it never comes
        except BaseException as exc:
            ended.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    try:
        with sim.lock:  # the machine says nothing meanwhile (its simulated operator too)
            while not ports[0].blocked:  # until the wait blocks in a read (of up to the 5 s of silence after
                # which it would ask the machine's status, PROTOCOL.md 4.7)
                assert waiter.is_alive(), ended
                time.sleep(0.005)
            machine.abandon()
            waiter.join(timeout=30)  # a bound for a failure only: the wait ends as soon as abandon returns
        assert not waiter.is_alive(), "the wait was not interrupted"
        assert len(ended) == 1 and isinstance(ended[0], Cancelled)
        with pytest.raises(Cancelled):
            machine.status()
        assert machine.abandoned and machine.reconnects == 0
    finally:
        machine.abandon()
        waiter.join(timeout=30)
        machine.close()
