"""Bench tests: every one is checked for leaked threads, fds, ptys and loopbacks (the simulator's pty
included, when it stands in for the machine). With ``--independent-device`` each scenario runs against
the device written from PROTOCOL.md alone (`tests.support.independent_device`), prepared as the runbook says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--independent-device",
        action="store_true",
        help="run each bench scenario against the independent device (tests/support/independent_device), "
        "started on a pty and prepared for the scenario",
    )


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


@pytest.fixture
def machine_port(machine_port: str | None, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """The independent device's port, prepared for the scenario, when --independent-device is given."""
    if not request.config.getoption("--independent-device"):
        yield machine_port
        return
    from tests.support.independent_device.rigs import rig_options
    from tests.support.independent_device.running import running_device

    scenario = request.getfixturevalue("scenario")
    folder = tmp_path / "independent-device"
    rig = rig_options(scenario.name, frozenset(scenario.machine))
    with running_device(
        folder, "--set", "A:1-8", "--link", str(tmp_path / "machine-link"), "--seed", "3", *rig
    ) as device:
        yield device.port


@pytest.fixture
def machine_needs(machine_needs: frozenset[str], request: pytest.FixtureRequest) -> frozenset[str]:
    """Every preparation of the runbook: the independent device makes each one (its `rigs.py`)."""
    if not request.config.getoption("--independent-device"):
        return machine_needs
    scenario = request.getfixturevalue("scenario")
    return frozenset(scenario.needs)


@pytest.fixture
def machine_capabilities(machine_capabilities: frozenset[str], request: pytest.FixtureRequest) -> frozenset[str]:
    """The independent device is built as each scenario's `machine` marker declares (its `rigs.py`)."""
    if not request.config.getoption("--independent-device"):
        return machine_capabilities
    from tests.support.independent_device.rigs import machine_of

    return machine_of(frozenset(request.getfixturevalue("scenario").machine))
