"""The simulator on a real pseudo-terminal, driven by real pyserial: few tests, outcome-based.

Each test has generous deadlines and asserts only outcomes (never how long something took).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import serial

from firmware_protocol import (
    SCHEMA_HASH,
    GaveUp,
    GetStatus,
    Hello,
    HelloAck,
    Link,
    LinkConfig,
    Role,
    Status,
    encode_message,
)
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.pty_sim import PtySimulator
from tests.support.script_host import Disconnected, ScriptHost, Wire, summary

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

SPEED = 200.0


def open_port(path: str) -> serial.Serial:
    return serial.serial_for_url(path, baudrate=115200, timeout=0.02, exclusive=True)


def wire_to(path: str) -> Wire:
    return Wire(lambda: open_port(path), time.monotonic, time.sleep)


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtySimulator]:
    simulator = PtySimulator(SimConfig(speed=SPEED, seed=3), link=tmp_path / "dealer-sim")
    simulator.start()
    yield simulator
    simulator.stop()


def test_the_port_is_a_raw_pty_behind_a_stable_link(sim: PtySimulator, tmp_path: Path) -> None:
    assert sim.path == str(tmp_path / "dealer-sim")
    assert os.path.islink(sim.path) and os.path.realpath(sim.path) == sim.pts_path


def test_handshake(sim: PtySimulator) -> None:
    wire = wire_to(sim.path)
    try:
        hello = wire.open(10.0)
        assert isinstance(hello, HelloAck) and hello.schema_hash == SCHEMA_HASH
        assert isinstance(wire.request(GetStatus()), Status)
    finally:
        wire.close()


def test_one_full_board(sim: PtySimulator) -> None:
    host = ScriptHost(lambda: open_port(sim.path), time.monotonic, time.sleep, patience=20.0)
    result = summary(host.run([1]))
    assert result["verified"] and result["dealings"] == 1
    with sim.lock:
        assert sim.device is not None and sim.device.ledger.dealt_labels() == {"A:1:N0:4": 1}


def test_a_device_that_never_answers_makes_the_host_give_up(tmp_path: Path) -> None:
    deaf = FaultPlan.of({"kind": "drop", "rate": 1.0, "direction": "to_device"})
    with PtySimulator(SimConfig(faults=deaf)) as deaf_sim:
        port = open_port(deaf_sim.path)
        try:
            # the shipped timing, but giving up after 2 s without a reply rather than 30 (its Boot, which a deaf
            # device still sends, does not count)
            link = Link(Role.HOST, replace(LinkConfig.for_baud(115200, Role.HOST), give_up_after=2.0))
            link.send(Hello(1, SCHEMA_HASH, 5), time.monotonic())
            deadline = time.monotonic() + 30.0
            gave_up: list[GaveUp] = []
            while not gave_up and time.monotonic() < deadline:
                port.write(link.data_to_send())
                now = time.monotonic()
                events = link.receive(port.read(256), now) + link.poll(now)
                gave_up += [e for e in events if isinstance(e, GaveUp)]
            assert gave_up and gave_up[0].silent >= 2.0 and gave_up[0].attempts > 1
        finally:
            port.close()


def test_unplugging_is_a_disconnection_and_the_link_brings_the_machine_back(sim: PtySimulator) -> None:
    wire = wire_to(sim.path)
    try:
        first = wire.open(10.0)
        sim.unplug()
        assert not os.path.lexists(sim.path)
        with pytest.raises(Disconnected):
            for _ in range(100):
                wire.request(GetStatus(), 2.0)
        wire.close()
        with pytest.raises(serial.SerialException):
            open_port(sim.path)
        sim.replug()
        assert os.path.realpath(sim.path) == sim.pts_path
        again = wire.open(10.0)
        assert again.boot_id == first.boot_id  # the machine itself kept running
    finally:
        wire.close()


def test_a_host_rides_through_an_unplug_in_the_middle_of_a_board(tmp_path: Path) -> None:
    plan = FaultPlan.of({"kind": "unplug", "board": 1, "card": 20, "seconds": 0.3})
    with PtySimulator(SimConfig(speed=SPEED, faults=plan), link=tmp_path / "sim") as unplugged:
        host = ScriptHost(lambda: open_port(unplugged.path), time.monotonic, time.sleep, patience=20.0)
        result = summary(host.run([1]))
        assert result["verified"] and result["reconnects"] == 1 and unplugged.unplugs == 1


def test_spy_url_traces_the_exchange(sim: PtySimulator, tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    wire = Wire(lambda: serial.serial_for_url(f"spy://{sim.path}?file={trace}", baudrate=115200, timeout=0.02),
                time.monotonic, time.sleep)
    try:
        wire.open(10.0)
    finally:
        wire.close()
    text = trace.read_text()
    hello_start = " ".join(f"{b:02X}" for b in encode_message(Hello(1, SCHEMA_HASH, 0), 0)[:2])
    assert any(" TX " in line and hello_start in line for line in text.splitlines())
    assert any(" RX " in line and "<empty>" not in line for line in text.splitlines())


def test_a_sim_url_never_opens_the_pty_its_unplugged_machine_had(tmp_path: Path) -> None:
    """Unplugging closes the pty, and the kernel gives its number to the next pty opened (here one of this
    test's, as another program's simulator would take it): reopening the URL must not reach that pty."""
    from dealer.core.errors import DeviceDisconnected
    from dealer.dealing import ports, sim_ports

    url = f"sim://?speed={SPEED:g}&seed=31"
    try:
        ports.open_transport(url).close()
        sim = sim_ports.simulators()[url]
        sim.unplug()
        stranger, stranger_slave = os.openpty()
        try:
            with pytest.raises(DeviceDisconnected):
                ports.open_transport(url)
        finally:
            os.close(stranger)
            os.close(stranger_slave)
        sim.replug()
        ports.open_transport(url).close()
    finally:
        sim_ports.stop_all()
