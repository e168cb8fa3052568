"""`python -m tests.support.first_text_device`: print the pty's path, serve until killed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import messages as m
from .machine import Options, Plan
from .server import serve

MISHAPS = (
    "JAM",
    "MISFEED",
    "UNREADABLE_CARD",
    "DUPLICATE_CARD",
    "FOREIGN_CARD",
    "EMPTY_HOPPER",
    "DOOR_OPEN",
    "BOARD_REMOVED",
    "POWER_LOSS",
    "HANG",
)


def _set(text: str) -> tuple[str, int, int]:
    name, _, numbers = text.partition(":")
    first, _, last = (numbers or "1-36").partition("-")
    return name, int(first), int(last or first)


def _plan(text: str) -> Plan:
    """BOARD@CARD=WHAT[xTIMES], e.g. 5@20=JAM or 3@0=MISFEEDx2."""
    board, _, rest = text.partition("@")
    card, _, what = rest.partition("=")
    what, _, times = what.partition("x")
    if what not in MISHAPS:
        raise argparse.ArgumentTypeError(f"no mishap {what!r}; one of {', '.join(MISHAPS)}")
    return Plan(int(board), int(card), what, int(times or 1))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.support.first_text_device", description=__doc__)
    p.add_argument(
        "--set",
        action="append",
        type=_set,
        metavar="NAME:FIRST-LAST",
        help="a board set in the rack (repeat for copies); default A:1-36",
    )
    p.add_argument(
        "--reader",
        choices=("all", "north"),
        default="all",
        help="label readers on every edge (turns reported) or the North edge only",
    )
    p.add_argument("--no-board-sensor", action="store_true")
    p.add_argument("--keeps-job", action="store_true", help="KEEPS_JOB_OVER_POWER_LOSS")
    p.add_argument("--no-display", action="store_true")
    p.add_argument("--no-eject", action="store_true")
    p.add_argument("--no-resume", action="store_true", help="no RESUME_AFTER_FAULT")
    p.add_argument("--no-operator", action="store_true", help="nobody answers the prompts")
    p.add_argument(
        "--turn",
        action="append",
        default=[],
        metavar="BOARD=K[,K...]",
        help="quarter turns of the board at its 1st, 2nd ... insertion",
    )
    p.add_argument(
        "--no-read", action="append", default=[], metavar="BOARD=N", help="the board's first N scans read nothing"
    )
    p.add_argument("--fault", action="append", type=_plan, default=[], metavar="BOARD@CARD=WHAT")
    p.add_argument("--baud", type=int, default=115200, help="sets the RTO (section 4.7)")
    p.add_argument("--card-time", type=float, default=0.01)
    p.add_argument("--scan-time", type=float, default=0.05)
    p.add_argument("--recount-time", type=float, default=0.05)
    p.add_argument("--operator-time", type=float, default=0.05)
    p.add_argument("--seed", type=int)
    p.add_argument("--serial", default="STRANGER-1")
    p.add_argument("--ledger", type=Path, help="JSON lines of what went into each board")
    p.add_argument("--control", type=Path, help="a FIFO to create for commands (power, hang, ...)")
    p.add_argument("--log", type=Path, help="a log of commands, displays and mishaps")
    p.add_argument("--port-file", type=Path, help="also write the pty's path here")
    return p


def options_from(args: argparse.Namespace) -> Options:
    caps = Options().capabilities
    if args.no_board_sensor:
        caps &= ~m.Cap.BOARD_SENSOR
    if args.keeps_job:
        caps |= m.Cap.KEEPS_JOB_OVER_POWER_LOSS
    if args.no_display:
        caps &= ~m.Cap.DISPLAY
    if args.no_eject:
        caps &= ~m.Cap.EJECT
    if args.no_resume:
        caps &= ~m.Cap.RESUME_AFTER_FAULT
    turns = {}
    for text in args.turn:
        key, _, ks = text.partition("=")
        turns[key] = [int(k) for k in ks.split(",")]
    no_read = {key: int(n) for key, _, n in (t.partition("=") for t in args.no_read)}
    return Options(
        sets=args.set or [("A", 1, 36)],
        capabilities=caps,
        reader_all_edges=args.reader == "all",
        baud=args.baud,
        card_time=args.card_time,
        scan_time=args.scan_time,
        recount_time=args.recount_time,
        operator_time=args.operator_time,
        turns=turns,
        no_read=no_read,
        plans=args.fault,
        serial=args.serial,
        seed=args.seed,
        operator=not args.no_operator,
    )


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    options = options_from(args)

    def announce(path: str) -> None:
        if args.port_file is not None:
            args.port_file.write_text(path + "\n", encoding="ascii")
        print(path, flush=True)

    serve(options, args.ledger, args.control, args.log, announce)
    return 0


if __name__ == "__main__":
    sys.exit(main())
