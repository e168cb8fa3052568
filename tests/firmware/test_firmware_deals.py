"""`dealer deal` to the C machine's firmware running on an emulated Cortex-M0 (QEMU's ``microbit``, an
nRF51): its UART on a pseudo-terminal, its interrupts, its SysTick, its flash. Judged by the journal and by
the firmware's own record of every board's pockets, read back from the board's RAM over QEMU's machine
protocol, against the deal file.
"""

from __future__ import annotations

import os
import random
import select
import termios
import threading
import tty
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.journal.store import JobState, Journal
from hil.qemu import FirmwareMachine
from tests.support.deals import random_deals
from tests.support.firmware import MachineFactory
from tests.support.processes import dealer


def write_session(path: Path, seed: int, boards: int) -> DealSet:
    deals = DealSet.from_deals(random_deals(seed, boards), range(1, boards + 1))
    formats.write_file(path, deals)
    return formats.read_file(path)


def assert_boards_hold_their_deals(machine: FirmwareMachine, deals: DealSet) -> None:
    """What the firmware holds: each board's pockets are its deal from the file, every card once."""
    boards = machine.boards()
    assert len(boards) == len(deals.boards)
    for label, pockets in boards.items():
        number = int(label.split(":")[1])
        seats = deals.deals[list(deals.boards).index(number)]
        assert sorted(c for p in pockets for c in p) == list(range(52)), label
        assert all(seats[c] == s for s, pocket in enumerate(pockets) for c in pocket), label


def assert_each_board_verified_once(journal: Path, boards: int) -> None:
    with Journal.open(journal) as j:
        (run,) = j.runs()
        jobs = j.jobs(run.id)
        verified = sorted(job.board for job in jobs if job.state is JobState.VERIFIED)
        assert verified == list(range(1, boards + 1)), [(job.board, job.state) for job in jobs]
        assert j.check_consistency(run.id) == []


def test_dealer_deal_deals_sixteen_boards_to_the_firmware(firmware_machine: MachineFactory, tmp_path: Path) -> None:
    deals = write_session(tmp_path / "session.pbn", 31, 16)
    machine = firmware_machine(["--set", "A", "--boards", "1-16"])
    dealt = dealer("deal", "session.pbn", "--port", machine.path, "--journal", "j.db", cwd=tmp_path, timeout=120)
    assert dealt.returncode == 0, dealt.stderr[-3000:]
    assert dealt.stdout.startswith("16/16 boards verified") and "Traceback" not in dealt.stderr
    assert_each_board_verified_once(tmp_path / "j.db", 16)
    assert_boards_hold_their_deals(machine, deals)
    assert 0 < machine.deepest_stack() < 2048  # measured: the painted stack's untouched part


def test_a_power_cut_mid_deal_the_run_carries_on_every_board_dealt_once(firmware_machine: MachineFactory,
                                                                        tmp_path: Path) -> None:
    deals = write_session(tmp_path / "session.pbn", 32, 6)
    # the firmware cuts its own power (a system reset of the whole chip) at card 20 of board 3
    machine = firmware_machine(["--set", "A", "--boards", "1-6", "--power-cut", "3:20"], verbose=True)
    dealt = dealer("deal", "session.pbn", "--port", machine.path, "--journal", "j.db", cwd=tmp_path, timeout=120)
    log = "".join(machine.lines)
    assert dealt.returncode == 0, dealt.stderr[-3000:] + log[-3000:]
    assert dealt.stdout.startswith("6/6 boards verified")
    assert "firmware: power cut at card 20" in log and "firmware: boot id 2" in log
    assert_each_board_verified_once(tmp_path / "j.db", 6)
    assert_boards_hold_their_deals(machine, deals)


def test_a_reset_from_outside_while_dealing_the_run_carries_on(firmware_machine: MachineFactory,
                                                               tmp_path: Path) -> None:
    deals = write_session(tmp_path / "session.pbn", 33, 4)
    # 20 ms a card: board 2 takes about a second to deal, and QEMU resets the board while it is dealt
    machine = firmware_machine(["--set", "A", "--boards", "1-4", "--card-ms", "20"], verbose=True)
    cut = threading.Thread(target=lambda: machine.wait_for_line("dealing board 2") and machine.power_cut())
    cut.start()
    try:
        dealt = dealer("deal", "session.pbn", "--port", machine.path, "--journal", "j.db", cwd=tmp_path,
                       timeout=120)
    finally:
        cut.join()
    log = "".join(machine.lines)
    assert dealt.returncode == 0, dealt.stderr[-3000:] + log[-3000:]
    assert "firmware: boot id 2" in log
    assert_each_board_verified_once(tmp_path / "j.db", 4)
    assert_boards_hold_their_deals(machine, deals)


