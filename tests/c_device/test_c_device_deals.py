"""`dealer deal` deals a 16-board session to the example C device (`firmware_protocol/c/examples/
pty_device.c`) through a pseudo-terminal, the path a real machine's port would have: the host and a device
written apart, meeting only on the wire.

Judged by what the device itself holds at the end (its `--dump` of every board's pockets, read against the
deal file) as well as by the host's journal.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.journal.store import JobState, Journal
from tests.support.c_build import CBuilds, sanitizer_report
from tests.support.c_device import DeviceProcess
from tests.support.deals import random_deals
from tests.support.paths import ROOT

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}


def dealer(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`python -m dealer ARGS` to its end, in its own session (killed with its group if it overruns)."""
    proc = subprocess.Popen([sys.executable, "-m", "dealer", *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def read_dump(path: Path) -> dict[str, list[list[int]]]:
    """The device's boards: label -> the card indices in each pocket N E S W."""
    boards = {}
    for line in path.read_text().splitlines():
        label, *pockets = line.split(" ")
        boards[label] = [[] if p == "-" else [int(c) for c in p.split(",")] for p in pockets]
    return boards


def test_dealer_deal_deals_a_sixteen_board_session_to_the_c_device(c_builds: CBuilds, tmp_path: Path) -> None:
    session = tmp_path / "session.pbn"
    formats.write_file(session, DealSet.from_deals(random_deals(23, 16), range(1, 17)))
    journal, dump = tmp_path / "session.journal", tmp_path / "boards.txt"
    device = DeviceProcess(c_builds("pty_device"), ["--set", "A", "--boards", "1-16", "--dump", str(dump)],
                           tmp_path / "machine")
    try:
        dealt = dealer("deal", str(session), "--port", device.path, "--journal", str(journal), cwd=tmp_path)
    finally:
        code, err = device.stop()
    assert code == 0 and not sanitizer_report(err), err[-3000:]
    assert dealt.returncode == 0, dealt.stderr[-3000:]
    assert dealt.stdout.startswith("16/16 boards verified") and "Traceback" not in dealt.stderr

    with Journal.open(journal) as j:
        (run,) = j.runs()
        assert [job.state for job in j.jobs(run.id)] == [JobState.VERIFIED] * 16
        assert j.check_consistency(run.id) == []

    # what the machine holds: each board's pockets are its deal from the file, every card once
    assert oct(dump.stat().st_mode & 0o777) == "0o600"
    boards = read_dump(dump)
    deals = formats.read_file(session)
    assert len(boards) == 16
    for label, pockets in boards.items():
        number = int(label.split(":")[1])
        seats = deals.deals[list(deals.boards).index(number)]
        assert sorted(c for p in pockets for c in p) == list(range(52)), label
        assert all(seats[c] == s for s, pocket in enumerate(pockets) for c in pocket), label


def test_boards_of_another_set_are_refused_and_nothing_is_dealt_into_them(c_builds: CBuilds,
                                                                          tmp_path: Path) -> None:
    session = tmp_path / "session.pbn"
    formats.write_file(session, DealSet.from_deals(random_deals(24, 2), [1, 2]))
    dump = tmp_path / "boards.txt"
    device = DeviceProcess(c_builds("pty_device"), ["--set", "B", "--boards", "1-2", "--dump", str(dump)],
                           tmp_path / "machine")
    try:
        dealt = dealer("deal", str(session), "--port", device.path, "--journal", str(tmp_path / "j.db"),
                       cwd=tmp_path)
    finally:
        code, err = device.stop()
    assert code == 0 and not sanitizer_report(err), err[-3000:]
    assert dealt.returncode != 0 and dealt.stdout.startswith("0/2 boards verified"), dealt.stderr[-3000:]
    assert "REFUSED F8 wrong board" in dealt.stderr and "Traceback" not in dealt.stderr
    assert all(pockets == [[], [], [], []] for pockets in read_dump(dump).values())


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_board_put_in_turned_is_reported_refused_and_dealt_straight(c_builds: CBuilds, tmp_path: Path,
                                                                      turns: int) -> None:
    # the operator puts board 2 in turned `turns` quarter turns the first time; the reader reads its label
    # on whichever side it lies and reports the turns (PROTOCOL.md 7.2): the host refuses it (F6) and asks
    # for it again, and the operator puts it in straight
    session = tmp_path / "session.pbn"
    formats.write_file(session, DealSet.from_deals(random_deals(40 + turns, 3), [1, 2, 3]))
    dump = tmp_path / "boards.txt"
    device = DeviceProcess(c_builds("pty_device"), ["--set", "A", "--boards", "1-3", "--turn", f"2:{turns}",
                                                    "--dump", str(dump), "--verbose"], tmp_path / "machine")
    try:
        dealt = dealer("deal", str(session), "--port", device.path, "--journal", str(tmp_path / "j.db"),
                       cwd=tmp_path)
    finally:
        code, err = device.stop()
    assert code == 0 and not sanitizer_report(err), err[-3000:]
    assert f"pty_device: board in turned {turns}" in err
    assert dealt.returncode == 0 and dealt.stdout.startswith("3/3 boards verified"), dealt.stderr[-3000:]
    assert "boards refused 1" in dealt.stdout and "F6" in dealt.stdout, dealt.stdout
    deals = formats.read_file(session)
    for label, pockets in read_dump(dump).items():
        seats = deals.deals[list(deals.boards).index(int(label.split(":")[1]))]
        assert all(seats[c] == s for s, pocket in enumerate(pockets) for c in pocket), label


@pytest.mark.parametrize(("fault", "where", "seen"), [("--jam", "2:20", "machine faults 1"),
                                                     ("--misfeed", "1:5", "machine faults 1"),
                                                     ("--power-cut", "2:26", "boot id 2")])
def test_a_fault_of_the_bench_is_met_and_every_board_dealt_once(c_builds: CBuilds, tmp_path: Path, fault: str,
                                                                where: str, seen: str) -> None:
    session = tmp_path / "session.pbn"
    formats.write_file(session, DealSet.from_deals(random_deals(50 + len(fault), 3), [1, 2, 3]))
    dump, journal = tmp_path / "boards.txt", tmp_path / "j.db"
    device = DeviceProcess(c_builds("pty_device"), ["--set", "A", "--boards", "1-3", fault, where, "--dump",
                                                    str(dump), "--verbose"], tmp_path / "machine")
    try:
        dealt = dealer("deal", str(session), "--port", device.path, "--journal", str(journal), cwd=tmp_path)
    finally:
        code, err = device.stop()
    assert code == 0 and not sanitizer_report(err), err[-3000:]
    assert dealt.returncode == 0 and dealt.stdout.startswith("3/3 boards verified"), dealt.stderr[-3000:]
    assert seen in dealt.stdout + err
    with Journal.open(journal) as j:
        (run,) = j.runs()
        verified = sorted(job.board for job in j.jobs(run.id) if job.state is JobState.VERIFIED)
        assert verified == [1, 2, 3]
    deals = formats.read_file(session)
    for label, pockets in read_dump(dump).items():
        seats = deals.deals[list(deals.boards).index(int(label.split(":")[1]))]
        assert sorted(c for p in pockets for c in p) == list(range(52)), label
        assert all(seats[c] == s for s, pocket in enumerate(pockets) for c in pocket), label


def test_boards_dealt_then_put_back_turned_are_named_turned_by_dealer_check(c_builds: CBuilds, tmp_path: Path) -> None:
    """Boards 1, 2 and 3 dealt straight, then put in for `dealer check` turned 1, 2 and 3 quarter turns (the
    second time each goes in): each is named turned, in words, and asked for again; put in straight, its
    hands are where the file has them. Never "hands in the wrong pockets" for a board that holds its deal."""
    session = tmp_path / "session.pbn"
    formats.write_file(session, DealSet.from_deals(random_deals(47, 3), [1, 2, 3]))
    device = DeviceProcess(c_builds("pty_device"), ["--set", "A", "--boards", "1-3", "--turn", "1:1:2",
                                                    "--turn", "2:2:2", "--turn", "3:3:2", "--verbose"],
                           tmp_path / "machine")
    try:
        dealt = dealer("deal", str(session), "--port", device.path, "--journal", str(tmp_path / "j.db"),
                       cwd=tmp_path)
        checked = dealer("check", str(session), "--port", device.path, "--plain", cwd=tmp_path)
    finally:
        code, err = device.stop()
    assert code == 0 and not sanitizer_report(err), err[-3000:]
    assert dealt.returncode == 0 and dealt.stdout.startswith("3/3 boards verified"), dealt.stderr[-3000:]
    assert [f"pty_device: board in turned {k}" in err for k in (1, 2, 3)] == [True] * 3
    told = checked.stdout + checked.stderr
    assert checked.returncode == 0, told[-3000:]
    for board, words in ((1, "a quarter anticlockwise"), (2, "half round"), (3, "a quarter clockwise")):
        assert f"board {board} lies turned {words}" in told, told[-3000:]
    assert told.count("REFUSED F6 board turned (Law 6D1/6F, Law 87)") == 3, told[-3000:]
    assert "wrong pocket" not in told, told[-3000:]  # the hands are where the file has them


def test_the_example_says_it_is_simulated_and_a_real_build_does_not(c_builds: CBuilds, tmp_path: Path) -> None:
    """PROTOCOL.md 7.4: the example machine deals no cards and announces SIMULATED; built with
    MACHINE_REAL_MECHANISM (as a build driving a real mechanism is) it does not."""
    from dealer.dealing.machine import Machine
    from tests.support.c_build import build

    real = build("pty_device", tmp_path, extra_flags=("-DMACHINE_REAL_MECHANISM",))
    said = {}
    for name, program in (("example", c_builds("pty_device")), ("real build", real)):
        device = DeviceProcess(program, ["--set", "A", "--boards", "1-4"], tmp_path / name)
        try:
            machine = Machine(device.path)
            try:
                said[name] = machine.connect().simulated
            finally:
                machine.close()
        finally:
            code, err = device.stop()
        assert code == 0 and not sanitizer_report(err), err[-3000:]
    assert said == {"example": True, "real build": False}
