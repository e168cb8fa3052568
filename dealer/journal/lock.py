"""One live controller per journal: an operating-system lock on a side file, held for the life of a run.

`JournalLock.acquire(journal, command)` locks ``<journal>.lock`` (created 0600 beside the journal and
never deleted; a symbolic link there is refused, never followed) and writes who holds it (process id,
host, since when, the command) into it; a second process trying the same journal gets `JournalBusy`
naming that holder. The lock is the operating system's, on an open file (``flock`` on Linux and
macOS, ``msvcrt.locking`` on Windows: `dealer.core.osys.try_lock`): it goes when the holder closes it
or dies, however it dies, so a killed run's lock never blocks its resume.

Why a side file, and not SQLite's own locking: SQLite's exclusive locking mode keeps every other
process out of the journal, a read-only `dealer report` of a live run included, and a busy error from
SQLite cannot say who holds the file. Why not a lock on the journal file itself: SQLite takes POSIX
record locks there, and a process loses every POSIX lock it holds on a file as soon as it closes any
descriptor of that file; on Windows a locked byte cannot be read, not even by SQLite. Why not
`filelock`: it opens the lock file truncated, so a process that fails to get the lock would wipe the
holder's record, and the record is the point; the lock itself is two system calls.

Do not delete a ``.lock`` file while its journal is in use: a process that then creates a new one
gets a lock of its own. Deleting one when no run is live is harmless.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from dealer.core.errors import JournalBusy, JournalError
from dealer.core.links import IsALinkError, open_nofollow
from dealer.core.osys import process_running, try_lock, unlock
from dealer.language import _
from dealer.language.system import os_reason

RECORD_SIZE: Final = 1024
"""Bytes at the start of the lock file that hold the holder's record (JSON, padded with spaces)."""
HOLDER_WAIT: Final = 5.0
"""Seconds a refused process looks for the record of a holder that has the lock but has not written it yet."""
HOLDER_POLL: Final = 0.01


@dataclass(frozen=True)
class Holder:
    """Who holds a journal: the process, its host, since when, and what it runs."""

    pid: int
    host: str
    since: str
    command: str

    def text(self) -> str:
        if self.host == socket.gethostname():
            said = _("{command} (process {pid} on this computer, since {since})")
        else:
            said = _("{command} (process {pid} on host {host}, since {since})")
        return said.format(command=self.command, pid=self.pid, host=self.host, since=self.since)


def lock_path(journal: str | Path) -> Path:
    """The side file that carries a journal's lock."""
    return Path(f"{journal}.lock")


class JournalLock:
    """The lock of one journal, held by this process until `release` (or its death)."""

    def __init__(self, path: Path, fd: int, holder: Holder) -> None:
        self.path = path
        self.holder = holder
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, journal: str | Path, command: str) -> JournalLock:
        """Lock `journal` for this process, or raise `JournalBusy` naming the live holder."""
        path = lock_path(journal)
        folder = Path(journal).parent
        if not folder.is_dir():  # named as the user gave it, before anything is created
            said = (_("{journal}: the journal's folder {folder} is not a folder") if folder.exists()
                    else _("{journal}: the journal's folder {folder} does not exist"))
            raise JournalError(said.format(journal=journal, folder=folder))
        if Path(journal).is_dir():
            raise JournalError(_("{journal}: is a folder, not a journal file").format(journal=journal))
        try:
            fd = open_nofollow(path, os.O_RDWR | os.O_CREAT, 0o600)
        except IsALinkError as exc:
            raise JournalError(str(exc)) from None
        except OSError as exc:
            raise JournalError(_("{path}: cannot open the journal's lock file ({why})").format(
                path=path, why=os_reason(exc))) from exc
        try:
            _lock_or_refuse(journal, fd)
            holder = Holder(os.getpid(), socket.gethostname(), _now(), command)
            _write_record(fd, json.dumps(holder.__dict__, sort_keys=True))
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, holder)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Clear the holder's record and let go of the lock (closing the file releases it)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            _write_record(fd, "")
        with contextlib.suppress(OSError):
            unlock(fd)
        os.close(fd)

    def __enter__(self) -> JournalLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_or_refuse(journal: str | Path, fd: int) -> None:
    """Lock `fd`, or raise `JournalBusy` naming who holds it.

    A holder writes its record just after it takes the lock (or clears it just before letting go), so a
    refused process can find the lock held and the record not yet there; on a loaded computer the holder
    may wait a while for the processor between the two. So the record is looked for again, and the lock
    tried again, for up to `HOLDER_WAIT` seconds before the holder is called "just starting". A record
    naming a process of this computer that is no longer running was left by a holder that was killed (it
    had no chance to clear it): the new holder has not written its own yet, and it is waited for too."""
    deadline = time.monotonic() + HOLDER_WAIT
    while not try_lock(fd):
        holder = _read_holder(fd)
        if holder is not None and holder.host == socket.gethostname() and not process_running(holder.pid):
            holder = None
        if holder is not None or time.monotonic() >= deadline:
            who = holder.text() if holder else _("another process (it is just starting)")
            raise JournalBusy(_(
                "{journal}: in use by {who}. One controller per journal: wait until it ends, or stop that process, "
                "before running another command on this journal (a read-only `dealer report` may run meanwhile)"
            ).format(journal=journal, who=who))
        time.sleep(HOLDER_POLL)


def read_holder(journal: str | Path) -> Holder | None:
    """The holder recorded in a journal's lock file (a live one only if its lock is held), if any."""
    try:
        fd = os.open(lock_path(journal), os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_holder(fd)
    finally:
        os.close(fd)


def _read_holder(fd: int) -> Holder | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, RECORD_SIZE).decode("utf-8", "replace").strip()
        data = json.loads(raw) if raw else None
        if not isinstance(data, dict):
            return None
        return Holder(int(data["pid"]), str(data["host"]), str(data["since"]), str(data["command"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_record(fd: int, text: str) -> None:
    data = text.encode("utf-8")[:RECORD_SIZE].ljust(RECORD_SIZE, b" ")
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)


def _now() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")

