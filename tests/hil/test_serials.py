"""A simulated machine's serial is its own (PROTOCOL.md, the serial): two machines started with one seed, in one
process or in two at once, give two serials; a copy of one machine's configuration (a restart) keeps its serial."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

from hil.config import SimConfig
from tests.support.paths import ROOT


def test_two_machines_of_one_seed_are_two_machines() -> None:
    first, second = SimConfig(seed=3), SimConfig(seed=3)
    assert first.serial_number != second.serial_number
    assert dataclasses.replace(first, speed=10).serial_number == first.serial_number


def test_two_processes_of_one_seed_give_two_serials() -> None:
    code = "from hil.config import SimConfig; import time; print(SimConfig(seed=3).serial_number); time.sleep(1)"
    runs = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    serials = [run.communicate(timeout=60)[0].strip() for run in runs]
    assert len(set(serials)) == 2 and all(s.startswith("SIM-") for s in serials), serials
