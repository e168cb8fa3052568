"""What a journal (or the deal history) that cannot be written or read means, in plain words: the cause an
operator can act on.

SQLite says "database or disk is full", "attempt to write a readonly database" or, for most failures of
the operating system, only "disk I/O error". `journal_failure` turns any such error (or an `OSError` met
while opening the journal's files) into a `JournalError` naming the journal and the cause: "disk full",
"read-only", "permission denied", "file too large" (the limit on a file's size, ``ulimit -f``), or an
input/output error. A bare I/O error is explained by looking at the journal's folder and files: the
file-size limit of this process, a read-only file system, a full one, a file or folder that cannot be
written. A damaged file is not a failure to write: `is_damage` tells it apart (the journal says so
differently, for that one cannot be resumed until it is repaired).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from typing import Final

from dealer.core import osys
from dealer.core.errors import JournalError, SystemRefused
from dealer.language import N_, _
from dealer.language.system import REASONS, os_reason

_FULL: Final = N_("disk full (free some space on its disk)")
_READ_ONLY: Final = N_("read-only (the file or its folder cannot be written)")
_READ_ONLY_FS: Final = N_("read-only (its disk is mounted read-only)")
_PERMISSION: Final = N_("permission denied (the file or its folder)")
_IO: Final = N_("an input/output error (the disk or its connection may be failing)")
_MARGIN: Final = 1 << 20
"""A journal file within this many bytes of the file-size limit is taken to have reached it (a write
that failed added a page or a few hundred pages to the -wal, at most `journal.MAX_WAL_BYTES`)."""

# SQLite's primary result codes (https://sqlite.org/rescode.html)
_SQLITE_PERM: Final = 3
_SQLITE_NOMEM: Final = 7
_SQLITE_READONLY: Final = 8
_SQLITE_IOERR: Final = 10
_SQLITE_CORRUPT: Final = 11
_SQLITE_FULL: Final = 13
_SQLITE_CANTOPEN: Final = 14
_SQLITE_NOTADB: Final = 26
_SQLITE_AUTH: Final = 23

_BY_ERRNO: Final = {errno.ENOSPC: _FULL, errno.EDQUOT: N_("disk full (the user's disk quota is used up)"),
                    errno.EROFS: _READ_ONLY_FS, errno.EACCES: _PERMISSION, errno.EPERM: _PERMISSION,
                    errno.EIO: _IO}
CANNOT: Final = {"opened": N_("{path}: the journal cannot be opened: {cause}"),
                 "read": N_("{path}: the journal cannot be read: {cause}"),
                 "written": N_("{path}: the journal cannot be written: {cause}"),
                 "closed": N_("{path}: the journal cannot be closed: {cause}")}
"""What a journal that cannot be opened, read, written or closed says, whichever store it is in."""


REFUSALS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EACCES, errno.EPERM, errno.EAGAIN})
"""The errno values of a system that would not let the journal be looked at (no file descriptor, no memory, no
permission): never evidence that the file changed."""
_SHORTAGES: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN})


def journal_failure(path: str, exc: BaseException, action: str) -> JournalError:
    """The `JournalError` for `exc`, met while the journal at `path` was being `action` ("written",
    "read", "opened"): ``PATH: the journal cannot be ACTION: CAUSE``. A system out of descriptors or memory is
    `SystemRefused` (exit 11): the file is as it was, and the run resumes once the system allows it."""
    shortage = shortage_of(exc)
    if shortage is not None:
        return refused(path, shortage)
    return JournalError(_(CANNOT[action]).format(path=path, cause=plain_cause(path, exc)))


def refused(path: str, exc: BaseException) -> SystemRefused:
    """The `SystemRefused` of a journal the system would not let this run look at or write (`exc`: the
    system's error): ``PATH: the system refused ... (REASON); the journal is intact``."""
    reason = os_reason(exc) if not isinstance(exc, MemoryError) else _(REASONS[errno.ENOMEM])
    return SystemRefused(_("{path}: the system refused what the run needs to look at its record ({reason}); nothing "
                           "shows the record changed: it is intact").format(path=path, reason=reason))


def history_failure(path: str, exc: BaseException, template: str) -> JournalError:
    """The error of the deal history at `path` that `exc` stopped: `SystemRefused` for a shortage of the system,
    else `template` (``{path}``, ``{cause}``) with the plain cause."""
    shortage = shortage_of(exc)
    if shortage is not None:
        return refused(path, shortage)
    return JournalError(_(template).format(path=path, cause=plain_cause(path, exc)))


def shortage_of(exc: BaseException) -> BaseException | None:
    """The system's error behind `exc` when it is a shortage (no file descriptor, no memory), else None. SQLite
    says only "unable to open database file" or "disk I/O error" for a descriptor it could not get: this
    process is then asked for one itself."""
    if isinstance(exc, MemoryError):
        return exc
    if isinstance(exc, OSError):
        return exc if exc.errno in _SHORTAGES else None
    code = _primary(exc)
    if code == _SQLITE_NOMEM:
        return MemoryError()
    if code in (_SQLITE_CANTOPEN, _SQLITE_IOERR):
        return descriptors_short()
    return None


def descriptors_short() -> OSError | None:
    """The system's error if this process cannot get one more file descriptor now, else None."""
    try:
        os.close(os.dup(2))
    except OSError as exc:
        return exc if exc.errno in _SHORTAGES else None
    return None


def is_damage(exc: BaseException) -> bool:
    """True for an error that says the file itself is damaged or not a journal (not that it cannot be
    written or read now)."""
    code = _primary(exc)
    return code in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or (
        code is None and isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError))


