"""Testing your own code that talks to a dealing machine, with the simulated machine behind ``serial.Serial``.

Installing this project with its ``hil`` extra (``pip install 'duplicate-bridge-dealer[hil]'``, or
``pip install '.[hil]'`` from a clone: pytest and pytest-mock) gives pytest the ``dealing_machine`` fixture
and the ``--machine-port`` option; nothing to add to a conftest::

    pytest examples/                                  # against a simulated machine
    pytest examples/ --machine-port /dev/ttyUSB0      # the same tests against the real machine

`machine_identity` below stands for the code under test: like most code that drives a device, it opens its
port itself, by name. The tests put the simulated machine behind that name with pytest-mock's ``mocker``
(``serial.Serial`` opens the simulator's pseudo-terminal instead); with ``--machine-port`` nothing is patched
and the code opens the real machine's port.
"""

from __future__ import annotations

import random
import time

import pytest
import serial
from pytest_mock import MockerFixture

from firmware_protocol import (
    SCHEMA_HASH,
    Answered,
    GaveUp,
    GetStatus,
    Hello,
    HelloAck,
    Link,
    LinkConfig,
    Message,
    Role,
    StatusFlag,
)
from firmware_protocol.messages import Status
from hil.pytest_fixtures import DealingMachine

PORT = "/dev/ttyUSB0"
"""Where the code under test expects the machine (as production code often does)."""


# --- the code under test ----------------------------------------------------------------------------------


def ask(port: serial.Serial, link: Link, command: Message, patience: float = 10.0) -> Message:
    """Send one command over the reliable link and return the machine's reply."""
    link.send(command, time.monotonic())
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        port.write(link.data_to_send())
        now = time.monotonic()
        for event in link.receive(port.read(port.in_waiting or 1), now) + link.poll(now):
            if isinstance(event, Answered) and event.request is command:
                return event.reply
            if isinstance(event, GaveUp):
                raise TimeoutError(f"the machine does not answer {type(command).__name__}")
    raise TimeoutError(f"no reply to {type(command).__name__} within {patience:g} s")


def machine_identity(port_name: str = PORT) -> tuple[str, int, bool]:
    """Shake hands with the dealing machine on `port_name`: its serial number, its number of pockets, and
    whether its door is open."""
    with serial.Serial(port_name, 115200, timeout=0.05) as port:
        link = Link(Role.HOST, LinkConfig.for_baud(115200, Role.HOST))
        hello = ask(port, link, Hello(1, SCHEMA_HASH, random.randrange(1 << 16)))
        if not isinstance(hello, HelloAck):
            raise ConnectionError(f"not a dealing machine: {hello}")
        status = ask(port, link, GetStatus())
        if not isinstance(status, Status):
            raise ConnectionError(f"no status from the machine: {status}")
        return hello.serial.decode("ascii"), hello.pockets, bool(status.flags & StatusFlag.DOOR_OPEN)


# --- the tests ----------------------------------------------------------------------------------------------


@pytest.fixture
def machine_port(dealing_machine: DealingMachine, mocker: MockerFixture) -> str:
    """The port name the code under test should open: PORT, with the simulated machine put behind it; or the
    real machine's port with --machine-port."""
    if not dealing_machine.simulated:
        return dealing_machine.url
    real_serial = serial.Serial

    def open_the_simulator(port: str, *args: object, **kwargs: object) -> serial.Serial:
        assert port == PORT, f"the code opened {port}, not {PORT}"
        return real_serial(dealing_machine.url, *args, **kwargs)  # type: ignore[arg-type]

    mocker.patch("serial.Serial", side_effect=open_the_simulator)
    return PORT


def test_my_code_shakes_hands_with_the_machine(machine_port: str, dealing_machine: DealingMachine) -> None:
    serial_number, pockets, door_open = machine_identity(machine_port)
    assert serial_number and pockets == 4 and not door_open  # a bridge dealer, ready to deal
    if dealing_machine.simulated:
        assert serial_number.startswith("SIM-")  # each simulated machine has a serial number of its own
        assert dealing_machine.dealt_labels() == {}  # the ledger: shaking hands deals nothing


@pytest.mark.dealing_machine(serial="SIM-0042", speed=100)
def test_the_marker_sets_up_the_simulated_machine(machine_port: str, dealing_machine: DealingMachine) -> None:
    serial_number, _, _ = machine_identity(machine_port)
    if dealing_machine.simulated:
        assert serial_number == "SIM-0042"


@pytest.mark.dealing_machine(faults=[{"kind": "jam", "board": 1, "card": 20}])
def test_a_fault_plan_rides_along(dealing_machine: DealingMachine) -> None:
    """A test with planned faults runs on the simulated machine only (skipped with --machine-port)."""
    assert dealing_machine.simulated and [f.kind.value for f in dealing_machine.faults.faults] == ["jam"]
