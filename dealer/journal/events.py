"""The journal's events: one kind each, what happened as data, and how it is said (never a card).

One frozen dataclass per `EventKind`, registered in `EVENTS` (as `firmware_protocol.messages` is for the
wire): every output (terminal, `dealer report`, the narrative, the console) takes its words from here.
Imports `dealer.verify` only.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any, ClassVar, Final, TypeVar, Union

from dealer.verify.fault_table import FaultCategory, named


class EventKind(StrEnum):
    """The kind of an event, as the journal's ``kind`` column holds it."""

    RUN_STARTED = "run-started"
    RUN_FINISHED = "run-finished"
    LOADED = "loaded"
    SCANNED = "scanned"
    DEALING = "dealing"
    DEALT = "dealt"
    VERIFIED = "verified"
    RELEASED = "released"
    REDEAL = "redeal"
    LINK_RESYNC = "link-resync"
    START_CANCELLED = "start-cancelled"
    MACHINE_FAULT = "machine-fault"
    MACHINE_FAULT_RESUMED = "machine-fault-resumed"
    DOUBLE_FEED = "double-feed"
    PROTOCOL_FAULT = "protocol-fault"
    RECOUNT_FAULT = "recount-fault"
    RECOUNT_UNVERIFIED = "recount-unverified"
    RECOUNT_INTERRUPTED = "recount-interrupted"
    CARDS_SHOWN = "cards-shown"
    BOARD_MOVED = "board-moved"
    BOARD_REFUSED = "board-refused"
    BOARD_GIVEN_UP = "board-given-up"
    RESUME_UNCERTAIN = "resume-uncertain"
    RESUME_EMPTY_BOARD = "resume-empty-board"
    RESUME_DEALT = "resume-dealt"
    INTERRUPTED_DEAL = "interrupted-deal"
    MACHINE_MET = "machine-met"


class Interruption(StrEnum):
    """What cut a board's life short: how the station learnt it (a new boot id and its reason, the port
    lost and opened again, the link giving up, the controller's own stop and resume)."""

    POWER_CUT = "power-cut"                    # the machine restarted after losing power (its Boot says so)
    MACHINE_RESTARTED = "machine-restarted"    # the machine restarted for another reason (watchdog, reset)
    CABLE_PULLED = "cable-pulled"              # the port was lost and opened again
    SILENT_LINE = "silent-line"                # the machine was not heard for the link's give-up time
    CONTROLLER_STOPPED = "controller-stopped"  # the controller stopped (a signal, a crash) and was resumed

    @property
    def named(self) -> str:
        """The interruption named as what it was: 'power cut'."""
        return _CAUSE_TITLES[self]

    @property
    def story(self) -> str:
        """What happened, in a few words."""
        return _CAUSE_STORIES[self]


_CAUSE_TITLES: Final = {
    Interruption.POWER_CUT: "power cut",
    Interruption.MACHINE_RESTARTED: "machine restarted",
    Interruption.CABLE_PULLED: "cable pulled",
    Interruption.SILENT_LINE: "machine stopped answering",
    Interruption.CONTROLLER_STOPPED: "controller stopped",
}
_CAUSE_STORIES: Final = {
    Interruption.POWER_CUT: "the machine lost power and restarted",
    Interruption.MACHINE_RESTARTED: "the machine restarted (not from a power cut)",
    Interruption.CABLE_PULLED: "the port to the machine was lost and opened again",
    Interruption.SILENT_LINE: "the machine was not heard for a while; the connection was started again",
    Interruption.CONTROLLER_STOPPED: "the controller was stopped and started again",
}


class FaultGroup(StrEnum):
    """Which count a fault goes into: the figures of every output add up the same groups."""

    RECOUNT = "recount"            # the verifier's, on the recount after dealing (F-codes)
    BOARD_CHECK = "board check"    # a board refused before dealing (F8, F6, F4, F7)
    MACHINE = "machine"            # the machine stopped or misreported (jam, double feed, protocol)
    INTERRUPTION = "interruption"  # power cut, cable pulled, machine stopped answering, controller stopped


