"""The device side: a simulated dealing machine, written independently of the host, for tests, demos and
comparison with a real machine. `hil.open_sim` serves it on a pty (Linux, macOS) or a local TCP port
(`hil.tcp_sim`, anywhere), `hil.Loopback` in memory; what a
``sim://`` URL may say is `hil.config`, the operator's behaviour `hil.operator`, the faults `hil.fault_plan`;
a host's side of it: docs/simulator.md.

May import: `firmware_protocol` (the wire protocol and the board-label grammar) and nothing else of this
project, so a host is tested against a machine, not against itself.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from hil.config import SimConfig, Timing
from hil.device import SimDevice, Unplug
from hil.fault_plan import FaultKind, FaultPlan, FaultPlanError, FaultSpec
from hil.loopback import Loopback, LoopbackPort, VirtualClock, open_loopbacks
from hil.scenarios import CAPABILITIES, SCENARIOS, Expect, Scenario
from hil.served import ServedMachine
from hil.tcp_sim import TcpSimulator

if TYPE_CHECKING:
    from hil.pty_sim import PtySimulator

__all__ = [
    "CAPABILITIES", "SCENARIOS", "Expect", "FaultKind", "FaultPlan", "FaultSpec", "Loopback", "LoopbackPort",
    "FaultPlanError", "PtySimulator", "Scenario", "ServedMachine", "SimConfig", "SimDevice", "TcpSimulator", "Timing",
    "Unplug", "VirtualClock", "open_loopbacks", "open_sim", "pty_available",
]


def pty_available() -> bool:
    """True where the simulated machine can be served on a pseudo-terminal (not on Windows)."""
    return sys.platform != "win32"


def open_sim(url_or_config: str | SimConfig) -> ServedMachine:
    """A started simulated machine for a ``sim://`` URL or a `SimConfig`: on the line it names
    (`SimConfig.line`), else on a pseudo-terminal where the system has them (`pty_available`), else on a
    local TCP port (`TcpSimulator`)."""
    config = SimConfig.from_url(url_or_config) if isinstance(url_or_config, str) else url_or_config
    sim: ServedMachine
    if config.line == "pty" or (config.line is None and pty_available()):
        from hil.pty_sim import PtySimulator

        sim = PtySimulator(config)
    else:
        sim = TcpSimulator(config)
    sim.start()
    return sim


def __getattr__(name: str) -> Any:
    if name == "PtySimulator":  # imported on demand: Linux and macOS only
        from hil.pty_sim import PtySimulator

        return PtySimulator
    raise AttributeError(f"module 'hil' has no attribute {name!r}")