def test_a_jam_and_a_misfeed_are_caught_and_put_right(firmware_machine: MachineFactory, tmp_path: Path) -> None:
    deals = write_session(tmp_path / "session.pbn", 34, 4)
    machine = firmware_machine(["--set", "A", "--boards", "1-4", "--jam", "2:20", "--misfeed", "3:5"],
                               verbose=True)
    dealt = dealer("deal", "session.pbn", "--port", machine.path, "--journal", "j.db", cwd=tmp_path, timeout=120)
    log = "".join(machine.lines)
    assert dealt.returncode == 0, dealt.stderr[-3000:] + log[-3000:]
    assert dealt.stdout.startswith("4/4 boards verified")
    assert "machine faults 2" in dealt.stdout, dealt.stdout
    assert "firmware: dealing again, board 2" in log  # the jam: the path cleared, the same dealing resumed
    assert log.count("firmware: dealing board 3") == 2  # the misfeed: aborted, emptied, dealt again
    assert_each_board_verified_once(tmp_path / "j.db", 4)
    assert_boards_hold_their_deals(machine, deals)


class NoisyRelay:
    """A pseudo-terminal for the host, joined to the firmware's by a thread that damages `rate` of the
    bytes each way (half dropped, half replaced by another byte)."""

    def __init__(self, far: str, link: Path, rate: float, seed: int) -> None:
        self._far = os.open(far, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self._far, termios.TCSANOW)
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave, termios.TCSANOW)
        link.symlink_to(os.ttyname(self._slave))
        self.path = str(link)
        self._rate, self._random = rate, random.Random(seed)
        self.damaged = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="noisy-relay")
        self._thread.start()

    def _damage(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            if self._random.random() >= self._rate:
                out.append(byte)
                continue
            self.damaged += 1
            if self._random.random() < 0.5:
                out.append((byte + self._random.randrange(1, 256)) % 256)
        return bytes(out)

    def _run(self) -> None:
        ends = {self._master: self._far, self._far: self._master}
        while not self._stop.is_set():
            ready, _, _ = select.select(list(ends), [], [], 0.05)
            for fd in ready:
                try:
                    data = os.read(fd, 512)
                except OSError:  # the host closed its end for a moment
                    continue
                if data:
                    os.write(ends[fd], self._damage(data))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for fd in (self._master, self._slave, self._far):
            os.close(fd)


@pytest.mark.slow
def test_five_percent_byte_noise_between_firmware_and_host(firmware_machine: MachineFactory,
                                                           tmp_path: Path) -> None:
    deals = write_session(tmp_path / "session.pbn", 35, 4)
    machine = firmware_machine(["--set", "A", "--boards", "1-4"])
    relay = NoisyRelay(machine.pty, tmp_path / "noisy", 0.05, seed=7)
    try:
        dealt = dealer("deal", "session.pbn", "--port", relay.path, "--journal", "j.db", cwd=tmp_path,
                       timeout=240)
    finally:
        relay.close()
    assert dealt.returncode == 0, dealt.stderr[-3000:]
    assert dealt.stdout.startswith("4/4 boards verified")
    assert relay.damaged > 100  # the line really was noisy
    assert_each_board_verified_once(tmp_path / "j.db", 4)
    assert_boards_hold_their_deals(machine, deals)


def test_the_firmware_silent_for_a_while_the_run_carries_on(firmware_machine: MachineFactory,
                                                           tmp_path: Path) -> None:
    deals = write_session(tmp_path / "session.pbn", 37, 3)
    # at card 10 of board 2 the firmware neither sends nor hears anything for 3 s, dealing on meanwhile
    machine = firmware_machine(["--set", "A", "--boards", "1-3", "--silence", "2:10:3000"], verbose=True)
    dealt = dealer("deal", "session.pbn", "--port", machine.path, "--journal", "j.db", cwd=tmp_path, timeout=120)
    log = "".join(machine.lines)
    assert dealt.returncode == 0, dealt.stderr[-3000:] + log[-3000:]
    assert dealt.stdout.startswith("3/3 boards verified")
    assert "firmware: silent for ms 3000" in log and "firmware: speaking again" in log
    assert_each_board_verified_once(tmp_path / "j.db", 3)
    assert_boards_hold_their_deals(machine, deals)
