"""Prepared boards stay in the room (Law 6E4), through `dealer` as a user runs it on simulated machines: a file
`dealer generate --where` made is refused by `dealer deal` (exit 8, one line naming the file and the Law, and
nothing dealt, journalled or recorded) unless the run is a teaching run, whose deals go into the practice
history, never the club's; a plan deals such deals only when it says kind = "teaching".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from dealer.journal.history import DealHistory
from dealer.journal.store import Journal
from tests.support.processes import dealer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")

CONDITION = "hcp(north) >= 15"


def lesson(folder: Path) -> Path:
    """8 prepared boards, made as a teacher makes them."""
    path = folder / "lesson.pbn"
    made = dealer("generate", "--boards", "1-8", "--where", CONDITION, "-o", str(path), cwd=folder)
    assert made.returncode == 0, made.stderr
    return path


def deals_in(history: Path) -> int:
    with DealHistory.open(history) as held:
        return len(held)


def test_a_file_of_prepared_boards_is_refused_unless_the_run_is_a_teaching_run(tmp_path: Path) -> None:
    path = lesson(tmp_path)
    club = tmp_path / "club.sqlite"
    assert dealer("history", "init", str(club), cwd=tmp_path).returncode == 0
    listed = dealer("history", "list", "--history", str(club), cwd=tmp_path).stdout
    ledger = tmp_path / "ledger.json"
    port = f"sim://?speed=200&ledger={ledger}"

    refused = dealer("deal", str(path), "--port", port, "--history", str(club), "--plain", cwd=tmp_path)
    assert refused.returncode == 8, refused.stderr
    line, = refused.stderr.splitlines()
    assert str(path) in line and "Law 6E4" in line and "--teaching" in line and CONDITION in line
    assert not ledger.exists() or json.loads(ledger.read_text(encoding="utf-8"))["dealings"] == []
    journal = Path(f"{path}.journal")
    if journal.exists():
        with Journal.open_read_only(journal) as held:
            assert held.runs() == []
    assert not (tmp_path / "simulated-history.sqlite").exists()
    assert dealer("history", "list", "--history", str(club), cwd=tmp_path).stdout == listed

    taught = dealer("deal", str(path), "--port", port, "--history", str(club), "--teaching", "--plain",
                    cwd=tmp_path)
    assert taught.returncode == 0, taught.stderr[-2000:]
    assert taught.stderr.count("teaching run: its deals are kept in a practice history") == 1
    assert "8/8 boards verified" in taught.stdout
    dealt = json.loads(ledger.read_text(encoding="utf-8"))["dealings"]
    assert sorted({d["board_number"] for d in dealt if d["cards"] == 52}) == list(range(1, 9))
    assert deals_in(tmp_path / "simulated-history.sqlite") == 8
    assert deals_in(club) == 0
    assert dealer("history", "list", "--history", str(club), cwd=tmp_path).stdout == listed


def test_a_teaching_run_of_an_ordinary_file_goes_into_the_practice_history(tmp_path: Path) -> None:
    path = tmp_path / "random.pbn"
    assert dealer("generate", "--boards", "1-4", "-o", str(path), cwd=tmp_path).returncode == 0
    taught = dealer("deal", str(path), "--port", "sim://?speed=200", "--teaching", "--plain", cwd=tmp_path)
    assert taught.returncode == 0, taught.stderr[-2000:]
    assert deals_in(tmp_path / "simulated-history.sqlite") == 4


PLAN = """{kind}
[event]
name = "Tuesday lesson"

[[machines]]
name = "M1"
port = "sim://?speed=200"

[[sessions]]
name = "STRONG"
source = {{ file = "lesson.pbn" }}

[[sessions.sections]]
name = "A"

[[sessions]]
name = "WEAK2"
boards = "1-4"
source = {{ engine = "bigdeal", where = "weak-twos.dlr" }}

[[sessions.sections]]
name = "B"
"""


def test_a_plan_deals_prepared_boards_only_when_it_is_a_teaching_plan(tmp_path: Path) -> None:
    lesson(tmp_path)
    (tmp_path / "weak-twos.dlr").write_text("hearts(north) == 6 and hcp(north) >= 5 and hcp(north) <= 10\n",
                                            encoding="utf-8")
    event = tmp_path / "event.toml"
    event.write_text(PLAN.format(kind="").replace(', where = "weak-twos.dlr"', ""), encoding="utf-8")
    for command in (["plan", str(event)], ["deal", "--plan", str(event)]):
        refused = dealer(*command, cwd=tmp_path)
        assert refused.returncode == 8, refused.stderr
        assert "session STRONG: its deals were made under conditions" in refused.stderr + refused.stdout
        assert "Law 6E4" in refused.stderr.splitlines()[-1] or "Law 6E4" in refused.stdout
    assert not (tmp_path / "event.journal").exists()
    scripted = tmp_path / "scripted.toml"
    scripted.write_text(PLAN.format(kind=""), encoding="utf-8")
    refused = dealer("plan", str(scripted), cwd=tmp_path)
    assert refused.returncode == 3 and "sessions[2].source.where" in refused.stderr and "Law 6E4" in refused.stderr

    teaching = tmp_path / "lesson.toml"
    teaching.write_text(PLAN.format(kind='kind = "teaching"'), encoding="utf-8")
    made = dealer("plan", str(teaching), "--generate", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    generated = (tmp_path / "deals" / "WEAK2.pbn").read_text(encoding="utf-8")
    assert generated.count('[Generator "dealer bigdeal; prepared, Law 6E4: hearts(north) == 6') == 4
    dealt = dealer("deal", "--plan", str(teaching), "--plain", cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr[-2000:]
    assert "12/12 boards verified" in dealt.stdout
    assert deals_in(tmp_path / "simulated-history.sqlite") == 12
    assert deals_in(Path(os.environ["DEALER_HISTORY"])) == 0  # this computer's (the test's own)
