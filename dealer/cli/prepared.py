"""`dealer generate --where`: prepared boards for teaching and practice. The script (a file, or a condition
given inline) is read and compiled before any work; the deals that meet it come in the engine's order; the
boards keep Law 2's dealer and vulnerability (`--turn-to-dealer` turns each deal so the script's dealer sits
there); the file says it was made under conditions (Law 6E4); the script's statistics go to the screen and,
with `--report`, to a JSON file."""

from __future__ import annotations

import argparse
import json
import sys
from types import ModuleType

import numpy as np

from dealer import engines, formats
from dealer.core.boards import dealers_of
from dealer.core.cards import SEATS
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.core.outfile import check_writable, write_bytes
from dealer.language import _
from dealer.prepared import DEFAULT_MAX_DEALS, Compiled, Script
from dealer.prepared.actions import printed, statistics
from dealer.prepared.boards import load, metadata, prepare
from dealer.prepared.search import MAX_DEALS_BOUND


def register_options(p: argparse.ArgumentParser) -> None:
    """generate's options for prepared boards."""
    p.add_argument("--where", metavar="SCRIPT",
                   help=_("prepared boards for teaching: only deals meeting SCRIPT, a file in the language of the "
                          "dealer program or a condition such as 'hcp(north) >= 20' (not for an event: Law 6E4)"))
    p.add_argument("--max-deals", type=max_deals, metavar="N",
                   help=_("with --where: examine at most N deals (default: the script's generate, else {n})").format(
                       n=DEFAULT_MAX_DEALS))
    p.add_argument("--turn-to-dealer", action="store_true",
                   help=_("with --where: turn each deal so the seat the script names as dealer sits where Law 2 puts "
                          "the board's dealer"))
    p.add_argument("--report", metavar="FILE", help=_("with --where: keep the script's statistics in FILE (JSON)"))


def max_deals(text: str) -> int:
    """--max-deals: a whole number from 1 to MAX_DEALS_BOUND."""
    try:
        value = int(text) if len(text) <= 13 else 0
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_DEALS_BOUND:
        raise argparse.ArgumentTypeError(_("must be a whole number from 1 to {most}; got {text}").format(
            most=MAX_DEALS_BOUND, text=repr(text)))
    return value


def check_options(args: argparse.Namespace) -> None:
    """The prepared-board options need --where."""
    if args.where is None:
        for given, name in ((args.max_deals, "--max-deals"), (args.turn_to_dealer, "--turn-to-dealer"),
                            (args.report, "--report")):
            if given:
                raise UsageError(_("{option} applies to prepared boards: give --where too").format(option=name))


def run(args: argparse.Namespace, spans: list[tuple[int, int]], seed: bytes, owner: bytes,
        outputs: list[tuple[str, ModuleType]]) -> int:
    script = load(args.where)
    compiled = Compiled(script)
    if args.report:
        check_writable(args.report, force=args.force)
    boards = np.concatenate([np.arange(first, last + 1, dtype=np.int64) for first, last in spans])
    engine = engines.make_engine(args.engine, seed, owner, threads=args.threads)
    found = prepare(script, engine, len(boards), args.max_deals, compiled, threads=args.threads)
    results = statistics(compiled, found.deals)
    deals = turned(found.deals, boards, script.dealer or 0) if args.turn_to_dealer else found.deals
    condition = script.summary()
    made = DealSet.from_deals(deals, boards, event=args.event, metadata=metadata(args.engine, script))
    for path, module in outputs:
        options = {"blind": True} if args.blind and module.NAME in ("dup", "dlm") else {}
        formats.write_file_parts(path, iter([made]), module.NAME, force=args.force, threads=args.threads, **options)
    for note in notes(script, args, len(boards)):
        print(f"dealer: {note}", file=sys.stderr)
    sys.stdout.write(printed(results))
    print(_("prepared boards: {kept} deals met the condition among {examined} examined (rate {rate:.3%})").format(
        kept=len(found.deals), examined=found.examined, rate=len(found.deals) / found.examined))
    if args.report:
        report = {"script": script.name, "condition": condition, "engine": args.engine,
                  "boards": [int(b) for b in boards], "deals_examined": found.examined,
                  "deals_kept": len(found.deals), "rate": len(found.deals) / found.examined,
                  "turned_to_dealer": bool(args.turn_to_dealer),
                  "script_dealer": SEATS[script.dealer] if script.dealer is not None else None,
                  "statistics": results}
        write_bytes(args.report, (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode("utf-8"),
                    force=args.force, mode=0o644)
    return 0


def turned(deals: np.ndarray, boards: np.ndarray, dealer: int) -> np.ndarray:
    """Each deal turned so that seat `dealer`'s hand sits at the board's Law 2 dealer."""
    shift = (dealers_of(boards).astype(np.int64) - dealer) % 4
    out: np.ndarray = ((deals.astype(np.int64) + shift[:, None]) % 4).astype(np.uint8)
    return out


def notes(script: Script, args: argparse.Namespace, count: int) -> list[str]:
    """What the script says that the boards do otherwise, said rather than ignored."""
    out: list[str] = []
    if script.produce is not None and script.produce != count:
        out.append(_("the script's produce {n} is not used: the boards given make {count} deals").format(
            n=script.produce, count=count))
    if script.vulnerable is not None:
        out.append(_("the script's vulnerable {v} is not used: each board's vulnerability is Law 2's").format(
            v=script.vulnerable))
    if script.dealer is not None and not args.turn_to_dealer:
        out.append(_("the script's dealer {seat} is not used: each board's dealer is Law 2's (--turn-to-dealer "
                     "turns the deals to it)").format(seat=SEATS[script.dealer]))
    if script.prints:
        out.append(_("the script's {actions}: the deals go to the output file").format(
            actions=", ".join(dict.fromkeys(script.prints))))
    out.append(_("these deals were made under conditions: for teaching and practice, not for an event (Law 6E4)"))
    return out
