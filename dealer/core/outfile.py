"""Safe output files: a temporary file beside the target, renamed; never half a file, no overwrite without
`force`, no symbolic link (`dealer.core.links`). Files holding deals, seeds or keys ask for `SECRET_MODE`
(0600), the default; files with no secret for `PUBLIC_MODE` (0666); the umask is never loosened.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final

from dealer.core import osys
from dealer.core.errors import DealerError, OutputError, OutputExistsError
from dealer.core.links import is_link, link_text
from dealer.core.osys import process_umask
from dealer.language import _
from dealer.language.system import os_reason

SECRET_MODE = 0o600
"""The mode asked for by a file holding deals, seeds or keys: its owner alone reads it."""
PUBLIC_MODE = 0o666
"""The mode asked for by a file with no secret, before the umask (0644 under umask 022)."""


def file_mode(mode: int) -> int:
    """The mode a file asking for `mode` gets: `mode` less what the umask takes away."""
    return mode & ~process_umask() & 0o777


def check_writable(path: str | Path, *, force: bool = False) -> Path:
    """Fail early, before any work, if `path` exists (without `force`) or its folder is not writable."""
    target = Path(path)
    if is_link(target):
        raise OutputError(link_text(target))
    if target.exists() and not force:
        raise OutputExistsError(_("{path}: exists; use --force to replace it").format(path=target))
    if target.is_dir():
        raise OutputError(_("{path}: is a directory").format(path=target))
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(_("{path}: folder {folder} does not exist").format(path=target, folder=folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(_("{path}: folder {folder} is not writable").format(path=target, folder=folder))
    return target


@contextlib.contextmanager
def atomic_output(path: str | Path, *, force: bool = False, mode: int = SECRET_MODE) -> Iterator[BinaryIO]:
    """Open a temporary file beside `path`; on a clean exit it becomes `path`, on an error it vanishes.

    The file gets `mode` less the umask (`file_mode`) where the system's modes decide who reads a file
    (`dealer.core.osys.MODES_ENFORCED`; on Windows it takes its folder's access list). Without `force`
    the rename refuses to replace an existing file, even one that appeared meanwhile; with it, a symbolic
    link put at `path` meanwhile is refused too, never written through nor replaced.
    Text writers wrap the binary stream (``io.TextIOWrapper``) with the encoding their format wants.
    """
    target = check_writable(path, force=force)
    tmp: Path | None = None
    try:
        with osys.signals_held():  # a signal ends the command only once the file is known here
            try:
                fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
            except OSError as exc:
                raise OutputError(f"{target}: {os_reason(exc)}") from exc
            tmp = Path(tmp_name)
        osys.set_mode(fd, file_mode(mode))
        with io.BufferedWriter(_EarlyWriteback(fd)) as stream:
            yield stream
            stream.flush()
            osys.make_durable(stream.fileno())
        _commit(tmp, target, force)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, DealerError):  # a full disk, a failing write
            raise OutputError(_("{path}: cannot be written: {why}").format(path=target, why=os_reason(exc))) \
                from exc
        raise


_WRITEBACK_EVERY: Final = 8 << 20


class _EarlyWriteback(io.FileIO):
    """A file opened for writing from its start that asks the system to begin writing its data to the
    disk every `_WRITEBACK_EVERY` bytes (`dealer.core.osys.start_writeback`), while the writer
    goes on: the fsync before the rename then waits for the last part alone
    (docs/decisions/2026-12-01-early-writeback.md). Advice only; the data is durable after the fsync."""

    def __init__(self, fd: int) -> None:
        super().__init__(fd, "wb")
        self._written = 0
        self._started = 0  # the data before this offset is on its way to the disk

    def write(self, data: Any) -> int:
        count = super().write(data)
        self._written += count or 0
        if self._written - self._started >= _WRITEBACK_EVERY:
            # dirty pages: their writeback starts now (none is lost); pages already written may leave the
            # page cache, which only means a later read of the file comes from the disk
            osys.start_writeback(self.fileno(), self._started, self._written - self._started)
            self._started = self._written
        return count or 0


def _commit(tmp: Path, target: Path, force: bool) -> None:
    if force and is_link(target):  # a link put there since the check is refused, not replaced
        raise OutputError(link_text(target))
    try:
        if force:
            os.replace(tmp, target)
        else:
            osys.rename_no_replace(tmp, target)
    except FileExistsError as exc:
        if is_link(target):
            raise OutputError(link_text(target)) from exc
        raise OutputExistsError(_("{path}: exists; use --force to replace it").format(path=target)) from exc
    except OSError as exc:
        raise OutputError(f"{target}: {os_reason(exc)}") from exc


def write_bytes(path: str | Path, data: bytes, *, force: bool = False, mode: int = SECRET_MODE) -> None:
    """Write `data` to `path` atomically (see :func:`atomic_output`)."""
    with atomic_output(path, force=force, mode=mode) as out:
        out.write(data)


def write_text(path: str | Path, text: str, *, force: bool = False, mode: int = SECRET_MODE,
               encoding: str = "utf-8") -> None:
    """Write `text` to `path` atomically, encoded with `encoding`, newlines as given."""
    write_bytes(path, text.encode(encoding), force=force, mode=mode)
