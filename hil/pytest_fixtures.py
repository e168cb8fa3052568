"""The `dealing_machine` fixture: a dealing machine for a test, simulated unless ``--machine-port`` names a real one.

Installing the project registers this module and `hil.pytest_plugin` with pytest (the ``pytest11`` entry
points), so any test of any project in that environment can ask for it; a guide: docs/hil.md. On Windows, or with
the marker's ``line="tcp"``, the simulator is served on ``socket://127.0.0.1:PORT`` instead of a pty.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from hil import pty_available
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.pytest_plugin import no_leaks
from hil.tcp_sim import TcpSimulator

if TYPE_CHECKING:
    from hil.physical import Ledger
    from hil.served import ServedMachine

MARKER = "dealing_machine"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(speed=..., seed=..., faults=[...], ...): how the simulated dealing machine of the "
                   "dealing_machine fixture is set up (hil.SimConfig's keywords; faults as in a fault plan)")


@dataclass
class DealingMachine:
    """The machine a test talks to: `url` is what to open with pyserial (``serial.Serial(url, 115200)``)."""

    url: str
    simulated: bool
    faults: FaultPlan = field(default_factory=FaultPlan)
    simulator: ServedMachine | None = None

    @property
    def ledger(self) -> Ledger:
        """The simulator's record of every board it dealt (what physically happened); simulated machines only."""
        sim = self._simulator()
        with sim.lock:
            assert sim.device is not None
            return sim.device.ledger

    def dealt_labels(self) -> dict[str, int]:
        """Per board label, how many times the simulated machine dealt into that board."""
        sim = self._simulator()
        with sim.lock:
            assert sim.device is not None
            return sim.device.ledger.dealt_labels()

    def _simulator(self) -> ServedMachine:
        if self.simulator is None:
            raise RuntimeError("a real machine keeps no ledger: check dealing_machine.simulated first")
        return self.simulator


def simulator_config(marker: pytest.Mark | None) -> SimConfig:
    """The `SimConfig` a test's ``dealing_machine`` marker asks for (defaults: speed 50, no fault)."""
    options: dict[str, Any] = {"speed": 50.0, **(marker.kwargs if marker is not None else {})}
    faults = options.pop("faults", ())
    if not isinstance(faults, FaultPlan):
        faults = FaultPlan.of(*faults)
    return SimConfig(faults=faults, **options)


HISTORY_VARIABLE = "DEALER_HISTORY"
"""The variable naming the deal history `dealer` records its runs in (dealer.journal.history)."""


@contextmanager
def practice_history(folder_factory: pytest.TempPathFactory) -> Iterator[None]:
    """For a test on the simulated machine: the deals it deals are kept in a practice history of its own
    (an empty file is an empty history), not in this computer's, unless ``$DEALER_HISTORY`` names one."""
    with pytest.MonkeyPatch.context() as env:
        if not os.environ.get(HISTORY_VARIABLE):
            path = folder_factory.mktemp("practice") / "simulated-history.sqlite"
            path.touch(mode=0o600)
            env.setenv(HISTORY_VARIABLE, str(path))
        yield


@pytest.fixture
def dealing_machine(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[DealingMachine]:
    """A dealing machine for this test: the real one of ``--machine-port``, else a simulated one::

        def test_my_code(dealing_machine):
            talk_to(dealing_machine.url)               # a pyserial port name: open it as a USB port
            if dealing_machine.simulated:
                assert dealing_machine.dealt_labels() == {"A:1:N0:x": 1}   # the simulator's ledger

    Without ``--machine-port`` the machine is `hil`'s simulator on a pseudo-terminal (POSIX), started for
    the test and stopped after it; the test sets it up with the ``dealing_machine`` marker, whose keywords
    are those of `hil.SimConfig` plus ``faults`` (fault specs as in a fault plan file)::

        @pytest.mark.dealing_machine(speed=100, faults=[{"kind": "jam", "board": 1, "card": 20}])

    With ``--machine-port URL`` the same test gets the real machine at URL; a test whose marker plans
    faults is skipped there (a real machine's faults cannot be planned), with the reason. On the simulated
    machine, deals the test deals with `dealer` are kept in a practice history of the test's own
    (`practice_history`), never in this computer's deal history. Either way the
    test fails if it leaves a thread or a file descriptor open (a port it forgot to close), as
    `hil_leak_check` does.
    """
    marker = request.node.get_closest_marker(MARKER)
    port = request.config.getoption("--machine-port", default=None)
    if port:
        if marker is not None and marker.kwargs.get("faults"):
            pytest.skip("plans faults, which only the simulated machine can have (run without --machine-port)")
        with no_leaks():
            yield DealingMachine(url=str(port), simulated=False)
        return
    config = simulator_config(marker)
    with no_leaks(), practice_history(tmp_path_factory):
        sim: ServedMachine
        if config.line == "tcp" or (config.line is None and not pty_available()):
            sim = TcpSimulator(config)
        else:
            from hil.pty_sim import PtySimulator

            sim = PtySimulator(config)
        sim.start()
        try:
            yield DealingMachine(url=sim.path, simulated=True, faults=config.faults, simulator=sim)
        finally:
            sim.stop()
