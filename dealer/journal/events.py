"""The journal's events: one kind each, what happened as data, and how it is said (never a card).

One frozen dataclass per `EventKind`, registered in `EVENTS` (as `firmware_protocol.messages` is for the
wire): every output (terminal, `dealer report`, the narrative, the console) takes its words from here.
Imports `dealer.verify` and the words of `dealer.language` only.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any, ClassVar, Final, TypeVar, Union

from dealer.language import N_, _, n_, said_from
from dealer.verify.board_check import BoardFault, VerificationReport
from dealer.verify.fault_table import Action, FaultCategory, fault_name, law_said


class EventKind(StrEnum):
    """The kind of an event, as the journal's ``kind`` column holds it."""

    RUN_STARTED = "run-started"
    RUN_FINISHED = "run-finished"
    RUN_TAKEN = "run-taken"
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
    def counted_as(self) -> str:
        """The interruption named as what it was, in English (the key it is counted by): 'power cut'."""
        return _CAUSE_TITLES[self]

    @property
    def named(self) -> str:
        """`counted_as` in the language spoken."""
        return _(_CAUSE_TITLES[self])

    @property
    def story(self) -> str:
        """What happened, in a few words."""
        return _(_CAUSE_STORIES[self])


_CAUSE_TITLES: Final = {
    Interruption.POWER_CUT: N_("power cut"),
    Interruption.MACHINE_RESTARTED: N_("machine restarted"),
    Interruption.CABLE_PULLED: N_("cable pulled"),
    Interruption.SILENT_LINE: N_("machine stopped answering"),
    Interruption.CONTROLLER_STOPPED: N_("controller stopped"),
}
_CAUSE_STORIES: Final = {
    Interruption.POWER_CUT: N_("the machine lost power and restarted"),
    Interruption.MACHINE_RESTARTED: N_("the machine restarted (not from a power cut)"),
    Interruption.CABLE_PULLED: N_("the port to the machine was lost and opened again"),
    Interruption.SILENT_LINE: N_("the machine was not heard for a while; the connection was started again"),
    Interruption.CONTROLLER_STOPPED: N_("the controller was stopped and started again"),
}


class FaultGroup(StrEnum):
    """Which count a fault goes into: the figures of every output add up the same groups."""

    RECOUNT = "recount"            # the verifier's, on the recount after dealing (F-codes)
    BOARD_CHECK = "board check"    # a board refused before dealing (F8, F6, F4, F7)
    MACHINE = "machine"            # the machine stopped or misreported (jam, double feed, protocol)
    INTERRUPTION = "interruption"  # power cut, cable pulled, machine stopped answering, controller stopped


@dataclass(frozen=True)
class FaultSeen:
    """One fault an event found: its title (the F-code and its name, or the machine's fault: English, the
    key every count and file keeps it by), its Law ('' for none) and its group; `said` and `text` say it."""

    title: str
    law: str
    group: FaultGroup

    @property
    def said(self) -> str:
        """The title in the language spoken."""
        return title_said(self.title)

    def text(self) -> str:
        """'F2 card in wrong pocket (Law 13A1)', 'power cut', in the language spoken."""
        return fault_text(self.title, self.law)


def title_said(title: str) -> str:
    """A fault's English title (`FaultSeen.title`) in the language spoken: 'F1 missing card' -> 'F1
    отсутствующая карта'."""
    code, _space, name = title.partition(" ")
    if code in FaultCategory.__members__ and name:
        return f"{code} {_(name)}"
    unknown = said_from(title, (_UNKNOWN_MACHINE_FAULT,))
    return unknown if unknown != title else _(title)


def fault_text(title: str, law: str) -> str:
    """A fault's English title and its Law ('' for none) said: 'F2 карта не в том кармане (Правило 13A1)'."""
    return f"{title_said(title)} ({law_said(law)})" if law else title_said(title)


MACHINE_FAULT_WORDS: Final = {
    "JAM": N_("card jam"), "EMPTY_HOPPER": N_("pack ran out"), "MISFEED": N_("card misfed"),
    "UNREADABLE_CARD": N_("unreadable card"), "DUPLICATE_CARD": N_("card read twice"),
    "FOREIGN_CARD": N_("card of another pack"), "BOARD_REMOVED": N_("board taken out while dealing"),
    "DOOR_OPEN": N_("machine's door opened"), "POWER_LOSS": N_("dealing stopped by a power cut"),
    "HARDWARE": N_("machine's hardware failed"), "INTERNAL": N_("machine's own program failed"),
    "DOUBLE_FEED": N_("two cards fed at once"),
}
"""The machine's fault names (`dealer.dealing.machine.MachineFaultKind`) as a director says them: the title
each is counted under, never the wire name."""
PUT_RIGHT_WORDS: Final = {"CLEAR_PATH": N_("clear the card path"), "FIX_PACK": N_("make the pack whole"),
                          "INSERT_BOARD": N_("put the board back")}
