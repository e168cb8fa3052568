"""Deal one board on a dealing machine with nothing but pyserial and firmware_protocol.

    python examples/one_board.py              # starts `dealer sim` and deals one board on it
    python examples/one_board.py /dev/ttyUSB0 # or deals one board on the machine at that port

Handshake, make sure a board is in, scan its label (and see that the board lies straight), load a deal,
check the board is empty (a recount), deal it, recount the pockets and check every card is where the
deal put it, then eject the board (PROTOCOL.md 6.1 says what a host checks before dealing). Prints one
line per step; exits 0 when the recount matches the deal.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import serial

from firmware_protocol import (
    SCHEMA_HASH,
    Answered,
    Delivered,
    Display,
    Eject,
    GaveUp,
    GetStatus,
    Hello,
    HelloAck,
    Link,
    LinkConfig,
    LoadDeal,
    Message,
    Prompt,
    Recount,
    RecountReport,
    Refused,
    Role,
    ScanBoard,
    StartDeal,
    StatusFlag,
    pack_seats,
)
from firmware_protocol.messages import BoardScanned, DealDone, Fault, Status

PATIENCE = 60.0


class Machine:
    """A host link over a serial port: send a command and get its reply, wait for an event."""

    def __init__(self, port: serial.Serial) -> None:
        self.port = port
        self.link = Link(Role.HOST, LinkConfig.for_baud(115200, Role.HOST))
        self.events: list[Message] = []
        self.replies: dict[int, Message] = {}

    def _pump(self) -> None:
        self.port.write(self.link.data_to_send())
        data = self.port.read(self.port.in_waiting or 1)
        now = time.monotonic()
        for ev in self.link.receive(data, now) + self.link.poll(now):
            if isinstance(ev, Answered):
                self.replies[id(ev.request)] = ev.reply
            elif isinstance(ev, Delivered):
                self.events.append(ev.message)
            elif isinstance(ev, GaveUp):
                sys.exit(f"the machine does not answer {type(ev.request).__name__}")
        self.port.write(self.link.data_to_send())

    def ask(self, command: Message) -> Message:
        self.link.send(command, time.monotonic())
        deadline = time.monotonic() + PATIENCE
        while id(command) not in self.replies and time.monotonic() < deadline:
            self._pump()
        reply = self.replies.pop(id(command), None)
        if reply is None or isinstance(reply, Refused):
            sys.exit(f"{type(command).__name__}: {reply or 'no reply'}")
        return reply

    def wait(self, wanted: Callable[[Message], bool]) -> Message:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            for msg in self.events:
                if wanted(msg):
                    self.events.remove(msg)
                    return msg
            self._pump()
        sys.exit("the machine did not report in time")


def board_present(machine: Machine) -> bool:
    status = machine.ask(GetStatus())
    assert isinstance(status, Status)
    return bool(status.flags & StatusFlag.BOARD_PRESENT)


def deal_one_board(path: str) -> int:
    try:
        port = serial.serial_for_url(path, baudrate=115200, timeout=0.05, exclusive=True)
    except (serial.SerialException, ValueError) as exc:
        reason = os.strerror(exc.errno) if getattr(exc, "errno", None) else str(exc)
        sys.exit(f"cannot open the machine's port {path}: {reason}")
    port.reset_input_buffer()
    machine = Machine(port)
    hello = machine.ask(Hello(1, SCHEMA_HASH, random.randrange(1 << 16)))
    assert isinstance(hello, HelloAck)
    print(f"handshake: {hello.serial.decode()}, boot {hello.boot_id}")
    if not board_present(machine):
        machine.ask(Display(Prompt.INSERT_BOARD, 1, b"", b"insert board 1"))
        deadline = time.monotonic() + PATIENCE
        while not board_present(machine):
            if time.monotonic() > deadline:
                sys.exit("no board was put in: put board 1 in the machine and run this again")
            time.sleep(0.05)
    machine.ask(ScanBoard())
    scan = machine.wait(lambda m: isinstance(m, BoardScanned))
    assert isinstance(scan, BoardScanned)
    print(f"scan: label {scan.label.decode()!r}")
    if scan.turns:
        sys.exit(f"the board lies turned {scan.turns} quarter turn(s): put it in straight")
    seats = [seat for seat in range(4) for _ in range(13)]
    random.shuffle(seats)
    machine.ask(LoadDeal.for_deal(1, 1, pack_seats(seats)))
    machine.ask(Recount(1))
    before = machine.wait(lambda m: isinstance(m, RecountReport))
    assert isinstance(before, RecountReport)
    if any(p.cards or p.unidentified for p in before.pockets):
        sys.exit("the board holds cards already: empty it first")
    print("check: the board is empty")
    machine.ask(StartDeal(1))
    print("dealing ...")
    done = machine.wait(lambda m: isinstance(m, DealDone | Fault))
    if not isinstance(done, DealDone):
        sys.exit(f"fault while dealing: {done}")
    print(f"dealt: {done.cards_dealt} cards, pockets {done.pocket_counts}")
    machine.ask(Recount(1))
    report = machine.wait(lambda m: isinstance(m, RecountReport))
    assert isinstance(report, RecountReport)
    wanted = [sorted(c for c in range(52) if seats[c] == s) for s in range(4)]
    got = [sorted(p.cards) for p in report.pockets]
    machine.ask(Eject())
    port.close()
    if got != wanted:
        print("recount: the pockets do not hold the deal")
        return 1
    print(f"recount: every card in its pocket ({', '.join(str(len(h)) for h in got)}); board ejected")
    return 0


def main() -> int:
    if len(sys.argv) > 1:
        return deal_one_board(sys.argv[1])
    sim = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--speed", "50"], stdout=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        assert sim.stdout is not None
        line = sim.stdout.readline()
        match = re.search(r"/\S+", line)
        if not match or not os.path.exists(match.group(0)):
            sys.exit(f"dealer sim printed no port: {line!r}")
        print(f"simulator on {match.group(0)}")
        return deal_one_board(match.group(0))
    finally:
        os.killpg(sim.pid, signal.SIGTERM)
        sim.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
