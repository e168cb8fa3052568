"""Drives one dealing machine: the host end of `firmware_protocol` over a `Transport`.

Blocking calls with deadlines (handshake, status, display, scan, load, deal, recount, eject) over the pure
link, whose I/O this module pumps. The only module of the host that speaks wire messages: it answers in
host terms (`MachineStatus`, `DealResult`, `BoardReading`, ...); `send_command` and `wait_event` stay wire-level.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeVar, cast

from dealer.core.errors import DealerError, DeviceDisconnected, DeviceTimeout, MachineFaultError, MachineReplaced
from dealer.dealing.ports import open_transport
from dealer.dealing.transport import BAUDRATE, Transport
from dealer.journal.events import PROTOCOL_PROBLEMS, machine_fault_title, title_said
from dealer.language import N_, _, in_latin_letters, listed, n_
from dealer.verify import BoardRecount, PocketReading
from firmware_protocol import (
    PROTOCOL_VERSION,
    SCHEMA_HASH,
    SPOKEN,
    Abort,
    Activity,
    Answered,
    BoardChanged,
    BoardScanned,
    Boot,
    BootReason,
    Capability,
    DealDone,
    DealOutcome,
    Delivered,
    DeviceState,
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
    Progress,
    Prompt,
    Recount,
    RecountReport,
    Refused,
    RefuseReason,
    Reset,
    ResetMode,
    Role,
    ScanBoard,
    ScanResult,
    StartDeal,
    Status,
    StatusFlag,
)
from firmware_protocol.link import GIVE_UP_AFTER

M = TypeVar("M", bound=Message)
HOST_PROTOCOL: Final = PROTOCOL_VERSION
"""The protocol version this program speaks (PROTOCOL.md 13): a machine met speaking an earlier one is told so."""
BUSY_RETRY: Final = 0.02
"""Seconds between retries of a command the machine refused as BUSY."""
NOISY_RETRIES: Final = 10
"""Retries within a minute that make a line noisy enough to tell the operator (at most once a minute)."""
NOISE_WINDOW: Final = 60.0
LIVENESS_PROBE: Final = 5.0
"""Seconds without a frame from the machine, while the host waits on it (dealing, scanning, recounting, the
operator), after which the host sends GetStatus (PROTOCOL.md 4.7); the link's give-up rule then applies."""
RESYNC_HELLO: Final = 2.0
"""Seconds the handshake after a give-up waits for an answer: a machine that was given up and does not
answer it then is lost (PROTOCOL.md 4.5, 4.7: a machine silent mid-action is named about 37 s after it
last spoke)."""
HELLO_RENEW: Final = 1.0
"""Seconds a Hello goes unanswered before the host sends a new one (another seq, another session): a host
that happened to pick the session of the device's last Hello (a killed controller's, 1 in 65,536) sent the
device's last sync request byte for byte, which the device drops as a late copy (PROTOCOL.md 4.3, 4.4)."""
EJECT_LOOK: Final = 0.2
"""Seconds between two Status reads while the machine pushes a board out (an ejection raises no event)."""
SENSORLESS_LOOK: Final = 1.0
"""Seconds between two looks (scans) for a board going in or out of a machine without a board sensor."""
GARBLED_GRACE: Final = 30.0
"""Seconds a wait for the machine's report goes on past its deadline after the last damaged frame: the
machine is speaking and the line garbles it (the report may be the very frame being retransmitted)."""
_EVENT_WORDS: Final = {"DealDone": N_("the end of dealing"), "Fault": N_("the end of dealing"),
                       "RecountReport": N_("the recount"), "BoardScanned": N_("the board's label"),
                       "BoardChanged": N_("a board going in or out"), "Boot": N_("its start")}
"""What the operator is told the machine did not report, by the report awaited."""
_COMMAND_WORDS: Final = {"Hello": N_("connect"), "GetStatus": N_("tell its state"),
                         "ScanBoard": N_("read the board's label"), "LoadDeal": N_("load the deal"),
                         "StartDeal": N_("deal"), "Abort": N_("stop dealing"), "Recount": N_("recount the board"),
                         "Eject": N_("push the board out"), "Reset": N_("reset"),
                         "Display": N_("show the operator's prompt")}
_REFUSAL_WORDS: Final = {"HANDSHAKE_REQUIRED": N_("it restarted"),
                         "WRONG_STATE": N_("not now (it is in another state)"), "BUSY": N_("it is busy"),
                         "NO_BOARD": N_("there is no board in it"),
                         "BAD_DEAL": N_("the deal is not 13 cards a hand"), "BAD_HASH": N_("the deal arrived damaged"),
                         "WRONG_JOB": N_("another deal is loaded"), "FAULT_PRESENT": N_("its fault is still there"),
                         "UNSUPPORTED": N_("it cannot do that"),
                         "NOT_SCANNED": N_("the board was not read since it went in")}
"""What a refusal says, by the command refused and the machine's reason."""


def _said(words: dict[str, str], key: str, otherwise: str) -> str:
    """A table's words for `key` in the language spoken, or `otherwise` for a key it does not hold."""
    found = words.get(key)
    return _(found) if found is not None else otherwise


class Cancelled(Exception):
    """The run abandoned this machine (`Machine.abandon`): the command or wait in flight was given up. Not
    a fault of the machine: the station that drove it stops and says nothing."""


class MachineState(StrEnum):
    """Where the machine is in a board's life (PROTOCOL.md section 6)."""

    IDLE = "idle"
    LOADED = "loaded"
    DEALING = "dealing"
    DONE = "done"
    FAULT = "fault"
    UNKNOWN = "unknown"  # a state this host does not know (a newer firmware)


