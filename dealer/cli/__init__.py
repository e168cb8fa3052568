"""Command line: a thin argparse layer over the library. Each command is a module here with
``register(subparsers)``, named like its command (``dealer.cli.generate`` registers ``generate``);
errors become one clear line on stderr and the exit code of their class.

A run that names its command imports and registers that command's module alone, so a quick command
does not pay for the imports of all the others (printing, plans, SquareDeal); help and unknown
commands see them all."""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence
from typing import Final

from dealer import __version__
from dealer.core.errors import DealerError, exit_code_table

COMMAND_MODULES: Final = (
    "dealer.cli.generate",
    "dealer.cli.convert",
    "dealer.cli.records",
    "dealer.cli.labels",
    "dealer.cli.curtains",
    "dealer.cli.squaredeal",
    "dealer.cli.plan",
    "dealer.cli.deal",
    "dealer.cli.check",
    "dealer.cli.ports",
    "dealer.cli.report",
    "dealer.cli.stats",
    "dealer.cli.sim",
    "dealer.cli.demo",
)


EPILOG = f"""examples:
  dealer demo                                       a session dealt on simulated machines, with faults
  dealer ports --probe                              which serial port the dealing machine is on
  dealer generate --boards 1-32 -o session.pbn      fresh deals (nothing secret is printed)
  dealer deal session.pbn --port /dev/ttyUSB0       deal them: label check, deal, recount, journal
  dealer deal --plan congress.toml                  a congress: every session on every machine
  dealer COMMAND --help                             what a command does, with examples

Results and summaries go to standard output, progress and diagnostics to standard error: `dealer deal
... > deal.log` keeps the summary, and the screen shows the progress (live on a terminal; --plain for
one line an event).

exit codes (the same for every command):
{exit_code_table()}"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `dealer` parser with every command registered, or only `command` if it is one of them."""
    parser = argparse.ArgumentParser(
        prog="dealer", description="Open controller for duplicate-bridge dealing machines.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dealer {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                help="what to do (dealer COMMAND --help tells more)")
    module = f"{__name__}.{command}"
    for name in (module,) if module in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def command_named(argv: Sequence[str]) -> str | None:
    """The command an argument list names: its first word that is not an option (the options before
    a command take no values)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, see `dealer.core.errors` for the others)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_named(arguments))
    args = parser.parse_args(arguments)
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
