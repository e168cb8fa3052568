"""`dealer ports --probe` finds every running `dealer sim` (each registers the port it serves while it runs)
and no simulator that has stopped or died; a port named that does not exist ends with exit code 5."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.dealing.ports import running_sims, sims_folder

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own register of running simulators, for it and the simulators it starts."""
    folder = tmp_path / "sims"
    monkeypatch.setenv("DEALER_SIMS", str(folder))
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])  # no serial port on this computer
    return folder


def start_sim(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--speed", "100", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> None:
    os.killpg(proc.pid, sig)
    proc.communicate(timeout=20)


def test_probe_finds_each_running_sim_and_none_once_stopped_or_killed(sims: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    first, port1 = start_sim(tmp_path, "--link", str(tmp_path / "one"))
    second, port2 = start_sim(tmp_path, "--tcp", "0", "--seed", "4")
    try:
        assert port1 == str(tmp_path / "one") and port2.startswith("socket://127.0.0.1:")
        assert main(["ports", "--probe", "--timeout", "5"]) == 0
        out = capsys.readouterr().out.splitlines()
    finally:
        stop(first)
        stop(second, signal.SIGKILL)  # a killed simulator removes nothing: its entry is found dead
    assert out[:2] == [f"{port1}: a simulated machine (dealer sim)", f"{port2}: a simulated machine (dealer sim)"]
    probed = [line for line in out[2:] if line]
    assert len(probed) == 2, out
    for port, line in zip((port1, port2), probed, strict=True):
        said = rf"{re.escape(port)}: simulated dealing machine \(practice\) SIM-[0-9A-F]{{8}}, firmware "
        assert re.match(said, line), line
    assert running_sims() == []
    assert list(sims.glob("*.port")) == []  # the stopped one removed its entry, the dead one's was removed
    assert main(["ports", "--probe"]) == 0
    assert capsys.readouterr().out.splitlines() == ["no serial ports found"]


def test_a_named_port_that_does_not_exist_exits_5_after_every_port_is_probed(
        sims: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "ttyUSB9"
    assert main(["ports", "--probe", "--timeout", "0.5", str(missing)]) == 5
    captured = capsys.readouterr()
    (line,) = [x for x in captured.out.splitlines() if x]
    assert line.startswith(f"{missing}: not a dealing machine here: cannot open the port")
    (error,) = captured.err.splitlines()
    assert error.startswith("dealer: error: ") and str(missing) in error and "cannot be opened" in error


def test_the_register_is_the_users_own_folder(sims: Path) -> None:
    assert sims_folder() == sims


def test_a_port_another_program_holds_is_said_in_use_not_missing(
        sims: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pty

    import serial

    primary, secondary = pty.openpty()
    name = os.ttyname(secondary)
    try:
        with serial.Serial(name, exclusive=True):  # another controller holds it
            assert main(["ports", "--probe", "--timeout", "0.5", name]) == 5
    finally:
        os.close(primary)
        os.close(secondary)
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x]
    assert line == f"{name}: the port is in use by another program"
