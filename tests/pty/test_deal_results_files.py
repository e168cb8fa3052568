"""`dealer deal` on results files, on the built-in simulated machine (``sim://``): a file that repeats a
board number per table deals each board once, as the machine's ledger shows; a file with two different
deals under one number, or a partial deal, is refused before any journal exists."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.dealing import sim_ports
from dealer.journal.store import JobState, Journal
from firmware_protocol.labels import BoardLabel

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

RESULTS = Path(__file__).resolve().parents[1] / "data" / "results-pbn"
PORT = "sim://?speed=200&seed=3"


@pytest.fixture(autouse=True)
def _stop_simulators() -> Iterator[None]:
    yield
    sim_ports.stop_all()


def test_a_results_file_deals_each_board_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.db"
    source = RESULTS / "eytc-1998-teams.pbn"  # boards 1-4, each in two games
    assert main(["deal", str(source), "--port", PORT, "--journal", str(journal), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "boards 1-4 appear 2 times each with the same deal; each kept once" in captured.err
    assert captured.out.startswith("4/4 boards verified")
    (sim,) = sim_ports.simulators().values()
    with sim.lock:
        assert sim.device is not None
        dealt = sim.device.ledger.dealt_labels()
    assert dealt == {BoardLabel.for_board("A", b).payload(): 1 for b in (1, 2, 3, 4)}
    with Journal.open(journal) as j:
        states = [job.state for job in j.jobs(j.runs()[0].id)]
    assert states == [JobState.VERIFIED] * 4


def test_two_deals_under_one_number_are_refused_before_the_journal(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text = (RESULTS / "eytc-1998-teams.pbn").read_text()
    games = text.split("\n\n")
    source = tmp_path / "two-sets.pbn"
    source.write_text("\n\n".join([*games[:2], games[2].replace('[Board "2"]', '[Board "1"]')]) + "\n")
    journal = tmp_path / "j.db"
    assert main(["deal", str(source), "--port", PORT, "--journal", str(journal)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "board 1 comes with different deals" in err and "Traceback" not in err
    assert not journal.exists()
    assert sim_ports.simulators() == {}
