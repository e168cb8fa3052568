"""Who dealt each dealing: every station's machine is recorded in the journal as it answers (`MachineMet`), and a
resume may deal on another machine. A run stopped after its first board and resumed on a machine with another
serial number: `dealer report` (the command, on the journal alone) names both machines on the station, in the
order they dealt, and the journal's events put every dealing after the machine that made it."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, deal_session
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal import events
from dealer.journal.store import Journal
from hil.config import SimConfig
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for

DEALS = deals_for((1, 2, 3))


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


class StopAfterFirst(io.StringIO):
    """The run's output; asks the run to stop (as the console's Stop does) once a board is verified."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__()
        self.stop = stop

    def write(self, text: str) -> int:
        if "verified (1/" in text:
            self.stop.set()
        return super().write(text)


def deal(loop: Loopback, journal: Path, *, resume: bool) -> str:
    stop = threading.Event()

    def factory(url: str) -> Machine:
        return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                       sleep=loop.clock.sleep)  # type: ignore[attr-defined]

    out = StopAfterFirst(stop) if not resume else io.StringIO()
    options = RunOptions(ports=["loop://sim"], machine_names=["m1"], journal=journal, machine_factory=factory,
                         out=out, resume=resume, stop=stop, limits=RunLimits(board_timeout=120, deal_timeout=120))
    deal_session(DEALS, "session.pbn", options)
    return out.getvalue()


def test_a_run_resumed_on_another_machine_says_which_machine_dealt_each_dealing(tmp_path: Path) -> None:
    journal = tmp_path / "session.journal"
    with Loopback(SimConfig(seed=0x11, boards=(1, 2, 3), serial="SIM-00000011")) as first:
        deal(first, journal, resume=False)
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert not run.finished
    with Loopback(SimConfig(seed=0x22, boards=(1, 2, 3), serial="SIM-00000022")) as second:
        said = deal(second, journal, resume=True)
    changed = [line for line in said.splitlines() if "another machine than the one this run dealt on" in line]
    assert len(changed) == 1 and "SIM-00000022" in changed[0] and "SIM-00000011" in changed[0], said
    assert said.index(changed[0]) < said.index("verified ("), said  # said before the first board of the resume

    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert run.finished
        story = [(r.event.serial if isinstance(r.event, events.MachineMet) else "dealing")
                 for r in j.events(run.id) if isinstance(r.event, events.MachineMet | events.Dealing)]
    first_met, second_met = story.index("SIM-00000011"), story.index("SIM-00000022")
    assert first_met == 0 and story[1:second_met] == ["dealing"] * (second_met - 1), story
    assert story[second_met + 1:] == ["dealing"] * (len(story) - second_met - 1) and len(story) - second_met > 1

    report = subprocess.run([sys.executable, "-m", "dealer", "report", str(journal)], capture_output=True,
                            text=True, timeout=120, check=False)
    assert report.returncode == 0, report.stderr
    (line,) = [line for line in report.stdout.splitlines() if line.strip().startswith("m1")]
    assert line.strip().startswith("m1 (machines SIM-00000011 (simulated) and SIM-00000022 (simulated), one after the "
                                   "other): 3 boards "
                                   "verified"), line
