"""The deal history of a computer: every deal dealt here, by hash, so that Law 6D2 reaches past one journal.

A journal refuses a deal set one of its own runs dealt; the history refuses a deal any run on this
computer dealt (or on another whose history was imported), wherever its journal is, unless the run is a
replay. It keeps hashes, never a deal, a card or a seed, and is private all the same (`DealHistory`).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import numpy as np
import platformdirs

from dealer.core.dealset import DealSet
from dealer.core.errors import DealReused, FormatError, JournalError
from dealer.core.links import IsALinkError, create_private, database_files, first_link, link_text
from dealer.core.outfile import SECRET_MODE, write_text
from dealer.core.structured import load_json
from dealer.journal.database_url import DatabaseURL, is_database_url, record_folder
from dealer.journal.failure import history_failure, is_damage
from dealer.journal.history_store import SQLITE_SCHEMA, HistoryStore, PostgresHistoryStore, SqliteHistoryStore
from dealer.language import N_, _, n_
from dealer.language.system import os_reason
from dealer.verify import BoardFault, FaultCategory, check_deal_set

ENV_VAR: Final = "DEALER_HISTORY"
FILE_NAME: Final = "history.sqlite"
EXPORT_FORMAT: Final = "dealer deal history"
EXPORT_VERSION: Final = 1
_HASH: Final = re.compile(r"[0-9a-f]{64}")



PRACTICE_FILE: Final = "simulated-history.sqlite"
"""The practice history's file name, in the run's own folder (`practice_history`)."""


_PSEUDO_TERMINAL: Final = re.compile(r"/dev/(pts/\d+|ttys\d+)")


def simulated(port: str) -> bool:
    """Whether `port` is likely a simulated machine's, before its machine has answered: a ``sim://`` URL, or a
    pseudo-terminal (where `dealer sim`, the pytest fixture and the C library's example machine serve theirs).
    Only the history a run is first checked against follows this guess; where each machine's deals go is
    decided by its own Hello (`HistoryChoice`)."""
    if port.startswith("sim://"):
        return True
    if "://" in port:
        return False
    return _PSEUDO_TERMINAL.fullmatch(os.path.realpath(port)) is not None


def practice_history(ports: Iterable[str], folder: Path, *, given: HistoryPlace | None = None,
                     create: bool = True) -> Path | None:
    """The practice history of a run on `ports`, made empty if there is none (unless `create` is False: a
    check writes nothing); None for a run that is not practice. A run is practice when every machine is
    `simulated` and no history is named (`given`: --history; or ``$DEALER_HISTORY``): its deals are kept in
    ``simulated-history.sqlite`` in `folder` (the console's work folder, the journal's folder for a dealing
    run), never in this computer's deal history, which guards the club's real sessions (Law 6D2)."""
    ports = list(ports)
    if given is not None or named_target() is not None or not ports or not all(simulated(p) for p in ports):
        return None
    path = folder / PRACTICE_FILE
    if create:
        DealHistory.open(path, create=True).close()
    return path


@dataclass(frozen=True)
class HistoryChoice:
    """Which deal history each machine's deals go into, decided by what the machine says it is (its Hello's
    SIMULATED capability), never by its port: with a history named, that one for every machine; else a
    simulated machine's go into the practice history beside the journal, and a real machine's into this
    computer's (`default_path`). `checked` is the history the run was checked against as it started."""

    checked: HistoryPlace | None
    simulated: HistoryPlace | None
    real: HistoryPlace | None

    @classmethod
    def of_run(cls, history: HistoryPlace | None, practice: bool, journal: HistoryPlace,
               teaching: bool = False) -> HistoryChoice:
        """The choice of a run checked against `history`, a practice history if `practice` (none was named); a
        teaching run's `history` is its practice history, for every machine, real ones too."""
        if teaching:
            return cls(history, history, history)
        if practice:
            return cls(history, history, None)
        nothing_named = history is None and named_target() is None
        return cls(history, record_folder(journal) / PRACTICE_FILE if nothing_named else history, history)

    def of(self, simulated: bool) -> HistoryPlace | None:
        """The history of a machine that says it is (or is not) simulated (None: this computer's)."""
        return self.simulated if simulated else self.real

    def differs(self, path: HistoryPlace | None) -> bool:
        """`path` is another history than the one the run was checked against."""
        def where(p: HistoryPlace | None) -> HistoryPlace:
            place = p if p is not None else default_path()
            return place.absolute() if isinstance(place, Path) else place
        return where(path) != where(self.checked)


