"""The one seam between dealer and the operating system, as pyserial keeps ``serialposix``/``serialwin32``:
file modes of files at rest, durable writes, renames that never replace, file locks, the disk's state and
this process's file-size limit (to explain a failed write), its open-files limit, and the CPUs this process
may use. The part for this system (`dealer.core.osys.posix` or the Windows one) is chosen once, by
``sys.platform``; nothing outside this package calls a POSIX-only or Windows-only function
(tests/test_platform_seam.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Final

from dealer.core.osys.disk import DiskState


def process_umask() -> int:
    """The umask of this process. Read from ``/proc/self/status`` where the system gives it there
    (Linux), which changes nothing; elsewhere set to 077 and put back at once (the umask has no reader;
    a file another thread creates in that instant is only made stricter)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """While in the block, the signals that stop a command (SIGINT, SIGTERM, SIGHUP) wait, where the system
    can hold them (POSIX, in the main thread): a file made in the block is known by name before a signal can
    end the command. Elsewhere the block runs as it is."""
    if sys.platform == "win32" or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


if sys.platform == "win32":
    from dealer.core.osys.windows import (
        MODES_ENFORCED,
        NOFOLLOW,
        disk_state,
        file_size_limit,
        make_durable,
        open_files_limit,
        owned_by_user,
        process_running,
        rename_no_replace,
        set_mode,
        start_writeback,
        try_lock,
        unlock,
        usable_cpus,
        user_key,
    )
else:
    from dealer.core.osys.posix import (
        MODES_ENFORCED,
        NOFOLLOW,
        disk_state,
        file_size_limit,
        make_durable,
        open_files_limit,
        owned_by_user,
        process_running,
        rename_no_replace,
        set_mode,
        start_writeback,
        try_lock,
        unlock,
        usable_cpus,
        user_key,
    )

SYSTEM: Final = "windows" if sys.platform == "win32" else "posix"
"""Which part of the seam this process runs on."""

__all__ = ["MODES_ENFORCED", "NOFOLLOW", "SYSTEM", "DiskState", "disk_state", "file_size_limit", "make_durable",
           "open_files_limit", "owned_by_user", "process_running", "process_umask", "rename_no_replace", "set_mode",
           "signals_held", "start_writeback", "try_lock", "unlock", "usable_cpus", "user_key"]
