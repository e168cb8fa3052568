"""Reading a congress plan file: TOML text -> checked model, every error naming the file and the field by
its key path (``congress.toml: sessions[2].boards: ...``, items counted from 1; text that is not TOML at
tomllib's line). Deal files a session relies on are read here once, to check they hold its boards.
"""

from __future__ import annotations

import difflib
import re
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, NoReturn
from urllib.parse import urlsplit

from dealer import engines, formats, squaredeal
from dealer.core.boards import (
    MAX_COPIES,
    copy_set_names,
    format_board_range,
    parse_board_range,
    set_name_problem,
    set_name_rule,
)
from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError, FormatError, UsageError
from dealer.core.structured import StructureError, load_toml
from dealer.journal.database_url import as_url, is_database_url
from dealer.language import LANGUAGES, N_, _, language_of
from dealer.language.system import os_reason
from dealer.plan import sources
from dealer.plan.model import (
    DealingOrder,
    EngineSource,
    FileSource,
    KeyPath,
    MachineSpec,
    PlanError,
    PlanEvent,
    Section,
    Session,
    SessionSource,
    Source,
    SquareDealSource,
    field_name,
)

MAX_BOARD: Final = 9999  # the highest number a board label carries
DEFAULT_DEAL_FOLDER: Final = "deals"

# key -> required?
_TOP: Final = {"kind": False, "event": True, "sessions": True, "machines": False}
_EVENT: Final = {"name": True, "owner": False, "owner_hex": False, "deal_folder": False, "journal": False,
                 "order": False, "keep_seeds": False, "lang": False}
_SESSION: Final = {"name": True, "boards": False, "source": False, "replay": False, "order": False,
                   "sections": True}
_SECTION: Final = {"name": True, "copies": False, "sets": False, "boards": False}
_MACHINE: Final = {"name": True, "port": True}
# source kind key -> the other keys it allows
_SOURCE: Final = {"engine": ("where",), "file": ("format",), "squaredeal": ("sqk", "session", "reserve"),
                  "deals_of": ()}

TEACHING: Final = "teaching"
"""The one `kind` a plan may say: a plan for lessons, whose sessions may deal prepared boards (Law 6E4)."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$")
_WINDOWS_ABSOLUTE = re.compile(r"^([A-Za-z]:[\\/]|[A-Za-z]:$|\\\\)")
"""A Windows drive path (C:\\deals, C:/deals) or a network one (\\\\server\\share)."""
_WINDOWS_PORT = re.compile(r"^(COM[1-9][0-9]*|\\\\\.\\COM[1-9][0-9]*)$", re.IGNORECASE)
URL_SCHEMES: Final = ("rfc2217", "socket", "loop", "spy", "alt", "hwgrep", "cp2110", "sim")
"""pyserial's URL handlers, and ``sim`` for the built-in simulated machine."""
_NETWORK_SCHEMES: Final = ("rfc2217", "socket")
_TYPE_NAMES: Final = {str: N_("text in quotes"), int: N_("a whole number"), bool: N_("true or false"),
                      list: N_("a list [...]"), dict: N_("a table")}
_NAME_RULES: Final = {
    "machine": N_("machine name {name} must be 1-32 letters, digits, '-' or '_', starting with a letter or digit"),
    "session": N_("session name {name} must be 1-32 letters, digits, '-' or '_', starting with a letter or digit"),
    "section": N_("section name {name} must be 1-32 letters, digits, '-' or '_', starting with a letter or digit"),
}
"""What a name of each kind must be (`_PlanChecker.name`), said with `_`."""


@dataclass
class PlanContent:
    """What a plan file says, checked, with the deal files read while checking it."""

    event: PlanEvent
    sessions: list[Session]
    machines: list[MachineSpec]
    files: dict[Path, DealSet] = field(default_factory=dict)  # deal files read while checking
    squaredeal: dict[SquareDealSource, sources.SquareDealSession] = field(default_factory=dict)


