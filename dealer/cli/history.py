"""`dealer history`: this computer's deal history (Law 6D2 beyond one journal): where it is and what it
holds (``dealer history``), its ``export FILE`` (hashes, never deals) and ``import FILE``, so that the
controllers of a congress share one; ``--history PATH`` or ``DEALER_HISTORY`` name another file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dealer.cli.teaching import teach
from dealer.core.errors import UsageError

PATH_NOTE = ("PATH is a deal history file (an SQLite file; by default $DEALER_HISTORY, else history.sqlite in "
             "this user's\ndata folder). The history holds deal hashes, never deals.")


def history_option(p: argparse.ArgumentParser) -> None:
    """The `--history PATH` option of every command that reads or writes the deal history."""
    p.add_argument("--history", metavar="PATH", default=argparse.SUPPRESS,
                   help="the deal history file (default: $DEALER_HISTORY, else history.sqlite in this user's "
                        "data folder)")


def history_path(args: argparse.Namespace) -> Path | None:
    """The history the command line names, None for the default."""
    given = getattr(args, "history", None)
    return Path(given) if given else None


def register(sub: Any) -> None:
    p = sub.add_parser("history", help="this computer's deal history (Law 6D2): show, export, import",
                       description="Every deal dealt on this computer is kept in its deal history by hash "
                                   "(never the deal), and a run whose deals are in it is refused unless it is "
                                   "a replay (Law 6D2). Export it on one computer and import it on another so "
                                   "that a congress's controllers share one history.")
    history_option(p)
    teach(p, [("dealer history", "where this computer's history is, and how many deals it holds"),
              ("dealer history export history.json", "every entry into history.json"),
              ("dealer history import history.json", "add another computer's entries to this one's")],
          PATH_NOTE)
    p.set_defaults(func=run_show)
    actions = p.add_subparsers(dest="action", metavar="ACTION",
                               help="export, import or init (none: show where the history is and what it holds)")
    export = actions.add_parser("export", help="write every entry of the history to FILE (JSON, hashes only)",
                                description="Write every entry of this computer's deal history to FILE (JSON: "
                                            "deal hashes with their run, journal, host and date; never a deal), "
                                            "private to this user, to import on another computer.")
    export.add_argument("file", metavar="FILE", help="the file to write (JSON)")
    export.add_argument("--force", action="store_true", help="replace an existing FILE")
    history_option(export)
    teach(export, [("dealer history export history.json", "every entry into history.json"),
                   ("dealer history export /media/usb/history.json --force", "replacing an older export")],
          PATH_NOTE)
    export.set_defaults(func=run_export)
    imported = actions.add_parser("import", help="add the entries of an exported history FILE",
                                  description="Add the entries of FILE, written by `dealer history export` on "
                                              "another computer, to this computer's deal history; entries it "
                                              "holds already are kept once. A file that is not such an export "
                                              "changes nothing.")
    imported.add_argument("file", metavar="FILE", help="a file written by dealer history export")
    history_option(imported)
    teach(imported, [("dealer history import history.json", "add another computer's entries"),
                     ("dealer history import history.json --history other.sqlite", "into another history file "
                      "(made first with dealer history init other.sqlite)")],
          PATH_NOTE)
    imported.set_defaults(func=run_import)
    init = actions.add_parser("init", help="make a new, empty deal history at PATH",
                              description="Make a new, empty deal history at PATH (its folder must exist). A "
                                          "history named by --history or $DEALER_HISTORY is never made "
                                          "unasked: a mistyped name would check a run against nothing.")
    init.add_argument("path", metavar="PATH", help="the history file to make (an SQLite file)")
    teach(init, [("dealer history init /srv/congress/history.sqlite", "a history for a congress's controllers"),
                 ("export DEALER_HISTORY=/srv/congress/history.sqlite", "then every command uses it")], PATH_NOTE)
    init.set_defaults(func=run_init)


def run_show(args: argparse.Namespace) -> int:
    from dealer.journal.history import DealHistory

    with DealHistory.open(history_path(args)) as history:
        entries = history.entries()
        runs = {e.run_uid for e in entries}
        print(f"deal history {history.path}: {len(entries)} deals of {len(runs)} runs")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from dealer.core.outfile import check_writable
    from dealer.journal.history import DealHistory

    check_writable(args.file, force=args.force)
    with DealHistory.open(history_path(args)) as history:
        count = history.export(args.file, force=args.force)
        print(f"exported {count} deals of the deal history {history.path} to {args.file}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from dealer.journal.history import DealHistory, read_export

    read_export(args.file)  # a bad file is refused before the history is opened
    with DealHistory.open(history_path(args)) as history:
        added, read = history.import_file(args.file)
        print(f"imported {args.file} into the deal history {history.path}: {added} new deals, "
              f"{read - added} known already")
    return 0


def run_init(args: argparse.Namespace) -> int:
    from dealer.core.errors import OutputExistsError
    from dealer.journal.history import DealHistory

    where = Path(args.path)
    if where.exists() or where.is_symlink():
        raise OutputExistsError(f"{where}: exists; a deal history is never made over a file")
    if not where.parent.is_dir():
        raise UsageError(f"{where}: no folder {where.parent}; make it first")
    with DealHistory.open(where, create=True) as history:
        print(f"made the deal history {history.path} (empty); use it with --history {history.path} or "
              f"DEALER_HISTORY={history.path}")
    return 0
