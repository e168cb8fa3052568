"""The machines the console offers, each by an id a client chooses (``sim-1``, ``ttyUSB0``): the serial ports
present (as `dealer ports` lists them) and simulated machines (``sim://``, speed 50 unless the server is
told otherwise), half of them with the faults `dealer demo` injects. A client never writes a port's URL:
`Offer.resolve` turns its ids into the URLs the run opens, and `Offer.plan_port_problem` admits a plan's
machine only if it is a port found here or a simulated machine that writes no file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import parse_qsl, urlsplit

from dealer.core.errors import UsageError
from dealer.dealing.demo import DEMO_FAULTS, FAULT_STORY
from dealer.dealing.transport import list_ports
from dealer.language import _
from dealer.serve.given import OWN_FOLDER

SIMULATED: Final = 4
SIM_SPEED: Final = 50
PLAN_SIM_KEYS: Final = frozenset({"speed", "seed", "set", "boards", "copies", "keeps_job", "boot_noise", "noise"})
"""The options of a plan's ``sim://`` machine the console accepts: none names a file (faults, ledger, link)."""


def sim_url(workdir: Path, k: int, faults: bool, speed: float = SIM_SPEED) -> str:
    """The URL of simulated machine `k` (1, 2, ...), with the demo's faults for it (written into the work
    folder) or none."""
    url = f"sim://?speed={speed:g}&seed={k}"
    if not faults:
        return url
    plan = workdir / OWN_FOLDER / f"sim-faults-{k}.json"  # hidden: never offered as a deal file
    if not plan.is_file():
        plan.parent.mkdir(mode=0o700, exist_ok=True)
        plan.write_text(json.dumps({"faults": DEMO_FAULTS[(k - 1) % len(DEMO_FAULTS)]}, indent=1), encoding="utf-8")
    return f"{url}&faults={plan}"


@dataclass(frozen=True)
class OfferedMachine:
    """One machine offered: the id a client sends, the URL the run opens (never sent), what it is."""

    id: str
    url: str
    text: str


class Offer:
    """The machines of one console: the simulated ones it makes, any the operator adds (`extra`: id ->
    URL), and the serial ports present when asked."""

    def __init__(self, workdir: Path, speed: float = SIM_SPEED, extra: Mapping[str, str] | None = None) -> None:
        self.workdir = workdir
        self.speed = speed
        self.extra = dict(extra or {})

    def machines(self) -> list[OfferedMachine]:
        serial = _("serial port")
        found = [OfferedMachine(Path(p.device).name, p.device, f"{p.device}: {p.description or serial}"
                                + (f", {p.maker}" if p.maker else "")) for p in list_ports()]
        for k in range(1, SIMULATED + 1):
            story = _(FAULT_STORY[(k - 1) % len(FAULT_STORY)])
            found.append(OfferedMachine(f"sim-{k}", sim_url(self.workdir, k, True, self.speed),
                                        _("simulated machine {k} with faults: {story}").format(k=k, story=story)))
        for k in range(SIMULATED + 1, 2 * SIMULATED + 1):
            found.append(OfferedMachine(f"sim-{k}", sim_url(self.workdir, k, False, self.speed),
                                        _("simulated machine {k}, no fault").format(k=k)))
        found += [OfferedMachine(key, url, _("machine {machine}").format(machine=key))
                  for key, url in self.extra.items()]
        return found

    def resolve(self, ids: Iterable[str]) -> tuple[str, ...]:
        """The URLs of the machines chosen by id; `UsageError` for an id not offered."""
        by_id = {m.id: m.url for m in self.machines()}
        urls: list[str] = []
        for given in ids:
            if given in by_id and by_id[given] in urls:
                raise UsageError(_("machine {machine}: chosen twice").format(machine=given))
            if given not in by_id:
                raise UsageError(_("machine {machine}: not one the console offers (choose among {offered})").format(
                    machine=repr(given[:80]), offered=", ".join(by_id)))
            urls.append(by_id[given])
        return tuple(urls)

    def plan_port_problem(self, url: str) -> str | None:
        """None if a plan may deal on `url`: a serial port present, or ``sim://`` with only the options of
        `PLAN_SIM_KEYS`; else why not."""
        if url in {m.url for m in self.machines()}:
            return None
        parts = urlsplit(url)
        if parts.scheme == "sim" and not parts.netloc and parts.path in ("", "/"):
            keys = {k for k, _ in parse_qsl(parts.query, keep_blank_values=True)}
            if keys <= PLAN_SIM_KEYS:
                return None
            return _("a simulated machine here takes only {allowed} (not {given})").format(
                allowed=", ".join(sorted(PLAN_SIM_KEYS)), given=", ".join(sorted(keys - PLAN_SIM_KEYS)))
        return _("the console deals on the serial ports it found and on simulated machines (sim://) only")
