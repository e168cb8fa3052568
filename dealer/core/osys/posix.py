"""The POSIX part of the operating-system seam (Linux, macOS and the other Unixes): ``fchmod``, ``fsync``
(``F_FULLFSYNC`` on macOS, whose ``fsync`` leaves the data in the drive's cache), ``flock``, ``statvfs``,
the ``RLIMIT_FSIZE`` and ``RLIMIT_NOFILE`` limits, ``sched_getaffinity``. Imported through `dealer.core.osys` alone.
"""

from __future__ import annotations

import sys

assert sys.platform != "win32"  # the type checker skips the rest of this file for Windows

import fcntl  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Final  # noqa: E402

from dealer.core.osys.disk import DiskState  # noqa: E402

MODES_ENFORCED: Final = True
"""A file's mode bits decide who may read it (`set_mode`)."""
NOFOLLOW: Final = os.O_NOFOLLOW
"""The flag that makes ``os.open`` refuse a symbolic link as the last part of its path."""


def set_mode(fd: int, mode: int) -> None:
    """Give the open file `fd` the permission bits `mode` (0600: its owner alone reads and writes it)."""
    os.fchmod(fd, mode)


def make_durable(fd: int) -> None:
    """Return once what was written to `fd` is on the disk, not only in a cache."""
    if sys.platform == "darwin":
        full = getattr(fcntl, "F_FULLFSYNC", None)  # absent in an older Python built for an older macOS
        if full is not None:
            try:
                fcntl.fcntl(fd, full)
                return
            except OSError:  # a file system without it (a network share): fsync is the best there is
                pass
    os.fsync(fd)


def start_writeback(fd: int, offset: int, length: int) -> None:
    """Ask the system to begin writing bytes ``[offset, offset+length)`` of `fd` to the disk now, while the
    writer goes on (advice only, Linux; elsewhere nothing)."""
    if sys.platform == "linux":
        os.posix_fadvise(fd, offset, length, os.POSIX_FADV_DONTNEED)


def rename_no_replace(source: Path, target: Path) -> None:
    """Give the file `source` the name `target` unless `target` exists (`FileExistsError`), in one step:
    a hard link (which refuses an existing name), then the old name goes."""
    os.link(source, target)
    source.unlink()


def try_lock(fd: int) -> bool:
    """Take the exclusive lock of the open file `fd` without waiting; False if another open file holds it.
    The system lets it go when the file is closed or its process dies."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock(fd: int) -> None:
    """Let go of the lock `try_lock` took on `fd`."""
    fcntl.flock(fd, fcntl.LOCK_UN)


def disk_state(folder: str) -> DiskState:
    """Whether the file system holding `folder` is mounted read-only, and the bytes free on it for this user."""
    disk = os.statvfs(folder)
    return DiskState(read_only=bool(disk.f_flag & os.ST_RDONLY), free_bytes=disk.f_bavail * disk.f_frsize)


def file_size_limit() -> int | None:
    """The largest file this process may write (``ulimit -f``), None when unlimited."""
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if limit == resource.RLIM_INFINITY else limit


def open_files_limit() -> int | None:
    """The files (sockets included) this process may hold open, its soft limit first raised to the hard one
    where the system allows; None when unlimited."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard and soft != resource.RLIM_INFINITY:
        for wanted in (hard, 1 << 20):  # (macOS refuses an unlimited soft limit: a large one instead)
            if wanted == resource.RLIM_INFINITY or soft < wanted:
                try:
                    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                except (OSError, ValueError):
                    continue
                break
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system keeps one: Linux)."""
    if sys.platform == "linux":
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def process_running(pid: int) -> bool:
    """A process `pid` runs on this computer (a zombie counts: it is not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def user_key() -> str:
    """This user, as a name part of a per-user file in a shared folder: the user id."""
    return str(os.getuid())


def owned_by_user(info: os.stat_result) -> bool:
    """A file (its `os.lstat`) belongs to this user."""
    return info.st_uid == os.getuid()
