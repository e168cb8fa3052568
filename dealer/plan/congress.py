"""The Plan: a checked congress plan and what a dealing run asks of it.

A run takes :attr:`Plan.machines` (name, port URL), then per session (in plan order)
:meth:`Plan.deal_set` (each board once, the deals to deal) and :meth:`Plan.jobs` (every copy, in
dealing order), and records them in the journal with ``replay=session.replay``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dealer.core.dealset import DealSet
from dealer.journal.jobplan import JobPlan
from dealer.language import _
from dealer.plan import sources
from dealer.plan.model import (
    EngineSource,
    FileSource,
    KeyPath,
    MachineSpec,
    PlanError,
    PlanEvent,
    Session,
    SessionSource,
    SquareDealSource,
    field_name,
)
from dealer.plan.reader import PlanContent, parse_plan, read_plan
from dealer.verify.board_check import BoardFault, check_deal_set


class Plan:
    """A congress plan, read and checked: the event, its sessions in order, and the machines."""

    def __init__(self, path: str | Path, content: PlanContent) -> None:
        self.path = str(path)
        self.event: PlanEvent = content.event
        self.sessions: tuple[Session, ...] = tuple(content.sessions)
        self.machines: tuple[MachineSpec, ...] = tuple(content.machines)
        self._files = dict(content.files)
        self._deal_sets: dict[str, DealSet] = {}
        self._squaredeal_sessions = dict(content.squaredeal)

    @classmethod
    def load(cls, path: str | Path) -> Plan:
        """Read and check a plan file; `PlanError` (a `FormatError`) naming the file and field if it is wrong."""
        return cls(path, read_plan(path))

    @classmethod
    def loads(cls, text: str, path: str = "plan.toml", base: str | Path = ".") -> Plan:
        """Check a plan given as text; relative paths in it are taken from folder `base`."""
        return cls(path, parse_plan(text, path, Path(base).resolve()))

    # --- sessions -------------------------------------------------------------------------------

    def session(self, name: str) -> Session:
        """A session by name (any case); `PlanError` if the plan has none."""
        for session in self.sessions:
            if session.name.casefold() == name.casefold():
                return session
        raise PlanError(_("no session {name} in the plan").format(name=repr(name)), self.path)

    def deal_file(self, session: Session) -> Path | None:
        """The file holding the session's deals: generated (engine) or given (file); None otherwise."""
        if isinstance(session.source, EngineSource):
            return sources.generated_path(self.event.deal_folder, session.name)
        if isinstance(session.source, FileSource):
            return session.source.path
        return None

    def needs_generation(self, session: Session) -> bool:
        """True if the session's deals are fresh ones not generated yet (by it, or by the session it
        replays): its deal file does not exist."""
        if isinstance(session.source, SessionSource):
            return self.needs_generation(self.session(session.source.session))
        path = self.deal_file(session)
        return isinstance(session.source, EngineSource) and path is not None and not path.exists()

    def deal_set(self, session: Session | str) -> DealSet:
        """The session's boards with their deals, each board once, in the session's board order.

        A fresh engine source is generated now if its deal file does not exist yet; otherwise the file
        is read. Deals are never printed or logged.
        """
        session = self.session(session) if isinstance(session, str) else session
        if session.name not in self._deal_sets:
            held = self._source_deals(session)
            try:
                self._deal_sets[session.name] = held.select(session.boards)
            except KeyError as exc:
                raise self._error(session, "source", _("the deals hold no board {board}").format(
                    board=exc.args[0])) from None
        return self._deal_sets[session.name]

    def _source_deals(self, session: Session) -> DealSet:
        source = session.source
        if isinstance(source, EngineSource):
            return self._generated(session, source)
        if isinstance(source, FileSource):
            return self._read(source.path, source.format)
        if isinstance(source, SessionSource):
            return self.deal_set(source.session)
        return self._squaredeal(source)

    def _generated(self, session: Session, source: EngineSource) -> DealSet:
        path = sources.generated_path(self.event.deal_folder, session.name)
        if path.exists():
            return self._read(path, sources.GENERATED_FORMAT)
        self.event.deal_folder.mkdir(parents=True, exist_ok=True)
        seed_file = sources.seed_path(self.event.deal_folder, session.name) if self.event.keep_seeds else None
        deals = sources.generate(path, source.engine, session.boards, owner=self.event.owner,
                                 event=self.event.name, seed_file=seed_file, script=source.script)
        self._files[path] = deals
        return deals

    def _read(self, path: Path, fmt: str | None) -> DealSet:
        if path not in self._files:
            self._files[path] = sources.read_deals(path, fmt)
        return self._files[path]

    def _squaredeal(self, source: SquareDealSource) -> DealSet:
        return self._squaredeal_sessions[source].deals()

    def to_generate(self) -> list[Session]:
        """The sessions whose fresh deals are not generated yet, in plan order."""
        return [s for s in self.sessions if isinstance(s.source, EngineSource) and self.needs_generation(s)]

    def generate(self, written: Callable[[Session, Path], None] | None = None) -> list[Path]:
        """Generate every session's missing deal file; the files written, in plan order. `written` is told
        of each file as it is written."""
        paths = []
        for session in self.to_generate():
            self.deal_set(session)
            paths.append(sources.generated_path(self.event.deal_folder, session.name))
            if written is not None:
                written(session, paths[-1])
        return paths

    # --- jobs -----------------------------------------------------------------------------------

    def jobs(self, session: Session | str) -> list[JobPlan]:
        """Every copy of every board of a session, in its dealing order."""
        return (self.session(session) if isinstance(session, str) else session).jobs()

    def all_jobs(self) -> list[tuple[Session, list[JobPlan]]]:
        """The whole plan: each session (in plan order) with its jobs."""
        return [(session, session.jobs()) for session in self.sessions]

    def board_sets(self) -> dict[str, tuple[int, ...]]:
        """Every physical board set the plan deals into, with every board number it must hold
        (over all sessions), sets in order of first use: what board labels are printed for."""
        boards: dict[str, set[int]] = {}
        for session in self.sessions:
            for section in session.sections:
                for set_name in section.sets:
                    boards.setdefault(set_name, set()).update(session.boards_of(section))
        return {name: tuple(sorted(held)) for name, held in boards.items()}

    @property
    def job_count(self) -> int:
        return sum(session.job_count for session in self.sessions)

    @property
    def board_count(self) -> int:
        return sum(len(session.boards) for session in self.sessions)

    # --- Law 6D2 --------------------------------------------------------------------------------

    def check_reuse(self) -> list[BoardFault]:
        """Law 6D2 across the plan: no session may deal a deal an earlier session dealt, unless it is a
        replay; no session may hold the same deal twice. Raises `PlanError` at the later session;
        returns the non-blocking findings (reused deals in replay sessions).

        Sessions whose fresh deals are not generated yet are skipped: they hold no deals so far.
        """
        seen: dict[str, str] = {}
        notes: list[BoardFault] = []
        for session in self.sessions:
            if self.needs_generation(session):
                continue
            deals = self.deal_set(session)
            faults = check_deal_set(deals, seen, replay=session.replay)
            blocking = [f for f in faults if f.blocking]
            if blocking:
                said = (_("{fault}; only a replay session (replay = true) may deal them again").format(
                    fault=blocking[0].text()) if blocking[0].details.get("session") else blocking[0].text())
                raise self._error(session, "source", said)
            notes.extend(faults)
            for h in deals.deal_hashes():
                seen.setdefault(h, session.name)
        return notes

    def _error(self, session: Session, key: str, reason: str) -> PlanError:
        where: KeyPath = ("sessions", session.number - 1, key)
        return PlanError(reason, self.path, field=field_name(where))

