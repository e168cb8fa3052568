"""`sim://` ports: the built-in simulated machine (`hil`) started inside this process.

`serve(url)` starts one (`hil.open_sim`: on a pseudo-terminal, or on local TCP where the system has none) the
first time a URL is opened; later opens of it (a reconnect) get the same machine, so reopening a port never
resets the simulated world. Also the glue that lets a host driver run
over an in-memory `hil.Loopback` (tests, in virtual time).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dealer.core.errors import DeviceDisconnected, UsageError
from dealer.dealing.transport import SerialTransport, Transport
from dealer.language import _
from dealer.language.system import os_reason

if TYPE_CHECKING:
    from hil import Loopback, ServedMachine

SIM_SCHEME: Final = "sim://"
_LOCK = threading.Lock()
_SIMULATORS: dict[str, ServedMachine] = {}


def serve(url: str) -> str:
    """What pyserial opens for the simulator of `url` (its pty, or ``socket://127.0.0.1:PORT``), starting it on
    first use; `DeviceDisconnected` while its cable is out (the pty it had is gone, and its number may be
    another machine's by now)."""
    import hil
    from hil.config import SimConfigError

    with _LOCK:
        sim = _SIMULATORS.get(url)
        if sim is None:
            try:
                sim = hil.open_sim(url)
            except SimConfigError as exc:
                raise UsageError(str(exc)) from None
            _SIMULATORS[url] = sim
        if not sim.plugged:
            raise DeviceDisconnected(_("{port}: the simulated machine's cable is out").format(port=url))
        return sim.path


def still_serves(url: str, path: str) -> bool:
    """Whether the simulator of `url` is still on `path`: a pty closed by an unplug between `serve` and the
    opening may already be another program's, so the host checks after opening."""
    with _LOCK:
        sim = _SIMULATORS.get(url)
    return sim is not None and sim.plugged and sim.path == path


def check_url(url: str) -> None:
    """Refuse (`UsageError`, naming the option) a ``sim://`` URL whose options the simulator would refuse,
    before a run begins; any other port is left to its opening."""
    if not url.startswith(SIM_SCHEME):
        return
    from hil.config import SimConfig, SimConfigError

    try:
        SimConfig.from_url(url)
    except SimConfigError as exc:
        raise UsageError(str(exc)) from None


def simulators() -> dict[str, ServedMachine]:
    """The simulators started in this process, by URL."""
    with _LOCK:
        return dict(_SIMULATORS)


def boards_back_from_the_tables(urls: list[str] | tuple[str, ...]) -> int:
    """The boards of the simulators of `urls` already started here come back empty (a new session begins on
    them, as real boards come back from the tables); how many held cards."""
    with _LOCK:
        sims = [_SIMULATORS[url] for url in urls if url in _SIMULATORS]
    return sum(sim.boards_back_from_the_tables() for sim in sims)


def stop_all() -> None:
    """Stop every simulator started here (joins their threads, closes their ptys); it also runs at exit."""
    with _LOCK:
        sims = list(_SIMULATORS.values())
        _SIMULATORS.clear()
    for sim in sims:
        sim.stop()


atexit.register(stop_all)


def loopback_opener(loop: Loopback) -> Callable[[str], Transport]:
    """An opener for `dealer.dealing.machine.Machine` that opens the host end of an in-memory `hil.Loopback`."""
    def opener(url: str) -> Transport:
        try:
            return SerialTransport.wrap(loop.open(), url)
        except OSError as exc:
            raise DeviceDisconnected(_("{port}: cannot open the port: {reason}").format(
                port=url, reason=os_reason(exc))) from exc

    return opener
