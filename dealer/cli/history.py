"""`dealer history`: this computer's deal history (Law 6D2 beyond one journal): where it is and what it
holds (``dealer history``, its runs ``list``), ``forget RUN`` (a practice run recorded by mistake), its
``export FILE`` (hashes, never deals) and ``import FILE``, so that the controllers of a congress share
one; ``--history PATH`` or ``DEALER_HISTORY`` name another file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dealer.cli.teaching import teach
from dealer.core.errors import JournalError, UsageError
from dealer.journal.database_url import DatabaseURL, is_database_url
from dealer.language import N_, _, n_

PATH_NOTE = N_("PATH is a deal history file (an SQLite file; by default $DEALER_HISTORY, else history.sqlite in "
             "this user's\ndata folder). The history holds deal hashes, never deals.")


def history_option(p: argparse.ArgumentParser) -> None:
    """The `--history PATH` option of every command that reads or writes the deal history."""
    p.add_argument("--history", metavar="PATH", default=argparse.SUPPRESS,
                   help=_("the deal history file (default: $DEALER_HISTORY, else history.sqlite in this user's "
                        "data folder)"))


def history_target(args: argparse.Namespace) -> Path | DatabaseURL | None:
    """The history the command line names (a file, or a database by its postgresql:// URL), None for the
    default: what `dealer history` reads and writes."""
    given = getattr(args, "history", None)
    if not given:
        return None
    return DatabaseURL(given) if is_database_url(given) else Path(given)


def register(sub: Any) -> None:
    p = sub.add_parser("history", help=_("this computer's deal history (Law 6D2): show, list, forget, export, import"),
                       description=_("Every deal dealt on this computer is kept in its deal history by hash "
                                   "(never the deal), and a run whose deals are in it is refused unless it is "
                                   "a replay (Law 6D2). Export it on one computer and import it on another so "
                                   "that a congress's controllers share one history."))
    history_option(p)
    teach(p, [("dealer history", _("where this computer's history is, and how many deals it holds")),
              ("dealer history list", _("its runs: name, journal, time, deals")),
              ("dealer history export history.json", _("every entry into history.json")),
              ("dealer history import history.json", _("add another computer's entries to this one's"))],
          _(PATH_NOTE))
    p.set_defaults(func=run_show)
    actions = p.add_subparsers(dest="action", metavar="ACTION",
                               help=_("list, forget, export, import or init (none: show where the history is and what "
                                    "it holds)"))
    export = actions.add_parser("export", help=_("write every entry of the history to FILE (JSON, hashes only)"),
                                description=_("Write every entry of this computer's deal history to FILE (JSON: "
                                            "deal hashes with their run, journal, host and date; never a deal), "
                                            "private to this user, to import on another computer."))
    export.add_argument("file", metavar="FILE", help=_("the file to write (JSON)"))
    export.add_argument("--force", action="store_true", help=_("replace an existing FILE"))
    history_option(export)
    teach(export, [("dealer history export history.json", _("every entry into history.json")),
                   ("dealer history export /media/usb/history.json --force", _("replacing an older export"))],
          _(PATH_NOTE))
    export.set_defaults(func=run_export)
    imported = actions.add_parser("import", help=_("add the entries of an exported history FILE"),
                                  description=_("Add the entries of FILE, written by `dealer history export` on "
                                              "another computer, to this computer's deal history; entries it "
                                              "holds already are kept once. A file that is not such an export "
                                              "changes nothing."))
    imported.add_argument("file", metavar="FILE", help=_("a file written by dealer history export"))
    history_option(imported)
    teach(imported, [("dealer history import history.json", _("add another computer's entries")),
                     ("dealer history import history.json --history other.sqlite", _("into another history file "
                      "(made first with dealer history init other.sqlite)"))],
          _(PATH_NOTE))
    imported.set_defaults(func=run_import)
    listed = actions.add_parser("list", help=_("every run the history holds: its name, journal, time and deals"),
                                description=_("List every run the deal history holds, oldest first: the run's "
                                            "number (RUN, for forget), its name and journal, the host and time it "
                                            "was recorded, and how many deals it keeps."))
    history_option(listed)
    teach(listed, [("dealer history list", _("the runs of this computer's history")),
                   ("dealer history list --history examples/simulated-history.sqlite", _("a practice history's runs"))],
          _(PATH_NOTE))
    listed.set_defaults(func=run_list)
    forget = actions.add_parser("forget", help=_("remove one run's entries (asks first, unless --yes)"),
                                description=_("Remove every entry of one run from the deal history: its deals are "
                                            "then no longer refused as dealt before (Law 6D2). For a practice or "
                                            "test run recorded by mistake; never for a session that was played. "
                                            "All the run's entries go at once, or none."))
    forget.add_argument("run", metavar="RUN", help=_("the run's number as `dealer history list` shows it"))
    forget.add_argument("--yes", action="store_true", help=_("do not ask first"))
    history_option(forget)
    teach(forget, [("dealer history forget 3f2a9c1b", _("asks, then removes that run's entries")),
                   ("dealer history forget 3f2a9c1b --yes", _("without asking"))], _(PATH_NOTE))
    forget.set_defaults(func=run_forget)
    init = actions.add_parser("init", help=_("make a new, empty deal history at PATH"),
                              description=_("Make a new, empty deal history at PATH (its folder must exist), or in "
                                          "the PostgreSQL database of a postgresql:// URL. A history named by "
                                          "--history or $DEALER_HISTORY is never made unasked: a mistyped name "
                                          "would check a run against nothing."))
    init.add_argument("path", metavar="PATH", help=_("the history file to make (an SQLite file), or a database's "
                                                   "postgresql:// URL"))
    teach(init, [("dealer history init /srv/congress/history.sqlite", _("a history for a congress's controllers")),
                 ("export DEALER_HISTORY=/srv/congress/history.sqlite", _("then every command uses it")),
                 ("dealer history init postgresql://director@congress-server/dealer",
                  _("a history in PostgreSQL, shared by the room's computers"))], _(PATH_NOTE))
    init.set_defaults(func=run_init)


def not_made_yet(args: argparse.Namespace) -> bool:
    """True, having said so, when the history asked about is this user's own and none is made yet: reading
    it makes none."""
    from dealer.journal.history import named_target, own_path

    if history_target(args) is not None or named_target() is not None or own_path().is_file():
        return False
    print(_("deal history {path}: none yet (no run has been recorded on this computer)").format(path=own_path()))
    return True


def run_show(args: argparse.Namespace) -> int:
    from dealer.journal.history import DealHistory

    if not_made_yet(args):
        return 0
    with DealHistory.open(history_target(args)) as history:
        entries = history.entries()
        runs = {e.run_uid for e in entries}
        print(_head(history.path, len(entries), len(runs)))
    return 0


def _head(path: Path | DatabaseURL, deals: int, runs: int) -> str:
    """'deal history PATH: 8 deals of 1 run', the first line of `show` and `list`."""
    return _("deal history {path}: {deals} {of_runs}").format(
        path=path, deals=n_("{count} deal", "{count} deals", deals).format(count=deals),
        of_runs=n_("of {count} run", "of {count} runs", runs).format(count=runs))


SHOWN_DIGITS = 8
"""How much of a run's uid `dealer history list` shows: enough to name one run among many."""


def run_list(args: argparse.Namespace) -> int:
    from dealer.journal.history import DealHistory

    if not_made_yet(args):
        return 0
    with DealHistory.open(history_target(args)) as history:
        runs = history.runs()
        print(_head(history.path, sum(r.deals for r in runs), len(runs)))
        for run in runs:
            print(f"  {run.run_uid[:SHOWN_DIGITS]}  {run.where()}: {run.count()}")
    return 0


def run_forget(args: argparse.Namespace) -> int:
    import sys

    from dealer.journal.history import DealHistory

    given = args.run.strip().lower()
    if len(given) < 4:
        raise UsageError(_("RUN {run}: give the run's number as dealer history list shows it").format(
            run=repr(args.run)))
    with DealHistory.open(history_target(args)) as history:
        found = [r for r in history.runs() if r.run_uid.startswith(given)]
        if not found:
            raise UsageError(_("{path}: no run {run} in this deal history; dealer history list names its runs").format(
                path=history.path, run=args.run))
        if len(found) > 1:
            raise UsageError(_("{path}: {count} runs begin {run}; give more of the number").format(
                path=history.path, count=len(found), run=args.run))
        (run,) = found
        if not args.yes:
            if not sys.stdin.isatty():
                raise UsageError(_("dealer history forget {run} asks before it forgets {where}; give --yes to forget "
                                   "it without being asked").format(run=args.run, where=run.where()))
            answer = input(_("forget {where}, {count}? They will no longer be refused as dealt before. [y/N] ").format(
                where=run.where(), count=run.count()))
            if answer.strip().lower() not in ("y", "yes"):
                print(_("nothing forgotten"))
                return 0
        removed = history.forget(run.run_uid)
        print(n_("forgot {where}: {count} deal removed from the deal history {path}",
                 "forgot {where}: {count} deals removed from the deal history {path}", removed).format(
            where=run.where(), count=removed, path=history.path))
    return 0


def run_export(args: argparse.Namespace) -> int:
    from dealer.core.outfile import check_writable
    from dealer.journal.history import DealHistory

    check_writable(args.file, force=args.force)
    with DealHistory.open(history_target(args)) as history:
        count = history.export(args.file, force=args.force)
        print(_("exported {count} deals of the deal history {path} to {file}").format(
            count=count, path=history.path, file=args.file))
    return 0


def run_import(args: argparse.Namespace) -> int:
    from dealer.journal.history import DealHistory, read_export

    read_export(args.file)  # a bad file is refused before the history is opened
    with DealHistory.open(history_target(args)) as history:
        added, read = history.import_file(args.file)
        print(_("imported {file} into the deal history {path}: {added} new deals, {known} known already").format(
            file=args.file, path=history.path, added=added, known=read - added))
    return 0


def run_init(args: argparse.Namespace) -> int:
    from dealer.core.errors import OutputExistsError
    from dealer.journal.history import DealHistory

    if is_database_url(args.path):
        url = DatabaseURL(args.path)
        try:  # shared by a room: the second computer to make it finds it made
            with DealHistory.open(url) as found:
                count = len(found)
        except JournalError:
            count = None
        if count is not None:
            print(n_("the deal history {path} is there already ({count} deal); use it with --history {path} or "
                     "DEALER_HISTORY={path}",
                     "the deal history {path} is there already ({count} deals); use it with --history {path} or "
                     "DEALER_HISTORY={path}", count).format(path=url, count=count))
            return 0
        with DealHistory.open(url, create=True) as history:
            print(_("made the deal history {path} (empty); use it with --history {path} or DEALER_HISTORY={path}"
                    ).format(path=history.path))
        return 0
    where = Path(args.path)
    if where.exists() or where.is_symlink():
        raise OutputExistsError(_("{path}: exists; a deal history is never made over a file").format(path=where))
    if not where.parent.is_dir():
        raise UsageError(_("{path}: no folder {folder}; make it first").format(path=where, folder=where.parent))
    with DealHistory.open(where, create=True) as history:
        print(_("made the deal history {path} (empty); use it with --history {path} or DEALER_HISTORY={path}").format(
            path=history.path))
    return 0