class MachineFaultKind(StrEnum):
    """Why the machine stopped dealing, as the machine tells it (not a Law: the verifier names those)."""

    JAM = "JAM"
    EMPTY_HOPPER = "EMPTY_HOPPER"
    MISFEED = "MISFEED"
    UNREADABLE_CARD = "UNREADABLE_CARD"
    DUPLICATE_CARD = "DUPLICATE_CARD"
    FOREIGN_CARD = "FOREIGN_CARD"
    BOARD_REMOVED = "BOARD_REMOVED"
    DOOR_OPEN = "DOOR_OPEN"
    POWER_LOSS = "POWER_LOSS"
    HARDWARE = "HARDWARE"
    INTERNAL = "INTERNAL"
    UNKNOWN = "UNKNOWN"  # a code this host does not know (a newer firmware)

    @classmethod
    def of_code(cls, code: int) -> MachineFaultKind:
        """The kind of a wire fault code."""
        name = FaultCode(code).name if code in FaultCode._value2member_map_ else "UNKNOWN"
        return cls.__members__.get(name, cls.UNKNOWN)


class OperatorPrompt(StrEnum):
    """What the machine's display asks the operator standing at it to do."""

    NONE = "NONE"  # nothing: the text is information only
    INSERT_BOARD = "INSERT_BOARD"  # insert the board named (take out any other first)
    REMOVE_BOARD = "REMOVE_BOARD"  # take the board out
    EMPTY_BOARD = "EMPTY_BOARD"  # take every card out of the board's pockets, put the board back in
    CLEAR_PATH = "CLEAR_PATH"  # clear a jammed or held card, the reject tray; close the door
    FIX_PACK = "FIX_PACK"  # make the pack whole


@dataclass(frozen=True)
class MachineStatus:
    """The machine's whole state: the loaded job, how far it got, the fault that stopped it, its sensors."""

    state: MachineState
    job: int
    board: int
    deal_hash: int  # low byte of the loaded deal's CRC: which deal is loaded, without reading it back
    board_present: bool
    cards_dealt: int
    fault: MachineFaultKind | None
    fault_detail: int
    pocket_counts: tuple[int, ...]
    boot_id: int
    busy: bool = False  # an activity runs: a scan, a recount or an ejection (Status.activity not NONE)


def _serial(hello: HelloAck) -> str:
    return hello.serial.decode("ascii", "replace")


@dataclass(frozen=True)
class MachineIdentity:
    """Who answered the handshake: the machine's serial number, firmware, protocol and what it can do."""

    serial: str
    firmware: str  # "major.minor.patch"
    protocol_version: int
    capabilities: frozenset[str]  # names, e.g. "BARCODE_READER", "CARD_RECOUNT", "DISPLAY"
    pockets: int
    hoppers: int
    boot_id: int

    @property
    def simulated(self) -> bool:
        """The machine says it deals no cards (the SIMULATED capability): a run on it is practice. A machine
        that does not say so is a real one, whatever its port (PROTOCOL.md 7.4)."""
        return "SIMULATED" in self.capabilities

    @classmethod
    def of_hello(cls, hello: HelloAck) -> MachineIdentity:
        """Who answered; a capability bit its protocol version does not define (PROTOCOL.md 13: SIMULATED is
        version 2's) is no capability."""
        defined = hello.capabilities if hello.protocol_version >= 2 else hello.capabilities & 0xFF
        names = frozenset(c.name for c in Capability if c.name and defined & c)
        return cls(hello.serial.decode("ascii", "replace"),
                   f"{hello.firmware_major}.{hello.firmware_minor}.{hello.firmware_patch}",
                   hello.protocol_version, names, hello.pockets, hello.hoppers, hello.boot_id)


@dataclass(frozen=True)
class BoardReading:
    """What the label reader found: a board or none, its label (None: none or unreadable), and how it
    lies: `turns` quarter turns anticlockwise from straight, seen from above (PROTOCOL.md 12.1)."""

    present: bool
    label: str | None
    turns: int = 0

    @property
    def straight(self) -> bool:
        """The board lies as it must to be dealt into."""
        return self.turns == 0


@dataclass(frozen=True)
class DealResult:
    """The end of dealing one job: cards dealt and counted into each pocket; False `complete` if aborted."""

    job: int
    complete: bool
    cards_dealt: int
    pocket_counts: tuple[int, ...]


class CommandRefused(MachineFaultError):
    """The machine refused a command (`reason`, `detail`); nothing was done."""

    def __init__(self, command: str, reason: int, detail: int, board: int | None = None) -> None:
        self.reason = reason
        self.detail = detail
        name = RefuseReason(reason).name if reason in RefuseReason._value2member_map_ else str(reason)
        self.command = command
        super().__init__(_("the machine refused to {command}: {reason}").format(
            command=_said(_COMMAND_WORDS, command, command),
            reason=_said(_REFUSAL_WORDS, name, name.lower().replace("_", " "))), code=reason, board=board)


