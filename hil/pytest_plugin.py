"""The pytest plugin of the simulator: options for a real machine, scenario skipping, a leak check.

Load it with ``-p hil.pytest_plugin`` or ``pytest_plugins = ("hil.pytest_plugin",)`` in a conftest. Its
options (``--machine-port``, ``--machine-needs``, ``--machine-capabilities``, ``--machine-set``) say what
the rig and its machine are; without a port, tests marked ``hardware`` run against the simulator, so the
bench path runs on every commit.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from hil.loopback import open_loopbacks
from hil.scenarios import CAPABILITIES, MACHINE_CAPABILITIES, Scenario

DEFAULT_MACHINE: Final = "reader_north,board_sensor"
"""What a real machine is taken to be unless ``--machine-capabilities`` says otherwise."""

FD_DIR = Path("/proc/self/fd")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "dealing machine")
    group.addoption("--machine-port", metavar="URL", default=None,
                    help="run the hardware scenarios against a real dealing machine at this pyserial URL "
                         "(without it they run against the simulator on a pseudo-terminal)")
    group.addoption("--machine-needs", metavar="LIST", default="",
                    help="capabilities the rig is prepared for, comma separated, or 'all' "
                         f"(known: {', '.join(sorted(CAPABILITIES))})")
    group.addoption("--machine-capabilities", metavar="LIST", default=DEFAULT_MACHINE,
                    help="what the real machine is, comma separated (default: %(default)s; known: "
                         f"{', '.join(sorted(MACHINE_CAPABILITIES))})")
    group.addoption("--machine-set", metavar="NAME", default="A", help="board set of the rig's boards (default A)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "hardware: runs against the dealing machine of --machine-port, else against "
                                       "the simulator")
    config.addinivalue_line("markers", "machine(*capabilities): what the machine must be (reader_north or "
                                       "reader_edges, board_sensor, keeps_job); a real machine that is not is "
                                       "skipped with the reason")
    machine = machine_capabilities_of(config)
    if {"reader_north", "reader_edges"} <= machine:
        raise pytest.UsageError("--machine-capabilities: a machine has reader_north or reader_edges, not both")
    unknown_machine = machine - set(MACHINE_CAPABILITIES)
    if unknown_machine:
        raise pytest.UsageError(f"--machine-capabilities: unknown capability {sorted(unknown_machine)[0]!r} "
                                f"(known: {', '.join(sorted(MACHINE_CAPABILITIES))})")
    needs = machine_needs_of(config)
    unknown = needs - set(CAPABILITIES)
    if unknown:
        raise pytest.UsageError(f"--machine-needs: unknown capability {sorted(unknown)[0]!r} "
                                f"(known: {', '.join(sorted(CAPABILITIES))})")


def machine_needs_of(config: pytest.Config) -> frozenset[str]:
    text = str(config.getoption("--machine-needs") or "")
    if text.strip() == "all":
        return frozenset(CAPABILITIES)
    return frozenset(n.strip() for n in text.split(",") if n.strip())


def machine_capabilities_of(config: pytest.Config) -> frozenset[str]:
    text = str(config.getoption("--machine-capabilities") or "")
    return frozenset(n.strip() for n in text.split(",") if n.strip())


@pytest.fixture
def machine_port(request: pytest.FixtureRequest) -> str | None:
    """The real machine's pyserial URL, None when there is none (the bench suite then starts a simulator
    on a pseudo-terminal for each scenario)."""
    port = request.config.getoption("--machine-port")
    return str(port) if port else None


@pytest.fixture
def machine_needs(request: pytest.FixtureRequest) -> frozenset[str]:
    """The capabilities the real rig declares."""
    return machine_needs_of(request.config)


@pytest.fixture
def machine_capabilities(request: pytest.FixtureRequest) -> frozenset[str]:
    """What the real machine is (``--machine-capabilities``)."""
    return machine_capabilities_of(request.config)


@pytest.fixture
def machine_set(request: pytest.FixtureRequest) -> str:
    return str(request.config.getoption("--machine-set"))


def require_capabilities(scenario: Scenario, has: frozenset[str]) -> None:
    """Skip the test, with the reason, if the rig lacks what `scenario` needs."""
    missing = scenario.needs - has
    if missing:
        wanted = "; ".join(f"{m}: {CAPABILITIES[m]}" for m in sorted(missing))
        pytest.skip(f"the rig is not prepared for {wanted} (add to --machine-needs once it is)")


def require_machine(scenario: Scenario, machine: frozenset[str]) -> None:
    """Skip the test, with the reason, if the real machine is not what `scenario` needs."""
    missing = scenario.machine - machine
    if missing:
        wanted = "; ".join(f"{m}: {MACHINE_CAPABILITIES[m]}" for m in sorted(missing))
        pytest.skip(f"the machine is not {wanted} (--machine-capabilities says it is {', '.join(sorted(machine))})")


def _open_fds() -> dict[int, str]:
    out = {}
    for name in os.listdir(FD_DIR):
        try:
            out[int(name)] = os.readlink(FD_DIR / name)
        except OSError:
            continue  # closed meanwhile (the fd of the listing itself)
    return out


@contextlib.contextmanager
def no_leaks(grace: float = 2.0) -> Iterator[None]:
    """Raise AssertionError if the block leaves a thread (after `grace` seconds to end), an fd (a pty
    among them) or a loopback open."""
    threads = set(threading.enumerate())
    fds = _open_fds() if FD_DIR.is_dir() else {}
    loops = set(open_loopbacks())
    yield
    deadline = time.monotonic() + grace
    while True:
        extra = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
        if not extra or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert not extra, f"threads left running: {[t.name for t in extra]}"
    left = [lp for lp in open_loopbacks() if lp not in loops]
    assert not left, f"{len(left)} loopback(s) not closed"
    if FD_DIR.is_dir():
        leaked = {fd: target for fd, target in _open_fds().items() if fds.get(fd) != target}
        assert not leaked, f"file descriptors left open: {leaked}"


@pytest.fixture
def hil_leak_check() -> Iterator[None]:
    """Fail the test if it leaves a thread, an fd (a pty among them) or a loopback behind. Use it autouse
    in the conftest of simulator tests."""
    with no_leaks():
        yield
