"""`dealer demo`: a session dealt on simulated machines with faults injected (no hardware needed)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dealer.cli.live import add_view_option, run_view
from dealer.cli.options import count_from_1, positive_number
from dealer.cli.teaching import teach
from dealer.dealing.demo import run_demo
from dealer.dealing.run import raise_for
from dealer.language import _


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help=_("deal a session on simulated machines with faults injected (no hardware)"),
                       description=_("Generate a session, deal it on simulated dealing machines with realistic "
                                   "faults, and show how each fault was caught and resolved."))
    p.add_argument("--boards", type=count_from_1, default=16, metavar="N", help=_("boards in the session (default 16)"))
    p.add_argument("--machines", type=count_from_1, default=2, metavar="N", help=_("simulated machines (default 2)"))
    p.add_argument("--speed", type=positive_number, default=25.0, metavar="X",
                   help=_("simulated machine speed factor (default 25: a board in about 0.6 s)"))
    p.add_argument("--keep", "--folder", metavar="DIR", dest="keep",
                   help=_("work in DIR and keep the session, journal and report there (default: a temporary "
                        "folder, removed at the end)"))
    p.add_argument("--show-cards", action="store_true", help=_("name cards in fault lines"))
    add_view_option(p)
    teach(p, [("dealer demo", _("16 boards on 2 simulated machines, in a temporary folder")),
              ("dealer demo --keep demo", _("keep the session, journal and report in ./demo")),
              ("dealer demo --boards 32 --machines 4 --speed 10", _("a longer run, slow enough to watch"))])
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = run_demo(boards=args.boards, machines=args.machines, speed=args.speed,
                      folder=Path(args.keep) if args.keep else None, show_cards=args.show_cards,
                      view=run_view(args.plain))
    raise_for(result)
    return 0
