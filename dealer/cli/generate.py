"""`dealer generate`: a session's deals from an engine, written to a deal file. Deals and seeds are
never printed; a seed is kept only in the file `--seed-out` names (mode 0600)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dealer import engines, formats
from dealer.cli.teaching import teach
from dealer.core.boards import format_board_range, parse_board_range
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.core.outfile import SECRET_MODE, check_writable, write_text


def register(sub: Any) -> None:
    p = sub.add_parser("generate", help="generate deals for a range of boards into a deal file",
                       description="Generate random deals. Board numbers only label deals: with "
                                   "--boards 5-20 the boards get the first 16 deals of the stream. "
                                   "--boards 16 is board 16 alone; --count 16 is boards 1-16 (bigdealx -n 16).")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--boards", metavar="RANGE", help="boards, e.g. 1-32, 5-20, 7 (board 7 alone) or 1-16,21")
    which.add_argument("--count", type=int, metavar="N", help="boards 1-N (as bigdealx -n N)")
    p.add_argument("--engine", default=engines.DEFAULT_ENGINE, choices=engines.engine_names(),
                   help="deal engine (default: %(default)s, Big Deal compatible)")
    p.add_argument("--seed", metavar="HEX", help="reproduce a stream from its seed (bigdeal: 40 hex digits, "
                   "shuffle: 64); for audits and tests - a tournament takes a fresh seed")
    p.add_argument("--owner", default="", metavar="TEXT", help="bigdeal owner string (as bigdealx -W)")
    p.add_argument("--event", default="", metavar="NAME", help="event name written into the file")
    p.add_argument("--seed-out", metavar="FILE", help="keep the seed in FILE (created with mode 0600)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="deal file; extension picks the format")
    p.add_argument("--format", choices=formats.format_names(), help="file format (default: from extension)")
    p.add_argument("--blind", action="store_true",
                   help="DUP: blank board 1's cards for the DOS program (Big Deal's dupblind); DLM: Status=Sealed "
                        "(Big Deal's dlmblind)")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    teach(p, [("dealer generate --boards 1-32 -o session.pbn", "32 fresh deals, seed from the OS, none printed"),
              ("dealer generate --count 24 -o club.dlm", "boards 1-24 for a Duplimate"),
              ("dealer generate --boards 1-32 -o s.pbn --seed-out s.seed", "keep the seed (mode 0600) to redo it"),
              ("dealer generate --boards 1-16 --seed HEX --owner TEXT -o s.pbn", "as bigdealx -h HEX -W TEXT")],
          "RANGE is boards like 1-32, 5-20, 7 or 1-16,21; N a count of boards; HEX a seed in hexadecimal "
          "(bigdeal: 40\ndigits); FILE's extension picks the format (.pbn .dup .dlm .bri .dge .csv .ber .bhg .lin "
          ".rzd .cds .goe .json).")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.count is not None and args.count < 1:
        raise UsageError(f"--count must be 1 or more; got {args.count}")
    boards = parse_board_range(args.boards) if args.boards else list(range(1, args.count + 1))
    seed = engines.parse_seed(args.engine, args.seed) if args.seed else engines.fresh_seed(args.engine)
    module = formats.format_for_path(args.output, args.format)
    if args.blind and module.NAME not in ("dup", "dlm"):
        raise UsageError(f"--blind applies to DUP and DLM files, not {module.NAME.upper()}")
    check_writable(args.output, force=args.force)
    if args.seed_out:
        check_writable(args.seed_out, force=args.force)
    engine = engines.make_engine(args.engine, seed, args.owner)
    deals = DealSet.from_deals(engine.deals(len(boards)), boards, event=args.event,
                               metadata={"generator": f"dealer {args.engine}"})
    options = {"blind": True} if args.blind else {}
    formats.write_file(args.output, deals, args.format, force=args.force, **options)
    if args.seed_out:
        write_text(args.seed_out, engines.seed_record(args.engine, seed, args.owner), force=args.force,
                   mode=SECRET_MODE)
    hint = ""
    if args.boards and len(boards) == 1 and boards[0] > 1 and args.boards.strip().isdigit():
        hint = f" (--count {boards[0]} makes boards 1-{boards[0]}, as bigdealx -n {boards[0]} does)"
    print(f"wrote {made(boards)} to {args.output} with engine {args.engine}{hint}")
    for note in formats.written_notes(args.output, deals, module, blind=args.blind):
        print(f"dealer: {note}", file=sys.stderr)
    return 0


def made(boards: list[int]) -> str:
    """What was made, in words that cannot be misread: '1 board: board 16', '16 boards: boards 1-16'."""
    if len(boards) == 1:
        return f"1 board: board {boards[0]}"
    return f"{len(boards)} boards: boards {format_board_range(boards)}"

