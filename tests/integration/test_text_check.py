"""The text check: every line a director reads, from the commands users run, says each thing once and names
nothing of the program's insides (`tests.support.plain_words`): the demo (terminal, story, summary, its report
file, `dealer report` in text, CSV and JSON, the console's list of its faults), and every fault-table scenario
(progress lines, summary, `dealer report`, the console's list). The guides' commands are checked where they
run (tests/test_docs.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.journal.narrative import incidents
from dealer.journal.store import Journal
from dealer.serve.past import journal_faults
from hil.loopback import Loopback
from hil.scenarios import SCENARIOS, Scenario
from tests.support.loopback_run import deals_for, run_on_loopback
from tests.support.plain_words import all_problems, line_problems
from tests.support.processes import ENV

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("line", "problem"), [
    ("[m2] demo set A: board 3: FAULT: F2 card in wrong pocket (Law 13A1): move the named cards or hands to their "
     "pockets -> move the named cards or hands to their pockets, then redeal the same deal", "said twice"),
    ("[m1] board 4: machine fault JAM (detail 19) while dealing", "detail 19"),
    ("[m1] board 4: machine fault JAM while dealing", "'JAM'"),
    ("the operator was asked to CLEAR_PATH", "CLEAR_PATH"),
    ("dealer: error: ValueError: bad", "ValueError"),
    ("stopped: <Interruption.POWER_CUT: 'power-cut'>", "Interruption.POWER_CUT"),
    ("Traceback (most recent call last):", "Traceback"),
    ("the BoardLife of board 3 ended", "BoardLife"),
])
def test_the_check_catches_what_the_issue_found(line: str, problem: str) -> None:
    found = line_problems(line)
    assert any(problem in p for p in found), found


def test_the_check_passes_plain_lines() -> None:
    for line in ("[m1] demo set A: board 11: REFUSED F8 wrong board (Law 2): the board is board 12 of set A, not "
                 "board 11 of set A: never deal board 11's deal into it",
                 "  m1: 9 verified, 1 faulted, boards refused 1, machine faults 1, interruptions 0, 4544 boards/hour",
                 "[m2] demo set A: board 3: FAULT: F2 card in wrong pocket (Law 13A1) -> empty the board and redeal "
                 "the same deal"):
        assert line_problems(line) == [], line


def report_texts(journal: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    """`dealer report` of a journal as text, CSV and JSON, and the console's list of its faults."""
    capsys.readouterr()
    assert main(["report", str(journal)]) == 0
    texts = [("dealer report", capsys.readouterr().out)]
    for name in ("report.csv", "report.json"):
        assert main(["report", str(journal), "-o", str(folder / name), "--force"]) == 0
        texts.append((f"dealer report -o {name}", (folder / name).read_text(encoding="utf-8")))
    capsys.readouterr()
    faults = journal_faults(journal)
    texts.append(("the console's faults", "\n".join(f"{f['text']}: {f['action']}" for f in faults)))
    return texts


def test_every_line_of_the_demo_reads_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "demo"
    done = subprocess.run([sys.executable, "-m", "dealer", "demo", "--keep", str(folder)], env=dict(ENV),
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]
    texts = [("dealer demo (standard output)", done.stdout), ("dealer demo (standard error)", done.stderr),
             ("the demo's report.json", (folder / "report.json").read_text(encoding="utf-8"))]
    texts += report_texts(folder / "session.journal", tmp_path, capsys)
    assert all_problems(texts) == []
    shown = done.stdout + done.stderr
    assert "named cards" not in shown  # a blind run names no card
    told = [line for line in done.stdout.splitlines() if line.startswith("   - board ")]
    caught = next(line for line in done.stdout.splitlines() if "faults caught: " in line)
    counted = sum(int(n) for n in re.findall(r" x(\d+)(?:, |$)", caught))
    assert counted == len(told), (caught, told)  # the summary counts what the story tells
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert sum(report["faults_by_code"].values()) == counted


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_line_of_a_fault_table_scenario_reads_plainly(scenario: Scenario, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    deals = deals_for(scenario.boards)
    journal = tmp_path / "j.db"
    with Loopback(scenario.sim_config(seed=3)) as loop:
        result, lines = run_on_loopback(loop, deals, journal)
    texts = [("the run's lines", lines), ("the run's summary", result.summary)]
    texts.append(("the run's stop", "\n".join(result.stopped)))
    with Journal.open_read_only(journal) as j:
        texts.append(("the story", "\n".join(i.text() for i in incidents(j, result.run_id))))
    texts += report_texts(journal, tmp_path, capsys)
    assert all_problems(texts) == []