class DealingFault(MachineFaultError):
    """Dealing stopped on a machine fault (jam, empty hopper, ...): its `kind`, the machine's `detail`,
    how many cards were dealt, and whether dealing can go on once the cause is put right. The text leaves
    out the detail of a DUPLICATE_CARD, which is the card read twice: part of the deal."""

    def __init__(self, kind: MachineFaultKind, detail: int, cards_dealt: int, resumable: bool, *,
                 code: int, board: int | None = None) -> None:
        self.kind = kind
        self.detail = detail
        self.cards_dealt = cards_dealt
        self.resumable = resumable
        self.wire_code = code
        self.name = kind.value if kind is not MachineFaultKind.UNKNOWN else str(code)
        super().__init__(n_("{fault} after {count} cards", "{fault} after {count} cards", cards_dealt).format(
            fault=title_said(machine_fault_title(self.name)), count=cards_dealt), code=code, board=board)

    def final(self, board: int | None = None) -> DealingFault:
        """The same fault, no longer resumable (its cause cannot be put right where the board is)."""
        return DealingFault(self.kind, self.detail, self.cards_dealt, False, code=self.wire_code, board=board)

    @classmethod
    def of_event(cls, fault: Fault, board: int | None = None) -> DealingFault:
        """From the machine's Fault event."""
        return cls(MachineFaultKind.of_code(fault.code), fault.detail, fault.cards_dealt,
                   bool(fault.flags & FaultFlag.RESUMABLE), code=fault.code, board=board)

    @classmethod
    def of_status(cls, status: MachineStatus, board: int | None = None) -> DealingFault:
        """The fault a machine holds in its status, taken as resumable (it kept the job over it)."""
        kind = status.fault or MachineFaultKind.UNKNOWN
        code = FaultCode[kind.value].value if kind.value in FaultCode.__members__ else 0
        return cls(kind, status.fault_detail, status.cards_dealt, True, code=code, board=board)


class ProtocolFaultError(MachineFaultError):
    """The machine's report does not match what was asked (another job, another number of pockets, counts
    that do not add up): a fault of the machine or its firmware; nothing may be verified on it."""

    def __init__(self, about: str, values: dict[str, str], board: int | None = None) -> None:
        """`about`: the problem's key in `PROTOCOL_PROBLEMS`, filled with `values` (the journal keeps both)."""
        self.about, self.values = about, values
        super().__init__(_("the machine's report did not match the request: {problem}").format(
            problem=_(PROTOCOL_PROBLEMS[about]).format(**values)), board=board)

    @classmethod
    def of(cls, about: str, **values: object) -> ProtocolFaultError:
        """The fault of the problem `about` (a key of `PROTOCOL_PROBLEMS`), with its fields."""
        return cls(about, {name: str(value) for name, value in values.items()})


class DeviceRestarted(DealerError):
    """The machine restarted (power loss, watchdog): handshaken again; its loaded deal is gone. `power_cut`:
    its Boot said it started from power-on or a brown-out (a watchdog, a reset or no Boot heard: False).
    Where it ends a command (the run's resynchronising gave up), the link was lost: exit 5."""

    exit_code = DeviceDisconnected.exit_code

    def __init__(self, message: str, *, power_cut: bool = False) -> None:
        self.power_cut = power_cut
        super().__init__(message)


class Reconnected(DealerError):
    """The port dropped and came back; handshaken again; the command in flight may or may not have run.
    Where it ends a command, the link was lost: exit 5."""

    exit_code = DeviceDisconnected.exit_code


class MachineSilent(DeviceTimeout):
    """Nothing was heard from the machine for the link's give-up time in the middle of a command: the
    command may or may not have been carried out; the next command handshakes again first. `silent`: for
    how many seconds."""

    def __init__(self, message: str, silent: float = 0.0) -> None:
        self.silent = silent
        super().__init__(message)