def never_made_practice(path: HistoryPlace | None) -> bool:
    """A practice history not made yet (no practice run has dealt there): it holds nothing to find."""
    return isinstance(path, Path) and path.name == PRACTICE_FILE and not path.exists()


def teaching_history(folder: Path, *, create: bool = True) -> Path:
    """The practice history a teaching run keeps its deals in (prepared boards, Law 6E4): ``simulated-history.sqlite``
    in `folder`, whatever its machines and whatever history is named; made empty if there is none (unless
    `create` is False: a check writes nothing). Never this computer's deal history."""
    path = folder / PRACTICE_FILE
    if create:
        DealHistory.open(path, create=True).close()
    return path


def teaching_note(path: HistoryPlace) -> str:
    """The one line a teaching run says about where its deals are kept."""
    said = _("teaching run: its deals are kept in a practice history ({path}), never in the club's deal history")
    return said.format(path=path)


def practice_note(path: Path) -> str:
    """The one line a practice run says about where its deals are kept."""
    return _("practice run: its deals are kept in a practice history ({path}), not the club's").format(path=path)


def default_path() -> HistoryPlace:
    """Where this computer's history is: ``$DEALER_HISTORY``, else the user's data folder."""
    return named_target() or own_path()


def named_target() -> Path | DatabaseURL | None:
    """The history ``$DEALER_HISTORY`` names, if it is set: a file, or a database by its URL."""
    given = os.environ.get(ENV_VAR)
    if not given:
        return None
    return DatabaseURL(given) if is_database_url(given) else Path(given)


HistoryPlace = Path | DatabaseURL
"""Where a deal history is: a file, or a PostgreSQL database by its URL."""


def own_path() -> Path:
    """This user's own history, in the user's data folder: the one place a history is made unasked."""
    return Path(platformdirs.user_data_dir("dealer", appauthor=False)) / FILE_NAME


def check_named(path: str | Path | DatabaseURL | None = None) -> None:
    """Refuse (`JournalError`), before anything is made, a history named by `path` (--history) or by
    ``$DEALER_HISTORY`` that does not exist; this user's own may be made."""
    named = named_target()
    if isinstance(path, DatabaseURL) or is_database_url(path) or (path is None and isinstance(named, DatabaseURL)):
        return  # a database without a history is refused as it is opened
    if path is not None:
        _refuse_unmade(Path(str(path)), "--history")
    elif isinstance(named, Path):
        _refuse_unmade(named, f"${ENV_VAR}")


def _refuse_unmade(where: Path, named_by: str) -> None:
    """A history named by `named_by` (--history or $DEALER_HISTORY) must exist: a mistyped name would
    otherwise make an empty one, and the run would be checked against nothing (Law 6D2)."""
    if not where.parent.is_dir():
        raise JournalError(_("{path}: no folder {folder} for the deal history {named_by} names; check the name, or "
                             "make a new history there with: dealer history init {path}").format(
            path=where, folder=where.parent, named_by=named_by))
    if not where.exists():
        raise JournalError(_("{path}: no deal history there ({named_by} names it); check the name, or make a new one "
                             "with: dealer history init {path}").format(path=where, named_by=named_by))


