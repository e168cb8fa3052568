"""`dealer report JOURNAL`: the run report of a journal, rebuilt from the journal alone (`dealer.journal.run_report`).

On screen as a readable summary, or into a file as CSV, JSON or text (by its extension). The journal is
opened read-only, its lock not taken: a report of a live run may be made while it deals, undisturbed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dealer.cli.teaching import teach
from dealer.core.errors import JournalError, UsageError
from dealer.language import _, listed, speaking


def register(sub: Any) -> None:
    p = sub.add_parser("report", help=_("run report of a journal: boards/hour per machine, faults, operator actions"),
                       description=_("Rebuild the run report from a dealing journal alone: per machine boards "
                                   "verified and boards per hour, faults by type and Law, operator actions "
                                   "(refused boards, redeals, put-right prompts), per session boards left."))
    p.add_argument("journal", metavar="JOURNAL", help=_("the journal file of the runs"))
    p.add_argument("-o", "--output", metavar="FILE", help=_("write FILE.csv, FILE.json or a text summary "
                                                          "(default: the summary on screen)"))
    p.add_argument("--session", action="append", metavar="NAME",
                   help=_("only the runs of this session (or deal file) name; repeat for several"))
    p.add_argument("--force", action="store_true", help=_("replace an existing output file"))
    teach(p, [("dealer report congress.journal", _("the summary on the screen")),
              ("dealer report congress.journal -o report.csv", _("figures for a spreadsheet (or .json, .txt)")),
              ("dealer report congress.journal --session SAT1", _("one session's runs"))],
          _("JOURNAL is the journal a dealing run kept (dealer deal writes FILE.journal beside the deal file; a "
          "plan names its own)."))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Per machine the boards verified and boards per hour, faults by type and Law, operator actions, and
    per session the boards verified and left. Where the runs' deal files are at hand (and still hold the
    deals the journal's hashes prove were dealt), a short section on the deals' statistics too. The
    journal holds no deal and no card, and neither does the report."""
    from dealer.core.dealset import DealSet
    from dealer.core.outfile import PUBLIC_MODE, check_writable, write_text
    from dealer.journal import run_report as report
    from dealer.journal.database_url import record_place
    from dealer.journal.dealt import dealt_deals
    from dealer.journal.opening import journal_found, read_journal

    if not journal_found(record_place(args.journal)):
        raise JournalError(_("{journal}: no such journal").format(journal=args.journal))
    if args.output:
        check_writable(args.output, force=args.force)
    with read_journal(record_place(args.journal)) as journal:
        runs = journal.runs()
        if args.session:
            wanted = {name.casefold() for name in args.session}
            runs = [r for r in runs if r.name.casefold() in wanted]
            if not runs:
                raise UsageError(_("{journal}: no run of session {sessions}").format(
                    journal=args.journal, sessions=listed(args.session, style="or")))
        machine_read = args.output and Path(args.output).suffix.lower() in (".csv", ".json")
        with speaking("en" if machine_read else None):  # a file for programs keeps its words as they are
            rep = report.build(journal, [r.id for r in runs])
            chosen = {r.id for r in runs}
            found = [d.deals for d in dealt_deals(journal) if d.run.id in chosen and d.deals is not None]
            if found:
                report.add_deal_statistics(rep, DealSet.concat(found), _("the deals of {found} of {runs} runs").format(
                    found=len(found), runs=len(runs)))
            text = report.render(rep, args.output) if args.output else report.summary_text(rep)
    if args.output:
        write_text(args.output, text, force=args.force, mode=PUBLIC_MODE)
        print(_("wrote the report of {runs} run(s) to {file}").format(runs=len(rep.sessions), file=args.output))
    else:
        print(text, end="")
    return 0
