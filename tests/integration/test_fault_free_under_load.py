"""A fault-free plan on simulated machines shows no fault, however busy the computer.

Every core is kept busy by spinning processes while `dealer deal --plan` deals a plan with no fault plan
on three simulated machines. The simulated operator puts a board in only when the host's INSERT_BOARD
prompt asks for it, so however late the host's commands arrive no wrong board is ever read: the run's
lines and its report hold no fault. Nothing here depends on how fast anything runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import report_readers
from tests.support.processes import dealer

pytestmark = pytest.mark.slow

FAULT_WORD = re.compile(r"fault|refused|jam|interrupt", re.IGNORECASE)
NONE_COUNTED = re.compile(r"\b0 [a-z ]*?(faults?|faulted|refused|interruptions?)\b|"
                          r"\b(faults?|faulted|refused|interruptions?) 0\b", re.IGNORECASE)
"""A line's counts of nothing ("0 faulted", "machine faults 0") are no fault line."""

PLAN = """\
[event]
name = "Busy computer"
journal = "busy.journal"

[[machines]]
name = "M1"
port = "sim://?speed=200&seed=1"

[[machines]]
name = "M2"
port = "sim://?speed=200&seed=2"

[[machines]]
name = "M3"
port = "sim://?speed=200&seed=3"

[[sessions]]
name = "S1"
boards = "1-24"

[[sessions.sections]]
name = "A"
copies = 2
"""


@pytest.fixture
def every_core_busy() -> Iterator[None]:
    """One process spinning on each core for the test's duration, stopped and reaped at its end."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
                for _ in range(max(2, os.cpu_count() or 2))]
    try:
        yield
    finally:
        for proc in spinners:
            proc.kill()
        for proc in spinners:
            proc.wait()


def test_a_fault_free_plan_on_a_busy_computer_shows_no_fault(tmp_path: Path, every_core_busy: None) -> None:
    (tmp_path / "busy.toml").write_text(PLAN, encoding="utf-8")
    dealt = dealer("deal", "--plan", "busy.toml", "--plain", cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr[-3000:]
    assert dealt.stdout.startswith("48/48 boards verified in "), dealt.stdout
    lines = dealt.stderr.splitlines() + dealt.stdout.splitlines()
    faulty = [line for line in lines if FAULT_WORD.search(NONE_COUNTED.sub("", line))]
    assert faulty == [], faulty[:5]

    report = dealer("report", "busy.journal", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    figures = report_readers.from_text(report.stdout)
    assert figures.faults == {} and figures.actions == {}, report.stdout
    assert figures.machines and all(recount == faults == interruptions == 0
                                    for _, _, recount, faults, interruptions in figures.machines.values())
    assert "Faults by type and Law\n  none" in report.stdout, report.stdout
