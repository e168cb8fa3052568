"""Serves a simulated machine on a pseudo-terminal, so a host opens it with pyserial like a USB port.

`PtySimulator(config).start()` opens a pty pair, puts the slave side in raw mode at once (a fresh pty
is in cooked mode: it would echo, turn 0x03 into an interrupt and rewrite newlines), keeps its own
slave fd open for its whole life (when the last slave fd closes, the master reads EIO), and runs the
device in one thread that `select()`s on the master and a stop pipe. The byte faults of the plan (and
an optional manipulator hook) and the line's noise (`SimConfig.noise`) are applied here, to the bytes in
flight; the machine is told what the host wrote before any damage (`SimDevice.load_deals`).

`start()` returns the path to give the host: the stable symlink `link` if one was asked for (it is
kept pointing at the current pty, as socat's ``link=`` does), else the ``/dev/pts/N`` name. Where the
system has ``/proc/PID/fd``, the symlink points at this process's own descriptor of the pty
(`link_target`), not at ``/dev/pts/N``: a simulator killed by SIGKILL cannot remove its link, and the
kernel gives its pty number to the next pty opened, so a link to ``/dev/pts/N`` would reach another
machine; a link to the dead process's descriptor reaches nothing.
`unplug()` closes the master, as a pulled USB adapter does: the host's reads and writes fail and the
symlink goes away; `replug()` opens a new pty and points the symlink at it. `stop()` joins the thread
and closes every fd; an error inside the thread is raised again there. Inspect the machine while it
runs under `lock` (``with sim.lock: sim.device.ledger ...``). With a `ledger` file in the config, the
physical record is written there after every board and when the machine stops (`hil.record`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import select
import threading
import time
import tty
from pathlib import Path
from typing import Final

from hil.bytefaults import TO_DEVICE, TO_HOST, ByteFaults, LineNoise, Manipulator, OneWayLine, chain
from hil.config import SimConfig
from hil.device import SimDevice
from hil.record import RecordFile

MAX_PENDING: Final = 1 << 16
"""Bytes kept for a host that does not read; older ones are lost, as in a full UART buffer."""
MAX_SLEEP: Final = 0.25


def link_target(slave: int, pts_path: str) -> str:
    """What the stable symlink points at: this process's descriptor `slave` of the pty (it dies with the
    process), where ``/proc/PID/fd`` exists; else the pty's own name `pts_path`."""
    own = f"/proc/{os.getpid()}/fd"
    return f"{own}/{slave}" if os.path.isdir(own) else pts_path


