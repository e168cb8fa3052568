"""An idle controller wakes only when something can happen: bytes arriving, the link's next deadline (a
retransmission), the wait's own deadline, or 5 s of silence from the machine (the GetStatus PROTOCOL.md 4.7
asks for); never on a faster fixed poll, unless asked for one.

Judged in virtual time on the in-memory simulated machine: the number of reads the driver makes while it
waits for a report nobody asked for (nothing to retransmit; at most the simulated operator putting a board
in) is counted, not timed.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer.core.errors import DeviceTimeout
from dealer.dealing.machine import LIVENESS_PROBE, Machine
from dealer.dealing.sim_ports import loopback_opener
from dealer.dealing.transport import Transport
from firmware_protocol import RecountReport
from hil import Loopback, SimConfig


class CountingTransport:
    """A transport that counts the reads made through it."""

    def __init__(self, inner: Transport) -> None:
        self.inner, self.name, self.reads = inner, inner.name, 0

    def write(self, data: bytes) -> None:
        self.inner.write(data)

    def read(self, timeout: float) -> bytes:
        self.reads += 1
        return self.inner.read(timeout)

    def close(self) -> None:
        self.inner.close()


def reads_while_waiting(seconds: float, **options: Any) -> int:
    """Reads made while a report that never comes is awaited for `seconds` of machine time."""
    with Loopback(SimConfig(seed=1)) as loop:
        counted: list[CountingTransport] = []
        opener = loopback_opener(loop)

        def counting(url: str) -> Transport:
            counted.append(CountingTransport(opener(url)))
            return counted[-1]

        clock: Any = loop.clock
        m = Machine("loop://idle", opener=counting, clock=loop.clock, sleep=clock.sleep, **options)
        try:
            m.connect()
            before = counted[-1].reads
            with pytest.raises(DeviceTimeout):
                m.wait_event(RecountReport, seconds)
            return counted[-1].reads - before
        finally:
            m.close()


PROBE_READS = 3
"""Reads one liveness probe takes at most: to its deadline, the Status, a byte the operator causes."""


def test_a_long_wait_with_nothing_happening_takes_a_handful_of_reads_per_liveness_probe() -> None:
    assert reads_while_waiting(600.0) <= 600.0 / LIVENESS_PROBE * PROBE_READS + 10


@pytest.mark.parametrize("interval", [0.05, 1.0])
def test_a_poll_interval_when_asked_for_wakes_that_often(interval: float) -> None:
    probes = 60.0 / LIVENESS_PROBE * PROBE_READS
    assert 0.95 * 60.0 / interval <= reads_while_waiting(60.0, poll_interval=interval) <= 60.0 / interval + probes + 10
