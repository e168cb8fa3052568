"""The simulator's core is pure: time comes in as an argument; no clock, thread, select, pty or serial."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.imports import imports_of
from tests.support.paths import ROOT

PURE = ("schedule", "physical", "room", "dealing", "model", "operator", "fault_plan", "bytefaults", "device",
        "config", "scenarios")
IMPURE = {"time", "threading", "select", "socket", "asyncio", "os", "tty", "fcntl", "pty", "serial", "subprocess"}


@pytest.mark.parametrize("name", PURE)
def test_core_module_reads_no_clock_and_does_no_io(name: str) -> None:
    path: Path = ROOT / "hil" / f"{name}.py"
    used = {n.split(".")[0] for n in imports_of(path)} & IMPURE
    assert not used, f"hil/{name}.py imports {sorted(used)}"
