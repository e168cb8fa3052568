"""`dealer deal`: deal a deal file on one or more machines, every board checked and recounted."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dealer import formats
from dealer.boards import parse_board_range
from dealer.dealset import DealSet
from dealer.errors import UsageError
from dealer.run import RunOptions, deal_session, raise_for


def register(sub: Any) -> None:
    p = sub.add_parser("deal", help="deal a deal file on dealing machines, checking and recounting every board",
                       description="Deal every board of FILE (in copies) on the machines given with --port, "
                                   "checking each board's label before dealing and recounting it after. "
                                   "Every step is journalled: after any crash, run the same command with --resume.")
    p.add_argument("file", metavar="FILE", help="deal file (PBN, DUP, DLM, ...)")
    machine_options(p)
    p.add_argument("--copies", type=int, default=1, help="copies of each board (Law 6F); copy k goes into set NAMEk")
    p.add_argument("--journal", metavar="PATH", help="journal file (default: FILE.journal)")
    p.add_argument("--resume", action="store_true", help="continue the unfinished run of this deal file")
    p.add_argument("--replay", action="store_true",
                   help="allow deals already dealt in another run (a replay event, or more copies later; Law 6D2)")
    p.add_argument("--report", metavar="FILE", help="write a run report (JSON, with fault details)")
    p.add_argument("--deal-timeout", type=float, default=300.0, help="seconds a deal may take (default 300)")
    p.add_argument("--max-attempts", type=int, default=3, help="times a faulted board is redealt (default 3)")
    p.set_defaults(func=run_deal)


def machine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", action="append", required=True, metavar="URL",
                   help="machine port: /dev/ttyUSB0, COM3, socket://host:port, rfc2217://host:port, sim:// "
                        "(repeat for several machines)")
    p.add_argument("--boards", metavar="RANGE", help="only these boards of the file, e.g. 1-16")
    p.add_argument("--set", dest="set_name", default="A", metavar="NAME", help="board set name on the labels")
    p.add_argument("--board-timeout", type=float, default=600.0,
                   help="seconds to wait for the operator to insert a board (default 600)")
    p.add_argument("--show-cards", action="store_true", help="name cards in fault lines (they reveal the deal)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")


def load_deals(path: str, boards: str | None) -> DealSet:
    """The deal file's boards, or the selected ones."""
    deals = formats.read_file(path)
    if boards:
        wanted = parse_board_range(boards)
        missing = [b for b in wanted if b not in set(int(x) for x in deals.boards)]
        if missing:
            raise UsageError(f"{path}: no board {missing[0]} in the file")
        deals = deals.select(wanted)
    return deals


def run_deal(args: argparse.Namespace) -> int:
    deals = load_deals(args.file, args.boards)
    journal = Path(args.journal) if args.journal else Path(args.file + ".journal")
    options = RunOptions(ports=args.port, journal=journal, copies=args.copies, set_name=args.set_name.upper(),
                         resume=args.resume, replay=args.replay, report=Path(args.report) if args.report else None,
                         show_cards=args.show_cards, quiet=args.quiet, board_timeout=args.board_timeout,
                         deal_timeout=args.deal_timeout, max_attempts=args.max_attempts)
    result = deal_session(deals, str(Path(args.file).resolve()), options)
    print(result.summary, file=sys.stderr)
    raise_for(result)
    return 0
