"""Serves a simulated machine on a local TCP port, which any program opens as the pyserial URL
``socket://127.0.0.1:PORT``: the simulated machine without a pseudo-terminal, on Windows, macOS and Linux.

`TcpSimulator(config, port=0).start()` listens on 127.0.0.1 only (port 0: one the system picks; `port` then
says which) and runs the machine of `hil.served` on the connection a host opens. One host at a time, as one
cable: a new connection takes the line from the one before, and a host that closes its port leaves the
machine waiting for the next. `unplug()` closes the connection and stops listening, as a pulled cable does
(the host's reads fail and opening the port is refused); `replug()` listens again on the same port.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from gettext import gettext as _
from typing import Any, Final

from hil.bytefaults import Manipulator
from hil.config import SimConfig
from hil.served import ServedMachine

HOST: Final = "127.0.0.1"
"""The simulated machine listens on this computer only."""


class TcpSimulator(ServedMachine):
    """A simulated machine on a local TCP port (see the module docstring)."""

    def __init__(self, config: SimConfig | None = None, *, port: int = 0,
                 manipulator: Manipulator | None = None) -> None:
        super().__init__(config, manipulator=manipulator)
        self.port = port
        self._listener: socket.socket | None = None
        self._connection: socket.socket | None = None

    @property
    def path(self) -> str:
        """What the host opens: ``socket://127.0.0.1:PORT``."""
        if not self.port:
            raise RuntimeError("the simulator is not running")
        return f"socket://{HOST}:{self.port}"

    @property
    def where(self) -> str:
        return _("TCP port {host}:{port}").format(host=HOST, port=self.port)

    @property
    def plugged(self) -> bool:
        return self._listener is not None

    def _open_line(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            if sys.platform != "win32":  # the same port again at once after an unplug (Windows allows it, and
                # its SO_REUSEADDR would let another program take the port)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((HOST, self.port))
            listener.listen(1)
            listener.setblocking(False)
        except BaseException:
            listener.close()
            raise
        self._listener = listener
        self.port = listener.getsockname()[1]

    def _close_line(self) -> None:
        self._drop_connection()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def _drop_connection(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(OSError):
                self._connection.shutdown(socket.SHUT_RDWR)
            self._connection.close()
            self._connection = None

    def _waitables(self) -> tuple[list[Any], list[Any]]:
        readers: list[Any] = [end for end in (self._listener, self._connection) if end is not None]
        return readers, [self._connection] if self._connection is not None else []

    def _read_line(self, ready: list[Any]) -> bytes:
        if self._listener is not None and self._listener in ready:
            with contextlib.suppress(BlockingIOError, InterruptedError):
                connection, _address = self._listener.accept()
                connection.setblocking(False)
                connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._drop_connection()  # one cable: the newest host has it
                self._connection = connection
                self._pending.clear()  # what was on its way to a host that left is not this host's
        if self._connection is None or self._connection not in ready:
            return b""
        try:
            data = self._connection.recv(4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError:  # reset by the host
            data = b""
        if not data:  # the host closed its port: wait for the next
            self._drop_connection()
        return data

    def _write_line(self, data: bytes) -> int:
        if self._connection is None:
            return len(data)  # no host on the line: the bytes are lost, as on a cable with no one at its end
        try:
            return self._connection.send(data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:  # the host went away meanwhile
            self._drop_connection()
            return 0
