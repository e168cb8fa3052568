"""One fault, one name, one count: what the terminal's summary, `dealer report` (text, CSV, JSON), the
console's list of past faults and the demo's story say of a run's faults agree, through the commands
users run; a power cut, a pulled cable and a stopped controller are each named as what they were."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.dealing.demo import run_demo
from dealer.journal.events import MACHINE_FAULT_WORDS
from dealer.journal.jobplan import JobPlan
from dealer.journal.narrative import incidents
from dealer.journal.store import Journal
from dealer.serve.past import journal_faults
from hil.loopback import Loopback
from hil.scenarios import SCENARIOS
from tests.support.loopback_run import deals_for, run_on_loopback


def summary_faults(text: str) -> Counter[str]:
    """The terminal summary's 'faults caught: A x1, B x2' as a count per fault."""
    (line,) = [line for line in text.splitlines() if "faults caught: " in line]
    items = line.split("faults caught: ", 1)[1]
    return Counter({name: int(n) for name, n in re.findall(r"(.+?) x(\d+)(?:, |$)", items)})


def summary_machines(text: str) -> dict[str, tuple[int, int]]:
    """Machine -> (machine faults, interruptions), as the terminal summary says them."""
    found = re.findall(r"^\s+(\S+): \d+ verified, .*machine faults (\d+), interruptions (\d+),", text, re.M)
    return {name: (int(m), int(i)) for name, m, i in found}


def report_faults(journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Counter[str]]:
    """`dealer report`'s faults by type and Law, from its text, CSV and JSON; and its machine figures."""
    assert main(["report", str(journal)]) == 0
    text = capsys.readouterr().out
    section = text.split("Faults by type and Law\n", 1)[1].split("Operator actions", 1)[0]
    from_text = Counter({name: int(n) for name, n in re.findall(r"^  (.+): (\d+) \(", section, re.M)})
    assert main(["report", str(journal), "-o", str(tmp_path / "r.csv")]) == 0
    rows = list(csv.DictReader((tmp_path / "r.csv").open(encoding="utf-8")))
    from_csv: Counter[str] = Counter()
    for row in rows:
        if row["table"] == "fault":
            from_csv[f"{row['item']} ({row['law']})" if row["law"] else row["item"]] += int(row["value"])
    assert main(["report", str(journal), "-o", str(tmp_path / "r.json")]) == 0
    body = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    from_json: Counter[str] = Counter()
    for fault in body["faults"]:
        from_json[f"{fault['type']} ({fault['law']})" if fault["law"] else fault["type"]] += fault["count"]
    machines = {name: (m["machine_faults"], m["interruptions"]) for name, m in body["machines"].items()}
    capsys.readouterr()
    return {"text": from_text, "csv": from_csv, "json": from_json, "machines": Counter(machines)}


def console_faults(journal: Path) -> Counter[str]:
    """The console's list of a journal's past faults, counted by their words (said as a browser's stream says them)."""
    said = [{key: str(f[key]) for key in ("text", "law")} for f in journal_faults(journal)]
    return Counter(f"{f['text']} ({f['law']})" if f["law"] else f["text"] for f in said)


