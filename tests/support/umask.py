"""The umask of the test process, read the plain way (set and put back), for tests of file modes."""

from __future__ import annotations

import os


def current_umask() -> int:
    """The process's umask now."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def public_mode() -> int:
    """The mode a file with no secret gets here: read and write for all, less the umask."""
    return 0o666 & ~current_umask()
