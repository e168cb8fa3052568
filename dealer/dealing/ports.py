"""Opening a port by its URL, real or simulated: the one place that knows both kinds.

A pyserial URL opens through `transport`, a ``sim://`` URL through `sim_ports`; the machine driver opens
its port here (`open_transport`, `wait_for_port`). Each running `dealer sim` registers the port it serves
in the user's runtime folder (`registered_sim`), which `running_sims` reads for `dealer ports --probe`.
May import `transport` and `sim_ports` (neither imports this module).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from dealer.core import osys
from dealer.core.errors import DeviceDisconnected
from dealer.dealing import sim_ports
from dealer.dealing.transport import SerialTransport, Transport
from dealer.language import _


def check_url(url: str) -> None:
    """Refuse (`UsageError`, naming the option) a ``sim://`` URL whose options the simulator would refuse,
    before a run begins; any other port is left to its opening."""
    sim_ports.check_url(url)


def open_transport(url: str) -> Transport:
    """Open a port by URL; `sim://` starts (or reuses) the built-in simulated machine."""
    if url.startswith(sim_ports.SIM_SCHEME):
        path = sim_ports.serve(url)
        transport = SerialTransport.open(path, name=url)
        if not sim_ports.still_serves(url, path):
            transport.close()
            raise DeviceDisconnected(_("{port}: the simulated machine was unplugged while its port was opened").format(
                port=url))
        return transport
    return SerialTransport.open(url)


def wait_for_port(url: str, timeout: float, interval: float = 0.25) -> Transport:
    """Open `url`, retrying for up to `timeout` seconds (a replugged USB adapter takes a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return open_transport(url)
        except DeviceDisconnected:
            if time.monotonic() >= deadline:
                raise
            time.sleep(interval)


def sims_folder() -> Path:
    """Where each running `dealer sim` leaves the port it serves: ``DEALER_SIMS`` if set, else ``dealer-sims``
    in the user's runtime folder (``XDG_RUNTIME_DIR``), else ``dealer-sims-USER`` in the temporary folder."""
    named = os.environ.get("DEALER_SIMS")
    if named:
        return Path(named)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "dealer-sims"
    return Path(tempfile.gettempdir()) / f"dealer-sims-{osys.user_key()}"


@contextlib.contextmanager
def registered_sim() -> Iterator[Callable[[str], None]]:
    """While a `dealer sim` runs: gives the function that registers the port it serves (a file named by
    this process's id, in `sims_folder`), and removes that file when the simulator stops. A folder that
    cannot be written, or that belongs to another user, only leaves the simulator unregistered."""
    entry = sims_folder() / f"{os.getpid()}.port"

    def register(port: str) -> None:
        with contextlib.suppress(OSError):
            entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _own_folder(entry.parent):
                return
            part = entry.with_suffix(".part")
            part.write_text(port + "\n", encoding="utf-8")
            os.replace(part, entry)

    try:
        yield register
    finally:
        with contextlib.suppress(OSError):
            entry.unlink(missing_ok=True)


def running_sims() -> list[str]:
    """The ports served by the `dealer sim`s running now for this user (their process alive), in the order
    they started; an entry left by a simulator that died is removed."""
    folder = sims_folder()
    if not folder.is_dir() or not _own_folder(folder):
        return []
    found: list[tuple[float, str]] = []
    for entry in folder.glob("*.port"):
        with contextlib.suppress(OSError, ValueError):
            if not osys.process_running(int(entry.stem)):
                entry.unlink(missing_ok=True)
                continue
            port = entry.read_text(encoding="utf-8").strip()
            if port:
                found.append((entry.stat().st_mtime, port))
    return [port for _when, port in sorted(found)]


def _own_folder(folder: Path) -> bool:
    """The folder is a real folder of this user's (not a link, nor another user's in a shared /tmp)."""
    return folder.is_dir() and not folder.is_symlink() and osys.owned_by_user(folder.lstat())
