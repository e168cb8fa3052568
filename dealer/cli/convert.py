"""`dealer convert`: read a deal file in one format and write it in another. Deals are never printed.

The whole input is read and checked before anything is written; the output is written atomically, and
replaces an existing file only with --force. A board set the output format would not give back as it is
(`dealer.formats.board_sets`) is refused in one line naming the formats that hold it.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from dealer import formats
from dealer.cli.options import board_range
from dealer.cli.reading import add_reading_options, read_deals, reading_options, show
from dealer.cli.teaching import teach
from dealer.core.boards import format_board_range, parse_board_spans, parse_file_boards
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.core.outfile import check_writable
from dealer.formats import parts
from dealer.language import _, n_


def register(sub: Any) -> None:
    p = sub.add_parser("convert", help=_("convert a deal file to another format"),
                       description=_("Convert a deal file between formats (the extensions choose them; "
                                   "--from and --to override). Formats without board numbers number boards "
                                   "from 1 (or --first-board) and apply Law 2."))
    p.add_argument("input", metavar="IN", help=_("deal file to read"))
    p.add_argument("output", metavar="OUT", help=_("deal file to write"))
    p.add_argument("--from", dest="from_format", choices=formats.format_names(), metavar="FMT",
                   help=_("format of IN ({formats})").format(formats=", ".join(formats.format_names())))
    p.add_argument("--to", dest="to_format", choices=formats.format_names(), metavar="FMT",
                   help=_("format of OUT"))
    p.add_argument("--boards", type=board_range, metavar="RANGE",
                   help=_("write only these boards, e.g. 1-32 or 1-16,21"))
    p.add_argument("--split", action="store_true",
                   help=_("a session the output format cannot hold in one file (DUP, DLM: one run of boards up "
                        "to 99) goes into OUT-1, OUT-2, ..., each a run it holds"))
    p.add_argument("--blind", action=argparse.BooleanOptionalAction, default=None,
                   help=_("DUP: blank board 1's cards for the DOS program; DLM: Status=Sealed "
                        "(default: as the input is)"))
    add_reading_options(p, partial=True)
    p.add_argument("--force", action="store_true", help=_("replace OUT if it exists"))
    teach(p, [("dealer convert session.pbn session.dlm", _("for a Duplimate (the extensions pick the formats)")),
              ("dealer convert big.pbn big.dup --split", _("120 boards into DUP files of up to 99")),
              ("dealer convert big.pbn part.dup --boards 1-32", _("only boards 1-32")),
              ("dealer convert deals.bri s.pbn --first-board 5", _("a file without board numbers starts at 5")),
              ("dealer convert results.pbn session.dup", _("a results file (one game a table): one deal a board"))],
          _("SOURCE and TARGET are deal files; their extensions choose the formats (--from and --to override)."))
    p.set_defaults(func=run)


def accepts(module: ModuleType, option: str) -> bool:
    """True if a format's writer takes `option`."""
    return option in inspect.signature(module.write).parameters


def format_of(path: str, override: str | None, option: str) -> ModuleType:
    """The format of a file, from --from/--to or else its extension."""
    try:
        return formats.format_for_path(path, override)
    except UsageError:
        raise UsageError(_("{path}: cannot tell the format from its extension; use {option} ({formats})").format(
            path=path, option=option, formats=", ".join(formats.format_names()))) from None


def summary(boards: list[int]) -> str:
    """Board numbers as a short range text, e.g. '1-32' (long irregular lists are cut)."""
    text = format_board_range(boards)
    return text if len(text) <= 40 else f"{text[:37]}..."


def part_path(output: str, number: int) -> Path:
    """OUT-1.EXT, OUT-2.EXT, ... beside OUT."""
    out = Path(output)
    return out.with_name(f"{out.stem}-{number}{out.suffix}")


