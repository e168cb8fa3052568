"""The device side: a simulated dealing machine, written independently of the host, for tests, demos and
comparison with a real machine. `hil.open_sim` serves it on a pty, `hil.Loopback` in memory; what a
``sim://`` URL may say is `hil.config`, the operator's behaviour `hil.operator`, the faults `hil.fault_plan`;
a host's side of it: docs/simulator.md.

May import: `firmware_protocol` (the wire protocol and the board-label grammar) and nothing else of this
project, so a host is tested against a machine, not against itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hil.config import SimConfig, Timing
from hil.device import SimDevice, Unplug
from hil.fault_plan import FaultKind, FaultPlan, FaultPlanError, FaultSpec
from hil.loopback import Loopback, LoopbackPort, VirtualClock, open_loopbacks
from hil.scenarios import CAPABILITIES, SCENARIOS, Expect, Scenario

if TYPE_CHECKING:
    from hil.pty_sim import PtySimulator

__all__ = [
    "CAPABILITIES", "SCENARIOS", "Expect", "FaultKind", "FaultPlan", "FaultSpec", "Loopback", "LoopbackPort",
    "FaultPlanError", "PtySimulator", "Scenario", "SimConfig", "SimDevice", "Timing", "Unplug", "VirtualClock",
    "open_loopbacks", "open_sim",
]


def open_sim(url_or_config: str | SimConfig) -> PtySimulator:
    """A started `PtySimulator` for a ``sim://`` URL or a `SimConfig` (POSIX only)."""
    from hil.pty_sim import PtySimulator

    config = SimConfig.from_url(url_or_config) if isinstance(url_or_config, str) else url_or_config
    sim = PtySimulator(config)
    sim.start()
    return sim


def __getattr__(name: str) -> Any:
    if name == "PtySimulator":  # imported on demand: it needs a POSIX pty
        from hil.pty_sim import PtySimulator

        return PtySimulator
    raise AttributeError(f"module 'hil' has no attribute {name!r}")
