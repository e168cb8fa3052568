"""Practice keeps its own deal history, through `dealer` as a user runs it on a computer whose home is a
temporary folder (no ``DEALER_HISTORY``): `dealer deal` on simulated machines only says so once and keeps its
deals beside its journal, never in this computer's history; a history named on the command line is used
as named. `dealer history list` names each run, and `dealer history forget` asks before it removes one
run's entries, on a terminal, and says what it removed.
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from dealer import formats
from dealer.journal.history import DealHistory
from tests.support.controllers import deal_set
from tests.support.processes import ENV, run, stop_group

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")

NOTE = "practice run: its deals are kept in a practice history"


@pytest.fixture
def computer(tmp_path: Path) -> Mapping[str, str]:
    """A computer whose user's home is a temporary folder, with no deal history named."""
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in ENV.items() if key != "DEALER_HISTORY"}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")}


def dealer(env: Mapping[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "dealer", *args], cwd=cwd, env=env)


def club_history(env: Mapping[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "dealer" / "history.sqlite"


def session(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "session.pbn"
    formats.write_file(path, deal_set(41, 3))
    return path


def test_dealing_on_simulated_machines_keeps_the_deals_beside_the_journal_not_in_the_club_history(
        tmp_path: Path, computer: Mapping[str, str]) -> None:
    monday = session(tmp_path / "monday")
    done = dealer(computer, "deal", str(monday), "--port", "sim://?speed=100", "--plain", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count(NOTE) == 1
    assert f"({tmp_path / 'monday' / 'simulated-history.sqlite'}), not the club's" in done.stderr
    with DealHistory.open(tmp_path / "monday" / "simulated-history.sqlite") as practice:
        assert [r.run_name for r in practice.runs()] == ["session"] and len(practice) == 3
    assert not club_history(computer).exists()

    tuesday = tmp_path / "tuesday"  # the same deals dealt again elsewhere: practice again, its own history
    tuesday.mkdir()
    shutil.copy(monday, tuesday / "session.pbn")
    again = dealer(computer, "deal", "tuesday/session.pbn", "--port", "sim://?speed=100", "--plain", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    assert not club_history(computer).exists()


def test_dealing_on_a_machine_dealer_sim_serves_is_practice_too(tmp_path: Path, computer: Mapping[str, str]) -> None:
    """`dealer sim` serves its machine on a pseudo-terminal (here through its link ./machine), which no real
    machine's serial port is."""
    deals = session(tmp_path / "bench")
    sim = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--speed", "100", "--link", "machine"],
                           cwd=tmp_path / "bench", env=dict(computer), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert sim.stdout is not None
        port = sim.stdout.readline().strip()  # the first line printed is the port, once it can be opened
        assert port.endswith("machine"), port
        done = dealer(computer, "deal", deals.name, "--port", port, "--plain", cwd=tmp_path / "bench")
    finally:
        stop_group(sim)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count(NOTE) == 1
    with DealHistory.open(tmp_path / "bench" / "simulated-history.sqlite") as practice:
        assert len(practice) == 3
    assert not club_history(computer).exists()


def test_a_history_named_on_the_command_line_is_the_one_a_practice_run_uses(
        tmp_path: Path, computer: Mapping[str, str]) -> None:
    deals = session(tmp_path / "club")
    DealHistory.open(tmp_path / "named.sqlite", create=True).close()
    done = dealer(computer, "deal", str(deals), "--port", "sim://?speed=100", "--plain",
                  "--history", str(tmp_path / "named.sqlite"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert NOTE not in done.stderr
    assert not (tmp_path / "club" / "simulated-history.sqlite").exists()
    with DealHistory.open(tmp_path / "named.sqlite") as named:
        assert len(named) == 3


def forget_on_a_terminal(env: Mapping[str, str], history: Path, run_number: str, answer: str) -> str:
    """`dealer history forget` on a pseudo-terminal, answering its question with `answer`; what it showed."""
    main, secondary = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "dealer", "history", "forget", run_number, "--history",
                                 str(history)], stdin=secondary, stdout=secondary, stderr=secondary, env=dict(env),
                                start_new_session=True)
        os.close(secondary)
        shown = b""
        while b"[y/N]" not in shown:
            chunk = os.read(main, 4096)
            assert chunk, shown
            shown += chunk
        os.write(main, answer.encode() + b"\n")
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed as the process ended
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(timeout=60) == 0, shown
    finally:
        os.close(main)
    return shown.decode()


def test_history_list_names_each_run_and_forget_asks_then_removes_one_run(
        tmp_path: Path, computer: Mapping[str, str]) -> None:
    history = tmp_path / "h.sqlite"
    with DealHistory.open(history, create=True) as h:
        h.record(deal_set(5, 4), run_uid="1a2b3c4d5e6f", run_name="tuesday", journal=tmp_path / "t.journal")
        h.record(deal_set(6, 2), run_uid="9f8e7d6c5b4a", run_name="practice", journal=tmp_path / "p.journal")
    listed = dealer(computer, "history", "list", "--history", str(history), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"deal history {history}: 6 deals of 2 runs"
    assert lines[1].startswith(f"  1a2b3c4d  run tuesday of journal {tmp_path / 't.journal'} (host ")
    assert lines[1].endswith(" UTC): 4 deals") and lines[2].endswith(" UTC): 2 deals")

    unasked = dealer(computer, "history", "forget", "9f8e7d6c", "--history", str(history), cwd=tmp_path)
    assert unasked.returncode == 2 and "give --yes to forget it without being asked" in unasked.stderr

    kept = forget_on_a_terminal(computer, history, "9f8e7d6c", "n")
    assert "forget run practice of journal" in kept and "nothing forgotten" in kept
    with DealHistory.open(history) as h:
        assert len(h) == 6

    gone = forget_on_a_terminal(computer, history, "9f8e", "y")
    assert f"forgot run practice of journal {tmp_path / 'p.journal'}" in gone
    assert f"2 deals removed from the deal history {history}" in gone
    with DealHistory.open(history) as h:
        assert [r.run_name for r in h.runs()] == ["tuesday"]

    unknown = dealer(computer, "history", "forget", "9f8e7d6c", "--yes", "--history", str(history), cwd=tmp_path)
    assert unknown.returncode == 2 and f"{history}: no run 9f8e7d6c in this deal history" in unknown.stderr
    yes = dealer(computer, "history", "forget", "1a2b3c4d", "--yes", "--history", str(history), cwd=tmp_path)
    assert yes.returncode == 0 and "4 deals removed" in yes.stdout


def test_reading_this_computers_history_makes_none(tmp_path: Path, computer: Mapping[str, str]) -> None:
    for command in (["history"], ["history", "list"]):
        shown = dealer(computer, *command, cwd=tmp_path)
        assert shown.returncode == 0 and "none yet" in shown.stdout, shown.stderr
    assert not club_history(computer).exists()


def test_the_consoles_check_of_a_run_on_simulated_machines_says_it_is_practice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer.serve.machines import Offer
    from dealer.serve.sources import RunRequest, check

    monkeypatch.delenv("DEALER_HISTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    deals = session(tmp_path / "work")
    checked = check(RunRequest(deals, ports=("sim://?seed=1",)), deals.parent, Offer(deals.parent))
    assert not checked.problems, checked.problems
    shown = checked.to_dict()["lines"]
    assert sum(NOTE in line for line in shown) == 1, shown
    assert checked.history == deals.parent / "simulated-history.sqlite" and checked.history.is_file()
    assert not (tmp_path / "share" / "dealer").exists()


def test_a_program_dealing_on_simulated_machines_through_the_library_is_practice_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As docs/make_images.py and the guide's test_jam.py deal: `deal_session` with no history given."""
    import io

    from dealer.dealing import sim_ports
    from dealer.dealing.context import RunLimits
    from dealer.dealing.run import RunOptions, deal_session

    monkeypatch.delenv("DEALER_HISTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    out = io.StringIO()
    try:
        result = deal_session(deal_set(43, 2), "practice.pbn",
                              RunOptions(ports=["sim://?speed=100"], journal=tmp_path / "lib" / "p.journal", out=out,
                                         limits=RunLimits(board_timeout=60, deal_timeout=60)))
    finally:
        sim_ports.stop_all()
    assert result.complete
    assert out.getvalue().count(NOTE) == 1
    with DealHistory.open(tmp_path / "lib" / "simulated-history.sqlite") as practice:
        assert len(practice) == 2
    assert not (tmp_path / "share" / "dealer").exists()
