"""The platform-faking tier: the command line run in this process as on Windows or macOS.

`on_platform` (parametrised ``win32``, then ``darwin``) sets ``sys.platform``, removes the calls and modules
that system lacks (`POSIX_ONLY`, `LINUX_ONLY`: ``os.fchmod``, ``os.statvfs``, ``fcntl``, ``resource``,
``termios``, ``pty`` ...; on Windows a stand-in ``msvcrt`` whose lock behaves as Windows' does), then imports
dealer, hil and firmware_protocol afresh, so that whatever they reach at import or at run time is what
that system has. What it yields runs ``dealer ARGS`` in-process (`FakedDealer.run`). Afterwards the modules of
this system come back and the simulated machines the commands started are stopped.

Third-party libraries (numpy, pyserial, uvicorn, ...) are imported before the faking, as this system has
them: their own Windows branches are their maintainers' to test; where one would reach for a Windows-only
class at run time (uvicorn's ``asyncio.ProactorEventLoop``) it gets the nearest this system has. This tier
proves that our code reaches no call that the faked system lacks; it does not prove Windows' semantics (the
CI workflow's Windows and macOS jobs run it, and the TCP simulator's tests, on the real systems).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import importlib
import io
import os
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

OURS = ("dealer", "hil", "firmware_protocol")
POSIX_ONLY_OS = ("fchmod", "fchown", "chown", "lchown", "statvfs", "fstatvfs", "ST_RDONLY", "ST_NOSUID",
                 "sched_getaffinity", "sched_setaffinity", "posix_fadvise", "POSIX_FADV_DONTNEED", "O_NOFOLLOW",
                 "getuid", "geteuid", "getgid", "getegid", "openpty", "ttyname", "forkpty", "killpg", "getpgid",
                 "setsid", "sync", "getloadavg", "uname", "mkfifo", "pipe2", "memfd_create")
"""The functions and constants of ``os`` Windows does not have."""
POSIX_ONLY_MODULES = ("fcntl", "termios", "tty", "pty", "resource", "pwd", "grp", "posix", "syslog")
"""The modules Windows does not have."""
LINUX_ONLY_OS = ("sched_getaffinity", "sched_setaffinity", "posix_fadvise", "POSIX_FADV_DONTNEED", "pipe2",
                 "memfd_create")
"""The functions and constants of ``os`` macOS does not have."""
THIRD_PARTY = ("numpy", "serial", "serial.urlhandler.protocol_socket", "cryptography", "platformdirs", "rich",
               "starlette", "starlette.applications", "uvicorn", "uvicorn.server", "uvicorn.config",
               "uvicorn.loops.asyncio", "uvicorn.loops.auto", "uvicorn.protocols.http.h11_impl", "httpx2",
               "sqlite3", "tomllib")
"""Imported before the faking, as this system has them."""


@dataclass
class FakedDealer:
    """The command line of dealer as imported on the faked system."""

    platform: str
    cli: types.ModuleType

    def run(self, *args: str) -> tuple[int, str, str]:
        """``dealer ARGS`` in this process: the exit code, standard output, standard error."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = self.cli.main(list(args))
        return code, out.getvalue(), err.getvalue()

    def module(self, name: str) -> types.ModuleType:
        """One of our modules as imported on the faked system."""
        return importlib.import_module(name)


def _fake_msvcrt() -> types.ModuleType:
    """``msvcrt`` with the lock of Windows' ``msvcrt.locking``: held by one open file, refused (OSError) to any
    other, this process's own included; built on this system's ``flock`` (taken before it is removed)."""
    import fcntl

    flock = fcntl.flock
    module = types.ModuleType("msvcrt")
    module.LK_NBLCK, module.LK_UNLCK, module.LK_LOCK = 2, 0, 1  # type: ignore[attr-defined]

    def locking(fd: int, mode: int, nbytes: int) -> None:
        try:
            flock(fd, fcntl.LOCK_UN if mode == 0 else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OSError(errno.EDEADLK, "Resource deadlock avoided") from None

    module.locking = locking  # type: ignore[attr-defined]
    return module


def _ours() -> dict[str, types.ModuleType]:
    return {name: module for name, module in sys.modules.items() if name.split(".")[0] in OURS}


@pytest.fixture(params=["win32", "darwin"])
def on_platform(request: pytest.FixtureRequest) -> Iterator[FakedDealer]:
    """dealer imported afresh on a faked Windows, then macOS (see the module docstring)."""
    platform: str = request.param
    if sys.platform == "win32" and platform != "win32":
        pytest.skip("a POSIX system cannot be faked on Windows (the CI's macOS job runs this on macOS)")
    for name in THIRD_PARTY:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    saved = _ours()
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from _faked(platform, saved, monkeypatch)


def _faked(platform: str, saved: dict[str, types.ModuleType],
           monkeypatch: pytest.MonkeyPatch) -> Iterator[FakedDealer]:
    if platform == sys.platform:
        pass  # the real system: nothing to fake
    elif platform == "win32":
        monkeypatch.setitem(sys.modules, "msvcrt", _fake_msvcrt())
        for name in POSIX_ONLY_MODULES:
            monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
        for attr in POSIX_ONLY_OS:
            monkeypatch.delattr(os, attr, raising=False)
        monkeypatch.setattr(asyncio, "ProactorEventLoop", asyncio.SelectorEventLoop, raising=False)
    else:
        for attr in LINUX_ONLY_OS:
            monkeypatch.delattr(os, attr, raising=False)
    monkeypatch.setattr(sys, "platform", platform)
    for name in saved:
        del sys.modules[name]
    try:
        yield FakedDealer(platform, importlib.import_module("dealer.cli"))
    finally:
        with contextlib.suppress(Exception):
            sys.modules["dealer.dealing.sim_ports"].stop_all()
        for name in _ours():
            del sys.modules[name]
        sys.modules.update(saved)

