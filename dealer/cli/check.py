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
from dealer.journal.database_url import record_place
from dealer.language import _, n_


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
    journal = record_place(args.journal) if args.journal else Path(args.file + ".journal")
    reports = check_boards(deals, args.port[0], args.set_name or "A", board_timeout=args.board_timeout,
                           show_cards=args.show_cards, quiet=args.quiet, journal=journal,
                           source=Path(args.file).name)
    bad = [r for r in reports if not r.ok]
    print(_("{verified}/{total} boards verified").format(verified=len(reports) - len(bad), total=len(reports)),
          file=sys.stdout, flush=True)
    strangers = [r for r in bad if other_deal(r)]
    if strangers:
        raise VerificationError(n_(
            "board {boards} holds a deal that {file} does not hold ({count} of {checked} checked): is this the file "
            "and board set these boards were dealt from? Redeal nothing from it until that is settled",
            "boards {boards} hold deals that {file} does not hold ({count} of {checked} checked): is this the file "
            "and board set these boards were dealt from? Redeal nothing from it until that is settled",
            len(strangers)).format(boards=_listed(strangers), file=Path(args.file).name, count=len(strangers),
                                   checked=len(reports)))
    if bad:
        raise VerificationError(n_("{bad} of {total} boards do not hold their deals: boards {boards}",
                                   "{bad} of {total} boards do not hold their deals: boards {boards}",
                                   len(reports)).format(bad=len(bad), total=len(reports), boards=_listed(bad)))
    return 0


def _listed(reports: list[Any]) -> str:
    return ", ".join(str(r.board) for r in reports[:10]) + ("..." if len(reports) > 10 else "")
