"""A small script-level host, written with firmware_protocol alone, that drives the scenarios.

It is not the project's host driver (that is `dealer.dealing.machine`); it is the least a host must do, so
that the simulator's scenarios can run against the simulator and, unchanged, a real machine:
handshake; per board prompt the operator, scan and check the label (`dealer.verify.board_check.check_label`),
load, deal, recount and verify (`dealer.verify.board_check.verify_board`); put faults right the way the fault
table says (clear the path and resume, fix the pack and resume, empty the board and redeal the same
deal, recount again); survive a device restart (Boot) and a pulled cable (reopen the port, Hello,
GetStatus). `BoardOutcome` records what it saw, in the terms the scenarios' expectations use.

The port is anything with pyserial's `write`, `read(size)` and `timeout`: a `serial.Serial`, or a
`hil.loopback.LoopbackPort` (then `clock` and `sleep` come from the loopback, so time is virtual).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from dealer.verify import BoardRecount
from dealer.verify.board_check import check_label, verify_board
from firmware_protocol import (
    SCHEMA_HASH,
    Abort,
    Answered,
    BoardChanged,
    BoardScanned,
    Boot,
    DealDone,
    Delivered,
    Display,
    Eject,
    Fault,
    FaultCode,
    FaultFlag,
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
    RefuseReason,
    Role,
    ScanBoard,
    ScanResult,
    StartDeal,
    Status,
    StatusFlag,
    pack_seats,
)
from firmware_protocol.labels import BoardLabel

UNRESUMABLE = (FaultCode.MISFEED, FaultCode.HARDWARE, FaultCode.INTERNAL)


class Port(Protocol):
    timeout: float | None

    def write(self, data: bytes) -> int | None: ...
    def read(self, size: int = 1) -> bytes: ...
    def close(self) -> None: ...


class HostError(Exception):
    """The script host could not go on."""


class Restarted(Exception):
    """The device restarted (Boot, or a command refused with HANDSHAKE_REQUIRED)."""


class Disconnected(Exception):
    """The port failed (the cable was pulled)."""


@dataclass
class BoardOutcome:
    """What happened to one board, in the terms of a scenario's expectation."""

    board: int
    label: str | None = None
    verified: bool = False
    machine_faults: list[str] = field(default_factory=list)
    verifier_faults: list[str] = field(default_factory=list)
    refused_labels: int = 0
    dealings: int = 0
    restarts: int = 0
    reconnects: int = 0


def deal_for(board: int, seed: int = 0) -> list[int]:
    """A reproducible random deal (52 seats) for a board."""
    seats = [s for s in range(4) for _ in range(13)]
    random.Random(f"deal:{seed}:{board}").shuffle(seats)
    return seats


