"""The machines the Start page offers: the serial ports present (as `dealer ports` lists them) and
simulated machines (``sim://``, speed 50 unless the server is told otherwise), half of them with the
faults `dealer demo` injects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from dealer.dealing.demo import DEMO_FAULTS, FAULT_STORY
from dealer.dealing.transport import list_ports

SIMULATED: Final = 4
SIM_SPEED: Final = 50


def sim_url(workdir: Path, k: int, faults: bool, speed: float = SIM_SPEED) -> str:
    """The URL of simulated machine `k` (1, 2, ...), with the demo's faults for it (written into the work
    folder) or none."""
    url = f"sim://?speed={speed:g}&seed={k}"
    if not faults:
        return url
    plan = workdir / f"sim-faults-{k}.json"
    if not plan.is_file():
        plan.write_text(json.dumps({"faults": DEMO_FAULTS[(k - 1) % len(DEMO_FAULTS)]}, indent=1), encoding="utf-8")
    return f"{url}&faults={plan}"


def choices(workdir: Path, speed: float = SIM_SPEED) -> list[tuple[str, str]]:
    """(port URL, what it is) for every machine the Start page offers."""
    found = [(p.device, f"{p.device}: {p.description or 'serial port'}"
                        + (f", {p.maker}" if p.maker else "")) for p in list_ports()]
    for k in range(1, SIMULATED + 1):
        story = FAULT_STORY[(k - 1) % len(FAULT_STORY)]
        found.append((sim_url(workdir, k, True, speed), f"simulated machine {k} with faults: {story}"))
    for k in range(SIMULATED + 1, 2 * SIMULATED + 1):
        found.append((sim_url(workdir, k, False, speed), f"simulated machine {k}, no fault"))
    return found
