"""`dealer records`: the hand-record sheet of a deal file, as PDF or HTML.

The hands appear only in the output file; the screen shows just how many boards were written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dealer import formats
from dealer.cli.live import add_view_option, task_progress
from dealer.cli.options import board_range, count_from_1
from dealer.cli.reading import add_reading_options, read_deals, reading_options, show
from dealer.cli.teaching import teach
from dealer.core.boards import parse_file_boards
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.language import _, n_
from dealer.printing import doubledummy, outputs
from dealer.printing.handview import TEN_STYLES


def register(sub: Any) -> None:
    p = sub.add_parser("records", help=_("print hand records (PDF or HTML) from a deal file"),
                       description=_("Hand records: per board the number, dealer, vulnerability, the four "
                                   "hands with their HCP and, with the 'dd' extra, double-dummy tricks and par."))
    add_deal_options(p)
    p.add_argument("-o", "--output", required=True, metavar="OUT", help=_("OUT.pdf or OUT.html"))
    p.add_argument("--per-page", type=count_from_1, default=6, metavar="N",
                   help=_("boards a page (default: %(default)s)"))
    dd = p.add_mutually_exclusive_group()
    dd.add_argument("--dd", dest="dd", action="store_true", default=None,
                    help=_("require double-dummy tricks and par (default: when the 'dd' extra is installed)"))
    dd.add_argument("--no-dd", dest="dd", action="store_false", help=_("leave out double-dummy analysis"))
    add_view_option(p)
    teach(p, [("dealer records session.pbn -o records.pdf", _("hand records, 6 boards a page")),
              ("dealer records session.pbn -o records.html --no-dd", _("a web page, without double dummy")),
              ("dealer records session.pbn -o r.pdf --boards 1-16 --title 'Club pairs'", "")],
          _("FILE is a deal file; OUT.pdf needs the 'print' extra, double-dummy tricks and par the 'dd' extra "
          "(pip install\n'duplicate-bridge-dealer[print,dd]'). The hands go into OUT alone, never on the screen."))
    p.set_defaults(func=run)


def add_deal_options(p: argparse.ArgumentParser) -> None:
    """Options shared by the commands that print hands from a deal file."""
    p.add_argument("file", metavar="FILE", help=_("deal file (format from its extension)"))
    p.add_argument("--format", choices=formats.format_names(), help=_("deal file format (default: from extension)"))
    p.add_argument("--boards", type=board_range, metavar="RANGE", help=_("only these boards, e.g. 1-16 or 3,7"))
    p.add_argument("--title", metavar="TEXT", help=_("event title (default: the file's event, else its name)"))
    p.add_argument("--ten", choices=TEN_STYLES, default="10", help=_("print the ten as 10 or T (default: 10)"))
    add_reading_options(p, partial=True)
    p.add_argument("--force", action="store_true", help=_("replace an existing output file"))


def load_deals(args: argparse.Namespace) -> tuple[DealSet, str]:
    """The boards the command prints and the title to print over them (partial deals skipped and listed,
    unless --strict). What the reading noted is shown here: printing commands fail before reading."""
    deals, notes = read_deals(args.file, args.format, reading_options(args, skip_partial=True))
    if args.boards:
        wanted = parse_file_boards(args.boards, int(deals.boards.max()), args.file)
        missing = [b for b in wanted if b not in set(deals.boards.tolist())]
        if missing:
            raise UsageError(_("{file}: has no board {boards}").format(file=args.file, boards=missing[0]))
        deals = deals.select(wanted)
    title = args.title or deals.event or Path(args.file).stem
    show(notes)
    return deals, title


def run(args: argparse.Namespace) -> int:
    outputs.prepare(args.output, outputs.RECORD_KINDS, "hand records", force=args.force)
    if not 1 <= args.per_page <= outputs.MAX_PER_PAGE:
        raise UsageError(_("--per-page must be 1 to {most}; got {value}").format(
            most=outputs.MAX_PER_PAGE, value=args.per_page))
    if args.dd:
        doubledummy.require_solver()
    deals, title = load_deals(args)
    if args.dd is False or (args.dd is None and not doubledummy.solver_available()):
        views = outputs.views_for(deals, args.ten, False)
    else:
        with task_progress(_("double-dummy analysis"), len(deals), plain=args.plain) as advance:
            told = [0]

            def progress(done: int, total: int) -> None:
                advance(done - told[0])
                told[0] = done

            views = outputs.views_for(deals, args.ten, True, progress=progress)
    outputs.write_records(args.output, views, title, per_page=args.per_page, force=args.force)
    print(wrote(len(deals), args.output))
    return 0



def wrote(count: int, path: str) -> str:
    """The one line a printing command shows: how many boards went into which file."""
    return n_("wrote {count} board to {path}", "wrote {count} boards to {path}", count).format(count=count, path=path)
