"""`dealer squaredeal`: SquareDeal commit-reveal with SquareDeal 2.x .sqd/.sqk files.

create -> add-phase -> publish (keys drawn, KH fixed) -> set-dv (once the delayed value is public)
-> generate (the deal files) -> verify (anyone, once the .sqk is revealed). Keys and deals are
never printed; the .sqk is created with mode 0600.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dealer import formats
from dealer import squaredeal as sq
from dealer.cli.teaching import teach
from dealer.core.boards import format_board_range
from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError, UsageError, VerificationError
from dealer.core.outfile import PUBLIC_MODE, SECRET_MODE, check_writable, write_bytes, write_text
from dealer.formats.reading import ReadOptions
from dealer.language import _, n_


def register(sub: Any) -> None:
    p = sub.add_parser("squaredeal", help=_("SquareDeal commit-reveal: publish a key hash, regenerate, verify"),
                       description=_("Prove deals were fixed in advance, compatible with SquareDeal 2.x files: "
                                   "publish a hash of secret session keys before the event, add a value nobody "
                                   "knew in advance, reveal the keys after it; anyone can then regenerate and "
                                   "check every deal."))
    teach(p, [("dealer squaredeal create EVENT.sqd --event 'Spring Pairs'",
               _("1. a new event (and a secret EVENT.sqk)")),
              ("dealer squaredeal add-phase EVENT.sqd 3 1-24 SP#", _("2. three sessions of boards 1-24")),
              ("dealer squaredeal publish EVENT.sqd", _("3. draw the keys; publish EVENT.sqd")),
              ("dealer squaredeal set-dv EVENT.sqd 41234.56", _("4. the delayed value, once public")),
              ("dealer squaredeal generate EVENT.sqd SP1 -o deals", _("5. the deal files of a session")),
              ("dealer squaredeal verify EVENT.sqd deals/SP1.pbn", _("6. anyone, after the keys are revealed"))],
          _("SQD is the event's public .sqd file; SQK its secret key file (default: beside the .sqd, mode 0600); "
          "STEP one of the\nsteps above, each with its own --help."))
    steps = p.add_subparsers(dest="step", metavar="STEP", required=True,
                             help=_("the step of the event to take (dealer squaredeal STEP --help tells more)"))
    _register_preparation(steps)
    _register_dealing(steps)


def _register_preparation(steps: Any) -> None:
    c = steps.add_parser("create", help=_("start a new event: a .sqd file and an empty secret .sqk"),
                         description=_("Start a SquareDeal event: the public .sqd file (event name, the delayed "
                                     "information to come) and an empty secret .sqk beside it."))
    c.add_argument("sqd", metavar="SQD", help=_("the event file to create (public once published)"))
    c.add_argument("--event", metavar="NAME", help=_("event name (TN)"))
    c.add_argument("--delayed-info", metavar="TEXT", help=_("which delayed information will be used (DI)"))
    c.add_argument("--sqk", metavar="SQK", help=_("key file (default: beside the .sqd)"))
    c.add_argument("--force", action="store_true", help=_("replace existing files"))
    teach(c, [("dealer squaredeal create EVENT.sqd --event 'Spring Pairs' --delayed-info 'DJIA close 2025-05-02'",
               "")], _("TEXT says which public value, unknown before the event, will be added (set-dv)."))
    c.set_defaults(func=run_create)

    a = steps.add_parser("add-phase", help=_("add a phase of sessions (before publishing)"),
                         description=_("Add a phase to the event: a number of sessions of the same boards, named "
                                     "from a prefix. Only before publishing."))
    a.add_argument("sqd", metavar="SQD", help=_("the event file"))
    a.add_argument("sessions", metavar="SESSIONS", help=_("number of sessions (0: open-ended)"))
    a.add_argument("boards", metavar="BOARDS", help=_("boards per session: 16, 1-16,17-32, 3x7 or ?"))
    a.add_argument("prefix", metavar="PREFIX", help=_("file name prefix; # becomes the session number"))
    a.add_argument("description", metavar="DESCRIPTION", nargs="?", default="",
                   help=_("what the phase is, e.g. 'Round robin' (optional)"))
    teach(a, [("dealer squaredeal add-phase EVENT.sqd 3 1-24 SP#", _("sessions SP1, SP2, SP3 of boards 1-24")),
              ("dealer squaredeal add-phase EVENT.sqd 1 32 FIN 'Final'", _("one session FIN of boards 1-32"))])
    a.set_defaults(func=run_add_phase)

    u = steps.add_parser("publish", help=_("draw the session keys into the .sqk and fix KH in the .sqd"),
                         description=_("Draw a secret key for every session into the .sqk and write their hash "
                                     "(KH) into the .sqd: publish the .sqd now, keep the .sqk secret until the "
                                     "event is over."))
    u.add_argument("sqd", metavar="SQD", help=_("the event file"))
    u.add_argument("--sqk", metavar="SQK", help=_("key file (default: beside the .sqd)"))
    teach(u, [("dealer squaredeal publish EVENT.sqd", _("keys into EVENT.sqk, their hash into EVENT.sqd"))])
    u.set_defaults(func=run_publish)

    v = steps.add_parser("set-dv", help=_("record the delayed value (DV) once it is public"),
                         description=_("Record the delayed value: the public information, unknown when the keys "
                                     "were published, that every deal also depends on."))
    v.add_argument("sqd", metavar="SQD", help=_("the event file"))
    v.add_argument("value", metavar="VALUE",
                   help=_("the delayed value as published, e.g. a closing index or lottery numbers"))
    v.add_argument("--force", action="store_true", help=_("replace a delayed value already recorded"))
    teach(v, [("dealer squaredeal set-dv EVENT.sqd '41234.56'", _("the value the .sqd's DI line announced"))])
    v.set_defaults(func=run_set_dv)


def _register_dealing(steps: Any) -> None:
    g = steps.add_parser("generate", help=_("write the deal files of sessions (FIN1, OPRR05, FIN1-2, ...)"),
                         description=_("Write the deal files of sessions, from the keys and the delayed value, "
                                     "as SquareDeal names them (PREFIX and session number)."))
    g.add_argument("sqd", metavar="SQD", help=_("the event file"))
    g.add_argument("sessions", metavar="SESSION", nargs="+",
                   help=_("session names: FIN1, OPRR05, or sessions joined into one file (FIN1-2) when their boards "
                        "follow on"))
    g.add_argument("--sqk", metavar="SQK", help=_("key file (default: beside the .sqd)"))
    g.add_argument("--reserve", action="store_true", help=_("the reserve sets instead of the originals"))
    g.add_argument("--boards", metavar="BOARDS", help=_("boards of a phase whose count is '?'"))
    g.add_argument("-o", "--output", required=True, metavar="DIR", help=_("folder for the .pbn files"))
    g.add_argument("--force", action="store_true", help=_("replace existing files"))
    teach(g, [("dealer squaredeal generate EVENT.sqd SP1 -o deals", _("deals/SP1.pbn")),
              ("dealer squaredeal generate EVENT.sqd SP2 SP3 -o deals --reserve",
               _("the reserve sets of SP2 and SP3"))],
          _("DIR is the folder for the .pbn files; BOARDS the boards of a phase whose count is '?'."))
    g.set_defaults(func=run_generate)

    f = steps.add_parser("verify", help=_("check the keys against KH and each deal file against its session"),
                         description=_("Check the revealed keys against the hash published before the event, then "
                                     "each deal file against the deals its session regenerates to."))
    f.add_argument("sqd", metavar="SQD", help=_("the event file"))
    f.add_argument("files", metavar="FILE", nargs="+",
                   help=_("deal files named as SquareDeal names them (.pbn, the published .goe, or any format; "
                        "a file without board numbers is taken from the session's first board)"))
    f.add_argument("--sqk", metavar="SQK", help=_("key file (default: beside the .sqd)"))
    f.add_argument("--boards", metavar="BOARDS", help=_("boards of a phase whose count is '?'"))
    teach(f, [("dealer squaredeal verify EVENT.sqd --sqk EVENT.sqk FIN1.pbn FIN1.goe", _("each file: matches or not"))],
          _("Exit code 8 when a file does not match its session."))
    f.set_defaults(func=run_verify)


# --- files ----------------------------------------------------------------------------------


def write_event(path: str | Path, event: sq.SquareDealEvent) -> None:
    """Rewrite a .sqd file atomically (it is published: no key in it)."""
    write_text(path, sq.format_sqd(event), force=True, encoding="utf-8", mode=PUBLIC_MODE)


def key_path(sqd: str, sqk: str | None) -> Path:
    return Path(sqk) if sqk else Path(sqd).with_suffix(".sqk")


# --- steps ----------------------------------------------------------------------------------


def run_create(args: argparse.Namespace) -> int:
    keys = key_path(args.sqd, args.sqk)
    check_writable(args.sqd, force=args.force)
    check_writable(keys, force=args.force)
    event = sq.new_event(args.event, args.delayed_info)
    write_text(args.sqd, sq.format_sqd(event), force=args.force, mode=PUBLIC_MODE)
    write_bytes(keys, b"", force=args.force, mode=SECRET_MODE)
    print(_("created {sqd} and an empty key file {keys} (keep it secret)").format(sqd=args.sqd, keys=keys))
    return 0


def run_add_phase(args: argparse.Namespace) -> int:
    if not args.sessions.isdigit():
        raise UsageError(_("SESSIONS {sessions} is not a number").format(sessions=repr(args.sessions)))
    event = sq.add_phase(sq.read_sqd(args.sqd), int(args.sessions), args.boards, args.prefix, args.description)
    write_event(args.sqd, event)
    phase = event.phases[-1]
    print(_("phase {number}: {phase}").format(number=len(event.phases), phase=phase.line()))
    return 0


def run_publish(args: argparse.Namespace) -> int:
    event, data = sq.publish(sq.read_sqd(args.sqd))
    keys = key_path(args.sqd, args.sqk)
    write_bytes(keys, data, force=True, mode=SECRET_MODE)
    write_event(args.sqd, event)
    print(_("published: KH {hash} in {sqd}; {count} session keys in {keys} - keep it secret until the event is "
            "over").format(hash=event.key_hash, sqd=args.sqd, count=len(event.key_idents()), keys=keys))
    return 0


def run_set_dv(args: argparse.Namespace) -> int:
    event = sq.read_sqd(args.sqd)
    if event.delayed_value is not None and not args.force:
        raise UsageError(_("the delayed value is already {value}; use --force to change it").format(
            value=repr(event.delayed_value)))
    event = sq.set_delayed_value(event, args.value)
    write_event(args.sqd, event)
    if event.delayed_value != args.value:  # as SquareDeal 2.6 warns: "Input changed, Delayed Value is now ..."
        print(_("dealer: input changed (spacing, or '.' and ',' inside numbers dropped): the delayed value is now "
                "{value}").format(value=repr(event.delayed_value)), file=sys.stderr)
    print(f"DV {event.delayed_value}")
    return 0


def run_generate(args: argparse.Namespace) -> int:
    event = sq.read_sqd(args.sqd)
    keys = sq.read_sqk(event, key_path(args.sqd, args.sqk))
    refs = [sq.resolve_session(event, name) for name in args.sessions]
    if args.reserve:
        refs = [sq.SessionRef(r.phase, r.first, r.last, True) for r in refs]
    folder = Path(args.output)
    folder.mkdir(parents=True, exist_ok=True)
    targets = [folder / f"{sq.file_name(event, ref)}.pbn" for ref in refs]
    for target in targets:
        check_writable(target, force=args.force)
    for ref, target in zip(refs, targets, strict=True):
        deals = sq.session_deals(event, keys, ref, args.boards)
        formats.write_file(target, deals, force=args.force)
        boards = format_board_range([int(b) for b in deals.boards])
        print(_("wrote {file} (boards {boards})").format(file=target, boards=boards))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    event = sq.read_sqd(args.sqd)
    keys = sq.read_sqk(event, key_path(args.sqd, args.sqk))
    failures = 0
    sessions: dict[sq.SessionRef, DealSet] = {}
    for name in args.files:
        problem = verify_file(event, keys, Path(name), args.boards, sessions)
        if problem:
            failures += 1
            print(f"{name}: {problem}")
        else:
            print(_("{file}: matches").format(file=name))
    if failures:
        raise VerificationError(n_("{failures} of {total} files do not match their sessions",
                                   "{failures} of {total} files do not match their sessions", len(args.files)).format(
            failures=failures, total=len(args.files)))
    return 0


def verify_file(event: sq.SquareDealEvent, keys: dict[str, str], path: Path, boards: str | None,
                sessions: dict[sq.SessionRef, DealSet] | None = None) -> str | None:
    """None if the file holds exactly its session's boards (numbers, deals, dealers, vulnerabilities), else
    the first board and field that differ (one line). A file without board numbers (a ``.goe``, BRI, ...)
    is numbered from the session's first board; one that numbers its boards (PBN) is read as it numbers
    them, so a missing first Board tag is board 1, as any reader takes it. `sessions` keeps the sessions
    regenerated so far, for the files of one command."""
    try:
        ref = sq.resolve_session(event, path.stem)
        expected = sessions.get(ref) if sessions is not None else None
        if expected is None:
            expected = sq.session_deals(event, keys, ref, boards)
            if sessions is not None:
                sessions[ref] = expected
        numbered = formats.format_for_path(path).NUMBERED  # a file that numbers its boards is read as it does
        found = formats.read_file(path, options=ReadOptions(first_board=None if numbered else int(expected.boards[0])))
    except DealerError as exc:
        return str(exc)
    return sq.first_difference(expected, found)