def test_the_demo_names_and_counts_every_fault_alike_everywhere(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    result = run_demo(boards=16, machines=2, folder=tmp_path / "demo", out=out)  # at the demo's own speed
    text = out.getvalue()
    assert result.complete, text
    journal = tmp_path / "demo" / "session.journal"
    terminal = summary_faults(text)
    reported = report_faults(journal, tmp_path, capsys)
    assert reported["text"] == reported["csv"] == reported["json"] == terminal == console_faults(journal), text
    assert reported["machines"] == Counter(summary_machines(text)), text
    # the faults planned for each machine's first four boards fire whatever the share of boards
    for fault in ("card jam", "F1 missing card (Law 14A)",
                  "F2 card in wrong pocket (Law 13A1)", "cable pulled"):
        assert terminal[fault] == 1, (fault, terminal)
    assert "controller stopped" not in text and "(detail" not in text
    with Journal.open_read_only(journal) as j:
        told = incidents(j, result.run_id)
    # the story tells each fault once: every fault counted is in one of its lines, and each line a fault
    named = "|".join(re.escape(words) for words in MACHINE_FAULT_WORDS.values())
    assert sum(terminal.values()) == sum(len(re.findall(rf"F\d+ |{named}|cable pulled|power cut|"
                                                        r"machine restarted|not heard", i.caught)) for i in told)
    for fault in terminal:
        assert any(fault.split(" (")[0] in i.caught for i in told), (fault, [i.caught for i in told])


@pytest.mark.parametrize(("scenario", "named", "group"), [
    ("power_loss", "power cut", 1),
    ("power_loss_kept_job", "power cut", 1),
    ("unplug", "cable pulled", 1),
])
def test_an_interruption_is_named_as_what_it_was_and_counted_once(
        scenario: str, named: str, group: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (chosen,) = [s for s in SCENARIOS if s.name == scenario]
    deals = deals_for(chosen.boards)
    with Loopback(chosen.sim_config(seed=3)) as loop:
        result, lines = run_on_loopback(loop, deals, tmp_path / "j.db")
    text = f"{lines}{result.summary}\n"  # the progress lines, then the summary printed at the end
    assert result.complete, text
    terminal = summary_faults(text)
    assert terminal[named] == 1, terminal
    assert "controller stopped" not in text and "POWER_LOSS" not in str(terminal)
    reported = report_faults(tmp_path / "j.db", tmp_path, capsys)
    assert reported["text"] == reported["csv"] == reported["json"] == terminal == console_faults(tmp_path / "j.db")
    assert reported["machines"] == Counter(summary_machines(text)) == Counter({"loop://sim": (0, group)}), text
    (line,) = [line for line in text.splitlines() if f"{named}: " in line and "finding out" in line]
    assert line.endswith("finding out where the board stands"), line


def test_a_stopped_controller_is_named_so_when_it_cut_a_deal(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A journal left by a controller stopped mid-deal: the resume names the stop, and counts it once."""
    from dealer.journal.events import InterruptedDeal, Interruption, ResumeUncertain
    from dealer.journal.jobplan import JobPlan
    from dealer.journal.store import JobState

    path = tmp_path / "j.db"
    deals = deals_for((1, 2))
    with Journal.open(path) as j:
        run = j.begin_run("club", "s.pbn", deals, [JobPlan(1, 1), JobPlan(2, 1)])
        job = j.jobs(run.id)[0]
        for state in (JobState.LOADED, JobState.SCANNED, JobState.DEALING):
            j.advance(job.id, state, machine="m1")
        j.note(run.id, ResumeUncertain(state="dealing", cause=Interruption.CONTROLLER_STOPPED), job_id=job.id,
               machine="m1")
        j.advance(job.id, JobState.FAULTED, InterruptedDeal(cards=12, cause=Interruption.CONTROLLER_STOPPED))
    reported = report_faults(path, tmp_path, capsys)
    assert reported["text"] == reported["csv"] == reported["json"] == console_faults(path) == Counter(
        {"controller stopped": 1})
    assert reported["machines"] == Counter({"m1": (0, 1)})
    with Journal.open_read_only(path) as j:
        (told,) = incidents(j, run.id)
    assert told.caught.startswith("controller stopped: dealing was interrupted after 12 cards")


def test_the_live_view_prints_a_fault_in_the_plain_lines_words_its_law_in_bold() -> None:
    from rich.console import Console

    from dealer.cli.live import LiveRunView, styled_line
    from dealer.dealing.progress import PlainView, ProgressView, RunProgress
    from dealer.journal.events import Interruption, LinkResync, RecountUnverified

    console = Console(file=io.StringIO(), force_terminal=True, width=300, record=True)
    plain = io.StringIO()
    views: tuple[ProgressView, ...] = (LiveRunView(console, refresh_per_second=1), PlainView(plain))
    for view in views:
        progress = RunProgress(total_jobs=2, out=io.StringIO(), view=view)
        with Journal.open(":memory:") as journal:  # the line is the journal's event, as it is recorded
            run = journal.begin_run("club", "s.pbn", deals_for((1, 2)), [JobPlan(1, 1), JobPlan(2, 1)])
            stop_following = progress.follow(journal, [run.id])
            progress.open()
            journal.note(run.id, LinkResync(why=Interruption.POWER_CUT), job_id=journal.jobs(run.id)[0].id,
                         machine="m1")
            stop_following()
            progress.close()
    (line,) = plain.getvalue().splitlines()
    assert line == ("[m1] board 1: power cut: the machine lost power and restarted: finding "
                    "out where the board stands")
    assert line in console.export_text()
    from dealer.dealing.progress import LineKind, ProgressEvent, words

    said = words("board 2: F11 unidentified card (Law 6D1) -> recounting")
    shown = styled_line(ProgressEvent("m1", said, LineKind.FAULT,
                                      recorded=RecountUnverified(faults_found=("F11",))))
    bold = [shown.plain[s.start:s.end] for s in shown.spans if "bold" in str(s.style)]
    assert bold == ["Law 6D1"]
