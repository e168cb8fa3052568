"""`python -m hil` and `dealer sim` as a user runs them, and examples/one_board.py against `dealer sim`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dealer.cli import main
from hil.scenarios import SCENARIOS

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

ROOT = Path(__file__).resolve().parents[2]
ENV = {**{k: v for k, v in os.environ.items() if k != "DEALER_SKIP_POLICY"}, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}
"""The environment of the commands run here; pytest runs inside them judge their own skips (a rig skips what
it lacks), so CI's skip policy is not passed on."""


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    return proc.returncode, err


@pytest.mark.parametrize("command", [["-m", "hil"], ["-m", "dealer", "sim"]], ids=["python -m hil", "dealer sim"])
def test_the_simulator_prints_its_port_first_and_stops_cleanly_on_sigterm(command: list[str], tmp_path: Path) -> None:
    link = tmp_path / "machine"
    proc = start(*command, "--speed", "100", "--link", str(link), cwd=tmp_path)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first == str(link)
        assert os.path.islink(first) and os.readlink(first).startswith(f"/proc/{proc.pid}/fd/")
        assert os.path.realpath(first).startswith("/dev/pts/")  # the process's own descriptor of its pty
    finally:
        code, err = stop(proc)
    assert code == 0, err
    assert not os.path.lexists(link)
    assert "stopped" in err and "Traceback" not in err


def test_a_killed_simulators_stale_link_reaches_no_other_simulator(tmp_path: Path) -> None:
    """SIGKILL leaves the link behind, and the kernel hands the dead pty's number to the next simulator:
    the stale link must reach nothing, never that other machine."""
    stale = tmp_path / "killed"
    killed = start("-m", "dealer", "sim", "--speed", "100", "--link", str(stale), cwd=tmp_path)
    assert killed.stdout is not None and killed.stdout.readline().strip() == str(stale)
    pty_of_killed = os.path.realpath(stale)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=20)
    assert os.path.islink(stale)  # a killed process removes nothing
    after = start("-m", "dealer", "sim", "--speed", "100", "--link", str(tmp_path / "next"), cwd=tmp_path)
    try:
        assert after.stdout is not None
        next_pty = os.path.realpath(after.stdout.readline().strip())
        assert next_pty.startswith("/dev/pts/")
        with pytest.raises(FileNotFoundError):
            os.open(stale, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    finally:
        stop(after)
    print(f"killed simulator's pty {pty_of_killed}, the next one's {next_pty}")


def test_the_default_link_is_an_absolute_path_that_exists(tmp_path: Path) -> None:
    proc = start("-m", "dealer", "sim", "--speed", "100", cwd=tmp_path)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert os.path.isabs(first) and os.path.exists(first)
    finally:
        code, _ = stop(proc)
    assert code == 0 and not os.path.lexists(first)


def test_a_bad_fault_plan_is_one_line_and_exit_3_as_every_file_refused(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('[{"kind": "jam", "card": 99, "board": 1}]')
    proc = subprocess.run([sys.executable, "-m", "dealer", "sim", "--faults", str(plan)], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 3
    assert proc.stderr.strip().splitlines() == [f"dealer: error: fault plan {plan}: fault 1 (jam): "
                                                "card must be 1..52, got 99"]


def test_faults_are_reported_on_stderr_as_they_fire(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"faults": [{"kind": "jam", "board": 1, "card": 5}]}')
    link = tmp_path / "machine"
    proc = start("-m", "hil", "--speed", "50", "--faults", str(plan), "--link", str(link), cwd=tmp_path)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        example = subprocess.run([sys.executable, str(ROOT / "examples" / "one_board.py"), str(link)], env=ENV,
                                 capture_output=True, text=True, timeout=60)
        assert example.returncode == 1 and "fault while dealing" in example.stderr  # sys.exit(message)
    finally:
        _, err = stop(proc)
    assert "dealer sim: fault: jam at board 1 card 5" in err


def test_dealer_sim_help_lists_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["sim", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for option in ("--faults", "--speed", "--set", "--boards", "--copies", "--seed", "--link"):
        assert option in text


def test_the_one_board_example_deals_a_board_through_dealer_sim(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "one_board.py")], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert re.match(r"handshake: SIM-[0-9A-F]{8}\b", lines[1]), lines[1]
    assert lines[2] == "scan: label 'A:1:N0:4'"
    assert lines[-1] == "recount: every card in its pocket (13, 13, 13, 13); board ejected"


def test_the_one_board_example_names_a_port_it_cannot_open_in_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "one_board.py"), str(tmp_path / "machine")],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"cannot open the machine's port {tmp_path / 'machine'}: "
                                        "No such file or directory"]


def test_the_hardware_scenarios_rehearse_against_a_served_simulator(tmp_path: Path) -> None:
    link = tmp_path / "machine"
    proc = start("-m", "hil", "--speed", "100", "--link", str(link), cwd=tmp_path)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "hardware",
                              str(ROOT / "tests" / "hardware"), "--machine-port", str(link), "-rs"],
                             cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    finally:
        stop(proc)
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"1 passed, {len(SCENARIOS) - 1} skipped" in run.stdout
    assert "the rig is not prepared for jam: a card that jams (a bent card placed in the pack)" in run.stdout


def test_without_a_machine_port_the_hardware_tests_run_against_the_simulator() -> None:
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "-k", "clean",
                          str(ROOT / "tests" / "hardware")], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    others = len(SCENARIOS) - 1 + 1  # the other scenarios, and the three files on one machine
    assert f"1 passed, {others} deselected" in run.stdout and "skipped" not in run.stdout
