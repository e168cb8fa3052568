"""The fault table end to end: every code F1-F12 but F4 produced by a simulated machine through `dealer deal`, and
the simulator's physical record read back as plain JSON, with nothing of this project imported to read it.

`dealer deal` runs as its own process against `sim://` ports (the simulator in that process, on a pty)
with fault plans; the faults are spread over one session of 4 boards in 2 copies shown with
--show-cards (F1-F6, F8, F9, F11, F12), one run whose machine deals another board's deal (F7, the run
stops) and the same deal file dealt again (F10, Law 6D2). The codes are read from what `dealer deal`
prints. The physical record (`sim://?ledger=FILE`, `dealer sim --ledger FILE`) is checked against the
deal file's own [Deal] tags, parsed here with a regular expression.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.journal.history import DealHistory
from dealer.verify import FaultCategory
from tests.support.deals import pbn_deals, random_deals
from tests.support.processes import ENV, dealer, stop_group

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

ROOT = Path(__file__).resolve().parents[2]
SPEED = "200"

SESSION_FAULTS = [  # `board` is the k-th dealing of the machine: 1-8 copy 1 with their redeals, then copy 2
    {"kind": "card_falls", "board": 1, "card": 7},  # F1, and F12 once shown
    {"kind": "misfeed", "board": 3, "card": 5},  # F2
    {"kind": "swapped_cards", "board": 5, "card": 5},  # F3
    {"kind": "foreign_card", "board": 7, "card": 9, "detected": False},  # F5
    {"kind": "misfeed", "board": 9, "rate": 1.0, "times": 52},  # F6 on copy 2: F9
    {"kind": "unreadable_card", "board": 11, "card": 9, "when": "recount"},  # F11
    {"kind": "wrong_board", "insertion": 4},  # F8
    {"kind": "leftover_cards", "board_number": 3, "count": 2, "times": 3},  # cards left in board 3 before dealing
    # (whichever board 3 goes in first, of set A1, A2 or A): the operator empties it, no fault by Law
]


def codes_in(text: str) -> set[str]:
    return set(re.findall(r"\b(F(?:1[0-2]|[1-9]))\b", text))


@dataclass
class Session:
    """What `dealer deal` printed and left for the session with faults."""

    deal_file: Path
    journal: Path
    ledger: Path
    run: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    tmp = tmp_path_factory.mktemp("fault-table")
    deal_file, plan, ledger, journal = tmp / "session.pbn", tmp / "faults.json", tmp / "ledger.json", tmp / "j.db"
    formats.write_file(deal_file, DealSet.from_deals(random_deals(7, 4), [1, 2, 3, 4]))
    plan.write_text(json.dumps({"faults": SESSION_FAULTS}))
    DealHistory.open(tmp / "history.sqlite", create=True).close()
    run = dealer("deal", str(deal_file), "--copies", "2", "--show-cards", "--journal", str(journal),
                 "--history", str(tmp / "history.sqlite"),
                 "--port", f"sim://?speed={SPEED}&faults={plan}&ledger={ledger}", cwd=tmp)
    return Session(deal_file, journal, ledger, run)


def test_every_code_of_the_fault_table_is_produced_by_a_simulated_machine_through_dealer_deal(
        session: Session, tmp_path: Path) -> None:
    assert session.run.returncode == 0, session.run.stderr
    assert "8/8 boards verified" in session.run.stdout and "Traceback" not in session.run.stderr
    seen = codes_in(session.run.stderr)
    emptied = [line for line in session.run.stderr.splitlines() if "still holds cards" in line]
    assert emptied and all(line.endswith(": empty it") and "F4" not in line for line in emptied), emptied
    shown = [line for line in session.run.stderr.splitlines() if "verified" in line and "warning: F12" in line]
    assert shown and all("(Law 16D)" in line for line in shown)  # cards named on screen, then dealt again

    stale_file, plan = tmp_path / "stale.pbn", tmp_path / "stale.json"
    formats.write_file(stale_file, DealSet.from_deals(random_deals(8, 3), [1, 2, 3]))
    plan.write_text(json.dumps({"faults": [{"kind": "stale_deal", "board": 2}]}))
    stopped = dealer("deal", str(stale_file), "--journal", str(tmp_path / "stale.db"),
                     "--port", f"sim://?speed={SPEED}&faults={plan}", cwd=tmp_path)
    assert stopped.returncode == 8 and "the run stopped" in stopped.stderr, stopped.stderr
    assert "F7 another board's deal (Law 6D1/6F, Law 87)" in stopped.stderr
    seen |= codes_in(stopped.stderr)

    again = dealer("deal", str(session.deal_file), "--journal", str(session.journal),
                   "--port", f"sim://?speed={SPEED}", cwd=tmp_path)
    assert again.returncode == 8 and "Law 6D2" in again.stderr, again.stderr  # a Law's refusal, as a fault is
    seen.add(FaultCategory.F10.value)  # the reused deal set, refused by its Law (the text names no code)

    # F4 (a surplus card) is the verifier's on a recount; cards found before dealing are a board to empty, the
    # operator's step, never a fault by Law: no machine fault of the simulator leaves a surplus after dealing
    assert seen == {code.value for code in FaultCategory} - {FaultCategory.F4.value}, sorted(seen)


def test_the_physical_record_of_the_session_is_plain_json_matching_the_deal_file(session: Session) -> None:
    assert session.run.returncode == 0, session.run.stderr
    assert session.ledger.stat().st_mode & 0o777 == 0o600  # it holds deals
    record = json.loads(session.ledger.read_text(encoding="utf-8"))
    deals = pbn_deals(session.deal_file)
    held = {b["label"]: b for b in record["boards"]}
    for copy in (1, 2):
        for board, deal in deals.items():
            (label,) = [name for name in held if name.startswith(f"A{copy}:{board}:")]
            assert held[label]["pockets"] == deal, f"board {board} copy {copy} holds another deal"
            dealings = [d for d in record["dealings"] if d["label"] == label]
            assert dealings and dealings[-1]["deal"] == deal and dealings[-1]["cards"] == 52
            assert all(d["cards_before"] == 0 and d["turns"] == 0 for d in dealings)  # never on top, never turned
    assert {d["board_number"] for d in record["dealings"]} == set(deals)
    redealt = {d["label"] for d in record["dealings"]
               if sum(e["label"] == d["label"] for e in record["dealings"]) > 1}
    assert len(redealt) == 5  # F1, F2, F3, F5 and F6 (copy 2) were each emptied and dealt again


def test_dealer_sim_keeps_its_record_after_every_board_and_when_it_stops(tmp_path: Path) -> None:
    link, ledger, deal_file = tmp_path / "machine", tmp_path / "record.json", tmp_path / "session.pbn"
    formats.write_file(deal_file, DealSet.from_deals(random_deals(9, 3), [1, 2, 3]))
    deals = pbn_deals(deal_file)
    sim = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--speed", SPEED, "--link", str(link),
                            "--ledger", str(ledger)], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert sim.stdout is not None and sim.stdout.readline().strip() == str(link)
        dealt = dealer("deal", str(deal_file), "--port", str(link), "--journal", str(tmp_path / "j.db"),
                       cwd=tmp_path)
        assert dealt.returncode == 0, dealt.stderr
        running = json.loads(ledger.read_text(encoding="utf-8"))  # written after every board, machine still on
    finally:
        stop_group(sim)
    assert sim.returncode == 0
    stopped = json.loads(ledger.read_text(encoding="utf-8"))  # written again as it stopped
    for record in (running, stopped):
        assert [(d["board_number"], d["deal"]) for d in record["dealings"]] == sorted(deals.items())
        held = {int(b["label"].split(":")[1]): b["pockets"] for b in record["boards"] if b["cards"]}
        assert held == deals
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".record")] == []  # no temporary left