def read_plan(path: str | Path) -> PlanContent:
    """Read and check the plan file at `path`; `PlanError` naming the field on any problem."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PlanError(_("cannot read the plan: {why}").format(why=os_reason(exc)), path) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlanError(_("not UTF-8 text"), path, data.count(b"\n", 0, exc.start) + 1) from exc
    return parse_plan(text, str(path), Path(path).resolve().parent)


def parse_plan(text: str, path: str, base: Path) -> PlanContent:
    """Check the plan `text` (from file `path`); relative paths in it are taken from folder `base`."""
    try:
        doc = load_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(exc, path, text) from exc
    except StructureError as exc:
        raise PlanError(_("not a plan: {problem}").format(problem=exc), path) from None
    return _PlanChecker(path, base).plan(doc)


def _syntax_error(exc: tomllib.TOMLDecodeError, path: str, text: str) -> PlanError:
    message = str(exc)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if m:
        return PlanError(_("not valid TOML: {problem} (column {column})").format(
            problem=message[:m.start()], column=m.group(2)), path, int(m.group(1)))
    line = text.count("\n") + 1 if "end of document" in message else None
    return PlanError(_("not valid TOML: {problem}").format(problem=message.split(" (at ")[0]), path, line)


def port_problem(url: str) -> str | None:
    """Why `url` is not a port pyserial (or the simulator) can open; None if it looks right."""
    m = _URL.match(url)
    if m:
        scheme = m.group(1).lower()
        if scheme not in URL_SCHEMES:
            return _("unknown URL scheme {scheme}://; use one of {schemes}").format(
                scheme=scheme, schemes=", ".join(s + "://" for s in URL_SCHEMES))
        if scheme in _NETWORK_SCHEMES:
            try:
                parts = urlsplit(url)
                host, port = parts.hostname, parts.port
            except ValueError:
                host = port = None
            if not host or port is None:
                return _("{scheme}:// needs a host and a port number, e.g. {scheme}://dealroom.local:4001").format(
                    scheme=scheme)
        return None
    if url.startswith("/") and len(url) > 1 and not url.endswith("/"):
        return None
    if _WINDOWS_PORT.match(url):
        return None
    return _("{port} is neither a serial device (/dev/ttyUSB0, COM3) nor a port URL (rfc2217://host:port, "
             "socket://host:port, sim://...)").format(port=repr(url))


class _PlanChecker:
    """Checks one plan document; `fail` names the field of each error."""

    def __init__(self, path: str, base: Path) -> None:
        self.path = path
        self.base = base
        self.files: dict[Path, DealSet] = {}
        self.squaredeal: dict[SquareDealSource, sources.SquareDealSession] = {}
        self.teaching = False

    # --- generic checks -----------------------------------------------------------------------

    def fail(self, where: KeyPath, reason: str) -> NoReturn:
        raise PlanError(reason, self.path, field=field_name(where) or None)

    def table(self, value: object, where: KeyPath, keys: dict[str, bool]) -> dict[str, Any]:
        """`value` as a table with only `keys`, holding each required one."""
        if not isinstance(value, dict):
            self.fail(where, _("must be {kind}").format(kind=_(_TYPE_NAMES[dict])))
        for key in value:
            if key not in keys:
                close = difflib.get_close_matches(key, list(keys), n=1)
                self.fail(where + (key,), _("unknown key (did you mean {key}?)").format(key=repr(close[0])) if close
                          else _("unknown key; known keys: {keys}").format(keys=", ".join(keys)))
        for key, required in keys.items():
            if required and key not in value:
                self.fail(where, _("missing required key {key}").format(key=repr(key)))
        return value

    def get(self, table: dict[str, Any], where: KeyPath, key: str, kind: type, default: Any = None) -> Any:
        """`table[key]` if it has type `kind`, else `default` when absent."""
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.fail(where + (key,), _("must be {kind}").format(kind=_(_TYPE_NAMES[kind])))
        return value

    def owner(self, table: dict[str, Any], where: KeyPath, name: str) -> bytes:
        """The owner's bytes: ``owner`` in UTF-8 (the plan is UTF-8 text), or ``owner_hex`` for any bytes
        (an owner typed in another code page, as Big Deal on Windows takes it); default the event name."""
        if "owner" in table and "owner_hex" in table:
            self.fail(where + ("owner_hex",), _("give owner or owner_hex, not both"))
        hex_text = self.get(table, where, "owner_hex", str)
        if hex_text is None:
            return str(self.get(table, where, "owner", str, name)).encode("utf-8")
        try:
            return bytes.fromhex(hex_text)
        except ValueError:
            self.fail(where + ("owner_hex",), _("must be hex digits, two a byte (spaces between bytes allowed)"))

    def text(self, table: dict[str, Any], where: KeyPath, key: str, default: str | None = None) -> str:
        value = self.get(table, where, key, str, default)
        if value is None or not value.strip():
            self.fail(where + (key,), _("must not be empty"))
        return str(value).strip()

    def name(self, table: dict[str, Any], where: KeyPath, what: str) -> str:
        """The entry's name; `what` is the kind of entry (a key of `_NAME_RULES`)."""
        value = self.text(table, where, "name")
        if not _NAME.match(value):
            self.fail(where + ("name",), _(_NAME_RULES[what]).format(name=repr(value)))
        return value

    def items(self, value: object, where: KeyPath) -> list[Any]:
        """An array of tables (``[[where]]``), at least one."""
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            header = ".".join(p for p in where if isinstance(p, str))
            self.fail(where, _("must be a list of tables: write each entry under [[{header}]]").format(header=header))
        if not value:
            self.fail(where, _("must hold at least one entry"))
        return value

    def local_path(self, text: str, where: KeyPath) -> Path:
        """A path the plan gives, on this computer: relative ones are taken from the plan's folder and may be
        written with / or \\ (a plan written on Windows works anywhere); a Windows drive or network path
        (C:\\..., \\\\server\\...) is refused on another system, naming the key."""
        if sys.platform == "win32":
            return self.base / text
        if _WINDOWS_ABSOLUTE.match(text):
            self.fail(where, _("{path} is a Windows path; on this computer give a path of its own, or one relative to "
                               "the plan's folder").format(path=repr(text)))
        return self.base / text.replace("\\", "/")

    def file(self, table: dict[str, Any], where: KeyPath, key: str) -> Path:
        """A path to an existing file, relative to the plan's folder."""
        path = self.local_path(self.text(table, where, key), where + (key,))
        if not path.is_file():
            self.fail(where + (key,), _("no such file: {path}").format(path=path))
        return path

    def board_list(self, value: object, where: KeyPath) -> tuple[int, ...]:
        """Boards from range text ('1-32', '1-16,17-32') or a count (32 = boards 1-32)."""
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 1:
                self.fail(where, _("a board count must be at least 1"))
            if value > MAX_BOARD:
                self.fail(where, _("board {board} is beyond {most}, the highest a board label carries").format(
                    board=value, most=MAX_BOARD))
            boards = list(range(1, value + 1))
        elif isinstance(value, str):
            try:
                boards = parse_board_range(value, most=MAX_BOARD)
            except DealerError as exc:
                self.fail(where, str(exc).removeprefix(f"board range {value!r}: "))
        else:
            self.fail(where, _("must be a board range in quotes ('1-32') or a board count"))
        return tuple(boards)

    def read_deals(self, path: Path, fmt: str | None, where: KeyPath) -> DealSet:
        """A deal file, read once; its errors are placed at the plan field that names it."""
        if path not in self.files:
            try:
                self.files[path] = sources.read_deals(path, fmt)
            except FormatError as exc:
                self.fail(where, str(exc))
            except DealerError as exc:
                self.fail(where, f"{path}: {exc}")
        return self.files[path]

    # --- the document -------------------------------------------------------------------------

    def plan(self, doc: dict[str, Any]) -> PlanContent:
        self.table(doc, (), _TOP)
        kind = self.get(doc, (), "kind", str)
        if kind is not None and kind != TEACHING:
            self.fail(("kind",), _("{kind} is not a kind of plan: the one kind is \"teaching\" (prepared boards for "
                                   "lessons, Law 6E4); an event's plan says no kind").format(kind=repr(kind)))
        event = self.event(self.table(doc["event"], ("event",), _EVENT))
        if kind == TEACHING:
            event = replace(event, teaching=True)
        self.teaching = event.teaching
        machines = self.machines(doc.get("machines", []))
        sessions: list[Session] = []
        for i, raw in enumerate(self.items(doc["sessions"], ("sessions",))):
            sessions.append(self.session(raw, ("sessions", i), event, sessions))
        return PlanContent(event, sessions, machines, self.files, self.squaredeal)

    def event(self, table: dict[str, Any]) -> PlanEvent:
        where: KeyPath = ("event",)
        name = self.text(table, where, "name")
        owner = self.owner(table, where, name)
        folder = self.local_path(self.text(table, where, "deal_folder", DEFAULT_DEAL_FOLDER), where + ("deal_folder",))
        if folder.exists() and not folder.is_dir():
            self.fail(where + ("deal_folder",), _("{folder} is not a folder").format(folder=folder))
        named = self.text(table, where, "journal", f"{Path(self.path).stem}.journal")
        journal = as_url(named) if is_database_url(named) else self.local_path(named, where + ("journal",))
        order = self.order(table, where, DealingOrder.SET)
        keep_seeds = self.get(table, where, "keep_seeds", bool, False)
        return PlanEvent(name, owner, folder, journal, order, keep_seeds, self.language(table, where))

    def language(self, table: dict[str, Any], where: KeyPath) -> str | None:
        """The event's language (`lang`), one this program speaks; None where the plan names none."""
        named = self.get(table, where, "lang", str, "")
        if not named:
            return None
        code = language_of(named)
        if code is None:
            self.fail(where + ("lang",), _("{language} is not a language of dealer; it speaks {languages}").format(
                language=repr(named), languages=", ".join(LANGUAGES)))
        return code

    def order(self, table: dict[str, Any], where: KeyPath, default: DealingOrder) -> DealingOrder:
        value = self.get(table, where, "order", str, default.value)
        try:
            return DealingOrder(value)
        except ValueError:
            self.fail(where + ("order",), _("{order} is not a dealing order: use 'set' (each board set in turn) or "
                                            "'board' (every copy of a board before the next)").format(
                order=repr(value)))

    def machines(self, value: object) -> list[MachineSpec]:
        if value == []:
            return []
        machines: list[MachineSpec] = []
        names: dict[str, int] = {}
        ports: dict[str, int] = {}
        for i, raw in enumerate(self.items(value, ("machines",))):
            where: KeyPath = ("machines", i)
            table = self.table(raw, where, _MACHINE)
            name = self.name(table, where, "machine")
            url = self.text(table, where, "port")
            problem = port_problem(url)
            if problem:
                self.fail(where + ("port",), problem)
            self.unique(names, name.casefold(), i, where + ("name",),
                        N_("machine name {name} is already used by {earlier}"), name=repr(name))
            self.unique(ports, url, i, where + ("port",), N_("port {port} is already used by {earlier}"),
                        port=repr(url))
            machines.append(MachineSpec(name, url))
        return machines

    def unique(self, seen: dict[str, int], key: str, index: int, where: KeyPath, message: str, **values: str) -> None:
        """Record `key` for item `index` of a list; fail if an earlier item had it, with `message` (marked `N_`,
        its {earlier} the earlier item, its other names `values`)."""
        if key in seen:
            earlier = where[:-2] + (seen[key],)
            self.fail(where, _(message).format(earlier=field_name(earlier), **values))
        seen[key] = index

    # --- sessions -----------------------------------------------------------------------------

    def session(self, raw: object, where: KeyPath, event: PlanEvent, earlier: list[Session]) -> Session:
        table = self.table(raw, where, _SESSION)
        name = self.name(table, where, "session")
        for other in earlier:
            if other.name.casefold() == name.casefold():
                self.fail(where + ("name",), _("session name {name} is already used by sessions[{number}]").format(
                    name=repr(name), number=other.number))
        replay = self.get(table, where, "replay", bool, False)
        source = self.source(table.get("source", engines.DEFAULT_ENGINE), where + ("source",), name, earlier)
        if isinstance(source, SessionSource) and not replay:
            self.fail(where + ("source",), _("only a replay session may deal the deals of session {session} again "
                                             "(Law 6D2): add replay = true").format(session=source.session))
        boards = self.session_boards(table, where, name, source, event, earlier)
        order = self.order(table, where, event.order)
        sections = self.sections(table["sections"], where + ("sections",), boards)
        return Session(name, len(earlier) + 1, boards, source, sections, order, replay)

    def source(self, value: object, where: KeyPath, session: str, earlier: list[Session]) -> Source:
        written_as_name = isinstance(value, str)
        if written_as_name:
            value = {"engine": value}
        if not isinstance(value, dict):
            self.fail(where, _("must be an engine name ('bigdeal', 'shuffle') or a table ({ file = ... }, "
                               "{ squaredeal = ... }, { deals_of = ... })"))
        kinds = [k for k in _SOURCE if k in value]
        if not kinds:  # name a misspelt key if there is one
            self.table(value, where, dict.fromkeys([*_SOURCE, *(k for ks in _SOURCE.values() for k in ks)], False))
        if len(kinds) != 1:
            self.fail(where, _("give exactly one of {keys}").format(keys=", ".join(_SOURCE)))
        kind = kinds[0]
        self.table(value, where, {kind: True} | {k: False for k in _SOURCE[kind]})
        if kind == "engine":
            engine = self.text(value, where, "engine")
            if engine not in engines.engine_names():
                self.fail(where if written_as_name else where + ("engine",),
                          _("unknown engine {engine}; choose from {engines}").format(
                              engine=repr(engine), engines=", ".join(engines.engine_names())))
            if "where" in value:
                return self.prepared_source(engine, value, where)
            return EngineSource(engine)
        if kind == "file":
            return self.file_source(value, where)
        if kind == "squaredeal":
            return self.squaredeal_source(value, where, session)
        return self.session_source(value, where, earlier)

    def prepared_source(self, engine: str, value: dict[str, Any], where: KeyPath) -> EngineSource:
        """An engine source with a script (``where``): prepared boards, in a teaching plan only (Law 6E4)."""
        if not self.teaching:
            self.fail(where + ("where",), _("deals made under conditions are not wholly random (Law 6E4): only a "
                                            "teaching plan may make them; put kind = \"teaching\" at its top"))
        from dealer.prepared.boards import load  # (the script language: read only for a plan that has one)

        text = self.text(value, where, "where")
        try:
            script = load(text, self.base)
        except DealerError as exc:
            self.fail(where + ("where",), str(exc))
        return EngineSource(engine, text, script)

    def file_source(self, value: dict[str, Any], where: KeyPath) -> FileSource:
        path = self.file(value, where, "file")
        fmt = self.get(value, where, "format", str)
        try:
            formats.format_for_path(path, fmt)
        except DealerError as exc:
            self.fail(where + ("format" if fmt else "file",), str(exc))
        return FileSource(path, fmt)

    def squaredeal_source(self, value: dict[str, Any], where: KeyPath, session: str) -> SquareDealSource:
        sqd = self.file(value, where, "squaredeal")
        sqk = self.file(value, where, "sqk") if "sqk" in value else sqd.with_suffix(".sqk")
        if not sqk.is_file():
            self.fail(where + ("squaredeal",), _("no key file {sqk} beside it; name the revealed keys with "
                                                 "sqk = ...").format(sqk=sqk))
        name = self.text(value, where, "session", session)
        source = SquareDealSource(sqd, sqk, name, self.get(value, where, "reserve", bool, False))
        try:
            event = sources.read_sqd(sqd)
        except DealerError as exc:
            self.fail(where + ("squaredeal",), str(exc))
        try:
            keys = squaredeal.read_sqk(event, sqk)
        except DealerError as exc:
            self.fail(where + ("sqk" if "sqk" in value else "squaredeal",), str(exc))
        try:
            found = sources.squaredeal_session(event, keys, name, source.reserve)
        except DealerError as exc:
            if "session" in value:
                self.fail(where + ("session",), str(exc))
            self.fail(where, _("{problem} (the session's own name; give session = ... for another)").format(
                problem=exc))
        self.squaredeal[source] = found
        return source

    def session_source(self, value: dict[str, Any], where: KeyPath, earlier: list[Session]) -> SessionSource:
        name = self.text(value, where, "deals_of")
        for other in earlier:
            if other.name.casefold() == name.casefold():
                return SessionSource(other.name)
        self.fail(where + ("deals_of",), _("no session {name} before this one in the plan").format(name=repr(name)))

    def session_boards(self, table: dict[str, Any], where: KeyPath, name: str, source: Source, event: PlanEvent,
                       earlier: list[Session]) -> tuple[int, ...]:
        """The session's boards, checked against what its source holds."""
        boards = self.board_list(table["boards"], where + ("boards",)) if "boards" in table else None
        held, what = self.held_boards(source, where, name, event, earlier)
        if boards is None:
            if held is None:
                self.fail(where, _("missing required key 'boards' (e.g. boards = '1-32')"))
            return held
        if held is not None:
            missing = [b for b in boards if b not in set(held)]
            if missing:
                self.fail(where + ("boards",), _("{source} holds boards {held}, not {missing}").format(
                    source=what, held=format_board_range(list(held)), missing=format_board_range(missing)))
        return boards

    def held_boards(self, source: Source, where: KeyPath, name: str, event: PlanEvent,
                    earlier: list[Session]) -> tuple[tuple[int, ...] | None, str]:
        """The boards a source can give (None: any) and how to name it in an error."""
        if isinstance(source, EngineSource):
            path = sources.generated_path(event.deal_folder, name)
            if not path.exists():
                return None, ""
            held = self.read_deals(path, sources.GENERATED_FORMAT, where + ("source",))
            return tuple(int(b) for b in held.boards), _(
                "{path}, generated earlier and the record of what was dealt (never regenerated),").format(path=path)
        if isinstance(source, FileSource):
            held = self.read_deals(source.path, source.format, where + ("source", "file"))
            return tuple(int(b) for b in held.boards), str(source.path)
        if isinstance(source, SessionSource):
            other = next(s for s in earlier if s.name == source.session)
            return other.boards, _("session {session}").format(session=other.name)
        return self.squaredeal_boards(source)

    def squaredeal_boards(self, source: SquareDealSource) -> tuple[tuple[int, ...], str]:
        found = self.squaredeal[source]
        return found.boards, _("SquareDeal session {session} of {file}").format(session=source.session,
                                                                               file=source.sqd.name)

    # --- sections -----------------------------------------------------------------------------

    def sections(self, value: object, where: KeyPath, boards: tuple[int, ...]) -> tuple[Section, ...]:
        sections: list[Section] = []
        names: dict[str, int] = {}
        set_owner: dict[str, str] = {}
        for i, raw in enumerate(self.items(value, where)):
            here = where + (i,)
            section = self.section(raw, here, boards)
            self.unique(names, section.name.casefold(), i, here + ("name",),
                        N_("section name {name} is already used by {earlier}"), name=repr(section.name))
            sets_at = here + (("sets",) if "sets" in raw else ("name",))
            for set_name in section.sets:
                if set_name in set_owner:
                    self.fail(sets_at, _("board set {set} is already used by section {section} of this "
                                         "session").format(set=set_name, section=set_owner[set_name]))
                set_owner[set_name] = section.name
            sections.append(section)
        return tuple(sections)

    def section(self, raw: object, where: KeyPath, session_boards: tuple[int, ...]) -> Section:
        table = self.table(raw, where, _SECTION)
        name = self.name(table, where, "section")
        copies = self.get(table, where, "copies", int)
        if copies is not None and copies < 1:
            self.fail(where + ("copies",), _("a section needs at least 1 copy of each board"))
        if copies is not None and copies > MAX_COPIES:
            self.fail(where + ("copies",), _("{copies} copies: a section deals at most {most} copies of a "
                                             "board").format(copies=copies, most=MAX_COPIES))
        if "sets" in table:
            sets = self.set_names(table["sets"], where + ("sets",))
            if copies is not None and copies != len(sets):
                self.fail(where + ("sets",), _("{sets} board sets for {copies} copies: give one set per "
                                               "copy").format(sets=len(sets), copies=copies))
        else:
            sets = self.default_sets(name, copies or 1, where)
        boards = None
        if "boards" in table:
            own = set(self.board_list(table["boards"], where + ("boards",)))
            extra = sorted(own - set(session_boards))
            if extra:
                self.fail(where + ("boards",), _("boards {boards} are not boards of the session").format(
                    boards=format_board_range(extra)))
            boards = tuple(b for b in session_boards if b in own)
        return Section(name, sets, boards)

    def set_names(self, value: object, where: KeyPath) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            self.fail(where, _("must be a list of board set names, one per copy, e.g. ['A1', 'A2']"))
        names: list[str] = []
        for i, item in enumerate(value):
            problem = set_name_problem(item) if isinstance(item, str) else _(
                "board set name {name} must be text").format(name=repr(item))
            if problem is not None:
                self.fail(where + (i,), problem)
            name = item.strip().upper()
            if name in names:
                self.fail(where + (i,), _("board set {set} is listed twice").format(set=name))
            names.append(name)
        return tuple(names)

    def default_sets(self, section: str, copies: int, where: KeyPath) -> tuple[str, ...]:
        try:
            return copy_set_names(section, copies, numbered=True)
        except UsageError:
            self.fail(where + ("name",), _("board sets cannot be named after section {section} (a set name is "
                                           "{rule}): give sets = [...]").format(section=repr(section),
                                                                               rule=set_name_rule()))
