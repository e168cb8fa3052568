"""The host's bench suite (`tests/hardware`) run against the firmware under QEMU as against a real machine
(``--machine-port`` at QEMU's pty), one scenario at a time, each with the firmware prepared as the bench's
runbook asks of a rig (the jam, the misfeed, the power cut, the turned board: told through the firmware's
options)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.support.firmware import MachineFactory
from tests.support.paths import ROOT
from tests.support.processes import run

SLOW = pytest.mark.slow  # left out of CI's sample (conftest.py): jam is the one scenario CI runs
SCENARIOS = [
    # scenarios run on one firmware, the capability the rig declares, the firmware's options for it
    pytest.param(("clean", "line_noise", "slow_usb"), "byte_faults", [], id="byte_faults", marks=SLOW),
    pytest.param(("jam",), "jam", ["--jam", "2:20"], id="jam"),
    pytest.param(("misfeed",), "misfeed", ["--misfeed", "1:5"], id="misfeed", marks=SLOW),
    pytest.param(("power_loss",), "power_loss", ["--power-cut", "2:25"], id="power_loss", marks=SLOW),
    pytest.param(("turned_readable",), "turned_readable", ["--turn", "2:1"], id="turned_readable", marks=SLOW),
]


@pytest.mark.parametrize(("scenarios", "needs", "options"), SCENARIOS)
def test_bench_scenarios_pass_on_the_firmware(scenarios: tuple[str, ...], needs: str, options: list[str],
                                              firmware_machine: MachineFactory, tmp_path: Path) -> None:
    machine = firmware_machine(["--set", "A", "--boards", "1-8", *options])
    tests = [f"{ROOT}/tests/hardware/test_machine.py::test_scenario_on_the_machine[{name}]" for name in scenarios]
    bench = run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *tests,
                 "--machine-port", machine.path, "--machine-needs", needs, "--machine-set", "A",
                 "--machine-capabilities", "reader_edges,board_sensor"],  # it reads labels on every side
                cwd=tmp_path, timeout=240)
    assert re.search(rf"^{len(scenarios)} passed in", bench.stdout, re.M), bench.stdout[-4000:]
