"""Deal-file formats, one module per format, and their registry: `read_file` and `write_file` are the one
way commands read and write a deal file (atomically, the board limit checked first).

A format module defines ``NAME``, ``EXTENSIONS`` (the first the usual one), ``MAX_BOARD``, ``NUMBERED``,
``COUNTED``, ``BOARD_SET`` (which sets of boards it carries: :mod:`dealer.formats.board_sets`),
``read(stream, path, options, report) -> Iterator[DealSet]`` and ``write(stream, deals)``, and may define
``write_parts`` (any size, bounded memory). Readers raise only `FormatError`, naming the file and the line,
byte offset or board.

May import: `dealer.core`, `dealer.language` (the words a person reads).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import numpy as np

from dealer.core.boards import format_board_range
from dealer.core.cards import pack
from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError, FormatError, UsageError
from dealer.core.outfile import atomic_output, check_writable
from dealer.formats import board_sets
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.formats.repeats import one_board_per_number
from dealer.language import _, listed, n_
from dealer.language.system import os_reason

# format name -> module; the order is the order shown to users
_MODULES: Final = {
    "pbn": "dealer.formats.pbn",
    "dup": "dealer.formats.dup",
    "dlm": "dealer.formats.dlm",
    "bri": "dealer.formats.bri",
    "dge": "dealer.formats.dge",
    "csv": "dealer.formats.csv",
    "ber": "dealer.formats.ber",
    "bhg": "dealer.formats.bhg",
    "lin": "dealer.formats.lin",
    "rzd": "dealer.formats.rzd",
    "cds": "dealer.formats.cds",
    "goe": "dealer.formats.goe",
    "json": "dealer.formats.json",
}


def format_names() -> list[str]:
    """Names accepted by --format."""
    return list(_MODULES)


def get_format(name: str) -> ModuleType:
    """The module of a format by name; `UsageError` for an unknown name."""
    try:
        return importlib.import_module(_MODULES[name.lower()])
    except KeyError:
        raise UsageError(_("unknown format {name}; choose from {formats}").format(
            name=repr(name), formats=", ".join(_MODULES))) from None


def format_for_path(path: str | Path, override: str | None = None) -> ModuleType:
    """The format of a file: `override` if given, else the one whose extension the file has."""
    if override:
        return get_format(override)
    ext = Path(path).suffix.lower().lstrip(".")
    for name in _MODULES:
        module = get_format(name)
        if ext in module.EXTENSIONS:
            return module
    raise UsageError(_("{path}: cannot tell the format from extension {extension}; use --format").format(
        path=path, extension=repr(ext)))


def iter_file(path: str | Path, fmt: str | None = None, options: ReadOptions = DEFAULT_OPTIONS,
              report: ReadReport | None = None) -> Iterator[DealSet]:
    """Stream a deal file as chunks of boards, in file order (repeated numbers not resolved)."""
    module = format_for_path(path, fmt)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, generator-owned
    except OSError as exc:
        raise FormatError(_("cannot open: {reason}").format(reason=os_reason(exc)), path) from exc
    with stream:
        yield from module.read(stream, str(path), options, report)


def read_file(path: str | Path, fmt: str | None = None, options: ReadOptions = DEFAULT_OPTIONS,
              report: ReadReport | None = None) -> DealSet:
    """Read a whole deal file, one board per number; `FormatError` if it holds no boards.

    Notes for the user (and the boards skipped) go into `report` if one is given.
    """
    module = format_for_path(path, fmt)
    report = ReadReport() if report is None else report
    deals = DealSet.concat(iter_file(path, module.NAME, options, report))
    if not len(deals):
        why = _why_none(report)
        raise FormatError(_("holds no boards ({why})").format(why=why) if why else _("holds no boards"), path,
                          offset=_size(path))

    def places() -> list[str] | None:  # read again, noting where each board is: only to name an error
        tracked = ReadReport.tracking()
        for _chunk in iter_file(path, module.NAME, options, tracked):
            pass
        return tracked.places

    deals, notes = one_board_per_number(deals, str(path), game=options.game, places=places)
    report.notes.extend(notes)
    report.notes.extend(_unnumbered_note(str(path), report, options))
    report.notes.extend(same_deal_notes(str(path), deals))
    report.notes.extend(_skipped_notes(str(path), report))
    marked = _marked_count_note(str(path), deals) if module.NAME == "pbn" else None
    if marked is not None:
        report.notes.extend(marked)
    elif not module.NUMBERED or not module.COUNTED:
        report.notes.append(_count_note(str(path), module, deals, options, report))
    return deals


def _why_none(report: ReadReport) -> str:
    """Why a file gave no board (empty if nothing tells): its games skipped as partial deals, or as results
    without a deal."""
    partial, results_only = len(report.partial), len(report.results_only)
    why = [n_("{count} game with fewer than 52 cards", "{count} games with fewer than 52 cards",
              partial).format(count=partial) if partial else "",
           n_("{count} game without a deal", "{count} games without a deal",
              results_only).format(count=results_only) if results_only else ""]
    return listed(w for w in why if w)


def _size(path: str | Path) -> int | None:
    try:
        return Path(path).stat().st_size
    except OSError:
        return None


def _skipped_notes(path: str, report: ReadReport) -> list[str]:
    notes = []
    if report.partial:
        boards = [str(s.board) if s.board is not None else s.place for s in report.partial]
        notes.append(n_("{path}: skipped {count} board with a partial deal: {boards}",
                        "{path}: skipped {count} boards with a partial deal: {boards}", len(boards)).format(
            path=path, count=len(boards), boards=_listed(boards)))
    if report.results_only:
        places = [s.place for s in report.results_only]
        notes.append(n_("{path}: skipped {count} game without a deal (at {places})",
                        "{path}: skipped {count} games without a deal (at {places})", len(places)).format(
            path=path, count=len(places), places=_listed(places)))
    return notes


def _unnumbered_note(path: str, report: ReadReport, options: ReadOptions) -> list[str]:
    if not report.unnumbered:
        return []
    count = len(report.unnumbered)
    first = options.first_board or 1
    if options.number_in_order:
        return [n_("{path}: {count} game numbered in the file's order from {first} (--number-in-order: the file's "
                   "Board tags are not taken as board numbers)",
                   "{path}: {count} games numbered in the file's order from {first} (--number-in-order: the "
                   "file's Board tags are not taken as board numbers)", count).format(
            path=path, count=count, first=first)]
    return [n_("{path}: {count} game without a board number (no Board tag, or '?'), numbered as the board before "
               "+ 1 (from {first} for the first): at {places}",
               "{path}: {count} games without a board number (no Board tag, or '?'), numbered as the board "
               "before + 1 (from {first} for the first): at {places}", count).format(
        path=path, count=count, first=first, places=_listed(report.unnumbered))]


def same_deal_notes(path: str, deals: DealSet) -> list[str]:
    """One line naming boards of different numbers that hold the same deal (Law 6: a deal is dealt for one
    board of a session), or none."""
    if len(deals) < 2:
        return []
    packed = np.ascontiguousarray(pack(deals.deals))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _unique, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    if not (counts > 1).any():
        return []
    groups = [deals.boards[np.flatnonzero(inverse == k)].tolist() for k in np.flatnonzero(counts > 1)]
    groups.sort(key=lambda g: int(g[0]))
    shown = _listed([listed(str(b) for b in group) for group in groups], most=6)
    return [_("{path}: the same deal is on more than one board (Law 6: a deal is dealt for one board of a "
              "session): boards {boards}").format(path=path, boards=shown)]


def _listed(items: list[str], most: int = 12) -> str:
    shown = ", ".join(items[:most])
    return _("{items} and {count} more").format(items=shown, count=len(items) - most) if len(items) > most else shown


def _count_note(path: str, module: ModuleType, deals: DealSet, options: ReadOptions, report: ReadReport) -> str:
    """For a format that holds no board numbers or no count: how many boards were read, and as which."""
    text = n_("{path}: {count} board read ({boards})", "{path}: {count} boards read ({boards})", len(deals)).format(
        path=path, count=len(deals), boards=_short_range(deals))
    name = module.NAME.upper()
    if not module.NUMBERED and options.first_board is None:
        if report.by_position:
            text += "; " + _("{format} holds no board numbers: numbered by the file's line positions").format(
                format=name)
        elif module.NAME == "dup":
            text += "; " + _("{format} holds no board numbers: numbered from {first} (--first-board N to start at "
                             "N)").format(format=name, first=int(deals.boards[0]))
        else:
            first = int(deals.boards[0])
            text += "; " + _("{format} holds no board numbers: numbered from {first}, a guess the file cannot "
                             "confirm").format(format=name, first=first)
            if module.NAME == "bhg":
                text += " " + _("(a line's hands are turned by its board number: a wrong first board turns them "
                                "too)")
            certain, confirmed = _what_makes_it_certain(Path(path), module, deals)
            text += "; " + certain
            if confirmed != first:  # no file beside it confirms the guess
                report.guessed = _("{path}: {format} holds no board numbers, so boards {boards} would be dealt "
                                   "under a guess; {certain}").format(path=path, format=name,
                                                                      boards=_short_range(deals), certain=certain)
    if not module.COUNTED:
        text += "; " + _("{format} does not record how many boards a file holds: check that none is "
                         "missing").format(format=name)
    return text


def _marked_count_note(path: str, deals: DealSet) -> list[str] | None:
    """For a PBN file: no line if it ends with this program's mark and holds the boards the mark says; one
    if it holds fewer or more (a board lost or added since it was written); None if it has no mark."""
    from dealer.formats.pbn_export import boards_marked

    marked = boards_marked(path)
    if marked is None:
        return None
    if marked == len(deals):
        return []
    return [n_("{path}: written holding {marked} board but {count} read ({boards}): it was changed since; check "
               "that no board is missing",
               "{path}: written holding {marked} boards but {count} read ({boards}): it was changed since; check "
               "that no board is missing", marked).format(path=path, marked=marked, count=len(deals),
                                                          boards=_short_range(deals))]


_COMPANION_MOST: Final = 1 << 24  # bytes of a file beside it worth reading to find the run's first board


def _what_makes_it_certain(path: Path, module: ModuleType, deals: DealSet) -> tuple[str, int | None]:
    """The first board a file of the same deals beside `path` (same name, a format with board numbers)
    gives, or what would make the numbering certain; and that first board (None if no file gives one)."""
    for name in _MODULES:
        other = get_format(name)
        companion = path.with_suffix("." + other.EXTENSIONS[0])
        if not other.NUMBERED or companion == path or not companion.is_file():
            continue
        try:
            if companion.stat().st_size > _COMPANION_MOST:
                continue
            known = read_file(companion, name)
        except (DealerError, OSError):
            continue
        first = _same_run_from(module, deals, known)
        if first is not None:
            return _("{companion} beside it holds the same deals from board {first}: read with --first-board "
                     "{first}").format(companion=companion, first=first), first
    return _("--first-board N makes it certain (the file's PBN or DLM, if kept, names N)"), None


def _same_run_from(module: ModuleType, guessed: DealSet, known: DealSet) -> int | None:
    """The first board of `known` if it is one run of the deals `guessed` read (BHG's hands turned to it)."""
    if len(known) != len(guessed) or len(board_sets.merged(board_sets.spans_of(known.boards))) != 1:
        return None
    first = int(known.boards[0])
    deals = guessed.deals
    if module.NAME == "bhg":
        deals = ((deals.astype(np.int64) + first - int(guessed.boards[0])) % 4).astype(np.uint8)
    return first if np.array_equal(deals, known.deals) else None


def check_board_set(path: str | Path, module: ModuleType, spans: board_sets.Spans) -> None:
    """Refuse, in one line naming the formats that can, boards (as spans) a file of `module`'s format
    would not give back as they are: `FormatError` naming the file."""
    why = board_sets.problem(module, spans)
    if why is not None:
        raise FormatError(why, path)


def write_file(path: str | Path, deals: DealSet, fmt: str | None = None, *, force: bool = False,
               **options: Any) -> None:
    """Write `deals` to `path` in its format, atomically; nothing is written if the format cannot hold them
    or would read them back as other boards, dealers or vulnerabilities."""
    module = format_for_path(path, fmt)
    check_writable(path, force=force)
    limit = module.MAX_BOARD
    if limit is not None and len(deals) and int(deals.boards.max()) > limit:
        raise FormatError(_("{format} holds boards 1-{limit} only; this run reaches board {board}").format(
            format=module.NAME.upper(), limit=limit, board=int(deals.boards.max())), path)
    why = board_sets.problem(module, board_sets.spans_of(deals.boards)) or board_sets.law2_problem(module, deals)
    if why is not None:
        raise FormatError(why, path)
    with atomic_output(path, force=force) as out:
        module.write(out, deals, **options)


def write_file_parts(path: str | Path, parts: Iterable[DealSet], fmt: str | None = None, *, force: bool = False,
                     threads: int | None = None, **options: Any) -> None:
    """Write deal sets one after another as one file, atomically, like :func:`write_file` of them all
    joined. A format with ``write_parts`` and no board limit writes each set as it comes, so a file of
    any size takes bounded memory, building its text on `threads` threads (default: one a CPU); the
    others get the sets joined first."""
    module = format_for_path(path, fmt)
    writer = getattr(module, "write_parts", None)
    if writer is None or module.MAX_BOARD is not None:
        write_file(path, DealSet.concat(parts), fmt, force=force, **options)
        return
    with atomic_output(path, force=force) as out:
        writer(out, parts, threads=threads, **options)


def written_notes(path: str | Path, deals: DealSet, target: ModuleType, *, blind: bool) -> list[str]:
    """What a user must know about a file just written: a blind DUP that blanks nothing, and boards a
    format without numbers will give back under other numbers."""
    first = int(deals.boards[0]) if len(deals) else 1
    one_run = len(board_sets.merged(board_sets.spans_of(deals.boards))) <= 1
    return notes_on_written(path, target, first=first, count=len(deals), boards=lambda: _short_range(deals),
                            blind=blind, one_run=one_run)


def notes_on_written(path: str | Path, target: ModuleType, *, first: int, count: int, boards: Callable[[], str],
                     blind: bool, one_run: bool = True) -> list[str]:
    """:func:`written_notes` of a file of `count` boards from board `first`, `boards()` giving their range
    text when a note needs it (for a file written in parts, with no deal set of them all at hand);
    `one_run` says whether the boards are one run (a BHG file of another set carries their positions)."""
    notes = []
    if blind and target.NAME == "dup" and first != 1:
        notes.append(_("{path}: blind DUP blanks board 1's cards only (as Big Deal's does); board 1 is not in this "
                       "run, so every board's cards show").format(path=path))
    if not target.NUMBERED and first != 1 and one_run:
        notes.append(_("{path}: {format} holds no board numbers: boards {boards} read back as 1-{count} unless "
                       "read with --first-board {first}").format(path=path, format=target.NAME.upper(),
                                                                 boards=boards(), count=count, first=first))
    return notes


def _short_range(deals: DealSet) -> str:
    text = format_board_range([int(b) for b in deals.boards])
    return text if len(text) <= 40 else text[:37] + "..."
