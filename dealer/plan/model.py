"""The parts of a congress plan once it is read and checked: event, sessions, sections, sources, machines.

Everything here is a frozen value; a session expands into its board jobs (:meth:`Session.jobs`) in the
dealing order the plan asks for. Reading and checking the TOML file is :mod:`dealer.plan.reader`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dealer.core.boards import format_board_range
from dealer.core.errors import FormatError
from dealer.journal.database_url import JournalPlace
from dealer.journal.jobplan import JobPlan
from dealer.language import N_

if TYPE_CHECKING:
    from dealer.prepared import Script

KeyPath = tuple[str | int, ...]
"""Where a value is in a plan document: keys and array positions (from 0), e.g. ``("sessions", 2, "boards")``."""


class PlanError(FormatError):
    """A plan file that cannot be used; the message names the file and the field (or, for text that is not
    TOML, the line)."""

    def __init__(self, reason: str, path: str | Path | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {reason}" if field else reason, path, line)


def field_name(path: Sequence[str | int]) -> str:
    """A key path as the user reads it: ``("sessions", 1, "boards")`` -> ``sessions[2].boards``.

    Array items are counted from 1, as an organiser counts sessions and sections.
    """
    text = ""
    for part in path:
        text += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


class DealingOrder(StrEnum):
    """In which order the copies of a session are dealt."""

    SET = "set"      # each board set through all its boards in turn (A1 1..n, A2 1..n, ...)
    BOARD = "board"  # every copy of a board before the next board (1 A1, 1 A2, ..., 2 A1, ...)


@dataclass(frozen=True)
class PlanEvent:
    """The event as a whole."""

    name: str
    owner: bytes         # the bigdeal owner's bytes (bigdealx -W)
    deal_folder: Path    # where generated deal files go
    journal: JournalPlace  # the journal of the runs of this plan: a file, or a room's record by its URL
    order: DealingOrder  # default dealing order of the sessions
    keep_seeds: bool     # also write <session>.seed (0600) when generating
    lang: str | None = None  # the language spoken for the event (`lang`), unless the command line names one
    teaching: bool = False   # kind = "teaching": prepared boards may be dealt (Law 6E4), into the practice history


@dataclass(frozen=True)
class EngineSource:
    """Fresh deals from an engine stream, generated once into the session's deal file; with `where` (a teaching
    plan only), only the deals that meet the script it names (prepared boards, Law 6E4)."""

    engine: str
    where: str | None = None
    """The script as the plan names it: a file (from the plan's folder) or a condition."""
    script: Script | None = field(default=None, compare=False)
    """The script `where` names, read and checked with the plan."""

    @property
    def kind(self) -> str:
        return self.engine

    def describe(self) -> str:
        if self.where is not None:
            return FRESH_PREPARED.format(engine=self.engine, where=self.where)
        return FRESH_DEALS.format(engine=self.engine)


@dataclass(frozen=True)
class FileSource:
    """Deals read from an existing deal file, in any format `dealer.formats` reads."""

    path: Path
    format: str | None = None

    @property
    def kind(self) -> str:
        return "file"

    def describe(self) -> str:
        return (FILE_IN_FORMAT if self.format else FILE).format(path=self.path, format=self.format)


@dataclass(frozen=True)
class SquareDealSource:
    """A session of a SquareDeal event, regenerated from the .sqd and its revealed .sqk."""

    sqd: Path
    sqk: Path
    session: str
    reserve: bool = False

    @property
    def kind(self) -> str:
        return "squaredeal"

    def describe(self) -> str:
        return (SQUAREDEAL_RESERVE if self.reserve else SQUAREDEAL).format(sqd=self.sqd.name, session=self.session)


@dataclass(frozen=True)
class SessionSource:
    """The deals of an earlier session of the same plan (a replay, Law 6D2)."""

    session: str

    @property
    def kind(self) -> str:
        return "replay"

    def describe(self) -> str:
        return DEALS_OF.format(session=self.session)


Source = EngineSource | FileSource | SquareDealSource | SessionSource

FRESH_DEALS: Final = N_("{engine} (fresh deals)")
FRESH_PREPARED: Final = N_("{engine} (fresh deals meeting {where}: prepared boards)")
FILE: Final = N_("file {path}")
FILE_IN_FORMAT: Final = N_("file {path} ({format})")
SQUAREDEAL: Final = N_("SquareDeal {sqd} {session} (original set)")
SQUAREDEAL_RESERVE: Final = N_("SquareDeal {sqd} {session} (reserve set)")
DEALS_OF: Final = N_("deals of session {session}")
SOURCE_WORDS: Final = (FRESH_PREPARED, FRESH_DEALS, FILE_IN_FORMAT, FILE, SQUAREDEAL, SQUAREDEAL_RESERVE, DEALS_OF)
"""How a session's source is described (`describe`: in English, as the journal keeps it); said in the language
spoken with `dealer.language.said_from`."""


@dataclass(frozen=True)
class Section:
    """A section of a session: how many copies of each board it needs and the board sets they go into."""

    name: str
    sets: tuple[str, ...]                 # one physical board set per copy, copy 1 first
    boards: tuple[int, ...] | None = None  # None: every board of the session

    @property
    def copies(self) -> int:
        return len(self.sets)


@dataclass(frozen=True)
class Session:
    """One session: its boards, where their deals come from, and the sections that play them."""

    name: str
    number: int                 # position in the plan, from 1
    boards: tuple[int, ...]
    source: Source
    sections: tuple[Section, ...]
    order: DealingOrder
    replay: bool = False

    def boards_of(self, section: Section) -> tuple[int, ...]:
        """The boards a section plays."""
        return self.boards if section.boards is None else section.boards

    @property
    def board_text(self) -> str:
        return format_board_range(list(self.boards))

    @property
    def job_count(self) -> int:
        return sum(len(self.boards_of(s)) * s.copies for s in self.sections)

    def jobs(self) -> list[JobPlan]:
        """Every copy of every board of the session, in dealing order."""
        if self.order is DealingOrder.SET:
            return [JobPlan(board, copy, section.name, set_name)
                    for section in self.sections
                    for copy, set_name in enumerate(section.sets, start=1)
                    for board in self.boards_of(section)]
        plays = [(section, frozenset(self.boards_of(section))) for section in self.sections]
        return [JobPlan(board, copy, section.name, set_name)
                for board in self.boards
                for section, played in plays if board in played
                for copy, set_name in enumerate(section.sets, start=1)]


@dataclass(frozen=True)
class MachineSpec:
    """A dealing machine: its name in the run and its pyserial port name or URL."""

    name: str
    url: str
