"""Ports: the ONLY module that imports pyserial. Everything above sees a `Transport`, never a serial type.

A port is a pyserial URL - ``/dev/ttyUSB0``, ``COM3``, `socket://host:port`, `rfc2217://host:port`,
`spy://PORT?file=trace.txt` for a wire trace, `loop://` (a ``sim://`` port of the built-in simulated
machine is opened by `dealer.dealing.ports`, over its pseudo-terminal). Every pyserial or OS error becomes
`DeviceDisconnected`.

A wire trace holds every deal sent, in clear: its file is created here, not by pyserial, mode 0600 (less
what the umask takes away; an existing trace is made so too), never through a symbolic link, and
handed to pyserial's spy already open (`open_spy`). A spy URL without ``file=`` traces to the screen.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import select
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any, Final, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit

import serial

from dealer.core import osys
from dealer.core.errors import DeviceDisconnected, OutputError, PortInUse
from dealer.core.links import IsALinkError, is_link, link_text, open_nofollow
from dealer.core.outfile import SECRET_MODE, file_mode
from dealer.language import N_, _
from dealer.language.system import os_reason

BAUDRATE: Final = 115200
RFC2217_SCHEME: Final = "rfc2217://"
SPY_SCHEME: Final = "spy://"
REMOTE_READ_SLICE: Final = 0.01
"""Seconds of the fixed read timeout of an RFC 2217 port (reads wait in slices of it)."""
WRITE_TIMEOUT: Final = 5.0
"""Seconds a write may wait for a full port to take data (a machine that stopped reading)."""
READ_SIZE: Final = 4096
"""Bytes taken at most by one read of a local port's file."""


class Transport(Protocol):
    """A byte pipe to a machine."""

    name: str

    def write(self, data: bytes) -> None:
        """Write all of `data`."""
        ...

    def read(self, timeout: float) -> bytes:
        """Whatever arrives within `timeout` seconds (at least one byte, or b'' when none came)."""
        ...

    def close(self) -> None:
        """Release the port (idempotent)."""
        ...


