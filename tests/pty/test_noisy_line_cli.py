"""`dealer deal` over noisy lines, as a user runs it: its own process, the simulated machines on ptys
(`sim://?noise=`), every setting at its default; and the one line a port that is not there gets.

Judged by each simulator's record file: every board holds its deal, and every LoadDeal the machine
accepted is byte-equal to one the host wrote and carries its board's deal from the deal file. A line
damaging 10 % of bytes is dealt through in virtual time (`tests/integration/test_noisy_line.py`): in
real time its recounts take minutes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from tests.support.deals import pbn_deals, random_deals
from tests.support.noisy_line import check_ledger, check_load_deals, check_noise
from tests.support.processes import dealer

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]
SPEED = "200"


def session(tmp_path: Path, boards: int) -> tuple[Path, dict[int, str]]:
    path = tmp_path / "session.pbn"
    formats.write_file(path, DealSet.from_deals(random_deals(13, boards), range(1, boards + 1)))
    return path, pbn_deals(path)


def sim(rate: float, seed: int, ledger: Path) -> str:
    return f"sim://?speed={SPEED}&seed={seed}&noise={rate}&ledger={ledger}"


def test_dealer_deal_through_a_line_damaging_one_percent_of_bytes(tmp_path: Path) -> None:
    deal_file, written = session(tmp_path, 4)
    ledger = tmp_path / "record.json"
    done = dealer("deal", str(deal_file), "--port", sim(0.01, 1, ledger), "--journal", str(tmp_path / "j.db"),
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("4/4 boards verified")
    record = json.loads(ledger.read_text(encoding="utf-8"))
    check_ledger(record, written)
    assert check_load_deals(record, written) == 4
    check_noise(record, 0.01)


def test_dealer_deal_on_two_machines_whose_lines_damage_five_percent_of_bytes(tmp_path: Path) -> None:
    deal_file, written = session(tmp_path, 2)
    ledgers = [tmp_path / "one.json", tmp_path / "two.json"]
    done = dealer("deal", str(deal_file), "--port", sim(0.05, 1, ledgers[0]), "--port", sim(0.05, 2, ledgers[1]),
                  "--journal", str(tmp_path / "j.db"), "--plain", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2/2 boards verified")
    records = [json.loads(path.read_text(encoding="utf-8")) for path in ledgers]
    dealt = {d["board_number"]: d["deal"] for r in records for d in r["dealings"] if d["cards"] == 52}
    assert dealt == written
    assert all(d["cards_before"] == 0 and d["turns"] == 0 for r in records for d in r["dealings"])
    assert sum(check_load_deals(r, written) for r in records) >= 2
    for record in records:
        check_noise(record, 0.05)
    assert "Traceback" not in done.stderr


def test_a_port_that_is_not_there_is_one_line_naming_it_once(tmp_path: Path) -> None:
    deal_file, _ = session(tmp_path, 2)
    missing = str(tmp_path / "ttyUSB7")
    done = dealer("deal", str(deal_file), "--port", missing, "--journal", str(tmp_path / "j.db"), cwd=tmp_path)
    assert done.returncode == 5, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last == (f"dealer: error: {missing}: cannot open the port: no such port "
                    "(2 boards left; continue with --resume)")
    assert "Errno" not in done.stderr and "Traceback" not in done.stderr
