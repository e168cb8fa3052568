"""Deal-file formats: one module per format, each a streaming reader and a writer; this is the registry.

A format module defines::

    NAME: str                      # short name, used by --format
    EXTENSIONS: tuple[str, ...]    # lower-case, without the dot; the first is the usual one
    MAX_BOARD: int | None          # highest board number the format can hold (DUP, DLM: 99)
    def read(stream: BinaryIO, path: str) -> Iterator[DealSet]      # chunks in file order
    def write(stream: BinaryIO, deals: DealSet, **options) -> None

and may define, to write a file of any size in bounded memory and on every core::

    def write_parts(stream: BinaryIO, parts: Iterable[DealSet], *, threads: int | None, **options) -> None

Readers check every checksum and invariant they can and raise `FormatError` naming the file and the
line, byte offset or board; they never raise anything else, whatever the bytes. Writers are only
called through :func:`write_file` or :func:`write_file_parts`, which check the board limit first and
write atomically.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, UsageError
from dealer.core.outfile import atomic_output, check_writable

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


def iter_file(path: str | Path, fmt: str | None = None) -> Iterator[DealSet]:
    """Stream a deal file as chunks of boards, in file order."""
    module = format_for_path(path, fmt)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, generator-owned
    except OSError as exc:
        raise FormatError(f"cannot open: {exc.strerror}", path) from exc
    with stream:
        yield from module.read(stream, str(path))


def read_file(path: str | Path, fmt: str | None = None) -> DealSet:
    """Read a whole deal file; raises `FormatError` if it holds no boards."""
    deals = DealSet.concat(iter_file(path, fmt))
    if not len(deals):
        raise FormatError("holds no boards", path)
    return deals


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