def plain_cause(path: str, exc: BaseException) -> str:
    """The cause of `exc`, met on the SQLite file at `path`, in words an operator can act on."""
    if isinstance(exc, OSError):
        if exc.errno == errno.EFBIG:
            return _too_large(path) or _("file too large (the limit on a file's size: ulimit -f)")
        known = _BY_ERRNO.get(exc.errno or 0)
        return _(known) if known else _disk(path) or _access(path) or os_reason(exc)
    code = _primary(exc)
    if code == _SQLITE_FULL:
        return _(_FULL)
    if code == _SQLITE_READONLY:
        return _disk(path) or _(_READ_ONLY)
    if code in (_SQLITE_PERM, _SQLITE_AUTH):
        return _(_PERMISSION)
    if code in (_SQLITE_IOERR, _SQLITE_CANTOPEN):
        if os.path.isdir(path):
            return os_reason(IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))
        return _disk(path) or _access(path) or (_(_IO) if code == _SQLITE_IOERR else _("the file cannot be opened"))
    return str(exc)


def _primary(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _disk(path: str) -> str | None:
    """What stops every write to the journal's files, if anything: this process's limit on a file's size,
    a read-only or a full file system."""
    too_large = _too_large(path)
    if too_large:
        return too_large
    try:
        disk = osys.disk_state(os.path.dirname(os.path.abspath(path)))
    except OSError:  # no folder
        return None
    if disk.read_only:
        return _(_READ_ONLY_FS)
    return _(_FULL) if disk.free_bytes == 0 else None


def _access(path: str) -> str | None:
    """"permission denied" if the journal's files or folder may not be written by this process."""
    folder = os.path.dirname(os.path.abspath(path))
    existing = [f for f in (path, f"{path}-wal") if os.path.exists(f)]
    if any(not os.access(f, os.W_OK) for f in existing) or not os.access(folder, os.W_OK | os.X_OK):
        return _(_PERMISSION)
    return None


def _too_large(path: str) -> str | None:
    """"file too large" when this process may not write files as large as the journal's are becoming."""
    limit = osys.file_size_limit()
    if limit is None:
        return None
    sizes = [os.path.getsize(f) for f in (path, f"{path}-wal") if os.path.exists(f)]
    if sizes and max(sizes) + _MARGIN >= limit:
        return _("file too large (this process may not write files over {limit} bytes: ulimit -f)").format(
            limit=limit)
    return None
