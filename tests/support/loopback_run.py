"""The host's dealing run (`dealer.dealing.run.deal_session`) on a simulated machine in memory, in virtual time."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from dealer.core.dealset import DealSet
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.dealing.sim_ports import loopback_opener
from hil.loopback import Loopback
from tests.support.deals import random_deals


def deals_for(boards: tuple[int, ...], seed: int = 5) -> DealSet:
    """Random deals for the given board numbers."""
    return DealSet.from_deals(random_deals(seed, len(boards)), list(boards))


def run_on_loopback(loop: Loopback, deals: DealSet, journal: Path, machines: list[Machine] | None = None, *,
                    max_attempts: int = RunLimits.max_attempts, **options: Any) -> tuple[RunResult, str]:
    """Deal `deals` on the loopback's machine; the Machine objects made are appended to `machines`."""
    out = io.StringIO()

    def factory(url: str) -> Machine:
        m = Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                    sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        if machines is not None:
            machines.append(m)
        return m

    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                      limits=RunLimits(board_timeout=120, deal_timeout=120, max_attempts=max_attempts), **options)
    return deal_session(deals, "scenario.pbn", opts), out.getvalue()
