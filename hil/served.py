"""A simulated machine served to a host over a line, in one thread: the device, its faults and the line's
noise, whatever the line is (a pseudo-terminal, `hil.pty_sim`; a local TCP port, `hil.tcp_sim`).

`ServedMachine` applies the plan's byte faults and the line's noise to the bytes in flight, unplugs and replugs
the line as a pulled cable does, and writes the physical record (`hil.record`) to a ledger file if asked.
"""

from __future__ import annotations

import contextlib
import queue
import select
import socket
import threading
import time
from typing import Any, Final, Self

from hil.bytefaults import TO_DEVICE, TO_HOST, ByteFaults, LineNoise, Manipulator, OneWayLine, chain
from hil.config import SimConfig
from hil.device import SimDevice
from hil.record import RecordFile

MAX_PENDING: Final = 1 << 16
"""Bytes kept for a host that does not read; older ones are lost, as in a full UART buffer."""
MAX_SLEEP: Final = 0.25


class ServedMachine:
    """A simulated machine on a line (see the module docstring); its kinds say what the line is.

    `start()` opens the line and starts the device and the thread that waits (``select``) on the line and on a
    wake-up socket; `stop()` joins it and closes everything, raising again an error met in the thread. The
    machine is told what the host wrote before any damage (`SimDevice.load_deals`). Inspect the machine while
    it runs under `lock` (``with sim.lock: sim.device.ledger ...``)."""

    def __init__(self, config: SimConfig | None = None, *, manipulator: Manipulator | None = None) -> None:
        self.config = config = config or SimConfig()
        self.byte_faults = ByteFaults(config.faults.faults, config.seed)
        self.noise = LineNoise(config.noise, config.seed)
        wire = chain(self.byte_faults, self.noise, *([manipulator] if manipulator else []))
        self.to_host = OneWayLine(TO_HOST, wire)
        self.to_device = OneWayLine(TO_DEVICE, wire)
        self.lock = threading.Lock()
        self.device: SimDevice | None = None
        self.error: BaseException | None = None
        self.unplugs = 0
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._controls: queue.SimpleQueue[tuple[str, float | None, threading.Event]] = queue.SimpleQueue()
        self._pending = bytearray()
        self._replug_at: float | None = None
        self._stopping = False
        self.record = RecordFile(config.ledger) if config.ledger else None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what each kind of line gives ----------------------------------------------------------------

    @property
    def path(self) -> str:
        """What the host opens with pyserial."""
        raise NotImplementedError

    @property
    def where(self) -> str:
        """The line, in a few words for a person (the pty, the TCP port)."""
        raise NotImplementedError

    @property
    def plugged(self) -> bool:
        raise NotImplementedError

    def _open_line(self) -> None:
        raise NotImplementedError

    def _close_line(self) -> None:
        raise NotImplementedError

    def _waitables(self) -> tuple[list[Any], list[Any]]:
        """What the thread waits on: the line's readable and (with bytes to send) writable ends."""
        raise NotImplementedError

    def _read_line(self, ready: list[Any]) -> bytes:
        """What the host wrote, among the `ready` ends (b"" if nothing)."""
        raise NotImplementedError

    def _write_line(self, data: bytes) -> int:
        """Send what the line takes now of `data` to the host; how many bytes it took."""
        raise NotImplementedError

    # --- the machine -------------------------------------------------------------------------------

    def wire_record(self) -> dict[str, object]:
        """What the line saw, for the record file: the LoadDeals sent and accepted, the noise."""
        assert self.device is not None
        return {"load_deals": self.device.load_deals.to_json(), "noise": self.noise.to_json()}

    def start(self) -> str:
        """Open the line, start the machine and its thread; returns what the host opens."""
        if self._thread is not None:
            raise RuntimeError("the simulator is already running")
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._open_line()
        self.device = SimDevice(self.config, time.monotonic())
        self._thread = threading.Thread(target=self._run, name="hil-sim", daemon=True)
        self._thread.start()
        return self.path

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and close everything; raises the thread's error, if it had one."""
        if self._thread is not None:
            self._stopping = True
            self._wake(b"x")
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError("the simulator thread did not stop")
            self._thread = None
            if self.record is not None and self.device is not None:
                self.record.write(self.device.room, self.wire_record)
        self._close_line()
        for end in (self._wake_r, self._wake_w):
            if end is not None:
                end.close()
        self._wake_r = self._wake_w = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def boards_back_from_the_tables(self) -> int:
        """Every board of the machine's rack but the one in it comes back empty, as from the tables after a session
        (`Room.boards_back_from_the_tables`); how many held cards."""
        with self.lock:
            return self.device.room.boards_back_from_the_tables() if self.device is not None else 0

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the cable (now, from any thread); with `seconds`, plug it back in that much later."""
        self._control("unplug", seconds)

    def replug(self) -> None:
        """Plug the cable back in."""
        self._control("replug", None)

    def _wake(self, what: bytes) -> None:
        assert self._wake_w is not None
        self._wake_w.send(what)

    def _control(self, what: str, arg: float | None) -> None:
        if self._thread is None:
            raise RuntimeError("the simulator is not running")
        done = threading.Event()
        self._controls.put((what, arg, done))
        self._wake(b"c")
        if not done.wait(5.0):
            raise RuntimeError(f"the simulator did not {what}")

    # --- the thread ------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping:
                self._step(self._wait())
        except BaseException as exc:  # kept for stop() to raise in the caller's thread
            self.error = exc

    def _wait(self) -> list[Any]:
        now = time.monotonic()
        assert self.device is not None and self._wake_r is not None
        with self.lock:
            times = [t for t in (self.device.next_deadline(), self.to_host.next_time(), self.to_device.next_time(),
                                 self._replug_at) if t is not None]
        timeout = min([MAX_SLEEP] + [max(0.0, t - now) for t in times])
        readers, writers = self._waitables()
        ready, writable, _ = select.select([self._wake_r, *readers], writers if self._pending else [], [], timeout)
        if self._wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                self._wake_r.recv(64)
            self._run_controls()
        return ready + writable

    def _run_controls(self) -> None:
        while not self._controls.empty():
            what, arg, done = self._controls.get()
            if what == "unplug":
                self._unplug(arg)
            else:
                self._replug()
            done.set()

    def _unplug(self, seconds: float | None) -> None:
        self.unplugs += 1
        self._close_line()
        self.to_host.clear()
        self.to_device.clear()
        self._pending.clear()
        self._replug_at = None if seconds is None else time.monotonic() + seconds

    def _replug(self) -> None:
        self._replug_at = None
        if not self.plugged:
            self._open_line()

    def _step(self, ready: list[Any]) -> None:
        now = time.monotonic()
        if self._replug_at is not None and now >= self._replug_at:
            self._replug()
        assert self.device is not None
        if self.plugged:
            data = self._read_line(ready)
            if data:
                with self.lock:
                    self.device.load_deals.host_wrote(data)
                self.to_device.put(data, now)
        with self.lock:
            self.device.receive(self.to_device.take(now), now)
            self.device.poll(now)
            requests = self.device.io_requests()
            out = self.device.data_to_send()
            if self.record is not None:
                self.record.update(self.device.room, self.wire_record)
        for request in requests:
            self._unplug(request.seconds)
        if not self.plugged:
            return
        self.to_host.put(out, now)
        self._pending += self.to_host.take(now)
        del self._pending[:-MAX_PENDING]
        if self._pending:
            written = self._write_line(bytes(self._pending))
            del self._pending[:written]