"""What each put-right prompt asks of the operator."""
BEFORE_DEALING: Final = {"F8": N_("board refused by its label, another asked for"),
                         "F6": N_("board refused: turned in the machine, asked for straight"),
                         "F4": N_("board held cards before dealing: emptied by the operator"),
                         "F7": N_("board refused: another board's deal in it before dealing, the run stopped")}
"""What the run did about a board refused before dealing, by the fault it named: the one table the live
lines, the console and `dealer report` say it from (`BoardRefused.action`)."""


FIX_PACK_ACTIONS: Final = {Action.SEARCH_AND_RESTORE, Action.FIX_PACK_AND_REDEAL, Action.REMOVE_SURPLUS}
"""Faults whose fix includes making the pack whole before the redeal."""


def redeal_words(action: Action | None) -> str:
    """What a run does about a recount's faults, once: the pack made whole if it must be, the board emptied,
    the same deal dealt again."""
    if action is Action.FIX_PACK_AND_REDEAL:
        return _("replace the foreign cards by the pack's own and redeal the same deal")
    if action in FIX_PACK_ACTIONS:
        return _("{action}, then empty the board and redeal the same deal").format(action=action.said)
    return _("empty the board and redeal the same deal")


REDEAL: Final = N_("redeal: board emptied, the same deal dealt again")
GIVEN_UP: Final = N_("left for the director: put it right, then run again with --resume")
START_CANCELLED: Final = N_("start cancelled: the board moved after its check")
"""What a redeal, a board given up and a cancelled start are called, in their events' lines and the report's
operator actions."""


PROTOCOL_FAULT_TITLE: Final = N_("the machine's report did not match the request (protocol fault)")


_UNKNOWN_MACHINE_FAULT: Final = N_("machine fault number {number} (see the machine's manual)")
_UNKNOWN_NUMBER_FAULT: Final = N_("machine fault of a number not known (see the machine's manual)")


PROTOCOL_PROBLEMS: Final = {
    "DealDone": N_("the end of dealing of job {other} came while waiting for the dealing of job {job}"),
    "Fault": N_("a fault of job {other} came while waiting for the dealing of job {job}"),
    "RecountReport": N_("the recount of job {other} came while waiting for the recount of job {job}"),
    "dealt": N_("the end of dealing job {job} counts {counts} in {pockets} pockets for {cards} cards dealt; the "
                "machine has {machine_pockets} pockets"),
    "recounted": N_("the recount of job {job} has {pockets} pockets {counts}; the machine has {machine_pockets}"),
    "miscounted": N_("the machine counted {announced} cards into the pockets but the recount found {counts}"),
}
"""A protocol fault's problem (`ProtocolFaultError.problem`), by what did not match: a report of another job, by
the report, or counts that do not add up (or that the recount does not find). Formatted in English, as the
journal keeps it; marked for the catalogue, so that what shows the journal's problem can say it (by its
template) in the language spoken (`problem_of_protocol_said`)."""


def problem_of_protocol_said(problem: str) -> str:
    """A protocol fault's problem as a journal of an earlier version keeps it (English, made from a template of
    `PROTOCOL_PROBLEMS`) in the language spoken; a problem of no template as it is."""
    return said_from(problem, PROTOCOL_PROBLEMS.values())


def machine_fault_title(name: str) -> str:
    """A machine's fault as a director says it, in English (the key it is counted by; `title_said` says it):
    'card jam'; a fault number this program does not know, as 'machine fault number 42 (see the machine's
    manual)'."""
    words = MACHINE_FAULT_WORDS.get(name)
    if words is not None:
        return words
    if name.isdigit():
        return _UNKNOWN_MACHINE_FAULT.format(number=name)
    return _UNKNOWN_NUMBER_FAULT


_POCKET_WORDS: Final = (N_("{fault} into the North pocket"), N_("{fault} into the East pocket"),
                        N_("{fault} into the South pocket"), N_("{fault} into the West pocket"))


