"""Practice never touches the club's record, and so works every time: the README's runnable commands and
every guide's commands run twice on one computer, each time in a fresh folder (a new clone, another day),
with one home folder and so one deal history of this computer, and the second time passes as the first.

The computer is a temporary home (``HOME`` and ``XDG_DATA_HOME``; no ``DEALER_HISTORY``), so these runs
never reach the real one; at the end this computer's deal history holds no deal: every run was practice
(simulated machines only, the demo, tests on the `dealing_machine` fixture).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from dealer.journal.store import JobState, Journal
from tests.support import report_readers
from tests.support.guides import DOCS, GUIDES, commands_of
from tests.support.paths import ROOT
from tests.support.plain_words import all_problems
from tests.support.processes import ENV, run

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")]

SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)
README_RUNNABLE = ("dealer demo", "dealer plan examples/congress.toml --generate", "dealer history ")
"""The README's blocks that run on any computer, by their first command: the others need a real machine
(/dev/ttyUSB0), a network install, a browser, or files of the reader's own."""


def one_computer(home: Path) -> Mapping[str, str]:
    """The environment of a computer whose user's home is `home`: no deal history named."""
    env = {key: value for key, value in ENV.items() if key != "DEALER_HISTORY"}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"}


def club_history_deals(home: Path) -> int:
    """How many deals this computer's own deal history holds (0 when it was never made)."""
    from dealer.journal.history import DealHistory

    path = home / ".local" / "share" / "dealer" / "history.sqlite"
    if not path.is_file():
        return 0
    with DealHistory.open(path) as history:
        return len(history)


def fresh_clone(folder: Path) -> Path:
    """A folder holding the project's examples/ and the SquareDeal event the congress example names."""
    folder.mkdir()
    shutil.copytree(ROOT / "examples", folder / "examples",
                    ignore=shutil.ignore_patterns("deals", "*.journal*", "*.sqlite*"))
    event = Path("tests", "data", "squaredeal", "WBG2024")
    shutil.copytree(ROOT / event, folder / event)
    return folder


def readme_blocks() -> dict[str, str]:
    """The README's runnable blocks, by the first command of each."""
    blocks = {start: b for b in SH_BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
              for start in README_RUNNABLE if b.startswith(start)}
    assert len(blocks) == len(README_RUNNABLE), "a runnable block of the README is gone: update README_RUNNABLE"
    return blocks


def twice(script: str, tmp_path: Path) -> list[str]:
    """Run `script` in two fresh clones (``first``, ``second`` under `tmp_path`), one after the other, on one
    computer; both must pass. Returns what each printed (standard output, then standard error without the
    shell's trace of each command)."""
    home = tmp_path / "home"
    home.mkdir()
    shown = []
    for attempt in ("first", "second"):
        folder = fresh_clone(tmp_path / attempt)
        # each command traced (bash -x), so that a run stuck names where; killed before pytest's own timeout
        done = run(["bash", "-xc", script], cwd=folder, env=one_computer(home), timeout=240)
        assert done.returncode == 0, (f"the {attempt} run: exit {done.returncode}\n{done.stdout[-3000:]}\n"
                                      f"{done.stderr[-3000:]}")
        said = "".join(line for line in done.stderr.splitlines(keepends=True) if not line.startswith("+"))
        shown.append(done.stdout + said)
    assert club_history_deals(home) == 0
    return shown