@dataclass(frozen=True)
class FaultSeen:
    """One fault an event found: its title (the F-code and its name, or the machine's fault), its Law
    ('' for none) and its group."""

    title: str
    law: str
    group: FaultGroup

    def text(self) -> str:
        """'F2 card in wrong pocket (Law 13A1)', 'power cut'."""
        return f"{self.title} ({self.law})" if self.law else self.title


MACHINE_FAULT_WORDS: Final = {
    "JAM": "card jam", "EMPTY_HOPPER": "pack ran out", "MISFEED": "card misfed",
    "UNREADABLE_CARD": "unreadable card", "DUPLICATE_CARD": "card read twice",
    "FOREIGN_CARD": "card of another pack", "BOARD_REMOVED": "board taken out while dealing",
    "DOOR_OPEN": "machine's door opened", "POWER_LOSS": "dealing stopped by a power cut",
    "HARDWARE": "machine's hardware failed", "INTERNAL": "machine's own program failed",
    "DOUBLE_FEED": "two cards fed at once",
}
"""The machine's fault names (`dealer.dealing.machine.MachineFaultKind`) as a director says them: the title
each is counted under, never the wire name."""
PUT_RIGHT_WORDS: Final = {"CLEAR_PATH": "clear the card path", "FIX_PACK": "make the pack whole",
                          "INSERT_BOARD": "put the board back"}
"""What each put-right prompt asks of the operator."""
BEFORE_DEALING: Final = {"F8": "board refused by its label, another asked for",
                         "F6": "board refused: turned in the machine, asked for straight",
                         "F4": "board refused: cards in it before dealing, emptied",
                         "F7": "board refused: another board's deal in it before dealing, the run stopped"}
"""What the run did about a board refused before dealing, by the fault it named: the one table the live
lines, the console and `dealer report` say it from (`BoardRefused.action`)."""


PROTOCOL_FAULT_TITLE: Final = "the machine's report did not match the request (protocol fault)"


def machine_fault_title(name: str) -> str:
    """A machine's fault as a director says it: 'card jam'; a fault number this program does not know, as
    'machine fault number 42 (see the machine's manual)'."""
    words = MACHINE_FAULT_WORDS.get(name)
    if words is not None:
        return words
    number = name if name.isdigit() else "unknown"
    return f"machine fault number {number} (see the machine's manual)"


_SEAT_WORDS: Final = ("North", "East", "South", "West")


def machine_fault_detail(name: str, detail: int | None) -> str:
    """What the machine's detail of its fault says, in words ('' when it says nothing a director can use):
    how many cards were dealt before a jam, the pocket a misfed card went to, the door, the maker's number.
    The detail of a card read twice (the card) is never said."""
    if detail is None:
        return ""
    if name in ("JAM", "UNREADABLE_CARD"):
        return f" after {detail} card{'' if detail == 1 else 's'}"
    if name == "MISFEED" and 0 <= detail < 4:
        return f" into the {_SEAT_WORDS[detail]} pocket"
    if name == "DOOR_OPEN" and detail:
        return f" (door {detail})"
    if name in ("HARDWARE", "INTERNAL"):
        return f" (the maker's fault number {detail}: see the machine's manual)"
    return ""


def code_fault(code: str, group: FaultGroup, problem: str | None = None) -> FaultSeen:
    """A fault-table code as a `FaultSeen`: 'F1 missing card', Law 14A ('F6 board turned' for an F6 whose
    `problem` is "turned"); a code unknown here as it is."""
    category = FaultCategory.__members__.get(code)
    if category is None:
        return FaultSeen(code, "", group)
    return FaultSeen(f"{category.value} {named(category, problem)}", category.law, group)


def _codes_text(codes: tuple[str, ...]) -> str:
    return ", ".join(code_fault(c, FaultGroup.RECOUNT).text() for c in codes) or "no fault code"


