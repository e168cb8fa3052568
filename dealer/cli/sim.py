"""`dealer sim`: serve the built-in simulated dealing machine on a pseudo-terminal or a local TCP port (see
`hil.cli`)."""

from __future__ import annotations

import argparse
from typing import Any

from dealer.cli.teaching import teach
from dealer.core.errors import UsageError
from hil import cli as hil_cli
from hil.config import SimConfigError


def register(sub: Any) -> None:
    p = sub.add_parser("sim", help="serve a simulated dealing machine (a pseudo-terminal, or --tcp)",
                       description=hil_cli.DESCRIPTION)
    hil_cli.add_arguments(p)
    # the options are the simulator's own (hil.cli); the seed's placeholder says what it is here
    for action in p._actions:
        if action.dest == "seed":
            action.metavar = "N"
    teach(p, [("dealer sim --speed 50", "a machine 50 times faster than real; prints its port"),
              ("dealer sim --faults plan.json --seed 7", "with the faults of a fault plan"),
              ("dealer sim --tcp 7000 --speed 50", "on socket://127.0.0.1:7000 (Windows, or any system)"),
              ("dealer deal session.pbn --port PORT", "then, in another terminal, deal on it")],
          "The first line printed is the port to open (a stable link to the pseudo-terminal, or the socket:// URL "
          "with --tcp);\nCtrl-C stops the machine.\nPLAN is a fault plan (JSON), e.g. {\"faults\": [{\"kind\": "
          "\"jam\", \"board\": 2, \"card\": 20}]}; RANGE boards\nlike 1-32; X a speed factor. Inside one process, "
          "sim://?speed=50 starts the same machine as a port.")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer.dealing.ports import registered_sim

    try:
        with registered_sim() as register:  # where `dealer ports --probe` finds it while it runs
            return hil_cli.serve(args, on_ready=register)
    except SimConfigError as exc:
        raise UsageError(str(exc)) from None