def guide_did_what_it_says(guide: str, shown: str, folder: Path) -> None:
    """What a guide's commands printed and wrote is what the guide says they do, and every line reads
    plainly."""
    written = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(folder.iterdir())
               if p.suffix in (".csv", ".json", ".log", ".txt") and p.is_file()]
    assert all_problems([(guide, shown), *written]) == []
    if guide == "director.md":
        assert (folder / "deal.log").read_text().startswith("16/16 boards verified in ")
        assert "[sim://?speed=100] tuesday set A: board 16: verified" in shown
        assert {p.name for p in folder.iterdir()} >= {"tuesday.pbn", "records.pdf", "labels.pdf", "tuesday.csv",
                                                      "tuesday.pbn.journal"}
    elif guide == "organiser.md":
        assert (folder / "deal.log").read_text().startswith("144/144 boards verified in ")
        assert "sessions FRI1 and SAT1 both deal into board 1 of set A1" in shown
        assert "dealer plan: exit code 3" in shown
        assert re.search(r"^\[M[12]\] SAT1 set GREEN2: board \d+ copy 2: verified", shown, re.MULTILINE)
        assert (folder / "report.csv").is_file() and (folder / "green1-labels.pdf").is_file()
    else:
        assert guide == "hil.md"
        assert "recount: every card in its pocket" in shown
        assert "3 passed" in shown and "1 passed" in shown  # the jam test, dealing one fixed deal, passes again


@pytest.mark.timeout(600)
@pytest.mark.parametrize("block", README_RUNNABLE)
def test_the_readme_commands_work_twice_on_one_computer(tmp_path: Path, block: str) -> None:
    """Each runnable block of the README, twice on a computer of its own (the blocks run side by side)."""
    first, second = twice("set -euo pipefail\n" + readme_blocks()[block], tmp_path)
    practice = {"dealer demo": 1, "dealer plan examples/congress.toml --generate": 2, "dealer history ": 0}[block]
    for shown in (first, second):
        assert shown.count("practice run: its deals are kept in a practice history") == practice  # demo, plan, deal
        if block.startswith("dealer plan"):
            assert re.search(r"^342/342 boards verified in ", shown, re.MULTILINE), shown[-2000:]
    if block.startswith("dealer plan"):
        assert (tmp_path / "second" / "examples" / "congress-out" / "simulated-history.sqlite").is_file()
        the_congress_is_dealt_as_planned(first, tmp_path / "first", tmp_path / "home")


def the_congress_is_dealt_as_planned(shown: str, folder: Path, home: Path) -> None:
    """The README's congress: every session dealt on its machines, each progress line naming its session and
    set; the journal consistent; dealt again, nothing is left to deal; and `dealer report` says the same
    figures on screen, as CSV and as JSON."""
    total = int(re.search(r"^total: 4 sessions, \d+ boards, (\d+) jobs", shown, re.MULTILINE)[1])  # type: ignore[index]
    assert re.search(rf"^{total}/{total} boards verified in ", shown, re.MULTILINE)
    sessions = {"FRI1", "SAT1", "SUN1", "FIN1"}
    progress = re.findall(r"^\[(?:M1|M2|HALL-B)\] (\w+) set [A-Z0-9]+: ", shown, re.MULTILINE)
    assert set(progress) == sessions and len(progress) >= total
    with Journal.open(folder / "examples" / "congress-out" / "congress.journal") as journal:
        runs = journal.runs()
        assert sorted(r.name for r in runs) == sorted(sessions) and all(r.finished for r in runs)
        assert sum(len(journal.jobs(r.id, {JobState.VERIFIED})) for r in runs) == total
        assert all(journal.check_consistency(r.id) == [] for r in runs)

    def dealer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return run(["dealer", *args], cwd=cwd, env=one_computer(home), timeout=240)

    again = dealer("deal", "--plan", "examples/congress.toml", cwd=folder)
    assert again.returncode == 0 and "every session asked for is dealt already (4 runs" in again.stdout
    figures = report_readers.reports_agree(folder, "examples/congress-out/congress.journal", dealer)
    assert sum(jobs for jobs, _, _ in figures.sessions.values()) == total
    assert set(figures.machines) == {"M1", "M2", "HALL-B"}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("guide", GUIDES)
def test_every_guide_works_as_written_twice_on_one_computer(tmp_path: Path, guide: str) -> None:
    """Every ```sh block of a guide runs, in order, in one shell (```text blocks are shown, not run: an install,
    a real machine's port), with the guides' machines on sim:// ports; what it did is what the guide says."""
    for attempt, shown in zip(("first", "second"), twice(commands_of(DOCS / guide), tmp_path), strict=True):
        guide_did_what_it_says(guide, shown, tmp_path / attempt)
