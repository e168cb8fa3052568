"""`dealer curtains`: curtain cards (one per board and seat) for boards dealt or checked by hand."""

from __future__ import annotations

import argparse
from typing import Any

from dealer.cli.records import add_deal_options, load_deals, wrote
from dealer.cli.teaching import teach
from dealer.language import _
from dealer.printing import outputs


def register(sub: Any) -> None:
    p = sub.add_parser("curtains", help=_("print curtain cards (PDF or HTML) from a deal file"),
                       description=_("Curtain cards: one card per board and seat with the board number, seat, "
                                   "dealer, vulnerability and that seat's hand, eight cards to an A4 page."))
    add_deal_options(p)
    p.add_argument("-o", "--output", required=True, metavar="OUT", help=_("OUT.pdf or OUT.html"))
    teach(p, [("dealer curtains session.pbn -o cards.pdf", _("a curtain card for every board and seat")),
              ("dealer curtains session.pbn --boards 5,9 -o cards.pdf", _("only the boards to be dealt by hand"))],
          _("FILE is a deal file; RANGE boards like 1-16 or 5,9; OUT.pdf needs the 'print' extra."))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    outputs.prepare(args.output, outputs.RECORD_KINDS, "curtain cards", force=args.force)
    deals, title = load_deals(args)
    views = outputs.views_for(deals, args.ten, dd=False)
    outputs.write_curtains(args.output, views, title, force=args.force)
    print(wrote(len(deals), args.output))
    return 0
