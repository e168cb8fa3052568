"""`dealer generate`: a session's deals from an engine, written to a deal file. Deals and seeds are
never printed; a seed is kept only in the file `--seed-out` names (mode 0600).

Deals are made and written in pieces on every core (`--threads`), so any number of boards takes
bounded memory in the formats that stream (PBN); the file is the same whatever the number of threads."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any, Final

import numpy as np

from dealer import engines, formats
from dealer.cli import prepared
from dealer.cli.options import board_range, seed_text
from dealer.cli.teaching import teach
from dealer.core.boards import format_board_spans, parse_board_spans
from dealer.core.dealset import DealSet
from dealer.core.digits import clipped, whole
from dealer.core.errors import FormatError, UsageError
from dealer.core.outfile import SECRET_MODE, check_writable, write_bytes
from dealer.core.parallel import MAX_THREADS
from dealer.formats import board_sets
from dealer.language import _, listed, n_

PIECE: Final = 1 << 18
"""Deals made and written at a time (about 14 MB of deals)."""


def register(sub: Any) -> None:
    p = sub.add_parser("generate", help=_("generate deals for a range of boards into a deal file"),
                       description=_("Generate random deals. Board numbers only label deals: with "
                                   "--boards 5-20 the boards get the first 16 deals of the stream. "
                                   "--boards 16 is board 16 alone; --count 16 is boards 1-16 (bigdealx -n 16)."))
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--boards", type=board_range, metavar="RANGE",
                       help=_("boards, e.g. 1-32, 5-20, 7 (board 7 alone) or 1-16,21"))
    which.add_argument("--count", type=int, metavar="N", help=_("boards 1-N (as bigdealx -n N)"))
    p.add_argument("--engine", default=engines.DEFAULT_ENGINE, choices=engines.engine_names(),
                   help=_("deal engine (default: %(default)s, Big Deal compatible)"))
    p.add_argument("--seed", type=seed_text, metavar="HEX",
                   help=_("reproduce a stream from its seed (bigdeal: 40 hex digits, shuffle: 64); for audits and "
                        "tests - a tournament takes a fresh seed"))
    owner = p.add_mutually_exclusive_group()
    owner.add_argument("--owner", default="", metavar="TEXT",
                       help=_("bigdeal owner (as bigdealx -W): its bytes as the command line gives them, in any "
                            "encoding"))
    owner.add_argument("--owner-hex", type=owner_hex, metavar="HEX",
                       help=_("the owner as bytes in hex: an owner Big Deal took in another code page (Windows: "
                            "cp1252), e.g. 5afc72696368 for Zürich there"))
    p.add_argument("--event", default="", metavar="NAME", help=_("event name written into the file"))
    p.add_argument("--seed-out", metavar="FILE", help=_("keep the seed in FILE (created with mode 0600)"))
    p.add_argument("-o", "--output", required=True, action="append", metavar="FILE",
                   help=_("deal file; extension picks the format; give -o again for the same deals in another file "
                        "too (as bigdealx -f dup,pbn)"))
    p.add_argument("--format", choices=formats.format_names(), help=_("file format (default: from extension)"))
    p.add_argument("--blind", action="store_true",
                   help=_("DUP: blank board 1's cards for the DOS program (Big Deal's dupblind); DLM: Status=Sealed "
                        "(Big Deal's dlmblind)"))
    p.add_argument("--force", action="store_true", help=_("replace existing output files"))
    p.add_argument("--threads", type=thread_count, metavar="N",
                   help=_("threads to make and write the deals on (default: one a CPU, at most {most}); the deals "
                          "are the same for any N").format(most=MAX_THREADS))
    prepared.register_options(p)
    teach(p, [("dealer generate --boards 1-32 -o session.pbn", _("32 fresh deals, seed from the OS, none printed")),
              ("dealer generate --count 24 -o club.dlm", _("boards 1-24 for a Duplimate")),
              ("dealer generate --boards 1-32 -o s.pbn --seed-out s.seed", _("keep the seed (mode 0600) to redo it")),
              ("dealer generate --boards 1-16 --seed HEX --owner TEXT -o s.pbn", _("as bigdealx -h HEX -W TEXT")),
              ("dealer generate --boards 1-24 --where lesson.dlr -o lesson.pbn",
               _("prepared boards for a lesson: only deals meeting the script")),
              ("dealer generate --count 8 --where 'hcp(north) >= 20' -o big.pbn", _("a condition given inline"))],
          _("RANGE is boards like 1-32, 5-20, 7 or 1-16,21; N a count of boards; HEX a seed in hexadecimal "
          "(bigdeal: 40\ndigits); FILE's extension picks the format (.pbn .dup .dlm .bri .dge .csv .ber .bhg .lin "
          ".rzd .cds .goe .json)."))
    p.set_defaults(func=run)


def thread_count(text: str) -> int:
    """--threads: a whole number from 1."""
    try:
        value = whole(text)
    except ValueError:  # (too many digits too)
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be a whole number from 1; got {text}").format(text=clipped(text)))
    return value


def owner_hex(text: str) -> bytes:
    """--owner-hex: hex digits, two a byte, spaces between bytes allowed."""
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("must be hex digits, two a byte; got {text}").format(text=repr(text))) \
            from None


def owner_of(args: argparse.Namespace) -> bytes:
    """The owner's bytes: --owner-hex, or --owner as the command line carried it (os.fsencode gives back the
    bytes Python decoded it from, whatever the terminal's encoding, as Big Deal's main receives them)."""
    return args.owner_hex if args.owner_hex is not None else os.fsencode(args.owner)


def run(args: argparse.Namespace) -> int:
    if args.count is not None and args.count < 1:
        raise UsageError(_("--count must be 1 or more; got {count}").format(count=args.count))
    spans = parse_board_spans(args.boards) if args.boards is not None else [(1, args.count)]
    count = sum(last - first + 1 for first, last in spans)
    prepared.check_options(args)
    seed = engines.parse_seed(args.engine, args.seed) if args.seed else engines.fresh_seed(args.engine)
    outputs = _outputs(args, spans)
    if args.seed_out:
        check_writable(args.seed_out, force=args.force)
    owner = owner_of(args)
    if args.where is not None:  # prepared boards: the deals meeting a script, held whole (boards are few)
        prepared.run(args, spans, seed, owner, outputs)
    for path, module in outputs if args.where is None else ():  # each file from the same seed: the same deals,
        engine = engines.make_engine(args.engine, seed, owner, threads=args.threads)  # made again, never held whole
        parts = pieces(engine, spans, event=args.event, metadata={"generator": f"dealer {args.engine}"})
        options = {"blind": True} if args.blind and module.NAME in BLIND_FORMATS else {}
        formats.write_file_parts(path, parts, module.NAME, force=args.force, threads=args.threads, **options)
    if args.seed_out:
        write_bytes(args.seed_out, engines.seed_record(args.engine, seed, owner), force=args.force,
                    mode=SECRET_MODE)
    first = spans[0][0]
    if args.boards and count == 1 and first > 1 and args.boards.strip().isdigit():  # 'bigdealx -n 16' meant?
        said = _("wrote 1 board: board {boards} to {files} with engine {engine} (--count {first} makes boards "
                 "1-{first}, as bigdealx -n {first} does)")
    elif count == 1:
        said = _("wrote 1 board: board {boards} to {files} with engine {engine}")
    else:
        said = n_("wrote {count} board: boards {boards} to {files} with engine {engine}",
                  "wrote {count} boards: boards {boards} to {files} with engine {engine}", count)
    print(said.format(count=count, first=first, boards=format_board_spans(spans), engine=args.engine,
                      files=listed(path for path, _module in outputs)))
    for path, module in outputs:
        for note in formats.notes_on_written(path, module, first=first, count=count,
                                             boards=lambda: shortened(format_board_spans(spans)),
                                             blind=args.blind and module.NAME in BLIND_FORMATS,
                                             one_run=len(board_sets.merged(spans)) == 1):
            print(f"dealer: {note}", file=sys.stderr)
    return 0


BLIND_FORMATS: Final = ("dup", "dlm")
"""The formats --blind applies to (Big Deal's dupblind and dlmblind)."""


def _outputs(args: argparse.Namespace, spans: list[tuple[int, int]]) -> list[tuple[str, ModuleType]]:
    """Each -o file with its format, every one checked before anything is made: a format that holds these
    boards, a file that may be written, no file named twice; --format and --blind where they apply."""
    paths: list[str] = args.output
    if len(paths) > 1 and args.format:
        raise UsageError(_("--format names the format of one -o file; with several, each file's extension gives its "
                           "own"))
    named = [os.path.normcase(os.path.abspath(p)) for p in paths]
    twice = next((p for p, n in zip(paths, named, strict=True) if named.count(n) > 1), None)
    if twice is not None:
        raise UsageError(_("-o {file} is given twice: each -o names a file of its own").format(file=twice))
    outputs = [(path, formats.format_for_path(path, args.format)) for path in paths]
    if args.blind and not any(module.NAME in BLIND_FORMATS for _, module in outputs):
        names = listed(module.NAME.upper() for _path, module in outputs)
        raise UsageError(_("--blind applies to DUP and DLM files, not {formats}").format(formats=names))
    last = max(last for _, last in spans)
    for path, module in outputs:
        check_writable(path, force=args.force)
        if module.MAX_BOARD is not None and last > module.MAX_BOARD:
            raise FormatError(_("{format} holds boards 1-{most} only; these boards reach board {board}").format(
                format=module.NAME.upper(), most=module.MAX_BOARD, board=last), path)
        formats.check_board_set(path, module, spans)
    return outputs


def pieces(engine: engines.Engine, spans: list[tuple[int, int]], *, event: str,
           metadata: dict[str, str]) -> Iterator[DealSet]:
    """The next deals of `engine` for the boards of `spans` (first, last; in order), at most PIECE a set."""
    for first, last in spans:
        for start in range(first, last + 1, PIECE):
            boards = np.arange(start, min(start + PIECE, last + 1), dtype=np.int64)
            yield DealSet.from_deals(engine.deals(len(boards)), boards, event=event, metadata=metadata)


def shortened(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."
