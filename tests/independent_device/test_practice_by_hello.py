"""Practice is decided by what a machine says in its Hello (the SIMULATED capability, PROTOCOL.md 7.4), never by
its port. Run as a new user runs `dealer deal`, with no deal history named, and judged by the history files
read with sqlite3 (not the host's reader):

- the independent device (written from PROTOCOL.md alone, it never says it is simulated) on a pseudo-terminal is
  a real machine: its deals are in the user's own deal history afterwards, none in a practice history;
- the simulated machine on a pseudo-terminal (as `dealer sim` serves it) is practice, as before: the user's own
  history holds none of its deals;
- the simulated machine on a TCP port (``socket://``, no pty) says it is simulated too: practice.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hil import PtySimulator, SimConfig
from hil.tcp_sim import TcpSimulator
from tests.support.independent_device.running import practice_env, running_device

pytestmark = pytest.mark.pty
BOARDS = 4


def new_user(folder: Path) -> dict[str, str]:
    """A user's environment with no deal history named: their own is in their data folder."""
    env = practice_env(folder)
    del env["DEALER_HISTORY"]
    return env


def dealer(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer", *args], env=env, capture_output=True, text=True,
                          timeout=300, check=False, cwd=cwd)


def deals_in(history: Path) -> int:
    """Rows in a deal history file (0 when there is no file)."""
    if not history.exists():
        return 0
    with sqlite3.connect(f"file:{history}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT COUNT(*) FROM deals").fetchone()[0])


def own_history(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "dealer" / "history.sqlite"


def session(env: dict[str, str], folder: Path) -> Path:
    path = folder / "session.pbn"
    made = dealer(env, "generate", "--boards", f"1-{BOARDS}", "-o", str(path), cwd=folder)
    assert made.returncode == 0, made.stderr
    return path


def test_a_machine_that_does_not_say_it_is_simulated_is_real_on_a_pty(tmp_path: Path) -> None:
    env = new_user(tmp_path)
    pbn = session(env, tmp_path)
    with running_device(tmp_path / "device", "--set", f"A:1-{BOARDS}") as machine:
        assert os.path.realpath(machine.port).startswith("/dev/pts/")
        run = dealer(env, "deal", str(pbn), "--port", machine.port, "--plain", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert deals_in(own_history(env)) == BOARDS
    assert deals_in(tmp_path / "simulated-history.sqlite") == 0
    assert "a real dealing machine (it does not say it is simulated)" in run.stderr
    assert str(own_history(env)) in run.stderr


def test_the_simulated_machine_on_a_pty_is_practice(tmp_path: Path) -> None:
    env = new_user(tmp_path)
    pbn = session(env, tmp_path)
    with PtySimulator(SimConfig(speed=200, boards=tuple(range(1, BOARDS + 1)))) as sim:
        run = dealer(env, "deal", str(pbn), "--port", sim.path, "--plain", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert deals_in(tmp_path / "simulated-history.sqlite") == BOARDS
    assert deals_in(own_history(env)) == 0


def test_the_simulated_machine_on_a_tcp_port_is_practice_too(tmp_path: Path) -> None:
    env = new_user(tmp_path)
    pbn = session(env, tmp_path)
    with TcpSimulator(SimConfig(speed=200, boards=tuple(range(1, BOARDS + 1)))) as sim:
        assert sim.path.startswith("socket://")
        run = dealer(env, "deal", str(pbn), "--port", sim.path, "--plain", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert deals_in(tmp_path / "simulated-history.sqlite") == BOARDS
    assert deals_in(own_history(env)) == 0
    assert "a simulated machine: its deals are kept in a practice history" in run.stderr