class Wire:
    """The host's link over a port: requests, events, reconnection."""

    def __init__(self, connect: Callable[[], Port], clock: Callable[[], float], sleep: Callable[[float], None],
                 baud: int = 115200) -> None:
        self.connect, self.clock, self.sleep = connect, clock, sleep
        self.config = LinkConfig.for_baud(baud, Role.HOST)
        self.port: Port | None = None
        self.link = Link(Role.HOST, self.config)
        self.events: deque[Message] = deque()
        self.answers: dict[int, Message] = {}
        self.boot_id: int | None = None
        self.restarts = 0
        self.reconnects = 0
        self.log: list[str] = []

    def open(self, patience: float) -> HelloAck:
        """Open the port (retrying while it is missing) and shake hands."""
        deadline = self.clock() + patience
        while True:
            try:
                self.port = self.connect()
                break
            except OSError:
                if self.clock() > deadline:
                    raise HostError("the port did not come back") from None
                self.sleep(0.2)
        self.port.timeout = 0.02
        return self.handshake(patience)

    def handshake(self, patience: float) -> HelloAck:
        """Hello on a fresh link; notes a restart when the boot_id changed."""
        self.link = Link(Role.HOST, self.config)
        self.events.clear()
        self.answers.clear()
        reply = self.request(Hello(1, SCHEMA_HASH, random.Random(self.clock()).randrange(1 << 16)), patience)
        if not isinstance(reply, HelloAck) or reply.schema_hash != SCHEMA_HASH:
            raise HostError(f"handshake failed: {reply}")
        if self.boot_id is not None and reply.boot_id != self.boot_id:
            self.restarts += 1
        self.boot_id = reply.boot_id
        return reply

    def close(self) -> None:
        if self.port is not None:
            self.port.close()
            self.port = None

    def _pump(self) -> None:
        assert self.port is not None
        try:
            out = self.link.data_to_send()
            if out:
                self.port.write(out)
            data = self.port.read(512)
        except OSError as exc:
            raise Disconnected(str(exc)) from None
        now = self.clock()
        for ev in self.link.receive(data, now) + self.link.poll(now):
            if isinstance(ev, Answered):
                self.answers[id(ev.request)] = ev.reply
            elif isinstance(ev, Delivered):
                self.events.append(ev.message)
            elif isinstance(ev, GaveUp):
                raise Disconnected(f"no answer to {type(ev.request).__name__}")
        out = self.link.data_to_send()
        if out:
            try:
                self.port.write(out)
            except OSError as exc:
                raise Disconnected(str(exc)) from None

    def request(self, msg: Message, patience: float = 10.0) -> Message:
        """Send a command and return its reply; Restarted if the device asks for a handshake."""
        self.link.send(msg, self.clock())
        deadline = self.clock() + patience
        while id(msg) not in self.answers:
            self._pump()
            self._check_boot()
            if self.clock() > deadline:
                raise HostError(f"no reply to {type(msg).__name__}")
        reply = self.answers.pop(id(msg))
        if isinstance(reply, Refused) and reply.reason == RefuseReason.HANDSHAKE_REQUIRED:
            raise Restarted()
        return reply

    def _check_boot(self) -> None:
        if self.boot_id is not None and any(isinstance(m, Boot) and m.boot_id != self.boot_id for m in self.events):
            self.events.clear()
            raise Restarted()

    def wait(self, match: Callable[[Message], bool], patience: float) -> Message:
        """The next event that matches (earlier ones that do not are dropped)."""
        deadline = self.clock() + patience
        while True:
            while self.events:
                msg = self.events.popleft()
                if isinstance(msg, Boot) and self.boot_id is not None and msg.boot_id != self.boot_id:
                    raise Restarted()
                if match(msg):
                    return msg
            if self.clock() > deadline:
                raise HostError("timed out waiting for the machine")
            self._pump()

    def idle(self, seconds: float) -> None:
        """Let time pass while listening."""
        deadline = self.clock() + seconds
        while self.clock() < deadline:
            self._pump()