@dataclass(frozen=True)
class Entry:
    """One deal of one run, as the history keeps it (no deal, only its hash)."""

    deal_hash: str
    run_uid: str
    board: int
    run_name: str
    journal: str
    host: str
    recorded: str
    replay: bool

    def where(self) -> str:
        """Where the deal was dealt, for a message: run, journal, host, date."""
        said = (_("run {name} of journal {journal} (host {host}, {date}, a replay)") if self.replay
                else _("run {name} of journal {journal} (host {host}, {date})"))
        return said.format(name=self.run_name, journal=self.journal, host=self.host, date=self.recorded[:10])

    def to_json(self) -> dict[str, Any]:
        return {"deal_hash": self.deal_hash, "run": self.run_uid, "board": self.board, "name": self.run_name,
                "journal": self.journal, "host": self.host, "recorded": self.recorded, "replay": self.replay}


@dataclass(frozen=True)
class RunEntries:
    """One run as the history keeps it: its uid, name, journal, host, when first recorded, how many deals."""

    run_uid: str
    run_name: str
    journal: str
    host: str
    recorded: str
    deals: int
    replay: bool

    def where(self) -> str:
        """The run in words, for a list or a message: name, journal, host, time."""
        said = (_("run {name} of journal {journal} (host {host}, {when} UTC, a replay)") if self.replay
                else _("run {name} of journal {journal} (host {host}, {when} UTC)"))
        when = self.recorded[:16].replace("T", " ")
        return said.format(name=self.run_name, journal=self.journal, host=self.host, when=when)

    def count(self) -> str:
        """How many deals, in words."""
        return n_("{count} deal", "{count} deals", self.deals).format(count=self.deals)


