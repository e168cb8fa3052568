"""Opening a port by its URL, real or simulated: the one place that knows both kinds.

A pyserial URL opens through `transport`, a ``sim://`` URL through `sim_ports`; the machine driver opens
its port here (`open_transport`, `wait_for_port`). May import `transport` and `sim_ports` (neither imports
this module).
"""

from __future__ import annotations

import time

from dealer.core.errors import DeviceDisconnected
from dealer.dealing import sim_ports
from dealer.dealing.transport import SerialTransport, Transport


def check_url(url: str) -> None:
    """Refuse (`UsageError`, naming the option) a ``sim://`` URL whose options the simulator would refuse,
    before a run begins; any other port is left to its opening."""
    sim_ports.check_url(url)


def open_transport(url: str) -> Transport:
    """Open a port by URL; `sim://` starts (or reuses) the built-in simulated machine."""
    if url.startswith(sim_ports.SIM_SCHEME):
        return SerialTransport.open(sim_ports.serve(url), name=url)
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
