"""`dealer check`: recount boards already dealt and verify each against the deal file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dealer.cli.deal import load_deals, machine_options
from dealer.cli.reading import reading_options
from dealer.cli.teaching import teach
from dealer.core.errors import VerificationError
from dealer.language import _


def register(sub: Any) -> None:
    c = sub.add_parser("check", help=_("recount boards already dealt and verify them against the deal file"),
                       description=_("Recount boards dealt earlier, without dealing: for each board the operator "
                                   "is asked to put it in, its label is read (another board is refused), the "
                                   "machine recounts the four pockets and every fault is named with its Law."))
    c.add_argument("file", metavar="FILE", help=_("deal file the boards were dealt from"))
    machine_options(c)
    c.add_argument("--journal", metavar="PATH",
                   help=_("the journal of the run that dealt these boards (default: FILE.journal); the check "
                        "waits for no run: it is refused while one holds this journal"))
    teach(c, [("dealer check session.pbn --port /dev/ttyUSB0", _("recount every board of the file")),
              ("dealer check session.pbn --port /dev/ttyUSB0 --boards 5-8", _("only boards 5 to 8")),
              ("dealer check session.pbn --port /dev/ttyUSB0 --set RED", _("boards of set RED"))],
          _("FILE is the deal file the boards were dealt from; URL the machine's port (the first --port is used); "
          "RANGE boards\nlike 1-16; NAME the board set on the labels. Exit code 8 when a board does not hold "
          "its deal; 10 while\na run holds the journal of these boards (it is never checked while being dealt)."))
    c.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from dealer.dealing.recheck import check_boards, other_deal

    deals = load_deals(args.file, args.boards, reading_options(args, skip_partial=False))
    journal = Path(args.journal) if args.journal else Path(args.file + ".journal")
    reports = check_boards(deals, args.port[0], args.set_name or "A", board_timeout=args.board_timeout,
                           show_cards=args.show_cards, quiet=args.quiet, journal=journal,
                           source=Path(args.file).name)
    bad = [r for r in reports if not r.ok]
    print(f"{len(reports) - len(bad)}/{len(reports)} boards verified", file=sys.stdout, flush=True)
    strangers = [r for r in bad if other_deal(r)]
    if strangers:
        held = f"board {_listed(strangers)} holds a deal" if len(strangers) == 1 else \
            f"boards {_listed(strangers)} hold deals"
        raise VerificationError(
            f"{held} that {Path(args.file).name} does not hold ({len(strangers)} of {len(reports)} checked): is this "
            "the file and board set these boards were dealt from? Redeal nothing from it until that is settled")
    if bad:
        raise VerificationError(f"{len(bad)} of {len(reports)} boards do not hold their deals: boards "
                                + _listed(bad))
    return 0


def _listed(reports: list[Any]) -> str:
    return ", ".join(str(r.board) for r in reports[:10]) + ("..." if len(reports) > 10 else "")
