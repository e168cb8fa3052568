"""The options every command that reads deal files shares, and the one way they read one: the file's
format reader with those options, one board per number, and what the reader noted shown on stderr
(boards kept once, boards skipped, how many boards a file without a count held). Deals are never shown.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.formats.reading import ReadOptions, ReadReport
from dealer.language import _


def add_reading_options(p: argparse.ArgumentParser, *, partial: bool) -> None:
    """--first-board, --first-game/--game, --skip-results-only, --number-in-order; with `partial`, --strict too
    (commands that print or convert skip partial deals by default; dealing refuses them always)."""
    p.add_argument("--first-board", type=_positive, metavar="N",
                   help=_("number of the first board of a file without board numbers (BRI, DGE, BER, DUP, BHG, "
                        "RZD, GOE; default 1): used for the Law 2 dealer and vulnerability, and BHG's hands"))
    game = p.add_mutually_exclusive_group()
    game.add_argument("--first-game", dest="game", action="store_const", const=1,
                      help=_("a board number with different deals in the file: keep its first game"))
    game.add_argument("--game", dest="game", type=_positive, metavar="N",
                      help=_("a board number with different deals in the file: keep its N-th game"))
    p.add_argument("--skip-results-only", action="store_true",
                   help=_("pass over games with tags but no deal (results of a board dealt in another game) "
                        "instead of refusing the file; they are listed"))
    p.add_argument("--number-in-order", action="store_true",
                   help=_("a PBN file whose Board tags are not board numbers (an exercise file's 1-1, 4-1): number "
                        "its games 1, 2, 3 ... in the file's order (from --first-board N)"))
    if partial:
        p.add_argument("--strict", action="store_true",
                       help=_("refuse a file with a partial deal (a '-' hand, fewer than 52 cards) instead of "
                            "skipping those boards (listed)"))


def _positive(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(_("{text} is not a number from 1").format(text=repr(text)))
    return int(text)


def reading_options(args: argparse.Namespace, *, skip_partial: bool) -> ReadOptions:
    """The read options the command line gives (`skip_partial` unless --strict where there is one)."""
    strict = getattr(args, "strict", False)
    return ReadOptions(first_board=getattr(args, "first_board", None), skip_partial=skip_partial and not strict,
                       skip_results_only=getattr(args, "skip_results_only", False), game=getattr(args, "game", None),
                       number_in_order=getattr(args, "number_in_order", False))


def read_deals(path: str | Path, fmt: str | None, options: ReadOptions) -> tuple[DealSet, list[str]]:
    """Read a deal file with these options: its deals, and the notes to show the user once the command
    has done its work (a command that fails shows its one error line alone)."""
    report = ReadReport()
    deals = formats.read_file(path, fmt, options, report)
    return deals, report.notes


def read_deals_for_dealing(path: str | Path, options: ReadOptions) -> tuple[DealSet, list[str], str | None]:
    """As `read_deals`, and why the boards' numbers are only a guess (`ReadReport.guessed`), if they are:
    such a file is never dealt."""
    report = ReadReport()
    deals = formats.read_file(path, None, options, report)
    return deals, report.notes, report.guessed


def show(notes: list[str]) -> None:
    """The notes of a read, on stderr, one line each."""
    for note in notes:
        print(f"dealer: {note}", file=sys.stderr)
