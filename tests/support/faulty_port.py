"""Byte faults applied around a real port on the host's side: line noise for a real machine, no proxy."""

from __future__ import annotations

from collections.abc import Callable

from hil.bytefaults import TO_DEVICE, TO_HOST, ByteFaults, OneWayLine
from hil.fault_plan import FaultPlan
from tests.support.script_host import Port


class FaultyPort:
    """A port with a plan's byte faults applied around it, on the host's side: line noise for a real
    machine, with no proxy in between."""

    def __init__(self, port: Port, plan: FaultPlan, clock: Callable[[], float], seed: int = 0) -> None:
        self.faults = faults = ByteFaults(plan.faults, seed)
        self.port, self.clock = port, clock
        self.out, self.back = OneWayLine(TO_DEVICE, faults), OneWayLine(TO_HOST, faults)

    @property
    def timeout(self) -> float | None:
        return self.port.timeout

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        self.port.timeout = value

    def write(self, data: bytes) -> int:
        self.out.put(bytes(data), self.clock())
        self.port.write(self.out.take(self.clock()))
        return len(data)

    def read(self, size: int = 1) -> bytes:
        self.port.write(self.out.take(self.clock()))
        self.back.put(self.port.read(size), self.clock())
        return self.back.take(self.clock())

    @property
    def in_waiting(self) -> int:
        """Bytes waiting at the real port (bytes a delay fault holds back are not counted)."""
        return int(getattr(self.port, "in_waiting", 0))

    def reset_input_buffer(self) -> None:
        reset = getattr(self.port, "reset_input_buffer", None)
        if reset is not None:
            reset()

    def close(self) -> None:
        self.port.close()