class SerialTransport:
    """A pyserial port (or any object with pyserial's read/write/in_waiting/timeout).

    On an RFC 2217 port (a machine on another host, through a serial server) setting pyserial's read
    timeout sends the port's whole configuration to the server and waits for its answer, so the read
    timeout is set once (`REMOTE_READ_SLICE`) and longer reads wait in slices of it; and pyserial does
    not offer a write timeout there, so none is asked for.

    A local port on a POSIX system (a serial device or a pty: pyserial's own `serial.Serial`, not a URL
    handler that wraps its reads, such as `spy://`) is read and written through its file, waiting
    with `select` as pyserial does inside: setting pyserial's read timeout before each wait would
    reconfigure the port (two `termios` calls) every time the controller waits, and pyserial's write
    waits on `select` after every write, even one the port took whole.
    """

    def __init__(self, port: Any, name: str, *, fixed_timeout: bool = False, trace: IO[str] | None = None) -> None:
        self.name = name
        self._port = port
        self._trace = trace
        self._timeout = port.timeout
        self._fixed_timeout = fixed_timeout
        self._fd = None if fixed_timeout else _local_file(port)
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.reset_input_buffer()

    @classmethod
    def open(cls, url: str, baudrate: int = BAUDRATE, name: str | None = None) -> SerialTransport:
        """Open a pyserial URL (a plain device path is opened exclusively)."""
        plain_device = "://" not in url
        remote = url.lower().startswith(RFC2217_SCHEME)
        settings: dict[str, Any] = {"baudrate": baudrate, "timeout": REMOTE_READ_SLICE if remote else 0.05,
                                    "write_timeout": None if remote else WRITE_TIMEOUT,
                                    "exclusive": True if plain_device else None}
        trace = None
        try:
            if url.lower().startswith(SPY_SCHEME):
                port, trace = open_spy(url, settings)
            else:
                port = _open_waiting_while_busy(url, settings)
        except IsALinkError as exc:
            raise DeviceDisconnected(_("{port}: cannot write the wire trace: {reason}").format(
                port=url, reason=exc)) from None
        except (serial.SerialException, OSError, ValueError, NotImplementedError) as exc:
            if _errno(exc) in (errno.EAGAIN, errno.EBUSY):
                raise PortInUse(_("{port}: the port is in use by another program").format(port=url)) from exc
            why = _reason(exc)
            raise DeviceDisconnected(_("{port}: cannot open the port: {reason}").format(port=url, reason=why)) from exc
        return cls(port, name or url, fixed_timeout=remote, trace=trace)

    @classmethod
    def wrap(cls, port: Any, name: str) -> SerialTransport:
        """A transport over an already open pyserial-like port object."""
        return cls(port, name)

    def write(self, data: bytes) -> None:
        try:
            if self._fd is not None:
                self._write_file(self._fd, data)
            else:
                self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise DeviceDisconnected(_("{port}: write failed ({reason})").format(
                port=self.name, reason=_reason(exc))) from exc

    def read(self, timeout: float) -> bytes:
        timeout = max(0.0, math.ceil(timeout * 1000) / 1000)  # whole ms, never rounded down to "no wait"
        try:
            if self._fd is not None:
                return self._read_file(self._fd, timeout)
            if self._fixed_timeout:
                data = self._read_in_slices(timeout)
            else:
                if timeout != self._timeout:
                    self._port.timeout = self._timeout = timeout
                data = self._port.read(1)
            if data:
                waiting = self._port.in_waiting
                if waiting:
                    data += self._port.read(waiting)
            return bytes(data)
        except (serial.SerialException, OSError, TypeError, AttributeError, ValueError) as exc:
            # pyserial raises TypeError/AttributeError on a port closed under a blocked read
            raise DeviceDisconnected(_("{port}: read failed ({reason})").format(
                port=self.name, reason=_reason(exc))) from exc

    def _read_file(self, fd: int, timeout: float) -> bytes:
        """What the port's file holds within `timeout` seconds, as pyserial's read waits for it: on the
        file and on the port's abort pipe (`cancel_read`)."""
        abort = self._port.pipe_abort_read_r
        ready, _writable, _failed = select.select([fd, abort], [], [], timeout)
        if abort in ready:
            os.read(abort, 1000)
            return b""
        if not ready:
            return b""
        try:
            data = os.read(fd, READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return b""
        if not data:  # ready but empty: the device is gone (as pyserial reports it)
            raise serial.SerialException(_("the device reports data but returned none (disconnected?)"))
        return data

    def _write_file(self, fd: int, data: bytes) -> None:
        """All of `data` into the port's file, waiting while it is full for up to `WRITE_TIMEOUT` in all."""
        rest = memoryview(data)
        deadline: float | None = None
        while rest:
            with contextlib.suppress(BlockingIOError, InterruptedError):  # full, or a signal: wait, again
                rest = rest[os.write(fd, rest):]
            if rest:
                now = time.monotonic()
                deadline = deadline if deadline is not None else now + WRITE_TIMEOUT
                if now >= deadline:
                    raise serial.SerialTimeoutException(_("the port took no data for {seconds:g} s").format(
                        seconds=WRITE_TIMEOUT))
                select.select([], [fd], [], deadline - now)

    def _read_in_slices(self, timeout: float) -> bytes:
        """One byte within `timeout` seconds, never changing the port's own read timeout."""
        deadline = time.monotonic() + timeout
        data = self._port.read(1)
        while not data and time.monotonic() < deadline:
            data = self._port.read(1)
        return bytes(data)

    def interrupt(self) -> None:
        """From another thread: end a read in progress at once (it returns nothing, or fails as the port is
        closed under it where pyserial cannot cancel a read)."""
        cancel = getattr(self._port, "cancel_read", None)
        if cancel is not None and not self._fixed_timeout:
            with contextlib.suppress(serial.SerialException, OSError):
                cancel()
        else:
            self.close()

    def close(self) -> None:
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()
        trace, self._trace = self._trace, None
        if trace is not None:
            with contextlib.suppress(OSError):
                trace.close()


def trace_file(url: str) -> str | None:
    """The wire trace file a port URL names (``spy://PORT?file=TRACE``), None if it names none."""
    if not url.lower().startswith(SPY_SCHEME):
        return None
    files = [value for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True) if key == "file"]
    return files[-1] if files else None


def check_traces(urls: Iterable[str]) -> None:
    """Before a run writes anything: `OutputError` naming a wire trace of `urls` that is a symbolic link
    (it would be refused when its port opens, mid-run)."""
    for url in urls:
        trace = trace_file(url)
        if trace is not None and is_link(trace):
            raise OutputError(_("{port}: cannot write the wire trace: {reason}").format(
                port=url, reason=link_text(trace)))