class PtySimulator:
    """A simulated machine on a pseudo-terminal (see the module docstring)."""

    def __init__(self, config: SimConfig | None = None, *, link: str | Path | None = None,
                 manipulator: Manipulator | None = None) -> None:
        self.config = config = config or SimConfig()
        link = link if link is not None else config.link
        self.link = Path(link) if link is not None else None
        self.byte_faults = ByteFaults(config.faults.faults, config.seed)
        self.noise = LineNoise(config.noise, config.seed)
        wire = chain(self.byte_faults, self.noise, *([manipulator] if manipulator else []))
        self.to_host = OneWayLine(TO_HOST, wire)
        self.to_device = OneWayLine(TO_DEVICE, wire)
        self.lock = threading.Lock()
        self.device: SimDevice | None = None
        self.pts_path: str | None = None
        self.error: BaseException | None = None
        self.unplugs = 0
        self._master: int | None = None
        self._slave: int | None = None
        self._stop_r, self._stop_w = -1, -1
        self._thread: threading.Thread | None = None
        self._controls: queue.SimpleQueue[tuple[str, float | None, threading.Event]] = queue.SimpleQueue()
        self._pending = bytearray()
        self._replug_at: float | None = None
        self._stopping = False
        self.record = RecordFile(config.ledger) if config.ledger else None

    def __enter__(self) -> PtySimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def path(self) -> str:
        """What the host opens: the symlink if there is one, else the current pty."""
        if self.link is not None:
            return str(self.link)
        if self.pts_path is None:
            raise RuntimeError("the simulator is not running")
        return self.pts_path

    def wire_record(self) -> dict[str, object]:
        """What the line saw, for the record file: the LoadDeals sent and accepted, the noise."""
        assert self.device is not None
        return {"load_deals": self.device.load_deals.to_json(), "noise": self.noise.to_json()}

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def start(self) -> str:
        """Open the pty, start the machine and its thread; returns the path for the host."""
        if self._thread is not None:
            raise RuntimeError("the simulator is already running")
        self._stop_r, self._stop_w = os.pipe()
        self._open_pty()
        self.device = SimDevice(self.config, time.monotonic())
        self._thread = threading.Thread(target=self._run, name="hil-pty-sim", daemon=True)
        self._thread.start()
        return self.path

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and close every fd; raises the thread's error, if it had one."""
        if self._thread is not None:
            self._stopping = True
            os.write(self._stop_w, b"x")
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError("the simulator thread did not stop")
            self._thread = None
            if self.record is not None and self.device is not None:
                self.record.write(self.device.room, self.wire_record)
        self._close_pty()
        for fd in (self._stop_r, self._stop_w):
            if fd >= 0:
                os.close(fd)
        self._stop_r = self._stop_w = -1
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the cable (now, from any thread); with `seconds`, plug it back in that much later."""
        self._control("unplug", seconds)

    def replug(self) -> None:
        """Plug the cable back in: a new pty, and the symlink points at it."""
        self._control("replug", None)

    def _control(self, what: str, arg: float | None) -> None:
        if self._thread is None:
            raise RuntimeError("the simulator is not running")
        done = threading.Event()
        self._controls.put((what, arg, done))
        os.write(self._stop_w, b"c")
        if not done.wait(5.0):
            raise RuntimeError(f"the simulator did not {what}")

    # --- the pty ---------------------------------------------------------------------------------

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        fcntl.fcntl(master, fcntl.F_SETFL, fcntl.fcntl(master, fcntl.F_GETFL) | os.O_NONBLOCK)
        self._master, self._slave = master, slave
        self.pts_path = os.ttyname(slave)
        if self.link is not None:
            temp = self.link.with_name(self.link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            temp.symlink_to(link_target(slave, self.pts_path))
            os.replace(temp, self.link)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if self.link is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()

    # --- the thread ------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping:
                self._step(self._wait())
        except BaseException as exc:  # kept for stop() to raise in the caller's thread
            self.error = exc

    def _wait(self) -> list[int]:
        now = time.monotonic()
        assert self.device is not None
        with self.lock:
            times = [t for t in (self.device.next_deadline(), self.to_host.next_time(), self.to_device.next_time(),
                                 self._replug_at) if t is not None]
        timeout = min([MAX_SLEEP] + [max(0.0, t - now) for t in times])
        readers = [self._stop_r] + ([self._master] if self._master is not None else [])
        writers = [self._master] if self._master is not None and self._pending else []
        ready, _, _ = select.select(readers, writers, [], timeout)
        if self._stop_r in ready:
            os.read(self._stop_r, 64)
            self._run_controls()
        return ready

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
        self._close_pty()
        self.to_host.clear()
        self.to_device.clear()
        self._pending.clear()
        self._replug_at = None if seconds is None else time.monotonic() + seconds

    def _replug(self) -> None:
        self._replug_at = None
        if self._master is None:
            self._open_pty()

    def _step(self, ready: list[int]) -> None:
        now = time.monotonic()
        if self._replug_at is not None and now >= self._replug_at:
            self._replug()
        master = self._master
        assert self.device is not None
        if master is not None and master in ready:
            with contextlib.suppress(BlockingIOError, InterruptedError):
                data = os.read(master, 4096)
                with self.lock:
                    self.device.load_deals.host_wrote(data)
                self.to_device.put(data, now)
        assert self.device is not None
        with self.lock:
            self.device.receive(self.to_device.take(now), now)
            self.device.poll(now)
            requests = self.device.io_requests()
            out = self.device.data_to_send()
            if self.record is not None:
                self.record.update(self.device.room, self.wire_record)
        for request in requests:
            self._unplug(request.seconds)
        if self._master is None:
            return
        self.to_host.put(out, now)
        self._pending += self.to_host.take(now)
        del self._pending[:-MAX_PENDING]
        if self._pending:
            with contextlib.suppress(BlockingIOError, InterruptedError):
                written = os.write(self._master, self._pending)
                del self._pending[:written]
