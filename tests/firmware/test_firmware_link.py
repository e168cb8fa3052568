"""The firmware's link seen by the protocol's own host end (`firmware_protocol.Link`) over QEMU's pty:
the handshake, and Reset(REBOOT) restarting the whole chip with the next `boot_id` from its flash."""

from __future__ import annotations

import os
import select
import termios
import time
import tty
from collections.abc import Callable

from firmware_protocol import (
    Answered,
    Boot,
    BootReason,
    Delivered,
    Hello,
    HelloAck,
    Link,
    LinkConfig,
    LinkEvent,
    Reset,
    ResetMode,
    Role,
)
from firmware_protocol.messages import PROTOCOL_VERSION, SCHEMA_HASH
from tests.support.firmware import MachineFactory


class Host:
    """The host end of the link on a pty, stepped until what a test waits for has arrived."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd, termios.TCSANOW)
        self.link = Link(Role.HOST, LinkConfig.for_baud(115200, Role.HOST))
        self.events: list[LinkEvent] = []

    def until(self, found: Callable[[LinkEvent], bool], limit: float = 20) -> LinkEvent:
        end = time.monotonic() + limit  # a bound on a test that fails, not a timing the test depends on
        while time.monotonic() < end:
            out = self.link.data_to_send()
            if out:
                os.write(self.fd, out)
            for event in self.events:
                if found(event):
                    self.events.remove(event)
                    return event
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            now = time.monotonic()
            self.events += self.link.receive(os.read(self.fd, 512), now) if ready else self.link.poll(now)
        raise AssertionError(f"not seen in {limit} s; seen: {self.events}")

    def close(self) -> None:
        os.close(self.fd)


def test_reset_reboot_restarts_the_firmware_with_the_next_boot_id(firmware_machine: MachineFactory) -> None:
    machine = firmware_machine(["--set", "A", "--boards", "1-2"], verbose=True)
    host = Host(machine.pty)
    try:
        host.link.send(Hello(PROTOCOL_VERSION, SCHEMA_HASH, 4321), time.monotonic())
        hello = host.until(lambda e: isinstance(e, Answered) and isinstance(e.reply, HelloAck))
        assert isinstance(hello, Answered) and isinstance(hello.reply, HelloAck)
        first = hello.reply.boot_id
        boot = host.until(lambda e: isinstance(e, Delivered) and isinstance(e.message, Boot))
        assert isinstance(boot, Delivered) and boot.message == Boot(BootReason.POWER_ON, first)

        host.link.send(Reset(ResetMode.REBOOT), time.monotonic())
        host.until(lambda e: isinstance(e, Answered) and isinstance(e.request, Reset))
        host.link.send(Hello(PROTOCOL_VERSION, SCHEMA_HASH, 4322), time.monotonic())
        again = host.until(lambda e: isinstance(e, Answered) and isinstance(e.reply, HelloAck))
        assert isinstance(again, Answered) and isinstance(again.reply, HelloAck)
        assert again.reply.boot_id == first + 1  # the counter in the board's flash
        reboot = host.until(lambda e: isinstance(e, Delivered) and isinstance(e.message, Boot))
        assert isinstance(reboot, Delivered) and reboot.message == Boot(BootReason.RESET_COMMAND, first + 1)
    finally:
        host.close()
    assert machine.wait_for_line(f"firmware: boot id {first + 1}", 10)
