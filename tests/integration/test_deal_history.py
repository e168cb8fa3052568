"""Law 6D2 beyond one journal, through `dealer` as users run it, judged by the simulated machines' ledgers: a
deal file dealt, copied to another folder and dealt again is refused (exit 8) unless the event is a replay;
the same on a second computer once the first one's history is imported there; a plan names such sessions
and `dealer deal --plan` refuses them.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.dealing import sim_ports
from tests.support.controllers import deal_set, dealings

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")


@pytest.fixture(autouse=True)
def _stop_simulators() -> Iterator[None]:
    yield
    sim_ports.stop_all()


def deal(deal_file: Path, url: str, *extra: str) -> int:
    return main(["deal", str(deal_file), "--port", url, "--board-timeout", "60", "--quiet", *extra])


@pytest.fixture
def session(tmp_path: Path) -> Path:
    folder = tmp_path / "monday"
    folder.mkdir()
    path = folder / "session.pbn"
    formats.write_file(path, deal_set(31, 4))
    return path


def test_a_deal_file_copied_to_another_folder_is_refused_unless_a_replay(
        session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = "sim://?speed=200&seed=1"
    assert deal(session, first) == 0
    assert dealings(first) == 4
    copy = tmp_path / "tuesday" / "session.pbn"
    copy.parent.mkdir()
    shutil.copy(session, copy)
    capsys.readouterr()

    again = "sim://?speed=200&seed=2"
    assert deal(copy, again) == 8
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dealer: error: ")]
    assert len(err) == 1 and "Law 6D2" in err[0] and "F10" in err[0] and "boards 1-4" in err[0]
    assert f"{session}.journal" in err[0] and "--replay" in err[0]
    assert dealings(again) == 0  # refused before any machine was touched
    assert not Path(f"{copy}.journal").exists()  # and nothing was written: no journal, no run

    replay = "sim://?speed=200&seed=3"
    assert deal(copy, replay, "--replay") == 0
    assert dealings(replay) == 4
    assert "F10" in capsys.readouterr().err  # the replay is told what it deals again


def test_the_history_exported_on_one_computer_refuses_the_deals_on_another(
        session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = tmp_path / "one" / "history.sqlite", tmp_path / "two" / "history.sqlite"
    first = "sim://?speed=200&seed=4"
    for history in (one, two):
        history.parent.mkdir()
        assert main(["history", "init", str(history)]) == 0
    assert deal(session, first, "--history", str(one)) == 0
    exported = tmp_path / "one.json"
    assert main(["history", "export", str(exported), "--history", str(one)]) == 0
    assert main(["history", "import", str(exported), "--history", str(two)]) == 0
    assert "4 new deals" in capsys.readouterr().out

    copy = tmp_path / "elsewhere" / "session.pbn"
    copy.parent.mkdir()
    shutil.copy(session, copy)
    second = "sim://?speed=200&seed=5"
    assert deal(copy, second, "--history", str(two)) == 8
    assert "Law 6D2" in capsys.readouterr().err
    assert dealings(second) == 0
    assert deal(copy, second, "--history", str(two), "--replay") == 0
    assert dealings(second) == 4


def test_dealer_plan_names_a_session_the_history_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deals_file = tmp_path / "mon.pbn"
    formats.write_file(deals_file, deal_set(32, 2))
    assert deal(deals_file, "sim://?speed=200&seed=6") == 0  # dealt at the club, outside any plan
    plan = tmp_path / "congress.toml"
    plan.write_text('[event]\nname = "Test"\n\n[[machines]]\nname = "M1"\nport = "/dev/ttyUSB0"\n\n'
                    '[[sessions]]\nname = "MON"\nboards = "1-2"\n'
                    f'source = {{ file = "{deals_file.name}" }}\n\n[[sessions.sections]]\nname = "A"\n'
                    'sets = ["A"]\n')
    capsys.readouterr()
    assert main(["plan", str(plan)]) == 8
    out = capsys.readouterr().out
    (refused,) = [line for line in out.splitlines() if line.startswith("  - ")]
    assert "MON: F10" in refused and "Law 6D2" in refused and "replay = true" in refused
    assert main(["deal", "--plan", str(plan)]) == 8  # and the run refuses it before any machine is opened
    assert "Law 6D2" in capsys.readouterr().err
    plan.write_text(plan.read_text().replace('boards = "1-2"', 'boards = "1-2"\nreplay = true'))
    assert main(["plan", str(plan)]) == 0
    assert "note: F10" in capsys.readouterr().out


def test_a_run_that_dealt_nothing_records_nothing_and_the_file_deals_elsewhere(
        session: Path, tmp_path: Path, deal_history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped port: exit 5, no deal in the history; the same file then deals on a machine with another
    journal and the same history, and every deal is in the history once its dealing began."""
    from dealer.journal.history import DealHistory

    assert deal(session, "/dev/ttyNOPE9", "--journal", str(tmp_path / "typo.journal")) == 5
    with DealHistory.open(deal_history) as history:
        assert len(history) == 0
    url = "sim://?speed=200&seed=2"
    assert deal(session, url, "--journal", str(tmp_path / "right.journal")) == 0
    assert dealings(url) == 4
    with DealHistory.open(deal_history) as history:
        assert sorted(e.board for e in history.entries()) == [1, 2, 3, 4]


def test_a_board_whose_dealing_began_stays_recorded_when_the_run_stops(
        session: Path, tmp_path: Path, deal_history: Path) -> None:
    """A machine whose rack holds boards 1 and 2 only, and an operator who never brings board 3: the run stops
    waiting for it; boards 1 and 2 began (recorded), boards 3 and 4 never did."""
    from dealer.journal.history import DealHistory
    from hil import PtySimulator, SimConfig

    sim = PtySimulator(SimConfig(speed=200, seed=3, set_name="A", boards=(1, 2)), link=tmp_path / "machine")
    sim.start()
    try:
        code = main(["deal", str(session), "--port", sim.path, "--board-timeout", "2", "--quiet",
                     "--journal", str(tmp_path / "s.journal")])
    finally:
        sim.stop()
    assert code == 5
    with DealHistory.open(deal_history) as history:
        assert sorted(e.board for e in history.entries()) == [1, 2]
