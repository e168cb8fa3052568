"""Serves a simulated machine on a pseudo-terminal, so a host opens it with pyserial like a USB port
(Linux and macOS: Windows has no pseudo-terminal a serial port library opens; `hil.tcp_sim` serves the same
machine there).

`PtySimulator(config).start()` opens a pty pair, puts the slave side in raw mode at once (a fresh pty
is in cooked mode: it would echo, turn 0x03 into an interrupt and rewrite newlines), keeps its own
slave fd open for its whole life (when the last slave fd closes, the master reads EIO), and runs the
machine of `hil.served` on the master side.

`start()` returns the path to give the host: the stable symlink `link` if one was asked for (it is
kept pointing at the current pty, as socat's ``link=`` does), else the ``/dev/pts/N`` name. Where the
system has ``/proc/PID/fd``, the symlink points at this process's own descriptor of the pty
(`link_target`), not at ``/dev/pts/N``: a simulator killed by SIGKILL cannot remove its link, and the
kernel gives its pty number to the next pty opened, so a link to ``/dev/pts/N`` would reach another
machine; a link to the dead process's descriptor reaches nothing.
`unplug()` closes the master, as a pulled USB adapter does: the host's reads and writes fail, the symlink
goes away and `path` has no pty to give until `replug()` opens a new one (and points the symlink at it).
"""

from __future__ import annotations

import contextlib
import os
import sys
from gettext import gettext as _
from pathlib import Path
from typing import Any

from hil.bytefaults import Manipulator
from hil.config import SimConfig
from hil.served import ServedMachine


def link_target(slave: int, pts_path: str) -> str:
    """What the stable symlink points at: this process's descriptor `slave` of the pty (it dies with the
    process), where ``/proc/PID/fd`` exists; else the pty's own name `pts_path`."""
    own = f"/proc/{os.getpid()}/fd"
    return f"{own}/{slave}" if os.path.isdir(own) else pts_path


class PtySimulator(ServedMachine):
    """A simulated machine on a pseudo-terminal (see the module docstring)."""

    def __init__(self, config: SimConfig | None = None, *, link: str | Path | None = None,
                 manipulator: Manipulator | None = None) -> None:
        super().__init__(config, manipulator=manipulator)
        link = link if link is not None else self.config.link
        self.link = Path(link) if link is not None else None
        self.pts_path: str | None = None
        self._master: int | None = None
        self._slave: int | None = None

    @property
    def path(self) -> str:
        """What the host opens: the symlink if there is one, else the current pty."""
        if self.link is not None:
            return str(self.link)
        if self.pts_path is None:
            raise RuntimeError("the simulator is not running")
        return self.pts_path

    @property
    def where(self) -> str:
        if self.link is None:
            return str(self.pts_path)
        return _("{port} (link {link})").format(port=self.pts_path, link=self.link)

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def _open_line(self) -> None:
        if sys.platform == "win32":
            raise OSError(_("Windows has no pseudo-terminal: serve the simulated machine on TCP (dealer sim --tcp)"))
        else:
            import fcntl
            import tty

            master, slave = os.openpty()
            tty.setraw(slave)
            fcntl.fcntl(master, fcntl.F_SETFL, fcntl.fcntl(master, fcntl.F_GETFL) | os.O_NONBLOCK)
            self._master, self._slave = master, slave
            self.pts_path = pts_path = os.ttyname(slave)
            if self.link is not None:
                temp = self.link.with_name(self.link.name + ".new")
                with contextlib.suppress(FileNotFoundError):
                    temp.unlink()
                temp.symlink_to(link_target(slave, pts_path))
                os.replace(temp, self.link)

    def _close_line(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.pts_path = None  # the kernel gives the number to the next pty opened: never hand it out again
        if self.link is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()

    def _waitables(self) -> tuple[list[Any], list[Any]]:
        ends = [self._master] if self._master is not None else []
        return ends, ends

    def _read_line(self, ready: list[Any]) -> bytes:
        if self._master is None or self._master not in ready:
            return b""
        with contextlib.suppress(BlockingIOError, InterruptedError):
            return os.read(self._master, 4096)
        return b""

    def _write_line(self, data: bytes) -> int:
        assert self._master is not None
        with contextlib.suppress(BlockingIOError, InterruptedError):
            return os.write(self._master, data)
        return 0
