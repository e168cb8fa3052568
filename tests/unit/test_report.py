"""Run reports rebuilt from the journal alone: figures per machine, faults by type and Law, operator
actions, per session; as a summary, CSV and JSON; `dealer report`; and no deal or card in any of them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.core.dealset import DealSet
from dealer.core.errors import JournalError, OutputExistsError, UsageError
from dealer.dealing import report_file
from dealer.dealing.progress import RunProgress
from dealer.journal import run_report as report
from dealer.journal.events import BoardRefused, MachineFaultResumed, RecountFault, Redeal, Verified
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import JobState, Journal
from tests.support.deals import random_deals

STEPS = (JobState.LOADED, JobState.SCANNED, JobState.DEALING, JobState.DEALT)


def dealt(journal: Journal, job_id: int, machine: str, busy: float, *, verified: bool = True) -> None:
    """A job's steps up to DEALT on `machine`, then VERIFIED (or a recount fault F2 + F9)."""
    for state in STEPS:
        journal.advance(job_id, state, machine=machine)
    if verified:
        journal.advance(job_id, JobState.VERIFIED, Verified(layout="x", busy=busy))
    else:
        journal.advance(job_id, JobState.FAULTED, RecountFault(faults_found=("F2", "F9"), counts=(12, 14, 13, 13),
                                                               busy=busy))


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    """Two sessions: FRI on M1 and M2 (one copy faulted, redealt, verified; a jam put right; a board
    refused), SAT half dealt on M2."""
    path = tmp_path / "congress.journal"
    fri, sat = DealSet.from_deals(random_deals(1, 2)), DealSet.from_deals(random_deals(2, 2))
    with Journal.open(path) as j:
        run1 = j.begin_run("FRI", "plan", fri, [JobPlan(b, c, "A", f"A{c}") for c in (1, 2) for b in (1, 2)])
        run2 = j.begin_run("SAT", "plan", sat, [JobPlan(b, 1, "A", "C1") for b in (1, 2)])
        a, b, c, d = (job.id for job in j.jobs(run1.id))
        dealt(j, a, "M1", 1800.0)
        j.note(run1.id, BoardRefused(read="A1:9:N:O", problem="another board"), job_id=b, machine="M1")
        j.note(run1.id, MachineFaultResumed(code=1, name="JAM", machine_detail=3, prompt="CLEAR_PATH"), job_id=b,
               machine="M1")
        dealt(j, b, "M1", 1800.0)
        dealt(j, c, "M2", 600.0, verified=False)
        j.redeal(c, "M2", Redeal(busy=300.0))
        for state in STEPS[1:]:
            j.advance(c, state, machine="M2")
        j.advance(c, JobState.VERIFIED, Verified(layout="x", busy=900.0))
        dealt(j, d, "M2", 1800.0)
        first_sat = j.jobs(run2.id)[0].id
        dealt(j, first_sat, "M2", 600.0)
        j.finish_run(run1.id)
    return path


def test_the_figures_come_from_the_journal_alone(journal_path: Path) -> None:
    with Journal.open(journal_path) as j:
        rep = report.build(j)
    fri, sat = rep.sessions
    assert (fri.name, fri.jobs, fri.verified, fri.left, fri.dealings, fri.finished) == ("FRI", 4, 4, 0, 5, True)
    assert (sat.name, sat.jobs, sat.verified, sat.left, sat.finished) == ("SAT", 2, 1, 1, False)
    m1, m2 = rep.machines["M1"], rep.machines["M2"]
    assert (m1.verified, m1.dealings, m1.busy, m1.machine_faults) == (2, 2, 3600.0, 1)
    assert m1.boards_per_hour == pytest.approx(2.0)
    assert (m2.verified, m2.dealings, m2.busy, m2.recount_faults) == (3, 4, 4200.0, 1)
    assert m2.boards_per_hour == pytest.approx(3 * 3600 / 4200)
    assert rep.fault_totals() == {("F2 card in wrong pocket", "Law 13A1"): 1, ("F9 copy mismatch", "Law 6F, Law 87"): 1,
                                  ("F8 wrong board", "Law 2"): 1, ("card jam", ""): 1}
    assert {str(action): n for action, n in rep.action_totals().items()} == {  # (said as each reader says them)
                                   "board refused by its label, another asked for": 1,
                                   "put-right prompt: clear the card path": 1,
                                   "redeal: board emptied, the same deal dealt again": 1}


