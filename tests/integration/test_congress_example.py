"""The README's congress, as a new user runs it: the shipped `examples/congress.toml` checked by `dealer plan`,
dealt by `dealer deal --plan` on its simulated machines, and reported by `dealer report` in text, CSV and
JSON that agree with each other.

Each test copies the example (and the SquareDeal event it names, at the same relative place) into a fresh
folder and runs the commands there, in their own processes, as written in the README.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from dealer.journal.store import JobState, Journal
from tests.support import report_readers
from tests.support.paths import ROOT
from tests.support.processes import dealer

pytestmark = pytest.mark.slow


def fresh_clone_of_the_example(folder: Path) -> Path:
    """examples/congress.toml and the SquareDeal event it names, laid out as in the project."""
    (folder / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "congress.toml", folder / "examples" / "congress.toml")
    event = Path("tests", "data", "squaredeal", "WBG2024")
    shutil.copytree(ROOT / event, folder / event)
    return folder / "examples" / "congress.toml"


def reports_agree(folder: Path, journal: str) -> report_readers.ReportFigures:
    """`dealer report` on screen, as CSV and as JSON: the same figures; returns them."""
    text = dealer("report", journal, cwd=folder)
    assert text.returncode == 0, text.stderr
    for kind in ("csv", "json"):
        wrote = dealer("report", journal, "-o", f"report.{kind}", cwd=folder)
        assert wrote.returncode == 0 and wrote.stdout.startswith("wrote the report of"), wrote.stderr
    figures = report_readers.from_text(text.stdout)
    assert report_readers.from_csv((folder / "report.csv").read_text()) == figures
    assert report_readers.from_json((folder / "report.json").read_text()) == figures
    return figures


def test_the_readme_congress_command_deals_the_shipped_example(tmp_path: Path) -> None:
    fresh_clone_of_the_example(tmp_path)
    checked = dealer("plan", "examples/congress.toml", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines()[-1] == "ready to deal: dealer deal --plan examples/congress.toml"
    total = int(re.search(r"^total: 4 sessions, \d+ boards, (\d+) jobs", checked.stdout, re.MULTILINE)[1])  # type: ignore[index]

    dealt = dealer("deal", "--plan", "examples/congress.toml", cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr[-3000:]
    assert dealt.stdout.startswith(f"{total}/{total} boards verified in ")
    progress = dealt.stderr.splitlines()
    sessions = {"FRI1", "SAT1", "SUN1", "FIN1"}
    assert {m[1] for line in progress if (m := re.match(r"\[(?:M1|M2|HALL-B)\] (\w+) set \w+: ", line))} == sessions
    assert all(re.match(r"\[(M1|M2|HALL-B)\] (FRI1|SAT1|SUN1|FIN1) set [A-Z0-9]+: ", line) for line in progress), \
        [line for line in progress if not re.match(r"\[\S+\] \S+ set \S+: ", line)][:3]
    with Journal.open(tmp_path / "examples" / "congress.journal") as journal:
        runs = journal.runs()
        assert sorted(r.name for r in runs) == sorted(sessions) and all(r.finished for r in runs)
        assert sum(len(journal.jobs(r.id, {JobState.VERIFIED})) for r in runs) == total
        assert all(journal.check_consistency(r.id) == [] for r in runs)

    again = dealer("deal", "--plan", "examples/congress.toml", cwd=tmp_path)
    assert again.returncode == 0 and "every session asked for is dealt already (4 runs" in again.stdout

    figures = reports_agree(tmp_path, "examples/congress.journal")
    assert sum(jobs for jobs, _, _ in figures.sessions.values()) == total
    assert set(figures.machines) == {"M1", "M2", "HALL-B"}


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
    figures = reports_agree(tmp_path, "examples/congress.journal")
    faulted = {machine for (_, machine) in figures.faults}
    assert faulted == {"M1", "M2", "HALL-B"}, figures.faults
    with Journal.open(tmp_path / "examples" / "congress.journal") as journal:
        sessions_with_faults = {r.name for r in journal.runs() for e in journal.events(r.id)
                                if e.kind in ("recount-fault", "machine-fault-resumed", "board-refused")}
    assert len(sessions_with_faults) >= 2, sessions_with_faults
