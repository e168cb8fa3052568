"""The dealing machine: its states (PROTOCOL.md section 6), its mechanism and its operator.

The mechanism is a rack of labelled boards, one slot, a hopper, a card reader, four pockets and
readers on every edge of the slot (or on its North edge only). The operator answers the display's
prompts (section 7.4 Prompt). Planned mishaps (a jam, a misfeed, a power cut ...) are injected at a
given card of a given board. Every dealing's end is written to the ledger.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import messages as m
from .labels import make_label
from .ledger import Ledger
from .link import DeviceLink, Reply

FOREIGN = -1  # a card not of this pack
SEATS = "NESW"


@dataclass
class Board:
    """One physical board: its label and its own four pockets N E S W."""

    board_set: str
    number: int
    label: str
    pockets: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    insertions: int = 0
    scans: int = 0

    def empty(self) -> bool:
        return not any(self.pockets)


@dataclass
class Plan:
    """A mishap at card `card` (cards dealt so far) of the dealings of board `board`."""

    board: int
    card: int
    what: str
    times: int = 1


@dataclass
class Options:
    """What the machine has and how long things take."""

    sets: list[tuple[str, int, int]] = field(default_factory=lambda: [("A", 1, 36)])
    capabilities: int = (
        m.Cap.BARCODE_READER
        | m.Cap.CARD_RECOUNT
        | m.Cap.BOARD_SENSOR
        | m.Cap.DOOR_SENSOR
        | m.Cap.EJECT
        | m.Cap.RESUME_AFTER_FAULT
        | m.Cap.DISPLAY
    )
    reader_all_edges: bool = True
    baud: int = 115200
    card_time: float = 0.01
    scan_time: float = 0.05
    recount_time: float = 0.05
    eject_time: float = 0.05
    operator_time: float = 0.05
    restart_time: float = 0.2
    turns: dict[str, list[int]] = field(default_factory=dict)  # board key -> turns per insertion
    no_read: dict[str, int] = field(default_factory=dict)  # board key -> scans that fail
    plans: list[Plan] = field(default_factory=list)
    serial: str = "STRANGER-1"
    seed: int | None = None
    operator: bool = True


RESUMABLE_FAULTS = {
    m.FaultCode.JAM,
    m.FaultCode.EMPTY_HOPPER,
    m.FaultCode.UNREADABLE_CARD,
    m.FaultCode.DUPLICATE_CARD,
    m.FaultCode.FOREIGN_CARD,
    m.FaultCode.DOOR_OPEN,
    m.FaultCode.POWER_LOSS,
}
CLEARED_BY = {
    m.Prompt.CLEAR_PATH: {m.FaultCode.JAM, m.FaultCode.UNREADABLE_CARD, m.FaultCode.DOOR_OPEN, m.FaultCode.MISFEED},
    m.Prompt.FIX_PACK: {m.FaultCode.EMPTY_HOPPER, m.FaultCode.DUPLICATE_CARD, m.FaultCode.FOREIGN_CARD},
}


class Clock:
    """Timers for one process: `at(delay, fn)`; `run_due(now)` calls what is due."""

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self._heap: list[tuple[float, int, Callable[[], object]]] = []
        self._count = itertools.count()

    def at(self, delay: float, fn: Callable[[], object]) -> None:
        heapq.heappush(self._heap, (self.now() + delay, next(self._count), fn))

    def next_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def run_due(self) -> None:
        while self._heap and self._heap[0][0] <= self.now():
            heapq.heappop(self._heap)[2]()


class Machine:
    """The device: link, state machine, mechanism and operator, driven by one Clock."""

    def __init__(
        self,
        options: Options,
        write: Callable[[bytes], None],
        clock: Clock,
        ledger: Ledger,
        log: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.o = options
        self._write = write
        self.clock = clock
        self.ledger = ledger
        self.log = log
        self.rng = random.Random(options.seed)
        self.rack: dict[str, Board] = {}
        for board_set, first, last in options.sets:
            for number in range(first, last + 1):
                label = make_label(board_set, number)
                self.rack[label] = Board(board_set, number, label)
        self.set_in_use = options.sets[0][0]
        self.slot: Board | None = None
        self.slot_turns = 0
        self.hopper: list[int] = []
        self.held: list[int] = []  # a card jammed or held at the reader
        self.door_open = False
        self.causes: set[int] = set()
        self.plans = [Plan(p.board, p.card, p.what, p.times) for p in options.plans]
        self.active_plans: list[Plan] = []
        self.boot_id = random.SystemRandom().randrange(1, 65535)  # never the same as a last run's seed
        self.powered = False
        self.hung = False
        self._epoch = 0  # bumped at every restart: timers of the old firmware die
        self._activity_epoch = 0
        self._operator_epoch = 0
        self._deal_epoch = 0
        self._recount_job = 0
        # the firmware's memory (kept over a power loss only with KEEPS_JOB_OVER_POWER_LOSS)
        self._clear_job()
        self.scanned = False
        self.activity = m.Activity.NONE
        self.link: DeviceLink
        self.power_on(m.BootReason.POWER_ON)

    # ---- power ---------------------------------------------------------------------------------
    def _clear_job(self) -> None:
        self.state = m.State.IDLE
        self.job = 0
        self.board_no = 0
        self.deal = bytes(13)
        self.hash = 0
        self.cards_dealt = 0
        self.counts = [0, 0, 0, 0]
        self.fault = m.FaultCode.NONE
        self.fault_detail = 0
        self.fault_flags = 0
        self.dealt_cards: set[int] = set()

    def _power_on_later(self, reason: int) -> bool:
        self.power_on(reason)
        return True

    def power_on(self, reason: int) -> None:
        self.powered = True
        self.hung = False
        self.boot_id = self.boot_id % 65535 + 1
        self.scanned = False
        self.activity = m.Activity.NONE
        self.link = DeviceLink(self._write, self._command, self.o.baud)
        self._write(b"\x00")
        self.link.queue_event(m.T.BOOT, m.encode_payload(m.T.BOOT, reason=reason, boot_id=self.boot_id))
        interrupted = self.state == m.State.DEALING
        if not self.o.capabilities & m.Cap.KEEPS_JOB_OVER_POWER_LOSS:
            self._clear_job()
        elif interrupted:
            self._stop_on_fault(m.FaultCode.POWER_LOSS, 0, record=False)
        self.log(f"boot {self.boot_id} reason {reason}")

    def power_cut(self, reason: int = m.BootReason.POWER_ON) -> None:
        """The power goes and comes back after restart_time: RAM lost, mechanism as it lay."""
        if self.state == m.State.DEALING:
            self._record("power cut")
        self._epoch += 1
        self.powered = False
        self.link.deaf = True
        epoch = self._epoch
        self.clock.at(self.o.restart_time, lambda: self._epoch == epoch and self._power_on_later(reason))

    def hang(self) -> None:
        """The firmware stops: it neither hears, speaks nor deals, until the power is cycled."""
        self._epoch += 1
        self.hung = True
        self.link.deaf = True

    # ---- the loop's entry points -----------------------------------------------------------------
    def receive(self, data: bytes) -> None:
        if self.powered and not self.hung:
            self.link.receive(data, self.clock.now())

    def poll(self) -> float | None:
        self.clock.run_due()
        deadline = None
        if self.powered and not self.hung:
            deadline = self.link.poll(self.clock.now())
        nxt = self.clock.next_time()
        times = [t for t in (deadline, nxt) if t is not None]
        return min(times) if times else None

    def _later(self, delay: float, fn: Callable[[], object]) -> None:
        epoch = self._epoch

        def due() -> None:
            if self._epoch == epoch:
                fn()

        self.clock.at(delay, due)

    def _activity_later(self, delay: float, fn: Callable[[], object]) -> None:
        """Like _later, and dropped when the activity was stopped meanwhile."""
        self._activity_epoch += 1
        epoch = self._activity_epoch

        def due() -> None:
            if self._activity_epoch == epoch:
                fn()

        self._later(delay, due)

    def _event(self, type_code: int, **fields: object) -> None:
        self.link.queue_event(type_code, m.encode_payload(type_code, **fields))

    # ---- commands --------------------------------------------------------------------------------
    def _refuse(self, reason: int, detail: int = 0) -> Reply:
        return (m.T.REFUSED, bytes([reason, detail & 0xFF]))

    def _ack(self) -> Reply:
        return (m.T.ACK, b"")

    def _command(self, code: int, f: dict[str, Any]) -> Reply:
        handler: Callable[[dict[str, Any]], Reply] = {
            m.T.HELLO: self._hello,
            m.T.GET_STATUS: self._status,
            m.T.SCAN_BOARD: self._scan,
            m.T.LOAD_DEAL: self._load,
            m.T.START_DEAL: self._start,
            m.T.ABORT: self._abort,
            m.T.RECOUNT: self._recount,
            m.T.EJECT: self._eject,
            m.T.RESET: self._reset,
            m.T.DISPLAY: self._display,
        }[m.T(code)]
        reply = handler(f)
        shown = {k: v for k, v in f.items() if k != "deal"}  # a deal is a secret: never logged
        self.log(f"command {m.T(code).name} {shown} -> {m.T(reply[0]).name} {reply[1].hex()}")
        return reply

    def _hello(self, f: dict[str, Any]) -> Reply:
        return (
            m.T.HELLO_ACK,
            m.encode_payload(
                m.T.HELLO_ACK,
                protocol_version=m.PROTOCOL_VERSION,
                schema_hash=m.SCHEMA_HASH,
                firmware_major=1,
                firmware_minor=0,
                firmware_patch=0,
                boot_id=self.boot_id,
                capabilities=self.o.capabilities,
                pockets=4,
                hoppers=1,
                serial=self.o.serial.encode("ascii"),
            ),
        )

    def _has(self, cap: int) -> bool:
        return bool(self.o.capabilities & cap)

    def _board_present(self) -> bool:
        """What the machine knows: without a board sensor it assumes a board is in."""
        return self.slot is not None if self._has(m.Cap.BOARD_SENSOR) else True

    def _flags(self) -> int:
        flags = 0
        if self._has(m.Cap.BOARD_SENSOR) and self.slot is not None:
            flags |= m.Flag.BOARD_PRESENT
        if self._has(m.Cap.DOOR_SENSOR) and self.door_open:
            flags |= m.Flag.DOOR_OPEN
        if not self.hopper:
            flags |= m.Flag.HOPPER_EMPTY
        return flags

    def _status(self, f: dict[str, Any]) -> Reply:
        idle = self.state == m.State.IDLE
        return (
            m.T.STATUS,
            m.encode_payload(
                m.T.STATUS,
                state=self.state,
                activity=self.activity,
                flags=self._flags(),
                job=self.job,
                board=self.board_no,
                deal_hash=self.hash,
                cards_dealt=self.cards_dealt,
                fault=self.fault,
                fault_detail=self.fault_detail,
                boot_id=self.boot_id,
                pocket_counts=b"" if idle else bytes(self.counts),
            ),
        )

    def _physical_checks(self, cap: int, code: int) -> Reply | None:
        """Capability, state, activity, board: section 6's order for ScanBoard, Recount, Eject."""
        if not self._has(cap):
            return self._refuse(m.Refuse.UNSUPPORTED, code)
        if self.state == m.State.DEALING:
            return self._refuse(m.Refuse.WRONG_STATE, self.state)
        if self.activity != m.Activity.NONE:
            return self._refuse(m.Refuse.BUSY, self.activity)
        if not self._board_present():
            return self._refuse(m.Refuse.NO_BOARD)
        return None

    def _scan(self, f: dict[str, Any]) -> Reply:
        refused = self._physical_checks(m.Cap.BARCODE_READER, m.T.SCAN_BOARD)
        if refused:
            return refused
        self.activity = m.Activity.SCANNING
        self._activity_later(self.o.scan_time, self._scan_done)
        return self._ack()

    def _scan_done(self) -> None:
        self.activity = m.Activity.NONE
        board = self.slot
        if board is None:
            self._event(m.T.BOARD_SCANNED, result=m.ScanResult.NO_BOARD, turns=0, label=b"")
            return
        board.scans += 1
        failing = self._key_value(self.o.no_read, board, 0)
        sees = self.slot_turns == 0 or self.o.reader_all_edges
        if board.scans <= failing or not sees:
            self._event(m.T.BOARD_SCANNED, result=m.ScanResult.NO_READ, turns=0, label=b"")
            return
        self.scanned = True
        self._event(m.T.BOARD_SCANNED, result=m.ScanResult.OK, turns=self.slot_turns, label=board.label.encode("ascii"))

    def _load(self, f: dict[str, Any]) -> Reply:
        if self.state in (m.State.DEALING, m.State.FAULT):
            return self._refuse(m.Refuse.WRONG_STATE, self.state)
        deal = f["deal"]
        seats = [0, 0, 0, 0]
        for card in range(52):
            seats[m.seat_of(deal, card)] += 1
        for seat in range(4):
            if seats[seat] != 13:
                return self._refuse(m.Refuse.BAD_DEAL, seat)
        computed = m.deal_hash(deal)
        if f["deal_hash"] != computed:
            return self._refuse(m.Refuse.BAD_HASH, computed)
        self._clear_job()
        self.state = m.State.LOADED
        self.job, self.board_no, self.deal, self.hash = f["job"], f["board"], deal, computed
        self._fresh_pack()
        return self._ack()

    def _start(self, f: dict[str, Any]) -> Reply:
        if self.state not in (m.State.LOADED, m.State.FAULT):
            return self._refuse(m.Refuse.WRONG_STATE, self.state)
        if self.state == m.State.FAULT and not self.fault_flags & m.RESUMABLE:
            return self._refuse(m.Refuse.WRONG_STATE, self.state)
        if self.activity != m.Activity.NONE:
            return self._refuse(m.Refuse.BUSY, self.activity)
        if not self._board_present():
            return self._refuse(m.Refuse.NO_BOARD)
        if f["job"] != self.job:
            return self._refuse(m.Refuse.WRONG_JOB, self.job)
        if self._has(m.Cap.BOARD_SENSOR) and not self.scanned:
            return self._refuse(m.Refuse.NOT_SCANNED)
        if self.state == m.State.FAULT and self.fault in self.causes:
            return self._refuse(m.Refuse.FAULT_PRESENT, self.fault)
        self.state = m.State.DEALING
        self.fault, self.fault_detail, self.fault_flags = m.FaultCode.NONE, 0, 0
        self._last_progress = -1.0
        if self.active_plans == [] and self.cards_dealt == 0:
            self.active_plans = self._plans_for(self.board_no)
        self._deal_epoch += 1
        self._next_card()
        return self._ack()

    def _next_card(self) -> None:
        epoch = self._deal_epoch

        def due() -> None:
            if self._deal_epoch == epoch:
                self._feed()

        self._later(self.o.card_time, due)

    def _abort(self, f: dict[str, Any]) -> Reply:
        if self.state in (m.State.DEALING, m.State.FAULT):
            if self.state == m.State.DEALING:
                self._record("aborted")
            self._deal_epoch += 1
            self.state = m.State.DONE
            self.fault, self.fault_detail, self.fault_flags = m.FaultCode.NONE, 0, 0
            self._deal_done(m.Outcome.ABORTED)
        return self._ack()

    def _recount(self, f: dict[str, Any]) -> Reply:
        refused = self._physical_checks(m.Cap.CARD_RECOUNT, m.T.RECOUNT)
        if refused:
            return refused
        self.activity = m.Activity.RECOUNTING
        job = self._recount_job = f["job"]
        self._activity_later(self.o.recount_time, lambda: self._recount_done(job))
        return self._ack()

    def _recount_done(self, job: int) -> None:
        self.activity = m.Activity.NONE
        board = self.slot
        pockets: list[tuple[list[int], int]] = []
        if board is not None:
            for p in range(4):
                held = board.pockets[(p + self.slot_turns) % 4]
                pockets.append(([c for c in held if c != FOREIGN], sum(c == FOREIGN for c in held)))
        self._event(m.T.RECOUNT_REPORT, job=job, pockets=pockets)

    def _eject(self, f: dict[str, Any]) -> Reply:
        refused = self._physical_checks(m.Cap.EJECT, m.T.EJECT)
        if refused:
            return refused
        self.activity = m.Activity.EJECTING
        self._activity_later(self.o.eject_time, self._ejected)
        return self._ack()

    def _ejected(self) -> None:
        self.activity = m.Activity.NONE
        if self.slot is not None:
            self._take_out()

    def _reset(self, f: dict[str, Any]) -> Reply:
        mode = f["mode"]
        if mode == 0:
            if self.state == m.State.DEALING:
                self._record("reset")
            self._epoch_activity_stop()
            self._clear_job()
            return self._ack()
        if mode == 1:
            self._later(0.0, lambda: self.power_cut(m.BootReason.RESET_COMMAND))
            return self._ack()
        return self._refuse(m.Refuse.UNSUPPORTED, m.T.RESET)

    def _epoch_activity_stop(self) -> None:
        self._activity_epoch += 1
        self._deal_epoch += 1
        self.activity = m.Activity.NONE
        if self.state == m.State.DEALING:
            self.state = m.State.DONE  # stops the feed; the caller clears the job

    def _display(self, f: dict[str, Any]) -> Reply:
        if not self._has(m.Cap.DISPLAY):
            return self._refuse(m.Refuse.UNSUPPORTED, m.T.DISPLAY)
        self.log(f"display prompt {f['prompt']} board {f['board']} label {f['label']!r}")
        self._operator_epoch += 1
        epoch = self._operator_epoch
        if self.o.operator:
            prompt, board, label = f["prompt"], f["board"], f["label"].decode("ascii", "replace")

            def act() -> None:
                if epoch == self._operator_epoch:
                    self._operator(prompt, board, label)

            self.clock.at(self.o.operator_time, act)
        return self._ack()

    # ---- dealing ---------------------------------------------------------------------------------
    def _fresh_pack(self) -> None:
        """The operator puts a whole pack, shuffled, in the hopper for the dealing loaded."""
        self.hopper = list(range(52))
        self.rng.shuffle(self.hopper)
        self.held = []
        self.active_plans = []

    def _refill(self) -> None:
        """The operator puts the next pack in an empty hopper when no dealing needs its cards."""
        if not self.hopper and self.state in (m.State.IDLE, m.State.DONE):
            self.hopper = list(range(52))
            self.rng.shuffle(self.hopper)

    def _plans_for(self, board: int) -> list[Plan]:
        chosen = []
        for plan in self.plans:
            if plan.board == board and plan.times > 0:
                plan.times -= 1
                chosen.append(Plan(plan.board, plan.card, plan.what))
        for plan in chosen:
            if plan.what == "EMPTY_HOPPER":
                del self.hopper[max(0, plan.card) :]
            elif plan.what == "FOREIGN_CARD":
                self.hopper.insert(plan.card, FOREIGN)
            elif plan.what == "DUPLICATE_CARD" and self.hopper:
                self.hopper.insert(max(1, plan.card), self.hopper[0])
        return [p for p in chosen if p.what not in ("EMPTY_HOPPER", "FOREIGN_CARD", "DUPLICATE_CARD")]

    def _feed(self) -> None:
        if self.state != m.State.DEALING:
            return
        for plan in list(self.active_plans):
            if plan.card == self.cards_dealt:
                self.active_plans.remove(plan)
                if self._mishap(plan.what):
                    return
        if self.slot is None:
            self._stop_on_fault(m.FaultCode.BOARD_REMOVED, 0)
            return
        if not self.hopper:
            self.causes.add(m.FaultCode.EMPTY_HOPPER)
            self._stop_on_fault(m.FaultCode.EMPTY_HOPPER, 0)
            return
        card = self.hopper.pop(0)
        if card == FOREIGN:
            self.causes.add(m.FaultCode.FOREIGN_CARD)
            self._stop_on_fault(m.FaultCode.FOREIGN_CARD, 0)
            return
        if card in self.dealt_cards:
            self.causes.add(m.FaultCode.DUPLICATE_CARD)
            self._stop_on_fault(m.FaultCode.DUPLICATE_CARD, card)
            return
        seat = m.seat_of(self.deal, card)
        self._drop(card, seat)
        self.counts[seat] += 1
        self.cards_dealt += 1
        self.dealt_cards.add(card)
        now = self.clock.now()
        if self.cards_dealt in (13, 26, 39) and now - self._last_progress >= 0.1:
            self._last_progress = now
            self.link.send_notice(
                m.T.PROGRESS, m.encode_payload(m.T.PROGRESS, job=self.job, cards_dealt=self.cards_dealt)
            )
        if self.cards_dealt == 52:
            self.state = m.State.DONE
            self._record("complete")
            self._deal_done(m.Outcome.COMPLETE)
            self.clock.at(self.o.operator_time, self._refill)
            return
        self._next_card()

    def _drop(self, card: int, machine_pocket: int) -> None:
        """A card into the machine's pocket p, which holds the board's pocket (p + turns) mod 4."""
        assert self.slot is not None
        self.slot.pockets[(machine_pocket + self.slot_turns) % 4].append(card)

    def _mishap(self, what: str) -> bool:
        """Carry out a planned mishap; True when dealing stopped."""
        self.log(f"mishap {what} at card {self.cards_dealt}")
        if what == "JAM":
            self.held.append(self.hopper.pop(0))
            self.causes.add(m.FaultCode.JAM)
            self._stop_on_fault(m.FaultCode.JAM, self.cards_dealt)
        elif what == "UNREADABLE_CARD":
            self.held.append(self.hopper.pop(0))
            self.causes.add(m.FaultCode.UNREADABLE_CARD)
            self._stop_on_fault(m.FaultCode.UNREADABLE_CARD, self.cards_dealt)
        elif what == "MISFEED":
            card = self.hopper.pop(0)
            stray = (m.seat_of(self.deal, card) + 1) % 4
            self._drop(card, stray)
            self._stop_on_fault(m.FaultCode.MISFEED, stray)
        elif what == "DOOR_OPEN":
            self.door_open = True
            self.causes.add(m.FaultCode.DOOR_OPEN)
            self._stop_on_fault(m.FaultCode.DOOR_OPEN, 0)
        elif what == "BOARD_REMOVED":
            self._take_out()  # the board sensor stops the dealing
            if not self._has(m.Cap.BOARD_SENSOR):
                return False
        elif what == "POWER_LOSS":
            self.power_cut()
        elif what == "HANG":
            self._record("hung")
            self.hang()
        else:
            raise ValueError(f"no mishap called {what}")
        return True

    def _stop_on_fault(self, code: int, detail: int, record: bool = True) -> None:
        self._deal_epoch += 1
        resumable = code in RESUMABLE_FAULTS and self._has(m.Cap.RESUME_AFTER_FAULT)
        self.state = m.State.FAULT
        self.fault, self.fault_detail = m.FaultCode(code), detail
        self.fault_flags = m.RESUMABLE if resumable else 0
        if record:
            self._record(f"fault {m.FaultCode(code).name}")
        self._event(
            m.T.FAULT, code=code, detail=detail, job=self.job, cards_dealt=self.cards_dealt, flags=self.fault_flags
        )

    def _deal_done(self, outcome: int) -> None:
        self._event(
            m.T.DEAL_DONE, job=self.job, outcome=outcome, cards_dealt=self.cards_dealt, pocket_counts=bytes(self.counts)
        )

    def _record(self, outcome: str) -> None:
        board = self.slot
        self.ledger.write(
            what="dealing",
            outcome=outcome,
            job=self.job,
            board=self.board_no,
            label=board.label if board else None,
            turns=self.slot_turns if board else None,
            cards_dealt=self.cards_dealt,
            pockets=self._contents(board) if board else None,
        )

    @staticmethod
    def _contents(board: Board) -> dict[str, list[str]]:
        return {SEATS[p]: [m.card_name(c) if c != FOREIGN else "??" for c in board.pockets[p]] for p in range(4)}

    # ---- the board slot and the operator ------------------------------------------------------------
    @staticmethod
    def _key_value(table: dict[str, Any], board: Board, default: Any) -> Any:
        for key in (board.label, f"{board.board_set}:{board.number}", str(board.number)):
            if key in table:
                return table[key]
        return default

    def _take_out(self) -> None:
        board = self.slot
        if board is None:
            return
        self.slot = None
        self.scanned = False
        self.rack[board.label] = board
        if self.activity in (m.Activity.SCANNING, m.Activity.RECOUNTING):
            self._activity_epoch += 1
            if self.activity == m.Activity.SCANNING:
                self._event(m.T.BOARD_SCANNED, result=m.ScanResult.NO_BOARD, turns=0, label=b"")
            else:
                self._event(m.T.RECOUNT_REPORT, job=self._recount_job, pockets=[])
            self.activity = m.Activity.NONE
        if self.powered and not self.hung and self._has(m.Cap.BOARD_SENSOR):
            self._event(m.T.BOARD_CHANGED, present=0)
            if self.state == m.State.DEALING:
                self._stop_on_fault(m.FaultCode.BOARD_REMOVED, 0)

    def _put_in(self, board: Board) -> None:
        self.rack.pop(board.label, None)
        turns = self._key_value(self.o.turns, board, [])
        self.slot_turns = turns[board.insertions] if board.insertions < len(turns) else 0
        board.insertions += 1
        self.slot = board
        self.set_in_use = board.board_set
        self.scanned = False
        if self.powered and not self.hung and self._has(m.Cap.BOARD_SENSOR):
            self._event(m.T.BOARD_CHANGED, present=1)

    def find_board(self, board: int, label: str) -> Board | None:
        wanted = label or (make_label(self.set_in_use, board) if 1 <= board <= 9999 else "")
        if self.slot is not None and self.slot.label == wanted:
            return self.slot
        return self.rack.get(wanted)

    def _operator(self, prompt: int, board_no: int, label: str) -> None:
        if prompt == m.Prompt.INSERT_BOARD:
            wanted = self.find_board(board_no, label)
            if wanted is None:
                self.log(f"operator: no board {board_no} {label!r} in the rack")
                return
            self._take_out()
            self._put_in(wanted)
        elif prompt == m.Prompt.REMOVE_BOARD:
            self._take_out()
        elif prompt == m.Prompt.EMPTY_BOARD:
            board = self.slot or self.find_board(board_no, label)
            if board is None:
                return
            if board is self.slot:
                self._take_out()
            board.pockets = [[], [], [], []]
            self.ledger.write(what="emptied", label=board.label, board=board.number)
            self._put_in(board)
        elif prompt == m.Prompt.CLEAR_PATH:
            self.hopper[:0] = [c for c in self.held if c != FOREIGN]
            self.held = []
            self.door_open = False
            self.causes -= CLEARED_BY[m.Prompt.CLEAR_PATH]
        elif prompt == m.Prompt.FIX_PACK:
            self.hopper[:0] = [c for c in self.held if c != FOREIGN]
            self.held = []
            missing = [c for c in range(52) if c not in self.dealt_cards and c not in self.hopper]
            self.hopper = [
                c for c in dict.fromkeys(self.hopper) if c != FOREIGN and c not in self.dealt_cards
            ] + missing
            self.causes -= CLEARED_BY[m.Prompt.FIX_PACK]

    def operator_insert(self, key: str, turns: int = 0) -> bool:
        """A person at the machine puts a board in by hand (the control channel's `insert`)."""
        for board in list(self.rack.values()) + ([self.slot] if self.slot else []):
            if key in (board.label, f"{board.board_set}:{board.number}", str(board.number)):
                self._take_out()
                self.o.turns[board.label] = [0] * board.insertions + [turns]
                self._put_in(board)
                return True
        return False
