"""A serial server for tests: a serial port (here a simulated machine's pty) served over RFC 2217 on
loopback, as a machine on another host is served by a serial device server or `ser2net`.

Built on pyserial's `serial.rfc2217.PortManager`, which speaks the telnet side (option negotiation,
baud rate and control requests, escaping); this module only moves the bytes: socket -> manager ->
serial port, serial port -> manager -> socket. One client at a time; when a client goes (a controller
killed, or reconnecting), the serial port is closed and the next client is served.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any, cast

import serial
import serial.rfc2217


class Rfc2217Bridge:
    """Serves the serial port at `serial_path` on ``rfc2217://localhost:PORT`` (`url`)."""

    def __init__(self, serial_path: str) -> None:
        self.serial_path = serial_path
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        self.port: int = self._server.getsockname()[1]
        self.url = f"rfc2217://localhost:{self.port}"
        self.clients = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="rfc2217-bridge", daemon=True)
        self.error: BaseException | None = None

    def __enter__(self) -> Rfc2217Bridge:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> str:
        self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving, close the client's connection and the serial port; raise the thread's error."""
        self._stop.set()
        self._thread.join(10)
        self._server.close()
        if self._thread.is_alive():
            raise RuntimeError("the RFC 2217 bridge did not stop")
        if self.error is not None:
            raise self.error

    def _serve(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    client, _ = self._server.accept()
                except TimeoutError:
                    continue
                self.clients += 1
                with client:
                    self._bridge(client)
        except BaseException as exc:  # kept for stop() to raise in the test's thread
            self.error = exc

    def _bridge(self, client: socket.socket) -> None:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.settimeout(0.05)
        port = serial.serial_for_url(self.serial_path, baudrate=115200, timeout=0.02)
        link = _Connection(client)
        # PortManager uses only the attributes the two stand-ins have (duck typing, as pyserial does)
        manager = serial.rfc2217.PortManager(cast(serial.rfc2217.Serial, _NoModemLines(port)),
                                               cast(serial.rfc2217.Serial, link))
        reader = threading.Thread(target=self._to_client, args=(port, manager, link), name="rfc2217-bridge-reader",
                                  daemon=True)
        reader.start()
        try:
            while not self._stop.is_set() and link.alive:
                try:
                    data = client.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:
                    break
                port.write(b"".join(manager.filter(data)))
        finally:
            link.alive = False
            reader.join(5)
            port.close()

    def _to_client(self, port: Any, manager: Any, link: _Connection) -> None:
        while link.alive and not self._stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError):
                break
            if data:
                link.write(b"".join(manager.escape(data)))


class _Connection:
    """The socket as PortManager writes to it (its negotiation answers and the escaped data)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.alive = True
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock, contextlib.suppress(OSError):
            self.sock.sendall(data)


class _NoModemLines:
    """A pseudo-terminal has no modem lines (their ioctls fail): they read as a cable with the lines tied
    ready (CTS, DSR, CD on), and requests to set RTS, DTR or a break are ignored."""

    cts = dsr = cd = True
    ri = False

    def __init__(self, port: Any) -> None:
        object.__setattr__(self, "_port", port)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in ("rts", "dtr", "break_condition"):
            setattr(self._port, name, value)