class DealHistory:
    """The history file of one computer. Open it with `DealHistory.open`.

    What is kept: for each deal of each run, the deal's hash (`dealer.verify.deal_hash`, the identity the
    journal and the verifier use), the run's uid, name and journal, the board number, the host, when, and
    whether the run was a replay. The file is SQLite, every write one transaction (several controllers on
    one computer may record at once), mode 0600; a symbolic link at it or at a side file of SQLite's is
    refused, never followed. Why a file of hashes is kept private:
    docs/decisions/2026-12-01-deal-history-private.md.

    When: a deal is recorded as its dealing begins (its job's step into DEALING is in the journal, before the
    machine is told to deal: from there on cards may go into the board), so a run that deals nothing, on a
    mistyped port say, records nothing; on every resume the deals whose dealing began by the journal are
    recorded again, harmlessly (a controller killed between the two writes). A run is checked against the
    history as it begins and resumes, its own earlier entries excepted (a resume). Where:
    ``DEALER_HISTORY`` if set, else ``history.sqlite`` in the user's data folder (`platformdirs`:
    ``~/.local/share/dealer`` on Linux, ``~/Library/Application Support/dealer`` on macOS,
    ``%LOCALAPPDATA%\\dealer`` on Windows); ``--history PATH`` overrides both. `export`/`import_file` move
    entries between computers (JSON, hashes only): a congress's controllers share one history.
    """

    def __init__(self, store: HistoryStore, path: Path | DatabaseURL) -> None:
        self._store = store
        self.path = path

    @classmethod
    def open(cls, path: str | Path | DatabaseURL | None = None, *, create: bool = False) -> DealHistory:
        """Open the history at `path` (--history), else at ``$DEALER_HISTORY``, else this user's own.
        Only this user's own history, or one opened with `create` (`dealer history init`, a practice run's
        own), is made (with its folder, private) where there is none; a named one that does not exist is
        refused (`JournalError`) naming what to do."""
        named = named_target()
        target = path if path is not None else named
        if isinstance(target, str) and is_database_url(target):
            target = DatabaseURL(target)  # its text, password and all: str() of a DatabaseURL would drop it
        if isinstance(target, DatabaseURL):
            return cls(PostgresHistoryStore.open(target, create=create,
                                                 format_text=f"{EXPORT_FORMAT} {EXPORT_VERSION}"), target)
        where = Path(target) if target is not None else own_path()
        link = first_link(database_files(where))
        if link is not None:
            raise JournalError(link_text(link))
        if not create:
            check_named(path)
        try:
            where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            create_private(where, SECRET_MODE)
            db = sqlite3.connect(where, isolation_level=None, check_same_thread=False, timeout=60)
        except IsALinkError as exc:
            raise JournalError(str(exc)) from None
        except (OSError, sqlite3.Error) as exc:
            raise history_failure(str(where), exc, N_(
                "{path}: the deal history cannot be opened: {cause}")) from exc
        try:
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SQLITE_SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (f"{EXPORT_FORMAT} {EXPORT_VERSION}",))
        except sqlite3.Error as exc:
            db.close()
            if not is_damage(exc):
                raise history_failure(str(where), exc, N_(
                "{path}: the deal history cannot be opened: {cause}")) from exc
            raise JournalError(_("{path}: not a usable deal history ({error})").format(path=where, error=exc)) from exc
        return cls(SqliteHistoryStore(db, where), where)

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> DealHistory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ------------------------------------------------------------------------------

    def entries(self, hashes: Iterable[str] | None = None) -> list[Entry]:
        """Every entry (oldest first), or those of the deals `hashes`."""
        wanted = None if hashes is None else sorted(set(hashes))
        if wanted is not None and not wanted:
            return []
        return [Entry(r[0], r[1], int(r[2]), r[3], r[4], r[5], r[6], bool(r[7])) for r in self._store.entries(wanted)]

    def runs(self) -> list[RunEntries]:
        """Every run the history holds, oldest first, with how many deals it keeps of each."""
        return [RunEntries(r[0], r[1], r[2], r[3], r[4], int(r[5]), bool(r[6])) for r in self._store.runs()]

    def __len__(self) -> int:
        return self._store.count()

    def dealt_elsewhere(self, deals: DealSet, run_uid: str | None = None) -> dict[str, Entry]:
        """The deals of `deals` the history has from a run other than `run_uid`: hash -> the earliest entry."""
        found: dict[str, Entry] = {}
        for entry in self.entries(deals.deal_hashes()):
            if entry.run_uid != run_uid:
                found.setdefault(entry.deal_hash, entry)
        return found

    # --- writing ------------------------------------------------------------------------------

    def record(self, deals: DealSet, *, run_uid: str, run_name: str, journal: str | Path | DatabaseURL,
               replay: bool = False, boards: Iterable[int] | None = None) -> int:
        """Record the deals of a run whose dealing began (`boards`; every deal of `deals` if None), in one
        transaction; returns how many entries were new."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        host = socket.gethostname()
        journal_text = str(journal) if isinstance(journal, DatabaseURL) or is_database_url(journal) else str(
            Path(journal).absolute())
        if boards is not None:  # only these deals are hashed: a run records one board at a time
            deals = deals.where(np.isin(deals.boards, np.fromiter((int(b) for b in boards), dtype=np.int64)))
        rows = [Entry(h, run_uid, int(b), run_name, journal_text, host, now, replay)
                for b, h in zip(deals.boards, deals.deal_hashes(), strict=True)]
        if not rows:
            return 0
        added = self._store.insert([_row(e) for e in rows], only_if_new=not replay)
        if added is None:  # another run recorded one of these deals first (on another computer, say): Law 6D2
            check_reuse(self, deals, name=run_name, replay=False, run_uid=run_uid)
            raise AssertionError("the store found a deal of another run that the history does not hold")
        return added

    def _insert(self, entries: Sequence[Entry]) -> int:
        added = self._store.insert([_row(e) for e in entries], only_if_new=False)
        assert added is not None
        return added

    # --- job numbers, per machine ---------------------------------------------------------------

    def last_job(self, serial: str) -> int:
        """The last job number (the journals' dealing count, before its 16-bit wrap) any run on this computer
        gave the machine of `serial`; 0 for a machine never met."""
        return self._store.last_job(serial)

    def reserve_job(self, serial: str, at_least: int) -> int:
        """The next job number for the machine of `serial`: `at_least`, or more if an earlier run gave it that
        many (PROTOCOL.md 7.2: never a number given before to this machine); kept before it is used."""
        return self._store.reserve_job(serial, at_least)

    def forget(self, run_uid: str) -> int:
        """Remove every entry of the run `run_uid` (one transaction: all of them or, if stopped, none);
        returns how many were removed."""
        return self._store.forget(run_uid)

    # --- moving between computers ---------------------------------------------------------------

    def export(self, path: str | Path, *, force: bool = False) -> int:
        """Write every entry to `path` (JSON, private); returns how many."""
        entries = self.entries()
        text = json.dumps({"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
                           "deals": [e.to_json() for e in entries]}, indent=1, sort_keys=True)
        write_text(path, text + "\n", force=force, mode=SECRET_MODE)
        return len(entries)

    def import_file(self, path: str | Path) -> tuple[int, int]:
        """Add the entries of an exported history; returns (new entries, entries read)."""
        entries = read_export(path)
        return self._insert(entries), len(entries)


def _row(entry: Entry) -> tuple[Any, ...]:
    return (entry.deal_hash, entry.run_uid, entry.board, entry.run_name, entry.journal, entry.host, entry.recorded,
            entry.replay)


def read_export(path: str | Path) -> list[Entry]:
    """The entries of an exported history file; `FormatError` naming the file and entry if it is not one."""
    try:
        data = load_json(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError(_("no such file"), path) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # not JSON, or past a bound (StructureError)
        raise FormatError(_("not an exported deal history ({error})").format(
            error=os_reason(exc) if isinstance(exc, OSError) else exc), path) from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise FormatError(_("not an exported deal history (no \"format\": \"{format}\")").format(
            format=EXPORT_FORMAT), path)
    if data.get("version") != EXPORT_VERSION:
        raise FormatError(_("deal history version {version}: this dealer reads version {readable}").format(
            version=repr(data.get("version")), readable=EXPORT_VERSION), path)
    deals = data.get("deals")
    if not isinstance(deals, list):
        raise FormatError(_("\"deals\" is not a list"), path)
    return [_entry(item, path, i) for i, item in enumerate(deals, 1)]


def _entry(item: Any, path: str | Path, i: int) -> Entry:
    def bad(why: str) -> FormatError:
        return FormatError(_("entry {number}: {why}").format(number=i, why=why), path)

    if not isinstance(item, dict):
        raise bad(_("not an object"))
    text_fields = ("deal_hash", "run", "name", "journal", "host", "recorded")
    for key in text_fields:
        if not isinstance(item.get(key), str):
            raise bad(_("{key} missing or not text").format(key=repr(key)))
    if not _HASH.fullmatch(item["deal_hash"]):
        raise bad(_("'deal_hash' is not 64 lowercase hex digits (a SHA-256)"))
    board, replay = item.get("board"), item.get("replay")
    if not isinstance(board, int) or isinstance(board, bool) or board < 1:
        raise bad(_("'board' is not a board number"))
    if not isinstance(replay, bool):
        raise bad(_("'replay' is not true or false"))
    return Entry(item["deal_hash"], item["run"], board, item["name"], item["journal"], item["host"],
                 item["recorded"], replay)


# --- the check a run makes before dealing -------------------------------------------------------


def check_reuse(history: DealHistory, deals: DealSet, *, name: str, replay: bool, run_uid: str | None = None,
                hint: str | None = None) -> list[BoardFault]:
    """Law 6D2 against the history: raise `DealReused` if a deal of `deals` was dealt by another run and
    this run (`name`, `run_uid` when it is being resumed) is no replay; in a replay, return the F10
    warnings (one per earlier run). `hint` replaces the advice given with a refusal."""
    found = history.dealt_elsewhere(deals, run_uid)
    if not found:
        return []
    labels = {h: e.where() for h, e in found.items()}
    faults = [f for f in check_deal_set(deals, labels, replay=replay) if f.code is FaultCategory.F10]
    blocking = [f for f in faults if f.blocking]
    if blocking:
        advice = hint or _("if this event is a replay of those deals, say so with --replay")
        raise DealReused(_("{name}: {fault} (deal history {path}); a deal may not be imported from another session: "
                           "nothing was dealt ({advice})").format(
            name=name, fault=blocking[0].text(), path=history.path, advice=advice))
    return faults