# --- the events ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Event:
    """What happened. `detail` and `decode` are the journal's JSON ``detail`` column; `text` says it in
    words, `faults` names the faults it found (title, Law, group), `action` what the run did. `busy`: the
    machine's seconds on the job since the last step that recorded them."""

    KIND: ClassVar[EventKind]
    busy: float = 0.0

    def text(self) -> str:
        """What happened, in words, naming no card."""
        return self.KIND.value.replace("-", " ")

    def faults(self) -> tuple[FaultSeen, ...]:
        """The faults this event found (none for a plain step)."""
        return ()

    def action(self) -> str:
        """What the run did about it ('' for a plain step)."""
        return ""

    def detail(self) -> dict[str, Any]:
        """The journal's JSON ``detail`` of the event: each field under its key (`journal_key`), a field left
        at nothing (None, no busy seconds) left out."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or (f.name == "busy" and not value):
                continue
            out[journal_key(f)] = _plain(value)
        return out

    @classmethod
    def from_detail(cls, detail: Mapping[str, Any]) -> Event:
        """The event of a journal's ``detail`` (keys it does not know are left out)."""
        hints = typing.get_type_hints(cls)
        values = {f.name: _typed(hints[f.name], detail[journal_key(f)]) for f in fields(cls)
                  if journal_key(f) in detail}
        return cls(**values)


def journal_key(f: Field[Any]) -> str:
    """The key of a field in the journal's ``detail``: its name, unless its metadata names another
    (``field(metadata={"key": "faults"})``, for a field renamed after journals were written with the key)."""
    return str(f.metadata.get("key", f.name))


def _renamed(key: str, default: Any = None) -> Any:
    """A field kept in the journal under `key`."""
    return field(default=default, metadata={"key": key})


E = TypeVar("E", bound=Event)
EVENTS: Final[dict[EventKind, type[Event]]] = {}
"""Every event class by its kind."""


def _register(cls: type[E]) -> type[E]:
    if cls.KIND in EVENTS:
        raise ValueError(f"two event classes for {cls.KIND}")
    EVENTS[cls.KIND] = cls
    return cls


@_register
@dataclass(frozen=True, kw_only=True)
class RunStarted(Event):
    KIND = EventKind.RUN_STARTED
    name: str = ""
    jobs: int = 0
    replay: bool = False

    def text(self) -> str:
        return f"run {self.name} begun: {self.jobs} boards to deal" + (" (a replay)" if self.replay else "")


@_register
@dataclass(frozen=True, kw_only=True)
class RunFinished(Event):
    KIND = EventKind.RUN_FINISHED

    def text(self) -> str:
        return "run finished: every board verified"


@_register
@dataclass(frozen=True, kw_only=True)
class Loaded(Event):
    """The deal was sent to a machine's memory."""

    KIND = EventKind.LOADED


@_register
@dataclass(frozen=True, kw_only=True)
class Scanned(Event):
    """The right board is in the machine, checked by its label."""

    KIND = EventKind.SCANNED
    label: str | None = None


@_register
@dataclass(frozen=True, kw_only=True)
class Dealing(Event):
    """The machine was told to deal."""

    KIND = EventKind.DEALING


@_register
@dataclass(frozen=True, kw_only=True)
class Dealt(Event):
    """The machine reported the deal done, with its count of each pocket."""

    KIND = EventKind.DEALT
    counts: tuple[int, ...] = ()


@_register
@dataclass(frozen=True, kw_only=True)
class Verified(Event):
    """The recount matched the deal; `warnings`: fault-table codes that do not stop it (F12)."""

    KIND = EventKind.VERIFIED
    layout: str | None = None
    warnings: tuple[str, ...] = ()

    def text(self) -> str:
        return "verified" + (f" with warning {_codes_text(self.warnings)}" if self.warnings else "")

    def faults(self) -> tuple[FaultSeen, ...]:
        return tuple(code_fault(c, FaultGroup.RECOUNT) for c in self.warnings)

    def action(self) -> str:
        return "verified" if self.warnings else ""


@_register
@dataclass(frozen=True, kw_only=True)
class Released(Event):
    """A job only loaded or scanned went back to the queue (`why`: the machine lost, the run resumed)."""

    KIND = EventKind.RELEASED
    why: str = ""

    def text(self) -> str:
        return f"given back to the queue ({self.why})" if self.why else "given back to the queue"


@_register
@dataclass(frozen=True, kw_only=True)
class Redeal(Event):
    """A faulted job begins a new attempt at the same deal (`fix_pack`: the pack was made whole first)."""

    KIND = EventKind.REDEAL
    fix_pack: bool = False

    def text(self) -> str:
        return "redeal: board emptied, the same deal dealt again"


