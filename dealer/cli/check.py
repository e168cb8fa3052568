"""`dealer check`: recount boards already dealt and verify each against the deal file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dealer.cli.deal import load_deals, machine_options
from dealer.cli.reading import reading_options


def register(sub: Any) -> None:
    c = sub.add_parser("check", help="recount boards already dealt and verify them against the deal file")
    c.add_argument("file", metavar="FILE", help="deal file the boards were dealt from")
    machine_options(c)
    c.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from dealer.dealing.recheck import check_boards

    deals = load_deals(args.file, args.boards, reading_options(args, skip_partial=False))
    reports = check_boards(deals, args.port[0], args.set_name.upper(), board_timeout=args.board_timeout,
                           show_cards=args.show_cards, quiet=args.quiet)
    bad = [r for r in reports if not r.ok]
    print(f"{len(reports) - len(bad)}/{len(reports)} boards verified", file=sys.stderr)
    return 8 if bad else 0