def after_cards(fault: str, count: int) -> str:
    """'card jam after 19 cards': a fault said with the cards dealt before it."""
    return n_("{fault} after {count} card", "{fault} after {count} cards", count).format(fault=fault, count=count)


def machine_fault_detail(fault: str, name: str, detail: int | None) -> str:
    """`fault` (a machine's fault said) with what the machine's detail of it says, in words (nothing more when it
    says nothing a director can use): how many cards were dealt before a jam, the pocket a misfed card went
    to, the door, the maker's number. The detail of a card read twice (the card) is never said."""
    if detail is None:
        return fault
    if name in ("JAM", "UNREADABLE_CARD"):
        return after_cards(fault, detail)
    if name == "MISFEED" and 0 <= detail < 4:
        return _(_POCKET_WORDS[detail]).format(fault=fault)
    if name == "DOOR_OPEN" and detail:
        return _("{fault} (door {door})").format(fault=fault, door=detail)
    if name in ("HARDWARE", "INTERNAL"):
        return _("{fault} (the maker's fault number {number}: see the machine's manual)").format(fault=fault,
                                                                                                  number=detail)
    return fault


def code_fault(code: str, group: FaultGroup, problem: str | None = None) -> FaultSeen:
    """A fault-table code as a `FaultSeen`: 'F1 missing card', Law 14A ('F6 board turned' for an F6 whose
    `problem` is "turned"); a code unknown here as it is."""
    category = FaultCategory.__members__.get(code)
    if category is None:
        return FaultSeen(code, "", group)
    return FaultSeen(f"{category.value} {fault_name(category, problem)}", category.law, group)


def _codes_text(codes: tuple[str, ...]) -> str:
    return ", ".join(code_fault(c, FaultGroup.RECOUNT).text() for c in codes) or _("no fault code")


_KIND_WORDS: Final = {
    EventKind.LOADED: N_("loaded"), EventKind.SCANNED: N_("scanned"), EventKind.DEALING: N_("dealing"),
    EventKind.DEALT: N_("dealt"), EventKind.RECOUNT_INTERRUPTED: N_("recount interrupted"),
    EventKind.RESUME_EMPTY_BOARD: N_("resume empty board"),
    EventKind.RESUME_DEALT: N_("resume dealt"),
}
"""How an event that says nothing more is named."""
_PROBLEM_WORDS: Final = (N_("no read"), N_("unreadable"), N_("wrong board"), N_("breaks Law 2"), N_("turned"),
                         N_("moved"), N_("not empty"), N_("another board's deal"), N_("another deal"))
"""The problems a check before dealing names (`BoardFault.details` ``problem``), as the catalogue holds them."""


def problem_said(problem: str) -> str:
    """A check's problem ('wrong board, breaks Law 2') in the language spoken."""
    return ", ".join(_(part) for part in problem.split(", ")) if problem else ""


# --- the events ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Event:
    """What happened. `detail` and `decode` are the journal's JSON ``detail`` column; `text` says it in
    words, `faults` names the faults it found (title, Law, group), `action` what the run did. `busy`: the
    machine's seconds on the job since the last step that recorded them."""

    KIND: ClassVar[EventKind]
    TOLD: ClassVar[bool] = False
    """A run's progress tells this event in a line of its own (its text, then its action); else the lines around
    it tell it."""
    busy: float = 0.0

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        """The event as a run's progress tells it in the language spoken, after the board it is about (None: a
        step told by the lines around it). `seen`: what the live run saw beside the event (the verifier's
        report of a recount, the fault of a board refused), said instead of the journal's codes, naming cards
        only when not `blind`. `figures`: the run's figures a verified board's line tells ('' for none)."""
        if not self.TOLD:
            return None
        then = self.action()
        return self.text() + (f": {then}" if then else "")

    def text(self) -> str:
        """What happened, in words, naming no card."""
        words = _KIND_WORDS.get(self.KIND)
        return _(words) if words is not None else self.KIND.value.replace("-", " ")

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
        return cls(**{name: _typed(hint, detail[key]) for name, key, hint in _fields_of(cls) if key in detail})


_FIELDS: Final[dict[type[Event], tuple[tuple[str, str, Any], ...]]] = {}