class ScriptHost:
    """Deals boards one after another and puts faults right (see the module docstring)."""

    def __init__(self, connect: Callable[[], Port], clock: Callable[[], float], sleep: Callable[[float], None],
                 set_name: str = "A", seed: int = 0, patience: float = 60.0, max_attempts: int = 6) -> None:
        self.wire = Wire(connect, clock, sleep)
        self.set_name = set_name
        self.seed = seed
        self.patience = patience
        self.max_attempts = max_attempts
        self.job = 0
        self.keeps_job = False
        self._pending = False

    def run(self, boards: list[int]) -> list[BoardOutcome]:
        """Deal every board; returns what happened to each."""
        hello = self.wire.open(self.patience)
        self.keeps_job = bool(hello.capabilities & 64)
        try:
            return [self._board(b) for b in boards]
        finally:
            self.wire.close()

    # --- one board -------------------------------------------------------------------------------

    def _board(self, board: int) -> BoardOutcome:
        out = BoardOutcome(board)
        seats = deal_for(board, self.seed)
        restarts, reconnects = self.wire.restarts, self.wire.reconnects
        self._pending = False
        for _ in range(self.max_attempts * 3):
            try:
                self._attempt(board, seats, out)
                break
            except Restarted:
                self.wire.handshake(self.patience)
            except Disconnected:
                self.wire.close()
                self.wire.reconnects += 1
                self.wire.open(self.patience)
        else:
            raise HostError(f"board {board}: too many restarts or disconnections")
        out.restarts = self.wire.restarts - restarts
        out.reconnects = self.wire.reconnects - reconnects
        return out

    def _attempt(self, board: int, seats: list[int], out: BoardOutcome) -> None:
        """Deal `board` from wherever the machine stands (run again after Restarted or Disconnected)."""
        if self._pending:  # a dealing of this board was under way: finish it if the machine still has it
            status = self._status()
            ours = status.job == self.job and status.state in (2, 3, 4)
            dealt = ours and self._finish_dealing(status, out)
            if not (dealt and self._recount_and_verify(board, seats, out)):
                self._empty_board()
            self._pending = False
        while not out.verified and out.dealings < self.max_attempts:
            self._insert_checked(board, out)
            self.job += 1
            out.dealings += 1
            self._expect_ack(LoadDeal.for_deal(self.job, board, pack_seats(seats)))
            self._pending = True
            self._expect_ack(StartDeal(self.job))
            dealt = self._finish_dealing(None, out)
            if not (dealt and self._recount_and_verify(board, seats, out)):
                self._empty_board()
            self._pending = False
        if self._present():
            self._remove(None, "")

    def _status(self) -> Status:
        reply = self.wire.request(GetStatus())
        assert isinstance(reply, Status)
        return reply

    def _expect_ack(self, msg: Message) -> None:
        reply = self.wire.request(msg)
        if isinstance(reply, Refused):
            raise HostError(f"{type(msg).__name__} refused: {reply}")

    def _prompt(self, prompt: Prompt, board: int = 0, label: str = "", text: str = "") -> None:
        self._expect_ack(Display(prompt, board, label.encode(), text.encode()))

    def _present(self) -> bool:
        return bool(self._status().flags & StatusFlag.BOARD_PRESENT)

    def _await_board(self, present: bool) -> None:
        """Poll Status until a board is (or is not) in the machine."""
        deadline = self.wire.clock() + self.patience
        while self._present() != present:
            if self.wire.clock() > deadline:
                raise HostError("the operator did not " + ("insert" if present else "remove") + " the board")
            self.wire.idle(0.05)

    def _remove(self, prompt: Prompt | None, text: str) -> None:
        """Eject the board (prompt None) or prompt the operator to take it out; wait until it is out."""
        self.wire.events = deque(m for m in self.wire.events if not isinstance(m, BoardChanged))
        if prompt is None:
            self._expect_ack(Eject())
        else:
            self._prompt(prompt, text=text)
        self.wire.wait(lambda m: isinstance(m, BoardChanged) and m.present == 0, self.patience)

    def _insert_checked(self, board: int, out: BoardOutcome) -> None:
        """Make sure the right board is in: prompt, scan, check the label; have any other taken out."""
        label = BoardLabel.for_board(self.set_name, board).payload()
        for _ in range(self.max_attempts):
            if not self._present():
                self._prompt(Prompt.INSERT_BOARD, board, label, f"insert board {self.set_name} {board}")
                self._await_board(True)
            self._expect_ack(ScanBoard())
            scan = self.wire.wait(lambda m: isinstance(m, BoardScanned), self.patience)
            assert isinstance(scan, BoardScanned)
            read = scan.label.decode("ascii", "replace") if scan.result == ScanResult.OK else None
            if check_label(read, board, self.set_name) is None:
                out.label = read
                return
            out.refused_labels += 1
            if "F8" not in out.verifier_faults:
                out.verifier_faults.append("F8")
            self._remove(Prompt.REMOVE_BOARD, "not the board expected: take it out")
        raise HostError(f"board {board}: the right board never came")

    def _finish_dealing(self, status: Status | None, out: BoardOutcome) -> bool:
        """Wait for the dealing to end, putting right what can be resumed; True if all 52 cards went."""
        if status is not None and status.state == 3:
            return status.cards_dealt == 52
        if status is not None and status.state == 4 and not self._resume(
                status.fault, status.fault_detail, status.fault not in UNRESUMABLE, out):
            return False
        while True:
            msg = self.wire.wait(lambda m: isinstance(m, DealDone | Fault) and getattr(m, "job", 0) == self.job,
                                 self.patience)
            if isinstance(msg, DealDone):
                return msg.cards_dealt == 52
            assert isinstance(msg, Fault)
            if not self._resume(msg.code, msg.detail, bool(msg.flags & FaultFlag.RESUMABLE), out):
                return False

    def _resume(self, code: int, detail: int, resumable: bool, out: BoardOutcome) -> bool:
        name = getattr(code, "name", str(code))
        out.machine_faults.append(name)
        if not resumable:
            self.wire.request(Abort())
            return False
        if code == FaultCode.BOARD_REMOVED:
            self._await_board(True)
            self._expect_ack(ScanBoard())
            scan = self.wire.wait(lambda m: isinstance(m, BoardScanned), self.patience)
            assert isinstance(scan, BoardScanned)
            if scan.label.decode("ascii", "replace") != out.label:
                raise HostError(f"another board was put back: {scan}")
        elif code == FaultCode.EMPTY_HOPPER:
            self._prompt(Prompt.FIX_PACK, text="the pack is short: put back the missing cards")
        elif code != FaultCode.POWER_LOSS:
            self._prompt(Prompt.CLEAR_PATH, text=f"clear the card path ({name})")
        deadline = self.wire.clock() + self.patience
        while self.wire.clock() < deadline:
            reply = self.wire.request(StartDeal(self.job))
            if not isinstance(reply, Refused):
                return True
            if reply.reason == RefuseReason.WRONG_STATE and reply.detail == 2:
                return True  # dealing again already: the fault was an old report
            if reply.reason == RefuseReason.NOT_SCANNED:  # the board moved, or the machine restarted
                self._expect_ack(ScanBoard())
                scan = self.wire.wait(lambda m: isinstance(m, BoardScanned), self.patience)
                assert isinstance(scan, BoardScanned)
                if scan.label.decode("ascii", "replace") != out.label:
                    raise HostError(f"another board is in the machine: {scan}")
                continue
            if reply.reason != RefuseReason.FAULT_PRESENT:
                raise HostError(f"resume refused: {reply}")
            self.wire.idle(1.0)
        raise HostError(f"fault {name} was never cleared")

    def _recount_and_verify(self, board: int, seats: list[int], out: BoardOutcome) -> bool:
        deal = np.array(seats, dtype=np.uint8)
        for _ in range(3):
            self._expect_ack(Recount(self.job))
            msg = self.wire.wait(lambda m: isinstance(m, RecountReport), self.patience)
            assert isinstance(msg, RecountReport)
            if len(msg.pockets) != 4:
                return False
            recount = BoardRecount.from_hands([p.cards for p in msg.pockets], [p.unidentified for p in msg.pockets])
            report = verify_board(deal, recount, board=board, set_name=self.set_name, label=out.label)
            for code in report.codes:
                if code.value not in out.verifier_faults:
                    out.verifier_faults.append(code.value)
            if report.ok:
                out.verified = True
                return True
            if not report.unverified:
                return False
        return False

    def _empty_board(self) -> None:
        """Have the cards taken out of the board (it goes out and comes back) before dealing it again."""
        if not self._present():
            return
        self.wire.events = deque(m for m in self.wire.events if not isinstance(m, BoardChanged))
        self._prompt(Prompt.EMPTY_BOARD, text="empty the board")
        self.wire.wait(lambda m: isinstance(m, BoardChanged) and m.present == 0, self.patience)
        self.wire.wait(lambda m: isinstance(m, BoardChanged) and m.present == 1, self.patience)


def summary(outcomes: list[BoardOutcome]) -> dict[str, Any]:
    """Totals over a run: what a scenario's expectation is checked against."""
    return {
        "verified": all(o.verified for o in outcomes),
        "machine_faults": sorted({f for o in outcomes for f in o.machine_faults}),
        "verifier_faults": sorted({f for o in outcomes for f in o.verifier_faults}),
        "refused_labels": sum(o.refused_labels for o in outcomes),
        "restarts": sum(o.restarts for o in outcomes),
        "reconnects": sum(o.reconnects for o in outcomes),
        "dealings": sum(o.dealings for o in outcomes),
    }

