"""`dealer deal`: deal a deal file, or a whole congress plan, on machines, every board checked and recounted."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from dealer.cli.history import history_option, history_target
from dealer.cli.live import add_view_option, run_view
from dealer.cli.options import board_range, board_set, count_from_1, seconds, speak_the_plans
from dealer.cli.reading import add_reading_options, read_deals_for_dealing, reading_options, show
from dealer.cli.teaching import teach
from dealer.core.boards import copy_set_names, parse_file_boards
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.core.outfile import check_writable
from dealer.dealing.context import RunLimits
from dealer.dealing.run import RunOptions, RunResult, deal_session, raise_for
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions
from dealer.journal.database_url import JournalPlace, record_place
from dealer.language import N_, _


def register(sub: Any) -> None:
    p = sub.add_parser("deal", help=_("deal a deal file or a congress plan on dealing machines, checking and "
                                    "recounting every board"),
                       description=_("Deal every board of FILE (in copies) on the machines given with --port, or "
                                   "every session of a congress plan (--plan) on the plan's machines, checking "
                                   "each board's label before dealing and recounting it after. Every step is "
                                   "journalled: after any crash, run the same command with --resume. One "
                                   "process at a time holds a journal; a second is refused (exit 10), naming "
                                   "the first. Deals dealt before on this computer (its deal history) are "
                                   "refused unless the event is a replay (Law 6D2, exit 8); deals made under "
                                   "conditions (dealer generate --where) unless the run is a teaching run (Law 6E4, "
                                   "exit 8). Ctrl-C, SIGTERM or "
                                   "SIGHUP stop the run cleanly and print the command that resumes it (exit "
                                   "130); a journal that cannot be written (disk full, read-only) stops it as "
                                   "cleanly (exit 9)."))
    p.add_argument("file", metavar="FILE", nargs="?", help=_("deal file (PBN, DUP, DLM, ...)"))
    p.add_argument("--plan", metavar="PLAN.toml",
                   help=_("deal a congress plan: each session its own run on the plan's journal and machines"))
    p.add_argument("--session", action="append", metavar="NAME",
                   help=_("with --plan: deal only this session (repeat for several; default: every session "
                        "not dealt yet)"))
    machine_options(p, port_required=False)
    p.add_argument("--copies", type=count_from_1, default=None, metavar="N",
                   help=_("copies of each board (Law 6F); copy k goes into set NAMEk (not with --plan)"))
    p.add_argument("--journal", metavar="PATH", help=_("journal file (default: FILE.journal, or the plan's)"))
    p.add_argument("--resume", action="store_true", help=_("continue the unfinished run(s) of this file or plan"))
    p.add_argument("--replay", action="store_true",
                   help=_("allow deals already dealt in another run (a replay event, or more copies later; Law "
                        "6D2); a plan marks its replay sessions itself"))
    p.add_argument("--teaching", action="store_true",
                   help=_("a teaching run: deal a file of prepared boards (made under conditions, which Law 6E4 keeps "
                        "out of an event) or any deal file for a lesson; its deals go into the practice history "
                        "beside the journal, never the club's (a plan says kind = \"teaching\" itself)"))
    p.add_argument("--report", metavar="FILE",
                   help=_("write a run report: FILE.csv (figures; fault texts only with --show-cards), FILE.txt "
                        "(readable summary), else JSON (fault codes, Laws and actions; the cards they name "
                        "only with --show-cards, and the file is then mode 0600)"))
    p.add_argument("--force", action="store_true", help=_("replace an existing --report file"))
    p.add_argument("--deal-timeout", type=seconds, default=RunLimits.deal_timeout, metavar="SECONDS",
                   help=_("seconds a deal may take (default {seconds:g})").format(seconds=RunLimits.deal_timeout))
    p.add_argument("--max-attempts", type=count_from_1, default=RunLimits.max_attempts, metavar="N",
                   help=_("times a faulted board is redealt (default {times})").format(times=RunLimits.max_attempts))
    history_option(p)
    teach(p, [("dealer deal session.pbn --port /dev/ttyUSB0", _("deal every board, one copy")),
              ("dealer deal session.pbn --port /dev/ttyUSB0 --resume", _("after any crash: on from where it stopped")),
              ("dealer deal session.pbn --port COM3 --port COM4 --copies 2", _("two machines, sets A1 and A2")),
              ("dealer deal session.pbn --port 'sim://?speed=50'", _("on the built-in simulated machine")),
              ("dealer deal lesson.pbn --port /dev/ttyUSB0 --teaching", _("prepared boards for a lesson")),
              ("dealer deal session.pbn --port /dev/ttyUSB0 > deal.log", _("the summary into deal.log")),
              ("dealer deal --plan congress.toml", _("a congress: every session on the plan's machines"))],
          _("FILE is a deal file; URL a machine's port (dealer ports --probe finds it): /dev/ttyUSB0, COM3, "
          "socket://host:port,\nrfc2217://host:port or sim://...; RANGE boards like 1-16; NAME the board set "
          "on the labels; PLAN.toml a congress\nplan (examples/congress.toml). The summary goes to standard "
          "output, progress to standard error."))
    p.set_defaults(func=run_deal)


def machine_options(p: argparse.ArgumentParser, *, port_required: bool = True) -> None:
    p.add_argument("--port", action="append", required=port_required, metavar="URL",
                   help=_("machine port: /dev/ttyUSB0, COM3, socket://host:port, rfc2217://host:port, sim:// "
                        "(repeat for several machines); spy://PORT?file=TRACE writes a wire trace, which holds "
                        "every deal in clear (mode 0600)"))
    p.add_argument("--boards", type=board_range, metavar="RANGE", help=_("only these boards of the file, e.g. 1-16"))
    p.add_argument("--set", dest="set_name", type=board_set, metavar="NAME",
                   help=_("board set name on the labels (default A): 1-12 letters or digits, with room for the copy "
                        "number when copy k of several goes into set NAMEk"))
    p.add_argument("--board-timeout", type=seconds, default=RunLimits.board_timeout, metavar="SECONDS",
                   help=_("seconds to wait for the operator to insert a board (default {seconds:g})").format(
                       seconds=RunLimits.board_timeout))
    p.add_argument("--show-cards", action="store_true",
                   help=_("name cards in fault lines (they reveal the deal; when dealing, a board whose cards "
                        "were shown is verified with the warning F12, Law 16D)"))
    p.add_argument("--quiet", action="store_true", help=_("show no progress, only the summary"))
    add_view_option(p)
    add_reading_options(p, partial=False)


def load_deals(path: str, boards: str | None, options: ReadOptions = DEFAULT_OPTIONS) -> DealSet:
    """The deal file's boards, or the selected ones: each board number once (repeats of the same deal
    kept once, different deals under one number refused unless the options choose a game), and every
    deal full - a partial deal refuses the file, naming its board."""
    deals, notes, guessed = read_deals_for_dealing(path, replace(options, skip_partial=False))
    if guessed is not None:  # a deal dealt into the wrong board breaks Law 2 and the hands of a turned BHG
        raise UsageError(guessed)
    if len(np.unique(deals.boards)) != len(deals):  # the journal holds one job a board: refuse here, not there
        raise UsageError(_("{path}: a board number comes twice").format(path=path))
    if boards:
        wanted = parse_file_boards(boards, int(deals.boards.max()), path)
        missing = [b for b in wanted if b not in set(int(x) for x in deals.boards)]
        if missing:
            raise UsageError(_("{path}: no board {board} in the file").format(path=path, board=missing[0]))
        deals = deals.select(wanted)
    show(notes)
    return deals


def run_deal(args: argparse.Namespace) -> int:
    if args.report:  # before anything is dealt: a report that cannot be written would be lost at the end
        check_report(args)
    result = _deal_plan(args) if args.plan else _deal_file(args)
    if result.summary:  # none for a run whose journal was damaged: its one line says what is known
        print(result.summary, file=sys.stdout, flush=True)
    raise_for(result)
    return 0


def check_report(args: argparse.Namespace) -> None:
    """The --report file can be written, and is neither the deal file, the plan nor the journal (which
    --force would replace)."""
    check_writable(args.report, force=args.force)
    report = Path(args.report).resolve()
    is_deal_file = N_("--report {report} is the deal file: give the report a file of its own")
    is_plan = N_("--report {report} is the plan: give the report a file of its own")
    is_journal = N_("--report {report} is the journal: give the report a file of its own")
    for said, given in ((is_deal_file, args.file), (is_plan, args.plan), (is_journal, args.journal),
                        (is_journal, args.file and args.file + ".journal")):
        if given and Path(given).resolve() == report:
            raise UsageError(_(said).format(report=args.report))


def _common(args: argparse.Namespace, journal: JournalPlace, ports: list[str], title: str) -> RunOptions:
    limits = RunLimits(board_timeout=args.board_timeout, deal_timeout=args.deal_timeout,
                       max_attempts=args.max_attempts)
    return RunOptions(ports=ports, journal=journal, copies=args.copies or 1,
                      set_name=args.set_name or "A", resume=args.resume,
                      replay=args.replay, teaching=args.teaching,
                      report=Path(args.report) if args.report else None, force=args.force,
                      show_cards=args.show_cards,
                      quiet=args.quiet, limits=limits, out=sys.stderr, view=run_view(args.plain), title=title,
                      history=history_target(args))  # None: practice beside the journal, else this computer's


def _deal_file(args: argparse.Namespace) -> RunResult:
    if args.file is None:
        raise UsageError(_("dealer deal: give a deal FILE (with --port) or --plan PLAN.toml"))
    if not args.port:
        raise UsageError(_("dealer deal: give at least one machine with --port"))
    if args.session:
        raise UsageError(_("--session goes with --plan"))
    copy_set_names(args.set_name or "A", args.copies or 1)  # the labels of every copy, before the file is read
    deals = load_deals(args.file, args.boards, reading_options(args, skip_partial=False))
    journal = record_place(args.journal) if args.journal else Path(args.file + ".journal")
    return deal_session(deals, str(Path(args.file).resolve()), _common(args, journal, args.port, args.file))


def _deal_plan(args: argparse.Namespace) -> RunResult:
    from dealer.plan import Plan
    from dealer.plan.run import deal_plan

    given = [flag for flag, value in (("FILE", args.file), ("--port", args.port), ("--copies", args.copies),
                                      ("--set", args.set_name), ("--boards", args.boards),
                                      ("--replay", args.replay), ("--teaching", args.teaching),
                                      ("--first-board", args.first_board),
                                      ("--first-game/--game", args.game),
                                      ("--skip-results-only", args.skip_results_only),
                                      ("--number-in-order", args.number_in_order)) if value]
    if given:
        raise UsageError(_("dealer deal --plan: {option} does not go with a plan (the plan names the sessions, their "
                           "boards, copies, board sets, replays and machines)").format(option=given[0]))
    plan = Plan.load(args.plan)
    speak_the_plans(args, plan.event.lang)
    journal = record_place(args.journal) if args.journal else plan.event.journal
    return deal_plan(plan, _common(args, journal, [], plan.event.name), args.session)