def open_spy(url: str, settings: dict[str, Any]) -> tuple[Any, IO[str] | None]:
    """pyserial's spy port for `url`, with its trace file (``file=``) opened here: created 0600 (an
    existing one truncated, as pyserial does, and made 0600), never through a link (`IsALinkError`).
    Returns the open port and the trace file (None: the trace goes to the screen)."""
    path = trace_file(url)
    if path is None:
        return serial.serial_for_url(url, **settings), None
    options = parse_qsl(urlsplit(url).query, keep_blank_values=True)
    fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, SECRET_MODE)
    trace = os.fdopen(fd, "w", encoding="utf-8")
    try:
        osys.set_mode(fd, file_mode(SECRET_MODE))
        rest = urlencode([(key, value) for key, value in options if key != "file"])
        plain = url.split("?", 1)[0] + (f"?{rest}" if rest else "")  # urlunsplit would drop the "//"
        port: Any = serial.serial_for_url(plain, do_not_open=True, **settings)
        port.formatter.output = trace  # pyserial's spy writes its trace to its formatter's output
        port.open()
    except BaseException:
        trace.close()
        raise
    return port, trace


def _local_file(port: Any) -> int | None:
    """The file of an open local POSIX port whose reads and writes are pyserial's own, else None."""
    own = type(port).read is serial.Serial.read and type(port).write is serial.Serial.write
    if os.name != "posix" or not own:
        return None
    if getattr(port, "pipe_abort_read_r", None) is None or not getattr(port, "is_open", False):
        return None
    fd: int = port.fileno()
    return fd


@dataclass(frozen=True)
class PortInfo:
    """A serial port present on this computer, as the operating system describes it."""

    device: str  # what to give --port: /dev/ttyUSB0, COM3, ...
    description: str
    maker: str | None  # the USB manufacturer, if the port is a USB device
    serial_number: str | None  # the USB serial number, which tells two identical adapters apart
    usb_id: str | None  # "VID:PID" in hex


def list_ports() -> list[PortInfo]:
    """The serial ports present, in device order (pyserial's port listing)."""
    from serial.tools import list_ports as pyserial_ports

    found = []
    for p in sorted(pyserial_ports.comports(), key=lambda p: _natural(p.device)):
        usb = f"{p.vid:04X}:{p.pid:04X}" if p.vid is not None and p.pid is not None else None
        description = p.description if p.description and p.description != "n/a" else ""
        found.append(PortInfo(p.device, description, p.manufacturer, p.serial_number, usb))
    return found


def _natural(device: str) -> list[str | int]:
    """A port's sort key with its numbers as numbers: COM3 before COM10, /dev/ttyUSB2 before /dev/ttyUSB10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", device)]


_ERRNO_WORDS: Final = {errno.ENOENT: N_("no such port"), errno.ENODEV: N_("no such port"),
                       errno.ENXIO: N_("no such port"),
                       errno.EACCES: N_("permission denied (may this user open serial ports?)"),
                       errno.EPERM: N_("permission denied (may this user open serial ports?)"),
                       errno.EBUSY: N_("the port is in use by another program"),
                       errno.EAGAIN: N_("the port is in use by another program"),
                       errno.EIO: N_("the port stopped working (unplugged?)"),
                       errno.ENOTTY: N_("not a serial port")}


def _errno(exc: BaseException) -> int | None:
    """The errno of a failure to open a port, also where pyserial gives it only in its text ("Could not configure
    port: (25, '...')", "Could not exclusively lock port ...: [Errno 11] ...")."""
    code = getattr(exc, "errno", None)
    if isinstance(code, int) and code:
        return code
    found = re.search(r"\((\d+), '|\[Errno (\d+)\]", str(exc))
    return int(found[1] or found[2]) if found else None


def _reason(exc: BaseException) -> str:
    """Why a port failed, in a few plain words: pyserial repeats the port and the errno in its text."""
    code = _errno(exc)
    if isinstance(code, int) and code:
        return _(_ERRNO_WORDS[code]) if code in _ERRNO_WORDS else os_reason(OSError(code, os.strerror(code)))
    text = re.sub(r"\[Errno -?\d+\]\s*", "", str(exc)).strip()
    return text.splitlines()[0] if text else type(exc).__name__


BUSY_WAIT: Final = 3.0
"""Seconds a port locked by another open (EAGAIN, EBUSY: a program letting go of it, a port being reopened)
is tried again before it is refused."""


def _open_waiting_while_busy(url: str, settings: dict[str, Any]) -> Any:
    """`serial.serial_for_url`, tried again for up to `BUSY_WAIT` seconds while the port is busy."""
    deadline = time.monotonic() + BUSY_WAIT
    while True:
        try:
            return serial.serial_for_url(url, **settings)
        except (serial.SerialException, OSError) as exc:
            if _errno(exc) not in (errno.EAGAIN, errno.EBUSY) or time.monotonic() >= deadline:
                raise
            _pause(0.1)


_pause = time.sleep
"""How the busy wait waits (a test lets the port go there)."""