def _fields_of(cls: type[Event]) -> tuple[tuple[str, str, Any], ...]:
    """Each field of an event class: its name, its journal key and its type (resolved once a class: resolving
    the annotations was most of the time of reading a journal)."""
    found = _FIELDS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = _FIELDS[cls] = tuple((f.name, journal_key(f), hints[f.name]) for f in fields(cls))
    return found


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
        begun = n_("run {name} begun: {count} board to deal", "run {name} begun: {count} boards to deal",
                   self.jobs).format(name=self.name, count=self.jobs)
        return _("{begun} (a replay)").format(begun=begun) if self.replay else begun


@_register
@dataclass(frozen=True, kw_only=True)
class RunFinished(Event):
    KIND = EventKind.RUN_FINISHED

    def text(self) -> str:
        return _("run finished: every board verified")


@_register
@dataclass(frozen=True, kw_only=True)
class RunTaken(Event):
    """A controller took the run, in a journal several controllers share: it deals it from now on (`controller`:
    the command, its process and its computer, as the server shows it)."""

    KIND = EventKind.RUN_TAKEN
    controller: str = ""
    resumed: bool = False
    computer: str = ""
    """The computer's name (its host name), as the room names the machines it deals on."""
    process: int = 0
    """The controller's process id on that computer."""

    def text(self) -> str:
        if self.resumed:
            return _("run taken up again by {controller}").format(controller=self.controller)
        return _("run taken by {controller}").format(controller=self.controller)


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

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        return _("dealing")


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

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        warned = ([f.text() for f in seen.faults] if isinstance(seen, VerificationReport)
                  else [f.text() for f in self.faults()])
        return _("verified") + figures + "".join("; " + _("warning: {fault}").format(fault=w) for w in warned)

    def text(self) -> str:
        if self.warnings:
            return _("verified with warning {codes}").format(codes=_codes_text(self.warnings))
        return _("verified")

    def faults(self) -> tuple[FaultSeen, ...]:
        return tuple(code_fault(c, FaultGroup.RECOUNT) for c in self.warnings)

    def action(self) -> str:
        return _("verified") if self.warnings else ""


@_register
@dataclass(frozen=True, kw_only=True)
class Released(Event):
    """A job only loaded or scanned went back to the queue (`why`: the machine lost, the run resumed)."""

    KIND = EventKind.RELEASED
    why: str = ""

    def text(self) -> str:
        return _("given back to the queue ({why})").format(why=self.why) if self.why else _("given back to the queue")


@_register
@dataclass(frozen=True, kw_only=True)
class Redeal(Event):
    """A faulted job begins a new attempt at the same deal (`fix_pack`: the pack was made whole first)."""

    KIND = EventKind.REDEAL
    fix_pack: bool = False

    def text(self) -> str:
        return _(REDEAL)


@_register
@dataclass(frozen=True, kw_only=True)
class LinkResync(Event):
    """The connection to the machine was cut during a board and started again (`why`)."""

    KIND = EventKind.LINK_RESYNC
    TOLD = True
    why: Interruption = Interruption.MACHINE_RESTARTED
    silent: float | None = None
    """For a silent line: for how many seconds the machine was not heard."""

    def text(self) -> str:
        if self.why is Interruption.SILENT_LINE and self.silent:
            return _("{cause}: the machine was not heard for {seconds:.0f} s; the connection was started again").format(
                cause=self.why.named, seconds=self.silent)
        return f"{self.why.named}: {self.why.story}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(self.why.counted_as, "", FaultGroup.INTERRUPTION),)

    def action(self) -> str:
        return _("finding out where the board stands")


@_register
@dataclass(frozen=True, kw_only=True)
class StartCancelled(Event):
    KIND = EventKind.START_CANCELLED
    TOLD = True
    why: str = ""

    def text(self) -> str:
        return _(START_CANCELLED)

    def action(self) -> str:
        return _("not dealt; checking it again")


@_register
@dataclass(frozen=True, kw_only=True)
class MachineFault(Event):
    """Dealing stopped for good on the machine's fault `name` after `cards_dealt` cards."""

    KIND = EventKind.MACHINE_FAULT
    TOLD = True
    code: int = 0
    name: str = "?"
    cards_dealt: int = 0

    def text(self) -> str:
        return after_cards(title_said(machine_fault_title(self.name)), self.cards_dealt)

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(machine_fault_title(self.name), "", FaultGroup.MACHINE),)

    def action(self) -> str:
        return _("the board will be emptied and redealt")


