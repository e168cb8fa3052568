"""The simulated machine without a pseudo-terminal: `dealer sim --tcp` serves it on a local TCP port that
`dealer deal --port socket://127.0.0.1:PORT` deals to, and the `dealing_machine` fixture hands out such a URL.
Runs on every system (the Windows and macOS jobs of CI run it too); nothing here needs a pty.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.journal.store import JobState, Journal
from hil import SimConfig, TcpSimulator
from hil.pytest_fixtures import DealingMachine
from tests.support.paths import ROOT

BOARDS = 16


@pytest.fixture
def served_on_tcp(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`dealer sim --tcp` in its own process, on a port the system picks; yields the URL it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--tcp", "--speed", "200", "--set", "A",
                             "--boards", f"1-{BOARDS}"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip(), proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def generate(tmp_path: Path) -> Path:
    deals = tmp_path / "session.pbn"
    assert main(["generate", "--boards", f"1-{BOARDS}", "-o", str(deals)]) == 0
    return deals


def verified(journal: Path) -> list[JobState]:
    with Journal.open(journal) as j:
        (run,) = j.runs()
        return [job.state for job in j.jobs(run.id)]


def test_dealer_deal_deals_16_boards_to_dealer_sim_on_tcp(
        served_on_tcp: tuple[str, subprocess.Popen[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, proc = served_on_tcp
    assert url.startswith("socket://127.0.0.1:") and int(url.rsplit(":", 1)[1]) > 0
    deals, journal = generate(tmp_path), tmp_path / "session.journal"
    capsys.readouterr()
    code = main(["deal", str(deals), "--port", url, "--set", "A", "--journal", str(journal), "--plain"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith(f"{BOARDS}/{BOARDS} boards verified")
    assert verified(journal) == [JobState.VERIFIED] * BOARDS
    assert proc.poll() is None  # the machine waits for the next host
    checked = main(["check", str(deals), "--port", url, "--set", "A", "--boards", "1-4"])
    assert checked == 0 and capsys.readouterr().out == "4/4 boards verified\n"  # it kept what it dealt


def test_dealer_check_against_another_sessions_file_asks_which_file_and_never_advises_a_redeal(
        served_on_tcp: tuple[str, subprocess.Popen[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = served_on_tcp
    deals = generate(tmp_path)
    assert main(["deal", str(deals), "--port", url, "--set", "A", "--plain"]) == 0
    tuesday = tmp_path / "tuesday.pbn"
    assert main(["generate", "--boards", f"1-{BOARDS}", "-o", str(tuesday)]) == 0
    capsys.readouterr()
    code = main(["check", str(tuesday), "--port", url, "--set", "A", "--boards", "1-4", "--plain"])
    out, err = capsys.readouterr()
    assert code == 8, err
    assert out == "0/4 boards verified\n"
    for board in range(1, 5):
        assert (f"board {board} holds a different deal from tuesday.pbn: is this the file and board set these "
                "boards were dealt from?") in err
    assert "boards 1, 2, 3, 4 hold deals that tuesday.pbn does not hold" in err.splitlines()[-1]
    assert "redeal the same deal" not in err and "swapped" not in err and "wrong pockets" not in err


def test_dealer_sim_refuses_a_port_that_is_no_port_number(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "dealer", "sim", "--tcp", "seventy"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "'seventy' is not a TCP port number" in done.stderr.splitlines()[-1]


@pytest.mark.dealing_machine(line="tcp", speed=200, set_name="A", boards=tuple(range(1, BOARDS + 1)))
def test_the_dealing_machine_fixture_hands_out_a_tcp_url(dealing_machine: DealingMachine, tmp_path: Path) -> None:
    assert dealing_machine.simulated and dealing_machine.url.startswith("socket://127.0.0.1:")
    deals, journal = generate(tmp_path), tmp_path / "fixture.journal"
    assert main(["deal", str(deals), "--port", dealing_machine.url, "--set", "A", "--journal", str(journal)]) == 0
    dealt = dealing_machine.dealt_labels()
    assert sorted(int(label.split(":")[1]) for label in dealt) == list(range(1, BOARDS + 1))
    assert set(dealt.values()) == {1}  # every board dealt once, into set A's boards
    assert all(label.startswith("A:") for label in dealt)


def test_an_unplugged_tcp_machine_refuses_the_port_and_takes_it_back_on_the_same_port() -> None:
    import serial

    with TcpSimulator(SimConfig(speed=200)) as sim:
        url = sim.path
        port = serial.serial_for_url(url, timeout=1)
        sim.unplug()
        with pytest.raises(serial.SerialException):  # the line is gone under the host: once what the machine
            for _ in range(50):                        # sent before it went (its Boot) is read, reading fails
                port.read(4096)
        port.close()
        with pytest.raises(serial.SerialException):
            serial.serial_for_url(url, timeout=1)  # and cannot be opened until it is plugged back in
        sim.replug()
        assert sim.path == url
        serial.serial_for_url(url, timeout=1).close()
