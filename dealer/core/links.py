"""Never through a symbolic link: a path where an output, a journal or a side file is to be written is
refused if it is a link (`link_text` names it), and new private files are created with ``O_NOFOLLOW``
where the system has it (`dealer.core.osys.NOFOLLOW`)
(`create_private`). Only the last part of a path is checked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from dealer.core.osys import NOFOLLOW
from dealer.language import _

SQLITE_SIDE_FILES: Final = ("-journal", "-wal", "-shm")
"""The files SQLite writes beside a database ``X`` (``X-journal``, ``X-wal``, ``X-shm``), as it needs them."""


def database_files(path: str | Path) -> list[Path]:
    """An SQLite database and every side file SQLite may create or write for it."""
    return [Path(path), *(Path(f"{path}{suffix}") for suffix in SQLITE_SIDE_FILES)]


def is_link(path: str | Path) -> bool:
    """True if `path` itself is a symbolic link (dangling or not)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def first_link(paths: Iterable[str | Path]) -> Path | None:
    """The first of `paths` that is a symbolic link, None if none is."""
    return next((Path(p) for p in paths if is_link(p)), None)


def link_text(path: str | Path) -> str:
    """One line naming a link that is refused, and where it points."""
    with contextlib.suppress(OSError):
        return _("{path}: is a symbolic link (to {target}); dealer does not write through a link: name the file "
                 "itself, or remove the link").format(path=path, target=os.readlink(path))
    return _("{path}: is a symbolic link; dealer does not write through a link: name the file itself, or remove the "
             "link").format(path=path)


def create_private(path: str | Path, mode: int = 0o600) -> bool:
    """Create `path` empty with `mode` unless it exists; True if created. Never follows a link at `path`:
    a link there raises `IsALinkError`."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | NOFOLLOW, mode)
    except FileExistsError:
        if is_link(path):
            raise IsALinkError(path) from None
        return False
    os.close(fd)
    return True


def open_nofollow(path: str | Path, flags: int, mode: int = 0o600) -> int:
    """`os.open` that refuses a symbolic link at `path` (`IsALinkError`) instead of following it."""
    try:
        return os.open(path, flags | NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (isinstance(exc, FileExistsError) and is_link(path)):
            raise IsALinkError(path) from None
        raise


class IsALinkError(OSError):
    """A symbolic link where a file is to be created or written; its text is :func:`link_text`."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(errno.ELOOP, link_text(path))
        self.path = Path(path)

    def __str__(self) -> str:
        return str(self.strerror)