@_register
@dataclass(frozen=True, kw_only=True)
class LinkResync(Event):
    """The connection to the machine was cut during a board and started again (`why`)."""

    KIND = EventKind.LINK_RESYNC
    why: Interruption = Interruption.MACHINE_RESTARTED
    silent: float | None = None
    """For a silent line: for how many seconds the machine was not heard."""

    def text(self) -> str:
        if self.why is Interruption.SILENT_LINE and self.silent:
            return (f"{self.why.named}: the machine was not heard for {self.silent:.0f} s; the connection was "
                    "started again")
        return f"{self.why.named}: {self.why.story}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(self.why.named, "", FaultGroup.INTERRUPTION),)

    def action(self) -> str:
        return "finding out where the board stands"


@_register
@dataclass(frozen=True, kw_only=True)
class StartCancelled(Event):
    KIND = EventKind.START_CANCELLED
    why: str = ""

    def text(self) -> str:
        return "start cancelled: the board moved after its check"

    def action(self) -> str:
        return "not dealt; checking it again"


@_register
@dataclass(frozen=True, kw_only=True)
class MachineFault(Event):
    """Dealing stopped for good on the machine's fault `name` after `cards_dealt` cards."""

    KIND = EventKind.MACHINE_FAULT
    code: int = 0
    name: str = "?"
    cards_dealt: int = 0

    def text(self) -> str:
        return f"{machine_fault_title(self.name)} after {self.cards_dealt} cards"

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(machine_fault_title(self.name), "", FaultGroup.MACHINE),)

    def action(self) -> str:
        return "the board will be emptied and redealt"


@_register
@dataclass(frozen=True, kw_only=True)
class MachineFaultResumed(Event):
    """The machine stopped on its fault `name`, put right by the operator (`prompt`), and dealt on.
    `machine_detail`: the machine's number for it (a DUPLICATE_CARD's, the card, is never kept). `after`: the
    interruption that caused it, counted by its own event (a power cut the machine kept its job over)."""

    KIND = EventKind.MACHINE_FAULT_RESUMED
    code: int = 0
    name: str = "?"
    prompt: str | None = None
    machine_detail: int | None = _renamed("detail")
    after: Interruption | None = None

    def text(self) -> str:
        if self.name == "POWER_LOSS":  # the machine says its power went, and that it kept its deal through it
            return "the machine kept its deal through the power cut"
        after = f" (after the {self.after.named})" if self.after is not None else ""
        return f"{machine_fault_title(self.name)}{machine_fault_detail(self.name, self.machine_detail)} while " \
               f"dealing{after}"

    def faults(self) -> tuple[FaultSeen, ...]:
        if self.after is not None:
            return ()
        return (FaultSeen(machine_fault_title(self.name), "", FaultGroup.MACHINE),)

    def action(self) -> str:
        prompt = PUT_RIGHT_WORDS.get(self.prompt or "")
        return f"{prompt}, going on" if prompt else "dealing goes on where it stopped"



@_register
@dataclass(frozen=True, kw_only=True)
class DoubleFeed(Event):
    """The pack ran out after `cards_dealt` cards with `in_board` in the board: two went in at once."""

    KIND = EventKind.DOUBLE_FEED
    cards_dealt: int = 0
    in_board: int = 0

    def text(self) -> str:
        return (f"{machine_fault_title('DOUBLE_FEED')}: the pack ran out after {self.cards_dealt} cards but the "
                f"board holds {self.in_board}")

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(machine_fault_title("DOUBLE_FEED"), "", FaultGroup.MACHINE),)

    def action(self) -> str:
        return "recounting the board"


@_register
@dataclass(frozen=True, kw_only=True)
class ProtocolFault(Event):
    """The machine's report did not match the request (`problem`): nothing is verified on it."""

    KIND = EventKind.PROTOCOL_FAULT
    problem: str = ""

    def text(self) -> str:
        return f"{PROTOCOL_FAULT_TITLE}: {self.problem}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(PROTOCOL_FAULT_TITLE, "", FaultGroup.MACHINE),)

    def action(self) -> str:
        return "nothing is verified on it; the board will be emptied and redealt"


