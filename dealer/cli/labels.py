"""`dealer labels`: a sheet of Code 128 board labels (payload of `firmware_protocol.labels.BoardLabel`)."""

from __future__ import annotations

import argparse
from typing import Any

from dealer.cli.options import board_range, board_set, count_from_1
from dealer.cli.teaching import teach
from dealer.core.boards import parse_board_range
from dealer.core.errors import UsageError
from dealer.language import _
from dealer.printing import outputs
from dealer.printing.labels_layout import STOCKS
from firmware_protocol.labels import BoardLabel


def register(sub: Any) -> None:
    p = sub.add_parser("labels", help=_("print Code 128 board labels (PDF or SVG)"),
                       description=_("Board labels: a barcode carrying SET:BOARD:DV:C with the board number, "
                                   "set name, dealer and vulnerability in print, on A4 label stock."))
    p.add_argument("--set", required=True, type=board_set, metavar="NAME",
                   help=_("board set name: 1-12 of A-Z and 0-9"))
    p.add_argument("--boards", required=True, type=board_range, metavar="RANGE", help=_("boards, e.g. 1-32"))
    p.add_argument("--copies", type=count_from_1, default=1, metavar="N", help=_("labels per board (default: 1)"))
    p.add_argument("--stock", choices=sorted(STOCKS), default="l7159",
                   help=_("label stock: {stocks}").format(
                       stocks="; ".join(f"{s.name} {_(s.description)}" for s in STOCKS.values())))
    p.add_argument("-o", "--output", required=True, metavar="OUT", help=_("OUT.pdf or OUT.svg"))
    p.add_argument("--force", action="store_true", help=_("replace an existing output file"))
    teach(p, [("dealer labels --set RED --boards 1-32 -o labels.pdf", _("one label a board of set RED")),
              ("dealer labels --set A1 --boards 1-28 -o a1.svg", _("a drawing, to print elsewhere"))],
          _("NAME is the board set written on the labels (1-12 letters or digits, as in a plan's sets); RANGE "
          "boards like 1-32.\nA label carries SET:BOARD:DV:C in Code 128: the machine reads it before "
          "dealing, and refuses another board (Law 2)."))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    outputs.prepare(args.output, outputs.LABEL_KINDS, "board labels", force=args.force)
    boards = parse_board_range(args.boards)
    try:
        labels = [BoardLabel.for_board(args.set, n) for n in boards]
        for label in labels:
            label.payload()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    outputs.write_labels(args.output, [lb for lb in labels for _ in range(args.copies)], STOCKS[args.stock],
                         force=args.force)
    print(_("wrote {labels} labels for {boards} boards to {file}").format(
        labels=len(labels) * args.copies, boards=len(boards), file=args.output))
    return 0
