"""`dealer convert`: read a deal file in one format and write it in another. Deals are never printed.

The whole input is read and checked before anything is written; the output is written atomically
and an existing file is replaced only with --force. A sealed input (blind DUP, Status=Sealed DLM)
stays sealed when the output can be (DUP, DLM) unless --no-blind says otherwise.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from types import ModuleType
from typing import Any

from dealer import formats
from dealer.core.boards import format_board_range
from dealer.core.errors import UsageError
from dealer.core.outfile import check_writable


def register(sub: Any) -> None:
    p = sub.add_parser("convert", help="convert a deal file to another format",
                       description="Convert a deal file between formats (the extensions choose them; "
                                   "--from and --to override). Formats without board numbers, dealer or "
                                   "vulnerability number boards from 1 and apply Law 2.")
    p.add_argument("input", metavar="IN", help="deal file to read")
    p.add_argument("output", metavar="OUT", help="deal file to write")
    p.add_argument("--from", dest="from_format", choices=formats.format_names(), metavar="FMT",
                   help=f"format of IN ({', '.join(formats.format_names())})")
    p.add_argument("--to", dest="to_format", choices=formats.format_names(), metavar="FMT",
                   help="format of OUT")
    p.add_argument("--blind", action=argparse.BooleanOptionalAction, default=None,
                   help="DUP: blank board 1's cards for the DOS program; DLM: Status=Sealed "
                        "(default: as the input is)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.set_defaults(func=run)


def accepts(module: ModuleType, option: str) -> bool:
    """True if a format's writer takes `option`."""
    return option in inspect.signature(module.write).parameters


def format_of(path: str, override: str | None, option: str) -> ModuleType:
    """The format of a file, from --from/--to or else its extension."""
    try:
        return formats.format_for_path(path, override)
    except UsageError:
        raise UsageError(f"{path}: cannot tell the format from its extension; use {option} "
                         f"({', '.join(formats.format_names())})") from None


def summary(boards: list[int]) -> str:
    """Board numbers as a short range text, e.g. '1-32' (long irregular lists are cut)."""
    text = format_board_range(boards)
    return text if len(text) <= 40 else f"{text[:37]}..."


def run(args: argparse.Namespace) -> int:
    source = format_of(args.input, args.from_format, "--from")
    target = format_of(args.output, args.to_format, "--to")
    if args.blind is not None and not accepts(target, "blind"):
        raise UsageError(f"--blind/--no-blind apply to DUP and DLM output, not {target.NAME.upper()}")
    check_writable(args.output, force=args.force)
    deals = formats.read_file(args.input, source.NAME)
    options: dict[str, Any] = {}
    if accepts(target, "blind"):
        sealed = deals.metadata.get("sealed") == "yes"
        options["blind"] = sealed if args.blind is None else args.blind
    formats.write_file(args.output, deals, target.NAME, force=args.force, **options)
    boards = summary([int(b) for b in deals.boards])
    print(f"converted {len(deals)} boards ({boards}) from {source.NAME.upper()} to "
          f"{target.NAME.upper()}: {args.output}", file=sys.stderr)
    return 0