@_register
@dataclass(frozen=True, kw_only=True)
class RecountFault(Event):
    """The recount found `faults` (fault-table codes); `counts`: cards in each pocket; `announced`: the
    machine's own counts at the end of dealing, when it gave them."""

    KIND = EventKind.RECOUNT_FAULT
    faults_found: tuple[str, ...] = _renamed("faults", ())
    counts: tuple[int, ...] = ()
    announced: tuple[int, ...] | None = None

    def text(self) -> str:
        return f"recount found {_codes_text(self.faults_found)}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return tuple(code_fault(c, FaultGroup.RECOUNT) for c in self.faults_found)

    def action(self) -> str:
        if FaultCategory.F7.value in self.faults_found:
            return "the run stops: re-synchronise the boards"
        return "redeal the same deal"



@_register
@dataclass(frozen=True, kw_only=True)
class RecountUnverified(Event):
    """The recount could not identify every card (F11): recounted again."""

    KIND = EventKind.RECOUNT_UNVERIFIED
    faults_found: tuple[str, ...] = _renamed("faults", ())

    def text(self) -> str:
        return f"recount could not identify every card: {_codes_text(self.faults_found)}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return tuple(code_fault(c, FaultGroup.RECOUNT) for c in self.faults_found)

    def action(self) -> str:
        return "recounting"



@_register
@dataclass(frozen=True, kw_only=True)
class RecountInterrupted(Event):
    """The board left the machine during its recount: asked back."""

    KIND = EventKind.RECOUNT_INTERRUPTED


@_register
@dataclass(frozen=True, kw_only=True)
class CardsShown(Event):
    """The operator's screen named the cards of these faults (the board is verified with F12 later)."""

    KIND = EventKind.CARDS_SHOWN
    faults_found: tuple[str, ...] = _renamed("faults", ())

    def text(self) -> str:
        return "the cards of the faults were shown to the operator"



@_register
@dataclass(frozen=True, kw_only=True)
class BoardMoved(Event):
    """The board moved between the read of its label and its check: checked again."""

    KIND = EventKind.BOARD_MOVED

    def text(self) -> str:
        return "the board moved while it was checked"

    def action(self) -> str:
        return "checking it again"


@_register
@dataclass(frozen=True, kw_only=True)
class BoardRefused(Event):
    """A check before dealing refused the board: `code` (F8 label, F6 turned, F4 cards in it, F7 another
    board's deal), `problem` in a few words, `read`: the label read (a label, never a card)."""

    KIND = EventKind.BOARD_REFUSED
    code: str = FaultCategory.F8.value
    problem: str | None = None
    read: str | None = None

    def text(self) -> str:
        fault = code_fault(self.code, FaultGroup.BOARD_CHECK, self.problem)
        problem = f" ({self.problem})" if self.problem and self.problem not in fault.title else ""
        return f"{fault.text()}{problem} caught before dealing"

    def faults(self) -> tuple[FaultSeen, ...]:
        return (code_fault(self.code, FaultGroup.BOARD_CHECK, self.problem),)

    def action(self) -> str:
        return BEFORE_DEALING.get(self.code, BEFORE_DEALING[FaultCategory.F8.value])


@_register
@dataclass(frozen=True, kw_only=True)
class BoardGivenUp(Event):
    """The board failed `checks` checks in a row (the last `code`): left FAULTED for the director."""

    KIND = EventKind.BOARD_GIVEN_UP
    checks: int = 0
    code: str = FaultCategory.F8.value
    problem: str | None = None

    def text(self) -> str:
        return f"the board failed its checks before dealing {self.checks} times: not dealt"

    def action(self) -> str:
        return "left for the director"


@_register
@dataclass(frozen=True, kw_only=True)
class ResumeUncertain(Event):
    """A job that may hold cards (`state`) is taken up again after an interruption (`cause`)."""

    KIND = EventKind.RESUME_UNCERTAIN
    state: str = ""
    cause: Interruption | None = None

    def text(self) -> str:
        return "resuming after an interruption" + (f" ({self.cause.named})" if self.cause is not None else "")


