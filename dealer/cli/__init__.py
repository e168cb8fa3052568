"""Command line: a thin argparse layer over the library. Each command is a module here with
``register(subparsers)``; errors become one clear line on stderr and the exit code of their class."""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence
from typing import Final

from dealer import __version__
from dealer.errors import DealerError

COMMAND_MODULES: Final = (
    "dealer.cli.generate",
    "dealer.cli.convert",
    "dealer.cli.records",
    "dealer.cli.labels",
    "dealer.cli.curtains",
    "dealer.cli.squaredeal",
    "dealer.cli.plan",
    "dealer.cli.deal",
    "dealer.cli.sim",
)


def build_parser() -> argparse.ArgumentParser:
    """The `dealer` parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="dealer", description="Open controller for duplicate-bridge dealing machines.")
    parser.add_argument("--version", action="version", version=f"dealer {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, see `dealer.errors` for the others)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int | None = args.func(args)
        return code or 0
    except DealerError as exc:
        return _fail(args, exc, exc.exit_code)
    except KeyboardInterrupt:
        print("dealer: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        return _fail(args, exc, 1)


def _fail(args: argparse.Namespace, exc: BaseException, code: int) -> int:
    if getattr(args, "debug", False):
        traceback.print_exc()
    print(f"dealer: error: {exc}", file=sys.stderr)
    return code
