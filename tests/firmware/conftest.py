"""The firmware tests build the C machine's firmware once a session (``make -C firmware_protocol/c firmware``
into a temporary folder, with arm-none-eabi-gcc) and run it under QEMU's ``microbit`` board
(`hil.qemu.FirmwareMachine`). They run with ``--system-tools`` (`tests.support.system_tools`): where the
cross compiler, newlib or QEMU is missing they fail, naming the packages (``.ci/run`` installs them). With
``DEALER_FIRMWARE_TESTS=sample`` (CI's setting: its time is short) the firmware tests marked slow are
deselected, and pytest counts them as deselected."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from hil.qemu import FirmwareMachine, qemu_path
from tests.support.firmware import MachineFactory
from tests.support.paths import ROOT

NO_TOOLCHAIN = ("no firmware toolchain: {} "
                "(apt-get install make gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """CI's sample: the slow firmware tests left out when DEALER_FIRMWARE_TESTS is "sample"."""
    if os.environ.get("DEALER_FIRMWARE_TESTS") != "sample":
        return
    here = Path(__file__).parent
    left_out = [item for item in items if here in item.path.parents and item.get_closest_marker("slow")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item not in left_out]


def _missing() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the firmware tests run on Linux"
    for tool in ("make", "arm-none-eabi-gcc"):
        if shutil.which(tool) is None:
            return f"{tool} not on PATH"
    if qemu_path() is None:
        return "qemu-system-arm not on PATH"
    return None


@pytest.fixture(scope="session")
def firmware_elf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The firmware image, built once a session."""
    missing = _missing()
    if missing is not None:
        pytest.fail(NO_TOOLCHAIN.format(missing))
    build = tmp_path_factory.mktemp("firmware")
    made = subprocess.run(["make", "-s", "-C", str(ROOT / "firmware_protocol" / "c"), "firmware", f"BUILD={build}"],
                          capture_output=True, text=True, timeout=300)
    if made.returncode != 0 and "nano.specs" in made.stderr:
        pytest.fail(NO_TOOLCHAIN.format("newlib for arm-none-eabi missing"))
    assert made.returncode == 0, made.stderr[-3000:]
    return build / "firmware.elf"


@pytest.fixture
def firmware_machine(firmware_elf: Path, tmp_path: Path) -> Iterator[MachineFactory]:
    """Starts the firmware under QEMU with the machine's options (``--set A --boards 1-16``, faults); the
    port to open is its `path` (a link in the test's folder). Every QEMU started is stopped at the end."""
    started: list[FirmwareMachine] = []

    def start(options: Sequence[str], *, verbose: bool = False) -> FirmwareMachine:
        machine = FirmwareMachine(firmware_elf, options, link=tmp_path / f"machine{len(started)}", verbose=verbose)
        started.append(machine)
        return machine

    yield start
    for machine in started:
        machine.stop()
