"""`dealer sim`: serve the built-in simulated dealing machine on a pseudo-terminal (see `hil.cli`)."""

from __future__ import annotations

import argparse
from typing import Any

from dealer.core.errors import UsageError
from hil import cli as hil_cli
from hil.config import SimConfigError


def register(sub: Any) -> None:
    p = sub.add_parser("sim", help="serve a simulated dealing machine on a pseudo-terminal",
                       description=hil_cli.DESCRIPTION)
    hil_cli.add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        return hil_cli.serve(args)
    except SimConfigError as exc:
        raise UsageError(str(exc)) from None