def run(args: argparse.Namespace) -> int:
    """A sealed input (blind DUP, Status=Sealed DLM) stays sealed when the output can be (DUP, DLM) unless
    --no-blind says otherwise. Repeated board numbers keep one board each; partial deals are skipped and
    listed (--strict refuses them). --boards writes a subset; a session the output format cannot hold (DUP,
    DLM: one run, boards up to 99) is refused with the way to split it, and --split writes it as
    NAME-1.EXT, NAME-2.EXT, ..., each a run the format holds."""
    source = format_of(args.input, args.from_format, "--from")
    target = format_of(args.output, args.to_format, "--to")
    if args.blind is not None and not accepts(target, "blind"):
        raise UsageError(_("--blind/--no-blind apply to DUP and DLM output, not {format}").format(
            format=target.NAME.upper()))
    if args.split and target.MAX_BOARD is None:
        raise UsageError(_("--split is for formats that hold boards 1-99 only (DUP, DLM), not {format}").format(
            format=target.NAME.upper()))
    if args.boards:
        parse_board_spans(args.boards)  # its form, before the file is read; its bound once the file is
    if not args.split:
        check_writable(args.output, force=args.force)
    deals, notes = read_deals(args.input, source.NAME, reading_options(args, skip_partial=True))
    if args.boards:
        deals = _select(deals, args.boards, args.input)
    options: dict[str, Any] = {}
    if accepts(target, "blind"):
        sealed = deals.metadata.get("sealed") == "yes"
        options["blind"] = sealed if args.blind is None else args.blind
    limit = target.MAX_BOARD
    if limit is not None and not parts.fits(deals, limit):
        pieces = parts.cut(deals, limit)
        if not args.split:
            raise UsageError(_how_to_split(args.output, target, deals, pieces))
        _write_parts(args, target, source, pieces, options)
        show(notes)
        return 0
    if args.split:
        check_writable(args.output, force=args.force)
    _write(args.output, deals, target, options, force=args.force)
    show(notes)
    print(n_("converted {count} board ({boards}) from {source} to {target}: {file}",
             "converted {count} boards ({boards}) from {source} to {target}: {file}", len(deals)).format(
        count=len(deals), boards=summary([int(b) for b in deals.boards]), source=source.NAME.upper(),
        target=target.NAME.upper(), file=args.output))
    return 0


def _select(deals: DealSet, boards: str, path: str) -> DealSet:
    wanted = parse_file_boards(boards, int(deals.boards.max()), path)
    present = set(deals.boards.tolist())
    missing = [b for b in wanted if b not in present]
    if missing:
        raise UsageError(_("{file}: has no board {boards}").format(
            file=path, boards=format_board_range(missing) if len(missing) < 20 else missing[0]))
    return deals.select(wanted)


def _how_to_split(output: str, target: ModuleType, deals: DealSet, pieces: list[parts.Part]) -> str:
    name = target.NAME.upper()
    boards = deals.boards
    why = (_("this run reaches board {board}").format(board=int(boards.max()))
           if (len(boards) < 2 or (boards[1:] - boards[:-1] == 1).all())
           else _("these boards ({boards}) are not one run").format(boards=summary([int(b) for b in boards])))
    listed = "; ".join(f"{part_path(output, k)} ({piece.describe()})" for k, piece in enumerate(pieces, start=1))
    return n_("{output}: {format} holds one run of boards 1-{most}; {why}. --split writes {count} files: {listed}; "
              "or --boards chooses boards it holds",
              "{output}: {format} holds one run of boards 1-{most}; {why}. --split writes {count} files: {listed}; "
              "or --boards chooses boards it holds", len(pieces)).format(
        output=output, format=name, most=target.MAX_BOARD, why=why, count=len(pieces), listed=listed)


def _write(path: str | Path, deals: DealSet, target: ModuleType, options: dict[str, Any], *, force: bool) -> None:
    formats.write_file(path, deals, target.NAME, force=force, **options)
    for note in formats.written_notes(path, deals, target, blind=bool(options.get("blind"))):
        print(f"dealer: {note}", file=sys.stderr)


def _write_parts(args: argparse.Namespace, target: ModuleType, source: ModuleType, pieces: list[parts.Part],
                 options: dict[str, Any]) -> None:
    paths = [part_path(args.output, k) for k in range(1, len(pieces) + 1)]
    for path in paths:
        check_writable(path, force=args.force)
    for path, piece in zip(paths, pieces, strict=True):
        _write(path, piece.deals, target, options, force=args.force)
        print(_("converted {part} from {source} to {target}: {file}").format(
            part=piece.describe(), source=source.NAME.upper(), target=target.NAME.upper(), file=path))
