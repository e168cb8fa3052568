"""The system's reasons for a failed file or device operation (an `OSError`), in the language spoken: the
common errno values in the catalogue's words, any other in the system's own text.

May import: the standard library and `dealer.language`.
"""

from __future__ import annotations

import errno
import os
import re
from typing import Final

from dealer.language import N_, _

REASONS: Final = {
    errno.ENOENT: N_("no such file or folder"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("operation not permitted"),
    errno.EISDIR: N_("it is a folder"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
    errno.EEXIST: N_("it exists already"),
    errno.ENOSPC: N_("no space left on the disk"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EBUSY: N_("in use by another program"),
    errno.EMFILE: N_("too many files open in this program"),
    errno.ENFILE: N_("too many files open on this computer"),
    errno.ENOMEM: N_("not enough memory"),
    errno.EFBIG: N_("the file is too large"),
    errno.ELOOP: N_("too many symbolic links in the path"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.EAGAIN: N_("temporarily unavailable; try again"),
    errno.EIO: N_("input/output error (the disk or the device failed)"),
    errno.ENXIO: N_("no such device"),
    errno.ENODEV: N_("no such device"),
    errno.EADDRINUSE: N_("the address is in use by another program"),
    errno.EADDRNOTAVAIL: N_("the address is not one of this computer's"),
    errno.ECONNREFUSED: N_("the connection was refused (nothing listens there)"),
}
"""Words for the errno values a person meets most, said through the catalogue."""


def os_reason(exc: BaseException) -> str:
    """Why `exc` (an `OSError`, or an error with an errno) happened, in the language spoken: the words of
    `REASONS`, else the system's text (``strerror``). A text of the program's own (not the system's words for
    the errno) is kept as it is."""
    code = getattr(exc, "errno", None)
    given = getattr(exc, "strerror", None)
    if isinstance(code, int) and code in REASONS and (given is None or _is_systems(exc, code, given)):
        return _(REASONS[code])
    if given:
        return str(given)
    text = re.sub(r"\[Errno -?\d+\]\s*", "", str(exc)).strip()
    return text or type(exc).__name__


def os_error_text(exc: OSError) -> str:
    """An `OSError` in one line of the language spoken: ``FILE: reason`` (``FILE -> OTHER: reason`` for a
    rename), or the reason alone where it names no file."""
    reason = os_reason(exc)
    if exc.filename is None:
        return reason
    if exc.filename2 is not None:
        return f"{exc.filename} -> {exc.filename2}: {reason}"
    return f"{exc.filename}: {reason}"


def _is_systems(exc: BaseException, code: int, text: str) -> bool:
    """True when `text` is the system's own words for `code` (Windows' for its error too), not a text the
    program gave its error."""
    return text == os.strerror(code) or getattr(exc, "winerror", None) is not None
