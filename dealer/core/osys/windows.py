"""The Windows part of the operating-system seam: ``msvcrt.locking``, ``MoveFileEx`` without replacing (what
``os.rename`` is there), the free space of a volume (``shutil.disk_usage``). Imported through
`dealer.core.osys` alone.

What Windows does not give through these calls is said, not pretended: a file's mode bits do not decide who
reads it (its folder's access list does, and a user's own folders are the user's alone by default), a
file system's read-only flag and a limit on a file's size are not told.
"""

from __future__ import annotations

import sys

assert sys.platform == "win32"  # the type checker skips the rest of this file for other systems

import msvcrt  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Final  # noqa: E402

from dealer.core.osys.disk import DiskState  # noqa: E402

MODES_ENFORCED: Final = False
"""A file's mode bits do not decide who reads it: it takes the access list of its folder."""
NOFOLLOW: Final = 0
"""Windows has no such flag; a symbolic link there needs rights to make, and is checked for before writing."""
_LOCK_OFFSET: Final = 1 << 20
"""The locked byte lies past the lock file's record, so that others can still read who holds it (a locked
byte cannot be read on Windows)."""


def set_mode(fd: int, mode: int) -> None:
    """Nothing: the file keeps the access list it inherited from its folder (see the module docstring)."""


def make_durable(fd: int) -> None:
    """Return once what was written to `fd` is on the disk (``_commit``, ``FlushFileBuffers``)."""
    os.fsync(fd)


def start_writeback(fd: int, offset: int, length: int) -> None:
    """Nothing: Windows has no such advice."""


def rename_no_replace(source: Path, target: Path) -> None:
    """Give the file `source` the name `target` unless `target` exists (`FileExistsError`): Windows' rename
    never replaces a file (and works where hard links do not: FAT and exFAT memory sticks)."""
    os.rename(source, target)


def try_lock(fd: int) -> bool:
    """Take the exclusive lock of the open file `fd` without waiting (one byte past its record); False if
    another open file holds it. The system lets it go when the file is closed or its process dies."""
    os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def unlock(fd: int) -> None:
    """Let go of the lock `try_lock` took on `fd`."""
    os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def disk_state(folder: str) -> DiskState:
    """The bytes free on the volume holding `folder`; whether it is read-only is not told."""
    return DiskState(read_only=None, free_bytes=shutil.disk_usage(folder).free)


def file_size_limit() -> int | None:
    """None: Windows sets no limit on the size of a file a process writes."""
    return None


def open_files_limit() -> int | None:
    """None: Windows counts a process's sockets apart from its files, and sets no limit on them."""
    return None


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    if sys.version_info >= (3, 13):
        return os.process_cpu_count() or 1
    return os.cpu_count() or 1


def process_running(pid: int) -> bool:
    """Whether a process `pid` runs: without a process handle there is no cheap check, so a process named
    in a record is taken to run."""
    return True


def user_key() -> str:
    """This user, as a name part of a per-user file in a shared folder: the account name."""
    return os.environ.get("USERNAME", "user")


def owned_by_user(info: os.stat_result) -> bool:
    """A file belongs to this user: the temporary folder is the user's own on Windows, so every file in it is."""
    return True
