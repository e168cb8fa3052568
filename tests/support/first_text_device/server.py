"""Serves the machine on a pseudo-terminal: one select loop, the pty, a control FIFO, signals."""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import time
import tty
from collections.abc import Callable
from pathlib import Path

from .ledger import Ledger
from .machine import Clock, Machine, Options

OUT_LIMIT = 16384  # bytes waiting for a reader; beyond it the line loses frames


class PtyLine:
    """The device's end of a pty; the other end's path is what a host opens."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no newline translation before a host opens it
        self.path = os.ttyname(self._slave)
        os.set_blocking(self.master, False)
        self.out = bytearray()

    def write(self, frame: bytes) -> None:
        if len(self.out) + len(frame) <= OUT_LIMIT:
            self.out += frame

    def flush(self) -> None:
        while self.out:
            try:
                n = os.write(self.master, self.out)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EIO):
                    return
                raise
            del self.out[:n]

    def read(self) -> bytes:
        try:
            return os.read(self.master, 4096)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EIO):
                return b""
            raise

    def close(self) -> None:
        os.close(self.master)
        os.close(self._slave)


class Control:
    """A FIFO of text commands: power, hang, insert KEY [TURNS], remove, door."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path, 0o600)
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self._buf = b""

    def lines(self) -> list[str]:
        with contextlib.suppress(BlockingIOError):
            self._buf += os.read(self.fd, 4096)
        *done, self._buf = self._buf.split(b"\n")
        return [line.decode().strip() for line in done if line.strip()]

    def close(self) -> None:
        os.close(self.fd)
        self.path.unlink(missing_ok=True)


def obey(machine: Machine, line: str) -> None:
    words = line.split()
    if not words:
        return
    if words[0] == "power":
        machine.power_cut()
    elif words[0] == "hang":
        machine.hang()
    elif words[0] == "insert" and len(words) >= 2:
        machine.operator_insert(words[1], int(words[2]) if len(words) > 2 else 0)
    elif words[0] == "remove":
        machine._take_out()
    elif words[0] == "door":
        machine.door_open = True
    machine.log(f"control: {line}")


def serve(
    options: Options,
    ledger_path: Path | None,
    control_path: Path | None,
    log_path: Path | None,
    announce: Callable[[str], None],
) -> None:
    line = PtyLine()
    log_file = None
    if log_path is not None:
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        log_file = os.fdopen(fd, "a", encoding="utf-8")

    def log(text: str) -> None:
        if log_file is not None:
            log_file.write(f"{time.monotonic():.3f} {text}\n")
            log_file.flush()

    ledger = Ledger(ledger_path)
    control = Control(control_path) if control_path is not None else None
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    machine = Machine(options, line.write, Clock(time.monotonic), ledger, log)
    announce(line.path)
    try:
        while not stopping:
            wake = machine.poll()
            line.flush()
            timeout = 0.5 if wake is None else max(0.0, min(0.5, wake - time.monotonic()))
            readers = [line.master] + ([control.fd] if control else [])
            writers = [line.master] if line.out else []
            try:
                ready, _, _ = select.select(readers, writers, [], timeout)
            except InterruptedError:
                continue
            if line.master in ready:
                data = line.read()
                if data:
                    machine.receive(data)
            if control is not None and control.fd in ready:
                for text in control.lines():
                    obey(machine, text)
    finally:
        ledger.close()
        line.close()
        if control is not None:
            control.close()
        if log_file is not None:
            log_file.close()