@_register
@dataclass(frozen=True, kw_only=True)
class MachineFaultResumed(Event):
    """The machine stopped on its fault `name`, put right by the operator (`prompt`), and dealt on.
    `machine_detail`: the machine's number for it (a DUPLICATE_CARD's, the card, is never kept). `after`: the
    interruption that caused it, counted by its own event (a power cut the machine kept its job over)."""

    KIND = EventKind.MACHINE_FAULT_RESUMED
    TOLD = True
    code: int = 0
    name: str = "?"
    prompt: str | None = None
    machine_detail: int | None = _renamed("detail")
    after: Interruption | None = None

    def text(self) -> str:
        if self.name == "POWER_LOSS":  # the machine says its power went, and that it kept its deal through it
            return _("the machine kept its deal through the power cut")
        said = _("{fault} while dealing").format(
            fault=machine_fault_detail(title_said(machine_fault_title(self.name)), self.name, self.machine_detail))
        if self.after is None:
            return said
        return _("{fault} (after the {cause})").format(fault=said, cause=self.after.named)

    def faults(self) -> tuple[FaultSeen, ...]:
        if self.after is not None:
            return ()
        return (FaultSeen(machine_fault_title(self.name), "", FaultGroup.MACHINE),)

    def action(self) -> str:
        prompt = PUT_RIGHT_WORDS.get(self.prompt or "")
        if prompt is None:
            return _("dealing goes on where it stopped")
        return _("{put_right}, going on").format(put_right=_(prompt))



@_register
@dataclass(frozen=True, kw_only=True)
class DoubleFeed(Event):
    """The pack ran out after `cards_dealt` cards with `in_board` in the board: two went in at once."""

    KIND = EventKind.DOUBLE_FEED
    TOLD = True
    cards_dealt: int = 0
    in_board: int = 0

    def text(self) -> str:
        return _("{fault}: the pack ran out after {dealt} cards but the board holds {held}").format(
            fault=title_said(machine_fault_title("DOUBLE_FEED")), dealt=self.cards_dealt, held=self.in_board)

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(machine_fault_title("DOUBLE_FEED"), "", FaultGroup.MACHINE),)

    def action(self) -> str:
        return _("recounting the board")


@_register
@dataclass(frozen=True, kw_only=True)
class ProtocolFault(Event):
    """The machine's report did not match the request (`problem`): nothing is verified on it."""

    KIND = EventKind.PROTOCOL_FAULT
    TOLD = True
    problem: str = ""
    """The problem in English, as a journal of an earlier version keeps it ('' in a journal of today's)."""
    about: str | None = None
    """The problem's key in `PROTOCOL_PROBLEMS`, with its `values`: said in the reader's language."""
    values: Mapping[str, str] | None = None

    def text(self) -> str:
        template = PROTOCOL_PROBLEMS.get(self.about or "")
        said = (_(template).format(**(self.values or {})) if template is not None
                else problem_of_protocol_said(self.problem))
        return f"{_(PROTOCOL_FAULT_TITLE)}: {said}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return (FaultSeen(PROTOCOL_FAULT_TITLE, "", FaultGroup.MACHINE),)

    def action(self) -> str:
        return _("nothing is verified on it; the board will be emptied and redealt")


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
        return _("recount found {faults}").format(faults=_codes_text(self.faults_found))

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        if not isinstance(seen, VerificationReport):
            return _("FAULT: {fault} -> {action}").format(fault=self.text(), action=self.action())
        stops = FaultCategory.F7.value in self.faults_found
        then = self.action() if stops else redeal_words(seen.action)
        return f"{seen.verdict(blind=blind, advice=False)} -> {then}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return tuple(code_fault(c, FaultGroup.RECOUNT) for c in self.faults_found)

    def action(self) -> str:
        if FaultCategory.F7.value in self.faults_found:
            return _("the run stops: re-synchronise the boards")
        return _("redeal the same deal")



@_register
@dataclass(frozen=True, kw_only=True)
class RecountUnverified(Event):
    """The recount could not identify every card (F11): recounted again."""

    KIND = EventKind.RECOUNT_UNVERIFIED
    faults_found: tuple[str, ...] = _renamed("faults", ())

    def text(self) -> str:
        return _("recount could not identify every card: {faults}").format(faults=_codes_text(self.faults_found))

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        said = seen.verdict(blind=True, advice=False) if isinstance(seen, VerificationReport) else self.text()
        return f"{said} -> {self.action()}"

    def faults(self) -> tuple[FaultSeen, ...]:
        return tuple(code_fault(c, FaultGroup.RECOUNT) for c in self.faults_found)

    def action(self) -> str:
        return _("recounting")



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
        return _("the cards of the faults were shown to the operator")



