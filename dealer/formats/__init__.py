"""Deal-file formats, one module per format, and their registry: `read_file` and `write_file` are the one
way commands read and write a deal file (atomically, the board limit checked first).

A format module defines ``NAME``, ``EXTENSIONS`` (the first the usual one), ``MAX_BOARD``, ``NUMBERED``,
``COUNTED``, ``read(stream, path, options, report) -> Iterator[DealSet]`` and ``write(stream, deals)``,
and may define ``write_parts`` (any size, bounded memory). Readers raise only `FormatError`, naming the
file and the line, byte offset or board.

May import: `dealer.core`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from dealer.core.boards import format_board_range
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, UsageError
from dealer.core.outfile import atomic_output, check_writable
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from dealer.formats.repeats import one_board_per_number

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
        raise UsageError(f"unknown format {name!r}; choose from {', '.join(_MODULES)}") from None


def format_for_path(path: str | Path, override: str | None = None) -> ModuleType:
    """The format of a file: `override` if given, else the one whose extension the file has."""
    if override:
        return get_format(override)
    ext = Path(path).suffix.lower().lstrip(".")
    for name in _MODULES:
        module = get_format(name)
        if ext in module.EXTENSIONS:
            return module
    raise UsageError(f"{path}: cannot tell the format from extension {ext!r}; use --format")


def iter_file(path: str | Path, fmt: str | None = None, options: ReadOptions = DEFAULT_OPTIONS,
              report: ReadReport | None = None) -> Iterator[DealSet]:
    """Stream a deal file as chunks of boards, in file order (repeated numbers not resolved)."""
    module = format_for_path(path, fmt)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, generator-owned
    except OSError as exc:
        raise FormatError(f"cannot open: {exc.strerror}", path) from exc
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
        raise FormatError("holds no boards", path, offset=_size(path))

    def places() -> list[str] | None:  # read again, noting where each board is: only to name an error
        tracked = ReadReport.tracking()
        for _ in iter_file(path, module.NAME, options, tracked):
            pass
        return tracked.places

    deals, notes = one_board_per_number(deals, str(path), game=options.game, places=places)
    report.notes.extend(notes)
    report.notes.extend(_skipped_notes(str(path), report))
    if not module.NUMBERED or not module.COUNTED:
        report.notes.append(_count_note(str(path), module, deals, options))
    return deals


def _size(path: str | Path) -> int | None:
    try:
        return Path(path).stat().st_size
    except OSError:
        return None


def _skipped_notes(path: str, report: ReadReport) -> list[str]:
    notes = []
    if report.partial:
        boards = [str(s.board) if s.board is not None else s.place for s in report.partial]
        notes.append(f"{path}: skipped {len(boards)} board{'s' if len(boards) > 1 else ''} with a partial deal: "
                     f"{_listed(boards)}")
    if report.results_only:
        places = [s.place for s in report.results_only]
        notes.append(f"{path}: skipped {len(places)} game{'s' if len(places) > 1 else ''} without a deal "
                     f"(at {_listed(places)})")
    return notes


def _listed(items: list[str], most: int = 12) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _count_note(path: str, module: ModuleType, deals: DealSet, options: ReadOptions) -> str:
    """For a format that holds no board numbers or no count: how many boards were read, and as which."""
    text = f"{path}: {len(deals)} board{'s' if len(deals) != 1 else ''} read ({_short_range(deals)})"
    name = module.NAME.upper()
    if not module.NUMBERED and options.first_board is None:
        text += f"; {name} holds no board numbers: numbered from {int(deals.boards[0])} (--first-board N to " \
                "start at N)"
    if not module.COUNTED:
        text += f"; {name} does not record how many boards a file holds: check that none is missing"
    return text


def write_file(path: str | Path, deals: DealSet, fmt: str | None = None, *, force: bool = False,
               **options: Any) -> None:
    """Write `deals` to `path` in its format, atomically; nothing is written if the format cannot hold them."""
    module = format_for_path(path, fmt)
    check_writable(path, force=force)
    limit = module.MAX_BOARD
    if limit is not None and len(deals) and int(deals.boards.max()) > limit:
        raise FormatError(f"{module.NAME.upper()} holds boards 1-{limit} only; "
                          f"this run reaches board {int(deals.boards.max())}", path)
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
    return notes_on_written(path, target, first=first, count=len(deals), boards=lambda: _short_range(deals),
                            blind=blind)


def notes_on_written(path: str | Path, target: ModuleType, *, first: int, count: int, boards: Callable[[], str],
                     blind: bool) -> list[str]:
    """:func:`written_notes` of a file of `count` boards from board `first`, `boards()` giving their range
    text when a note needs it (for a file written in parts, with no deal set of them all at hand)."""
    notes = []
    if blind and target.NAME == "dup" and first != 1:
        notes.append(f"{path}: blind DUP blanks board 1's cards only (as Big Deal's does); board 1 is not in "
                     "this run, so every board's cards show")
    if not target.NUMBERED and first != 1:
        notes.append(f"{path}: {target.NAME.upper()} holds no board numbers: boards "
                     f"{boards()} read back as 1-{count} unless read with --first-board {first}")
    return notes


def _short_range(deals: DealSet) -> str:
    text = format_board_range([int(b) for b in deals.boards])
    return text if len(text) <= 40 else text[:37] + "..."