def test_summary_csv_and_json_say_the_same(journal_path: Path) -> None:
    with Journal.open(journal_path) as j:
        rep = report.build(j, [1])
    text = report.summary_text(rep)
    assert "FRI (run 1): 4 boards, 4 verified, 5 dealings; finished" in text
    assert "M1: 2 boards verified, 2 dealings, 1:00:00 on boards, 2 boards/hour" in text
    assert "F9 copy mismatch (Law 6F, Law 87): 1 (M2 1)" in text
    assert "SAT" not in text
    rows = list(csv.DictReader(io.StringIO(report.to_csv(rep))))
    assert set(rows[0]) == set(report.CSV_COLUMNS)
    figures = {(r["table"], r["session"], r["machine"], r["item"], r["law"]): r["value"] for r in rows}
    assert figures["machine", "", "M2", "boards per hour", ""] == "2.0"  # FRI alone: 2 boards in 3600 s
    assert figures["fault", "FRI", "M2", "F2 card in wrong pocket", "Law 13A1"] == "1"
    assert figures["operator action", "FRI", "M2", "redeal: board emptied, the same deal dealt again", ""] == "1"
    body = json.loads(report.to_json(rep))
    assert body["machines"]["M2"]["boards_per_hour"] == 2.0 and body["sessions"][0]["left"] == 0
    assert {"session": "FRI", "machine": "M1", "type": "card jam", "law": "",
            "count": 1} in body["faults"]


def test_fault_texts_naming_cards_go_into_a_csv_only_when_asked(journal_path: Path) -> None:
    progress = RunProgress(total_jobs=1, out=io.StringIO())
    progress.fault_log.append({"machine": "M2", "board": 1, "copy": 2, "stage": "recount", "faults": [
        {"code": "F2", "law": "Law 13A1", "message": "♠A in East's pocket, belongs to North"}]})
    with Journal.open(journal_path) as j:
        for show, want in ((False, 0), (True, 1)):
            out = journal_path.parent / f"r{show}.csv"
            report_file.write_run_report(out, j, [1], progress, {}, show_cards=show)
            assert out.read_text().count("♠A") == want


def test_dealer_report_prints_or_writes_the_report(journal_path: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(journal_path)]) == 0
    assert "Operator actions" in capsys.readouterr().out
    assert main(["report", str(journal_path), "--session", "sat", "-o", str(tmp_path / "sat.csv")]) == 0
    rows = list(csv.DictReader((tmp_path / "sat.csv").open()))
    assert {r["session"] for r in rows if r["session"]} == {"SAT"}
    assert main(["report", str(journal_path), "-o", str(tmp_path / "sat.csv")]) == OutputExistsError.exit_code
    assert "exists" in capsys.readouterr().err
    assert main(["report", str(journal_path), "-o", str(tmp_path / "all.json")]) == 0
    assert json.loads((tmp_path / "all.json").read_text())["sessions"][1]["name"] == "SAT"
    assert main(["report", str(tmp_path / "none.journal")]) == JournalError.exit_code
    assert "no such journal" in capsys.readouterr().err
    assert not (tmp_path / "none.journal").exists()
    assert main(["report", str(journal_path), "--session", "MON"]) == UsageError.exit_code
    assert "no run of session MON" in capsys.readouterr().err


def test_the_summary_adds_a_machines_faults_over_every_session(journal_path: Path) -> None:
    """M2 refuses a wrong board in both sessions: the text's per-machine counts are the CSV's and JSON's
    summed over sessions (they were once overwritten session by session)."""
    with Journal.open(journal_path) as j:
        for run in (1, 2):
            job = j.jobs(run)[-1]
            j.note(run, BoardRefused(read="X:9:N0:1", problem="another board"), job_id=job.id, machine="M2")
        rep = report.build(j)
    rows = list(csv.DictReader(io.StringIO(report.to_csv(rep))))
    from_csv: dict[tuple[str, str], int] = {}
    for r in rows:
        if r["table"] == "fault":
            label = f"{r['item']} ({r['law']})" if r["law"] else r["item"]
            from_csv[label, r["machine"]] = from_csv.get((label, r["machine"]), 0) + int(r["value"])
    from_json: dict[tuple[str, str], int] = {}
    for f in json.loads(report.to_json(rep))["faults"]:
        label = f"{f['type']} ({f['law']})" if f["law"] else f["type"]
        from_json[label, f["machine"]] = from_json.get((label, f["machine"]), 0) + f["count"]
    assert from_csv == from_json
    assert from_csv["F8 wrong board (Law 2)", "M2"] == 2 and from_csv["F8 wrong board (Law 2)", "M1"] == 1
    text = report.summary_text(rep)
    section = text.split("Faults by type and Law\n")[1].split("Operator actions\n")[0]
    from_text: dict[tuple[str, str], int] = {}
    for line in section.splitlines():
        label, _, rest = line.strip().rpartition(": ")
        total, machines = rest.split(" (", 1)
        for part in machines.rstrip(")").split(", "):
            machine, n = part.rsplit(" ", 1)
            from_text[label, machine] = int(n)
        assert int(total) == sum(n for (lab, _), n in from_text.items() if lab == label)
    assert from_text == from_csv