@_register
@dataclass(frozen=True, kw_only=True)
class BoardMoved(Event):
    """The board moved between the read of its label and its check: checked again."""

    KIND = EventKind.BOARD_MOVED
    TOLD = True

    def text(self) -> str:
        return _("the board moved while it was checked")

    def action(self) -> str:
        return _("checking it again")


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
        if self.emptied:
            return _("the board still held cards: the operator emptied it")
        fault = code_fault(self.code, FaultGroup.BOARD_CHECK, self.problem)
        said = problem_said(self.problem or "")
        problem = f" ({said})" if said and said not in fault.said else ""
        return _("{fault} caught before dealing").format(fault=fault.text() + problem)

    @property
    def emptied(self) -> bool:
        """Cards found in the board before dealing (F4): a board to empty, the operator's step, not an
        irregularity by Law (boards come back from the tables with the last session's cards)."""
        return self.code == FaultCategory.F4.value

    def faults(self) -> tuple[FaultSeen, ...]:
        if self.emptied:
            return ()
        return (code_fault(self.code, FaultGroup.BOARD_CHECK, self.problem),)

    def action(self) -> str:
        return _(BEFORE_DEALING.get(self.code, BEFORE_DEALING[FaultCategory.F8.value]))

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        if self.emptied:
            return seen.message if isinstance(seen, BoardFault) else self.text()
        return _("REFUSED {fault}").format(fault=seen.text() if isinstance(seen, BoardFault) else self.text())


@_register
@dataclass(frozen=True, kw_only=True)
class BoardGivenUp(Event):
    """The board failed `checks` checks in a row (the last `code`): left FAULTED for the director."""

    KIND = EventKind.BOARD_GIVEN_UP
    checks: int = 0
    code: str = FaultCategory.F8.value
    problem: str | None = None

    def text(self) -> str:
        return n_("NOT DEALT after {count} failed check before dealing",
                  "NOT DEALT after {count} failed checks before dealing", self.checks).format(count=self.checks)

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        last = seen if isinstance(seen, BoardFault) else code_fault(self.code, FaultGroup.BOARD_CHECK, self.problem)
        return f"{self.text()}: {last.text()}: {self.action()}"

    def action(self) -> str:
        return _(GIVEN_UP)


@_register
@dataclass(frozen=True, kw_only=True)
class ResumeUncertain(Event):
    """A job that may hold cards (`state`) is taken up again after an interruption (`cause`)."""

    KIND = EventKind.RESUME_UNCERTAIN
    TOLD = True
    state: str = ""
    cause: Interruption | None = None

    def text(self) -> str:
        if self.cause is not None:
            return _("resuming after an interruption ({cause})").format(cause=self.cause.named)
        return _("resuming after an interruption")


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
    TOLD = True
    cards: int = 0
    cause: Interruption | None = None

    def text(self) -> str:
        cause = self.cause.named if self.cause is not None else _("dealing interrupted")
        return _("{cause}: dealing was interrupted after {count} cards (the machine lost its job)").format(
            cause=cause, count=self.cards)

    def faults(self) -> tuple[FaultSeen, ...]:
        if self.cause not in (None, Interruption.CONTROLLER_STOPPED):
            return ()
        title = self.cause.counted_as if self.cause else N_("dealing interrupted")
        return (FaultSeen(title, "", FaultGroup.INTERRUPTION),)

    def action(self) -> str:
        return _("the board will be emptied and redealt")


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

    def told(self, seen: object = None, *, blind: bool = True, figures: str = "") -> str | None:
        """Said only of a machine that speaks an earlier protocol than the host's (`seen`, an int)."""
        if not isinstance(seen, int) or self.protocol >= seen:
            return None
        return _("the machine speaks protocol version {version}, an earlier one than this program's: dealing goes "
                 "on in its version").format(version=self.protocol)

    def text(self) -> str:
        said = (_("simulated machine {serial} answered (firmware {firmware}, protocol {protocol})") if self.simulated
                else _("machine {serial} answered (firmware {firmware}, protocol {protocol})"))
        return said.format(serial=self.serial or _("(no serial)"), firmware=self.firmware, protocol=self.protocol)


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
