"""The README's congress with faults on every machine: dealt by `dealer deal --plan` on its simulated
machines and reported by `dealer report` in text, CSV and JSON that agree with each other. (The README's
congress as written, twice on one computer, is tests/test_practice_twice.py.)

The test copies the example (and the SquareDeal event it names, at the same relative place) into a fresh
folder and runs the commands there, in their own processes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from dealer.journal.store import Journal
from tests.support import report_readers
from tests.support.paths import ROOT
from tests.support.processes import dealer

pytestmark = pytest.mark.slow


def fresh_clone_of_the_example(folder: Path) -> Path:
    """examples/congress.toml and the SquareDeal event it names, laid out as in the project."""
    (folder / "examples" / "congress-out").mkdir(parents=True)  # the folder of what it makes, in the project too
    shutil.copy(ROOT / "examples" / "congress.toml", folder / "examples" / "congress.toml")
    event = Path("tests", "data", "squaredeal", "WBG2024")
    shutil.copytree(ROOT / event, folder / event)
    return folder / "examples" / "congress.toml"


def test_the_three_forms_of_the_report_agree_on_a_congress_with_faults_in_every_session(tmp_path: Path) -> None:
    """The example, with a fault plan on each machine: every machine meets faults in several sessions, and the
    text summary's per-machine counts are the CSV's and the JSON's, summed over the sessions."""
    plan = fresh_clone_of_the_example(tmp_path)
    faults = {
        "M1": [{"kind": "jam", "board": 3, "card": 20}, {"kind": "wrong_board", "insertion": 40},
               {"kind": "jam", "board": 130, "card": 9}],
        "M2": [{"kind": "misfeed", "board": 5, "card": 11}, {"kind": "misfeed", "board": 60, "card": 30},
               {"kind": "wrong_board", "insertion": 100}],
        "HALL-B": [{"kind": "card_falls", "board": 7, "card": 33}, {"kind": "wrong_board", "insertion": 50},
                   {"kind": "card_falls", "board": 90, "card": 12}],
    }
    text = plan.read_text()
    for machine, specs in faults.items():
        path = tmp_path / f"faults-{machine}.json"
        path.write_text(json.dumps({"faults": specs}))
        text = re.sub(rf'(name = "{machine}"\nport = "sim://\?[^"]*)"', rf'\1&faults={path}"', text)
    assert text.count("&faults=") == 3
    plan.write_text(text)

    dealt = dealer("deal", "--plan", "examples/congress.toml", "--plain", cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr[-3000:]
    figures = report_readers.reports_agree(tmp_path, "examples/congress-out/congress.journal", dealer)
    faulted = {machine for (_, machine) in figures.faults}
    assert faulted == {"M1", "M2", "HALL-B"}, figures.faults
    with Journal.open(tmp_path / "examples" / "congress-out" / "congress.journal") as journal:
        sessions_with_faults = {r.name for r in journal.runs() for e in journal.events(r.id)
                                if e.kind in ("recount-fault", "machine-fault-resumed", "board-refused")}
    assert len(sessions_with_faults) >= 2, sessions_with_faults
