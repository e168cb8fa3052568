"""The simulator's mark for a message said later (`N_`), as `dealer.language.N_` marks one for the catalogue:
hil imports nothing of dealer, and says its messages with the standard library's gettext."""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 - gettext's mark for a message said later
    """`message`, marked for the catalogue."""
    return message


def os_reason(exc: BaseException) -> str:
    """Why an `OSError` happened, in the language spoken: `dealer.language.system.os_reason`'s words (the
    same messages of the catalogue; a test keeps the two tables alike), else the system's text."""
    import errno
    import os
    from gettext import gettext

    reasons = {errno.ENOENT: N_("no such file or folder"), errno.EACCES: N_("permission denied"),
               errno.EPERM: N_("operation not permitted"), errno.EISDIR: N_("it is a folder"),
               errno.ENOTDIR: N_("a part of the path is not a folder"), errno.EEXIST: N_("it exists already"),
               errno.ENOSPC: N_("no space left on the disk"), errno.EROFS: N_("the file system is read-only"),
               errno.EBUSY: N_("in use by another program"),
               errno.EMFILE: N_("too many files open in this program"),
               errno.ENFILE: N_("too many files open on this computer"), errno.ENOMEM: N_("not enough memory"),
               errno.EFBIG: N_("the file is too large"), errno.ELOOP: N_("too many symbolic links in the path"),
               errno.ENAMETOOLONG: N_("the name is too long"),
               errno.EAGAIN: N_("temporarily unavailable; try again"),
               errno.EIO: N_("input/output error (the disk or the device failed)"),
               errno.ENXIO: N_("no such device"), errno.ENODEV: N_("no such device"),
               errno.EADDRINUSE: N_("the address is in use by another program"),
               errno.EADDRNOTAVAIL: N_("the address is not one of this computer's"),
               errno.ECONNREFUSED: N_("the connection was refused (nothing listens there)")}
    code, given = getattr(exc, "errno", None), getattr(exc, "strerror", None)
    if code in reasons and (given is None or given == os.strerror(code) or getattr(exc, "winerror", None)):
        return gettext(reasons[code])
    return str(given or exc)