class Machine:
    """One dealing machine behind a port URL. Reports are matched to requests (PROTOCOL.md 7.2) by job,
    one job per dealing: a report of a job already reported, or of an earlier dealing (a job loaded
    before, `issued`), is dropped, held back over a new Hello; another job or another number of pockets
    raises `ProtocolFaultError`. Device events nobody waits for yet are kept in order.

    What goes wrong, as the caller sees it:

    - a refused command: `CommandRefused`; a Fault event while dealing: `DealingFault`;
    - a restart (a Boot event, or HANDSHAKE_REQUIRED): handshaken again, then `DeviceRestarted`;
    - a port that vanished: reopened (same URL) for up to `reconnect_timeout` seconds and handshaken
      again, then `Reconnected`; a port that does not come back: `DeviceDisconnected`. After either, the
      caller resynchronises from `status()`;
    - a noisy line only slows a command down (the link retransmits while the machine is heard now and
      then), and `on_noisy_line` hears of it;
    - nothing heard for the link's `give_up_after` seconds (30 by default) in a command: `MachineSilent`;
      the next command handshakes again first (a machine found restarted then: `DeviceRestarted`). The
      run resynchronises the board and goes on; only a machine that does not answer the handshake is lost;
    - no answer to the handshake within its timeout (counted from when the machine was last heard):
      `DeviceTimeout`, "no dealing machine answered on PORT";
    - `abandon` (a signal, a journal that cannot be written): `Cancelled`, whatever is in flight.
    """

    def __init__(self, url: str, *, name: str | None = None,
                 opener: Callable[[str], Transport] = open_transport,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 link_config: LinkConfig | None = None,
                 reconnect_timeout: float = 30.0,
                 on_progress: Callable[[int, int], None] | None = None,
                 poll_interval: float | None = None,
                 on_noisy_line: Callable[[int], None] | None = None) -> None:
        """`poll_interval`: wake at least this often while waiting (seconds). None, the default: a wait
        blocks on the port until bytes arrive, the link's next deadline (a retransmission) or the
        command's own deadline, whichever comes first, so an idle controller costs no CPU.
        `on_noisy_line(retries)`: told, at most once a minute, when the last minute took `NOISY_RETRIES`
        retries or more."""
        self.url = url
        self.poll_interval = poll_interval
        self.name = name or url
        # the host has finished with the board in the machine, which cannot push boards out (no EJECT): the
        # operator is to take it out before the next board is asked for; cleared when a board goes out or in
        self.board_left_in = False
        self._opener = opener
        self._clock = clock
        self.sleep = sleep
        self._link_config = link_config or LinkConfig.for_baud(BAUDRATE, Role.HOST)
        self._reconnect_timeout = reconnect_timeout
        self.on_progress = on_progress
        self.on_noisy_line = on_noisy_line
        self._retries: deque[float] = deque()
        self._bad_frames_seen = 0  # the link's count of damaged frames when last looked at
        self._garbled_at: float | None = None
        """When the last damaged frame arrived (while waiting for a report, the machine is talking)."""
        self._heard_at: float | None = None
        """When the last intact frame of the machine's arrived (a reply, an event, a notice)."""
        self._noise_told: float | None = None
        self._transport: Transport | None = None
        self._link = Link(Role.HOST, self._link_config)
        self._events: deque[Message] = deque()
        self._answer: Answered | None = None
        self._gave_up: GaveUp | None = None
        self._restarted = False
        self._resync = False
        self._boot_seen: int | None = None
        self._boot_reason: int | None = None
        self._reported: set[tuple[type[Message], int]] = set()
        """(report type, job) of every DealDone, Fault and RecountReport taken: a second one is a repeat."""
        self._issued: set[int] = set()
        self._earlier_up_to = 0
        """Job numbers up to this one were given this machine by earlier runs (`issued`)."""
        """Every job number given a dealing before (loaded here, or known from the journal: `issued`)."""
        self._hello: HelloAck | None = None
        self._read_since_hello = False
        """A BoardScanned was taken since the last Hello: every report held back over it has arrived."""
        self.reconnects = 0
        self.restarts = 0
        self._cancel = threading.Event()

    # --- connection ---------------------------------------------------------------------------

    def connect(self, timeout: float = 10.0) -> MachineIdentity:
        """Open the port and handshake; returns the machine's identity and capabilities."""
        if self._transport is None:
            self._transport = self._opener(self.url)
        return MachineIdentity.of_hello(self._handshake(timeout))

    @property
    def identity(self) -> MachineIdentity | None:
        """The machine met at the last handshake (None before the first)."""
        return MachineIdentity.of_hello(self._hello) if self._hello is not None else None

    def abandon(self) -> None:
        """Give the machine up, from any thread: the command or wait in hand ends at once with `Cancelled`
        (a blocked read is interrupted, or the port closed under it), and so does every later one. The
        machine is left as a killed controller leaves it, which the journal's crash recovery settles."""
        self._cancel.set()
        transport = self._transport
        if transport is not None:
            interrupt = getattr(transport, "interrupt", None)
            (interrupt or transport.close)()

    @property
    def abandoned(self) -> bool:
        """True once `abandon` was called."""
        return self._cancel.is_set()

    def close(self) -> None:
        """Close the port."""
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def __enter__(self) -> Machine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handshake(self, timeout: float, *, restart_reported: bool = False) -> HelloAck:
        self._link.cancel()
        self._link = Link(Role.HOST, self._link_config)
        self._bad_frames_seen = 0
        self._restarted = self._resync = self._read_since_hello = False
        first = self._hello is None
        reply = self._request(Hello(PROTOCOL_VERSION, SCHEMA_HASH, random.getrandbits(16)), HelloAck, timeout,
                              handshake=True)
        if self._restarted and self._boot_seen == reply.boot_id and (first or restart_reported):
            self._restarted = False  # the Boot of the run that answered: its power-on notice or the restart in hand
        if self._hello is not None and reply.serial != self._hello.serial:
            raise MachineReplaced(_(
                "{machine}: another machine answered on this port (serial {serial}, where this run's machine is "
                "serial {run_serial}): nothing was sent to it; to go on, put the run's machine back on the port, or "
                "keep this one").format(machine=self.name, serial=_serial(reply), run_serial=_serial(self._hello)))
        if SPOKEN.get(reply.protocol_version) != reply.schema_hash:
            spoken = listed(str(v) for v in sorted(SPOKEN))
            raise MachineFaultError(_(
                "{machine}: the machine's firmware speaks protocol version {version} (messages {schema:08x}) and "
                "this program versions {versions} (messages {own_schema:08x} in version {own_version}): update the "
                "one that is older").format(machine=self.name, version=reply.protocol_version,
                                            schema=reply.schema_hash, versions=spoken, own_schema=SCHEMA_HASH,
                                            own_version=PROTOCOL_VERSION))
        self._hello = reply
        return reply

    # --- commands -----------------------------------------------------------------------------

    @property
    def clock(self) -> Callable[[], float]:
        """The clock this machine's deadlines are read from."""
        return self._clock

    @property
    def has_display(self) -> bool:
        """The machine shows the host's prompts to its operator (the DISPLAY capability)."""
        return self._hello is None or bool(self._hello.capabilities & Capability.DISPLAY)

    def display(self, prompt: OperatorPrompt, board: int = 0, label: str = "", text: str = "",
                timeout: float = 5.0) -> None:
        """Show a prompt to the operator at the machine (if it has a display; else nothing is sent). `text` is
        said in the director's language and sent in Latin letters: the wire carries ASCII (PROTOCOL.md)."""
        if not self.has_display:
            return
        self._request(Display(Prompt[prompt.value], board, label.encode("ascii", "replace")[:64],
                              in_latin_letters(text).encode("ascii", "replace")[:80]), None, timeout)

    def status(self, timeout: float = 5.0) -> MachineStatus:
        """The machine's whole state: loaded job, progress, fault, sensors."""
        st = self._request(GetStatus(), Status, timeout)
        state = DeviceState(st.state).name if st.state in DeviceState._value2member_map_ else "UNKNOWN"
        return MachineStatus(
            state=MachineState[state], job=st.job, board=st.board, deal_hash=st.deal_hash,
            board_present=bool(st.flags & StatusFlag.BOARD_PRESENT), cards_dealt=st.cards_dealt,
            fault=MachineFaultKind.of_code(st.fault) if st.fault else None, fault_detail=st.fault_detail,
            pocket_counts=tuple(st.pocket_counts), boot_id=st.boot_id, busy=st.activity != Activity.NONE)

    def scan(self, timeout: float = 10.0) -> BoardScanned:
        """Read the inserted board's label."""
        self._drop_events(BoardScanned)
        self._request(ScanBoard(), None, timeout)
        scanned = self.wait_event(BoardScanned, timeout)
        self._read_since_hello = True
        return scanned

    def read_board(self, timeout: float = 10.0) -> BoardReading:
        """Scan the board: is one in, its label (None if unreadable) and how it lies. A board taken out
        before or during the scan counts as no board, not as an error. Board movements reported before
        the scan are forgotten: `board_moved` tells of those after it."""
        self._drop_events(BoardChanged)
        try:
            scanned = self.scan(timeout)
        except CommandRefused as exc:
            if exc.reason == RefuseReason.NO_BOARD:
                return BoardReading(False, None)
            raise
        if scanned.result == ScanResult.NO_BOARD:
            return BoardReading(False, None)
        if scanned.result != ScanResult.OK:
            return BoardReading(True, None)
        return BoardReading(True, scanned.label.decode("ascii", "replace"), scanned.turns)

    def board_moved(self) -> bool:
        """True if a board was taken out or put in since the last `read_board` (the events so far)."""
        self._pump(self._clock())
        moved = any(isinstance(m, BoardChanged) for m in self._events)
        self._drop_events(BoardChanged)
        return moved

    @property
    def pockets(self) -> int:
        """How many pockets the machine announced (4 for a bridge machine)."""
        return self._hello.pockets if self._hello is not None else 4

    @property
    def senses_boards(self) -> bool:
        """The machine has a board sensor (BoardChanged events, BOARD_PRESENT in Status); without one, the
        label reader is asked instead (a scan finds a board or none)."""
        return self._hello is None or bool(self._hello.capabilities & Capability.BOARD_SENSOR)

    def board_present(self) -> bool:
        """True when a board is in the machine: as its board sensor sees it, else as its reader finds it."""
        if not self.senses_boards:
            return self.read_board().present
        return self.status().board_present

    def eject_board(self, timeout: float = 10.0) -> bool:
        """Eject the board if there is one (no board is not an error); waits until it is out. False if the
        machine cannot push boards out (no EJECT): the operator must take it out."""
        try:
            self.eject(timeout)
        except CommandRefused as exc:
            if exc.reason == RefuseReason.UNSUPPORTED:
                self.board_left_in = True
                return False
            if exc.reason != RefuseReason.NO_BOARD:
                raise
        return True

    def take_board_out(self, board: int, label: str, text: str, timeout: float) -> bool:
        """Have the board in the machine taken out before the same board is asked for again (an INSERT_BOARD
        for the board that is in asks nothing, PROTOCOL.md 7.2): pushed out, or on a machine that cannot
        push boards out the operator asked to take it out (REMOVE_BOARD, with `text`) and waited for.
        False if it is still in after `timeout` seconds."""
        if self.eject_board():
            return True
        self.display(OperatorPrompt.REMOVE_BOARD, board, label, text[:80])
        return self.wait_board(False, timeout)

    def load(self, job: int, board: int, packed_deal: bytes, timeout: float = 5.0) -> None:
        """Load the deal of one job into the machine's memory. `job` is a new dealing's number: reports of
        the jobs loaded before it are from then on dropped as earlier dealings'."""
        self._issued.add(job)
        self._request(LoadDeal.for_deal(job, board, packed_deal), None, timeout, board=board)

    def issued(self, jobs: Iterable[int], up_to: int = 0) -> None:
        """Job numbers given to dealings before this controller started (the journal's, and every number up to
        `up_to`, the last any run gave this machine): a report of one of them is an earlier dealing's, held
        back, never the answer to a request of this run."""
        self._issued.update(jobs)
        self._earlier_up_to = max(self._earlier_up_to, min(up_to, 0xFFFF))

    def start_deal(self, job: int, timeout: float = 5.0) -> bool:
        """Tell the machine to deal the loaded job into the inserted board (or resume after a fault).
        False if the machine refused because the board in it was not read since it went in (it moved):
        read it again first."""
        self._drop_events(DealDone, Fault)
        try:
            self._request(StartDeal(job), None, timeout)
        except CommandRefused as exc:
            if exc.reason == RefuseReason.NOT_SCANNED:
                return False
            raise
        return True

    def resume_deal(self, job: int, timeout: float = 5.0) -> bool | None:
        """Go on dealing `job` after a fault was put right: True once dealing goes on (or already did),
        False while the machine still sees the fault's cause, None if the board must be read again first
        (it moved, or the machine restarted). Any other refusal raises."""
        try:
            return True if self.start_deal(job, timeout) else None
        except CommandRefused as exc:
            if exc.reason == RefuseReason.WRONG_STATE and exc.detail == DeviceState.DEALING:
                return True
            if exc.reason == RefuseReason.FAULT_PRESENT:
                return False
            raise

    def wait_dealt(self, job: int, timeout: float) -> DealResult:
        """Wait for the end of dealing `job`; raises `DealingFault` if it stopped on a fault, `ProtocolFaultError`
        on a report for another job or one that does not add up."""
        deadline = self._clock() + timeout
        while True:
            msg = self._wait_any((DealDone, Fault), deadline)
            assert isinstance(msg, DealDone | Fault)
            if not self._matches(msg, job):
                continue
            if isinstance(msg, Fault):
                raise DealingFault.of_event(msg)
            counts = tuple(msg.pocket_counts)
            if len(counts) != self.pockets or sum(counts) != msg.cards_dealt:
                raise ProtocolFaultError.of("dealt", job=job, counts=list(counts),
                                            pockets=len(counts), cards=msg.cards_dealt, machine_pockets=self.pockets)
            return DealResult(msg.job, msg.outcome == DealOutcome.COMPLETE, msg.cards_dealt, counts)

    def _matches(self, msg: DealDone | Fault | RecountReport, job: int) -> bool:
        """True for the report of `job`; False for a repeat of a report already taken, or for a Fault with
        job 0 (the machine's, noticed outside dealing: no report of any request, PROTOCOL.md 7.2); else
        ProtocolFaultError."""
        if isinstance(msg, Fault) and msg.job == 0:
            return False
        key = (type(msg), msg.job)
        if msg.job == job:
            self._reported.add(key)
            return True
        if key in self._reported or msg.job in self._issued or 0 < msg.job <= self._earlier_up_to:
            return False  # a repeat, or a report of an earlier dealing held back over a new Hello (PROTOCOL.md 9)
        raise ProtocolFaultError.of(type(msg).__name__, other=msg.job, job=job)

    def deal(self, job: int, timeout: float) -> DealResult:
        """Start dealing `job` and wait for its end (the board must have been read since it went in)."""
        if not self.start_deal(job):
            raise CommandRefused("StartDeal", RefuseReason.NOT_SCANNED, 0)
        return self.wait_dealt(job, timeout)

    def recount(self, job: int, turns: int = 0, timeout: float = 30.0) -> BoardRecount | None:
        """Read back every card in the board's pockets, as the board's own pockets N E S W: a board lying
        `turns` quarter turns round has its pocket (p + turns) mod 4 under the machine's pocket p. None if
        the board was taken out before the recount finished (or began: the machine refuses it, no board).
        `ProtocolFaultError` if the report is for another job or has another number of pockets than the machine
        announced. Only a report that came after the Recount was sent answers it, and after a Hello a
        ScanBoard goes first, so that reports held back have come (PROTOCOL.md 7.2, recounts of one job)."""
        try:
            reads = self._hello is None or bool(self._hello.capabilities & Capability.BARCODE_READER)
            if reads and (self._resync or not self._read_since_hello):  # held back: before the BoardScanned
                self.scan(timeout)
            self._drop_events(RecountReport)
            self._request(Recount(job), None, timeout)
        except CommandRefused as exc:
            if exc.reason == RefuseReason.NO_BOARD:
                return None
            raise
        deadline = self._clock() + timeout
        while True:
            report = self._wait_any((RecountReport,), deadline)
            assert isinstance(report, RecountReport)
            if self._matches(report, job):
                break
        if not report.pockets:
            return None
        if len(report.pockets) != self.pockets or self.pockets != 4:
            cards = [len(p.cards) + p.unidentified for p in report.pockets]
            raise ProtocolFaultError.of("recounted", job=job, pockets=len(report.pockets),
                                        counts=cards, machine_pockets=self.pockets)
        read = [PocketReading(tuple(p.cards), p.unidentified) for p in report.pockets]
        board = [read[(q - turns) % 4] for q in range(4)]
        return BoardRecount((board[0], board[1], board[2], board[3]))

    def eject(self, timeout: float = 10.0) -> None:
        """Push the board out and wait until it is out. Eject raises no event (PROTOCOL.md 4.7): the
        ejection is over when the machine's Status shows no activity, which is asked every `EJECT_LOOK`
        seconds; `DeviceTimeout` if it still runs after `timeout` seconds. A machine with a board sensor
        reports the board out by its BoardChanged, which is waited for instead."""
        self._drop_events(BoardChanged)
        self._request(Eject(), None, timeout)
        if self.senses_boards:
            self.wait_board(False, timeout)
            return
        deadline = self._clock() + timeout
        while self.status().busy:
            if self._clock() >= deadline:
                raise DeviceTimeout(_("{machine}: the machine did not finish pushing the board out in time").format(
                    machine=self.name))
            self.sleep(EJECT_LOOK)

    def abort(self, timeout: float = 5.0) -> None:
        """Stop dealing now."""
        self._request(Abort(), None, timeout)

    def reset(self, *, reboot: bool = False, timeout: float = 5.0) -> None:
        """Clear the machine to IDLE (or restart its firmware)."""
        self._request(Reset(ResetMode.REBOOT if reboot else ResetMode.CLEAR), None, timeout)

    def send_command(self, msg: Message, timeout: float = 5.0) -> Message:
        """Send any command and return its reply (Refused raises `CommandRefused`)."""
        return self._request(msg, None, timeout)

    # --- events -------------------------------------------------------------------------------

    def wait_event(self, kind: type[M], timeout: float) -> M:
        """The next event of type `kind` (events of other types stay queued)."""
        msg = self._wait_any((kind,), self._clock() + timeout)
        assert isinstance(msg, kind)
        return msg

    def wait_board(self, present: bool, timeout: float) -> bool:
        """Wait until a board is inserted (present=True) or removed; False on timeout. A machine without a
        board sensor is asked by a scan every `SENSORLESS_LOOK` seconds."""
        deadline = self._clock() + timeout
        if not self.senses_boards:
            while self.board_present() != present:
                if self._clock() >= deadline:
                    return False
                self.sleep(SENSORLESS_LOOK)
            self.board_left_in = False
            return True
        while True:
            try:
                msg = self._wait_any((BoardChanged,), deadline)
            except MachineSilent:
                raise
            except DeviceTimeout:
                return False
            if isinstance(msg, BoardChanged) and bool(msg.present) == present:
                self.board_left_in = False
                return True

    def pending_events(self) -> list[Message]:
        """Events received and not yet taken (oldest first), removed from the queue."""
        out = list(self._events)
        self._events.clear()
        return out

    def _drop_events(self, *kinds: type[Message]) -> None:
        self._events = deque(m for m in self._events if not isinstance(m, kinds))

    def _wait_any(self, kinds: tuple[type[Message], ...], deadline: float) -> Message:
        while True:
            for msg in self._events:
                if isinstance(msg, kinds):
                    self._events.remove(msg)
                    return msg
            if self._restarted:
                self._recover_restart()
            garbled = self._garbled_at
            if garbled is not None:  # the machine is talking and the line garbles it: its report may be in it
                deadline = max(deadline, garbled + GARBLED_GRACE)
            now = self._clock()
            if now >= deadline:
                words = listed(dict.fromkeys(_said(_EVENT_WORDS, k.__name__, k.__name__) for k in kinds), style="or")
                raise DeviceTimeout(_("{machine}: the machine did not report {what} in time").format(
                    machine=self.name, what=words))
            probe_at = self._last_sign(now) + LIVENESS_PROBE
            if now >= probe_at:
                self._probe()
                continue
            self._pump(min(deadline, probe_at))

    def _last_sign(self, now: float) -> float:
        """When the machine last gave a sign of life: a frame, even a damaged one (`now` if none yet)."""
        signs = [t for t in (self._heard_at, self._garbled_at) if t is not None]
        if not signs:
            self._heard_at = now
        return max(signs, default=now)

    def _probe(self) -> None:
        """Nothing heard for `LIVENESS_PROBE` seconds while waiting on the machine: GetStatus (PROTOCOL.md
        4.7), retransmitted on the link's RTO while unanswered and given up (`MachineSilent`) by the link's
        rule (4.5): its give-up time after the GetStatus was first sent, unless a reply came later."""
        give_up = self._link_config.give_up_after or GIVE_UP_AFTER
        self._request(GetStatus(), Status, give_up)

    # --- the I/O pump -------------------------------------------------------------------------

    def _request(self, msg: Message, expect: type[M] | None, timeout: float, *, handshake: bool = False,
                 board: int | None = None) -> M:
        deadline = self._clock() + timeout
        if self._resync and not handshake:  # after a give-up: Hello first; a machine that does not answer is lost
            self._resynchronise(RESYNC_HELLO)
        while True:
            reply = self._exchange(msg, deadline, timeout, handshake)
            busy = isinstance(reply, Refused) and reply.reason == RefuseReason.BUSY
            if not busy or self._clock() + BUSY_RETRY >= deadline:
                break  # still busy at the deadline: refused as BUSY (never sent again past the deadline)
            self.sleep(BUSY_RETRY)  # an activity (scan, recount, eject) is still running: it ends soon
        if isinstance(reply, Refused):
            if reply.reason == RefuseReason.HANDSHAKE_REQUIRED and not handshake:
                self._restarted = True
                self._recover_restart()
            raise CommandRefused(type(msg).__name__, reply.reason, reply.detail, board)
        if expect is not None and not isinstance(reply, expect):
            raise MachineFaultError(_("{machine}: the machine gave a wrong answer when asked to {command}").format(
                machine=self.name, command=_said(_COMMAND_WORDS, type(msg).__name__, type(msg).__name__)))
        return cast(M, reply)

    def _exchange(self, msg: Message, deadline: float, timeout: float, handshake: bool) -> Message:
        """Send one command and pump until its reply. A command waits for as long as the link keeps trying
        (PROTOCOL.md 4.5: it gives up `give_up_after` seconds after the command's first sending, or after
        the machine's last reply if later); a handshake waits `timeout` seconds from the last time the
        machine was heard."""
        self._answer = self._gave_up = None
        self._link.send(msg, self._clock())
        first_deadline = deadline
        renew_at = self._clock() + HELLO_RENEW if handshake else None
        while self._answer is None:
            if self._gave_up is not None:
                now = self._clock()
                silent, self._gave_up = max(self._gave_up.silent, now - self._last_sign(now)), None
                if handshake:
                    raise DeviceTimeout(self._nobody_answered())
                self._resync = True
                raise MachineSilent(_("{machine}: the machine was not heard for {seconds:.0f} s").format(
                    machine=self.name, seconds=silent), silent)
            if self._restarted and not handshake:
                self._recover_restart()
            if handshake:  # `timeout` counts from the last sign of life (a frame, even a damaged one)
                alive = max((t for t in (self._link.last_heard, self._garbled_at) if t is not None), default=None)
                if alive is not None:
                    deadline = max(deadline, min(alive + timeout, first_deadline + GIVE_UP_AFTER))
                if self._clock() >= deadline:
                    self._link.cancel()
                    raise DeviceTimeout(self._nobody_answered())
                if renew_at is not None and self._clock() >= renew_at and isinstance(msg, Hello):
                    msg = Hello(msg.protocol_version, msg.schema_hash, random.getrandbits(16))
                    self._link.cancel()
                    self._link.send(msg, self._clock())  # the next seq: never the device's last Hello again
                    renew_at = self._clock() + HELLO_RENEW
            wake = (min(deadline, renew_at) if renew_at is not None else deadline) if handshake \
                else self._link.next_deadline() or self._clock()
            self._pump(wake)
        reply = self._answer.reply
        self._answer = None
        return reply

    def _nobody_answered(self) -> str:
        """The handshake got no answer: in words a director knows, naming the port once."""
        text = _("no dealing machine answered on {port} (is it on, and is this its port?)").format(port=self.url)
        return text if self.name == self.url else f"{self.name}: {text}"

    def _count_retries(self, before: int, now: float) -> None:
        """Keep the times of the link's retries of the last minute; tell the run when the line is noisy
        (retries, and damaged frames arriving: a machine gone silent is not a noisy line)."""
        counters = self._link.counters
        for _retry in range(counters.retransmits + counters.nak_retransmits - before):
            self._retries.append(now)
        while self._retries and self._retries[0] < now - NOISE_WINDOW:
            self._retries.popleft()
        told, garbled = self._noise_told, self._garbled_at
        if (self.on_noisy_line is not None and len(self._retries) >= NOISY_RETRIES
                and garbled is not None and now - garbled < NOISE_WINDOW  # damaged frames: not just silence
                and (told is None or now - told >= NOISE_WINDOW)):
            self._noise_told = now
            self.on_noisy_line(len(self._retries))

    def _pump(self, deadline: float) -> None:
        if self._cancel.is_set():
            raise Cancelled(self.name)
        transport = self._transport
        if transport is None:
            raise DeviceDisconnected(_("{machine}: not connected").format(machine=self.name))
        try:
            self._flush(transport)
            now = self._clock()
            wake = min(deadline, self._link.next_deadline() or deadline)
            if self.poll_interval is not None:
                wake = min(wake, now + self.poll_interval)
            data = transport.read(max(0.0, wake - now))
            now = self._clock()
            link = self._link
            counters = link.counters
            before = counters.retransmits + counters.nak_retransmits
            frames_before = counters.frames_received
            events = link.receive(data, now) if data else []
            events += link.poll(now)
            self._flush(transport)
            if counters.frames_received != frames_before:  # the machine spoke
                self._heard_at = now
            if counters.bad_frames != self._bad_frames_seen:  # damaged frames arrived
                self._bad_frames_seen = counters.bad_frames
                self._garbled_at = now
            if self._retries or counters.retransmits + counters.nak_retransmits != before:
                self._count_retries(before, now)
        except DeviceDisconnected:
            if self._cancel.is_set():  # the port was closed by `abandon`, not lost
                raise Cancelled(self.name) from None
            self._reconnect()
            raise Reconnected(_("{machine}: the port was lost and opened again").format(machine=self.name)) from None
        for event in events:
            self._on_link_event(event)

    def _flush(self, transport: Transport) -> None:
        out = self._link.data_to_send()
        if out:
            transport.write(out)

    def _on_link_event(self, event: object) -> None:
        if isinstance(event, Answered):
            self._answer = event
        elif isinstance(event, GaveUp):
            self._gave_up = event
        elif isinstance(event, Delivered):
            msg = event.message
            if isinstance(msg, Boot):
                if self._hello is not None and msg.boot_id == self._hello.boot_id:
                    return  # the Boot of the run we already handshook with, arriving late
                self._restarted = True
                self._boot_seen = msg.boot_id
                self._boot_reason = msg.reason
                self._events.clear()
            elif isinstance(msg, Progress):
                if self.on_progress is not None:
                    self.on_progress(msg.job, msg.cards_dealt)
            else:
                self._events.append(msg)

    def _recover_restart(self) -> None:
        self.restarts += 1
        reason, self._boot_reason = self._boot_reason, None
        self._handshake(10.0, restart_reported=True)
        raise _restarted(self.name, reason)

    def _resynchronise(self, timeout: float) -> None:
        """After the link gave up, the protocol wants a handshake before any other command."""
        before = self._hello.boot_id if self._hello is not None else None
        try:
            hello = self._handshake(timeout)
        except DeviceTimeout:
            raise DeviceTimeout(_("{machine}: the machine stopped answering and does not answer a new connection (is "
                                  "it switched on, and its cable in?)").format(machine=self.name)) from None
        if hello.boot_id != before:
            self._restarted = False  # reported here, once
            self.restarts += 1
            reason, self._boot_reason = self._boot_reason, None
            raise _restarted(self.name, reason)

    def _reconnect(self) -> None:
        self.close()
        self.reconnects += 1
        deadline = self._clock() + self._reconnect_timeout
        while True:
            try:
                self._transport = self._opener(self.url)
                break
            except DeviceDisconnected:
                if self._clock() >= deadline:
                    raise
                if self._cancel.is_set():
                    raise Cancelled(self.name) from None
                self.sleep(0.2)
        self._events.clear()
        self._handshake(10.0)


def _restarted(name: str, boot_reason: int | None) -> DeviceRestarted:
    """The restart of a machine whose Boot gave `boot_reason` (None: no Boot was heard)."""
    if boot_reason in (BootReason.POWER_ON, BootReason.BROWN_OUT):
        return DeviceRestarted(_("{machine}: the machine lost power and restarted; its loaded deal is gone").format(
            machine=name), power_cut=True)
    return DeviceRestarted(_("{machine}: the machine restarted and lost its loaded deal").format(machine=name))