@_register
@dataclass(frozen=True, kw_only=True)
class ResumeEmptyBoard(Event):
    """The recount after an interruption found the board empty: it is dealt."""

    KIND = EventKind.RESUME_EMPTY_BOARD


@_register
@dataclass(frozen=True, kw_only=True)
class ResumeDealt(Event):
    """The recount after an interruption found the board full (`cards`): it is verified."""

    KIND = EventKind.RESUME_DEALT
    cards: int = 0


@_register
@dataclass(frozen=True, kw_only=True)
class InterruptedDeal(Event):
    """Dealing was cut after `cards` cards and the machine lost the job (`cause`; None in a journal of an
    earlier version, which did not record it). A cause other than the controller's stop was recorded, and
    counted, by its own `LinkResync`: this is its outcome."""

    KIND = EventKind.INTERRUPTED_DEAL
    cards: int = 0
    cause: Interruption | None = None

    def text(self) -> str:
        cause = self.cause.named if self.cause is not None else "dealing interrupted"
        return f"{cause}: dealing was interrupted after {self.cards} cards (the machine lost its job)"

    def faults(self) -> tuple[FaultSeen, ...]:
        if self.cause not in (None, Interruption.CONTROLLER_STOPPED):
            return ()
        return (FaultSeen(self.cause.named if self.cause else "dealing interrupted", "", FaultGroup.INTERRUPTION),)

    def action(self) -> str:
        return "the board will be emptied and redealt"


@_register
@dataclass(frozen=True, kw_only=True)
class MachineMet(Event):
    """A station's machine answered its handshake: who it says it is. Every dealing the station records after
    it, up to its next `MachineMet`, was dealt by this machine (a resume may deal on another)."""

    KIND = EventKind.MACHINE_MET
    serial: str = ""
    firmware: str = ""
    protocol: int = 0
    simulated: bool = False

    def text(self) -> str:
        kind = "simulated machine" if self.simulated else "machine"
        return f"{kind} {self.serial or '(no serial)'} answered (firmware {self.firmware}, protocol {self.protocol})"


@dataclass(frozen=True, kw_only=True)
class Unknown(Event):
    """An event of a kind this version does not know (a journal of another version, or a detail it cannot
    read): read, never written. It has no `KIND`: `kind` says what the journal called it."""

    kind: str = ""
    raw: Mapping[str, Any] | None = None

    def text(self) -> str:
        return self.kind


AnyEvent = Union[  # noqa: UP007 - a name readers match on exhaustively
    RunStarted, RunFinished, Loaded, Scanned, Dealing, Dealt, Verified, Released, Redeal, LinkResync,
    StartCancelled, MachineFault, MachineFaultResumed, DoubleFeed, ProtocolFault, RecountFault, RecountUnverified,
    RecountInterrupted, CardsShown, BoardMoved, BoardRefused, BoardGivenUp, ResumeUncertain, ResumeEmptyBoard,
    ResumeDealt, InterruptedDeal, MachineMet, Unknown]
"""Every event class: a ``match`` over it with `assert_never` is checked complete by mypy."""


def kind_of(event: Event) -> str:
    """The journal's ``kind`` of an event."""
    return event.kind if isinstance(event, Unknown) else event.KIND.value


def decode(kind: str, detail: Mapping[str, Any]) -> AnyEvent:
    """The event a journal row holds (kind, detail); an unknown kind is `Unknown`, never an error."""
    cls = EVENTS.get(EventKind(kind)) if kind in EventKind._value2member_map_ else None
    if cls is None:
        return Unknown(kind=kind, raw=dict(detail), busy=float(detail.get("busy", 0.0) or 0.0))
    try:
        return typing.cast(AnyEvent, cls.from_detail(detail))
    except (TypeError, ValueError, KeyError):
        return Unknown(kind=kind, raw=dict(detail))


# --- plain and typed values ----------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _typed(hint: Any, value: Any) -> Any:
    """`value` from JSON as the field's type `hint` says (enums, tuples, optionals)."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _typed(args[0], value) if len(args) == 1 else value
    if origin is tuple:
        return tuple(value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    converter: Callable[[Any], Any] | None = {float: float, int: int, str: str, bool: bool}.get(hint)
    return converter(value) if converter is not None else value
