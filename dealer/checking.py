"""`dealer check`: recount boards that were dealt earlier and verify each against its deal.

Nothing is dealt: for each board the operator is prompted to insert it, its label is read, the
machine recounts its pockets and the verifier names any fault by its Law.
"""

from __future__ import annotations

import sys
from typing import IO

from dealer.boards import BoardLabel
from dealer.dealset import DealSet
from dealer.errors import DeviceTimeout
from dealer.machine import CommandRefused, Machine
from dealer.station import to_recount
from dealer.verify import VerificationReport, verify_board
from firmware_protocol import Prompt, RefuseReason, ScanResult, StatusFlag


def check_boards(deals: DealSet, port: str, set_name: str, *, board_timeout: float = 600.0,
                 show_cards: bool = False, quiet: bool = False, out: IO[str] = sys.stderr,
                 machine: Machine | None = None) -> list[VerificationReport]:
    """Recount every board of `deals` (one copy, set `set_name`) on the machine at `port`."""
    m = machine or Machine(port)
    reports = []
    try:
        m.connect()
        for item in deals:
            report = _check_one(m, deals, item.board, set_name, board_timeout)
            reports.append(report)
            if not quiet:
                out.write(f"[{m.name}] {report.summary(blind=not show_cards)}\n")
    finally:
        m.close()
    return reports


def _check_one(m: Machine, deals: DealSet, board: int, set_name: str, timeout: float) -> VerificationReport:
    expected = BoardLabel.for_board(set_name, board).payload()
    if not m.status().flags & StatusFlag.BOARD_PRESENT:
        m.display(Prompt.INSERT_BOARD, board, expected, f"insert board {set_name} {board} for a recount")
        if not m.wait_board(True, timeout):
            raise DeviceTimeout(f"{m.name}: board {board} was not inserted in time")
    scanned = m.scan()
    label = scanned.label.decode("ascii", "replace") if scanned.result == ScanResult.OK else None
    report = verify_board(deals.deals[deals.index_of(board)], to_recount(m.recount(0)), board=board,
                          set_name=set_name, label=label, session=deals)
    try:
        m.eject()
    except CommandRefused as exc:
        if exc.reason != RefuseReason.NO_BOARD:
            raise
    m.wait_board(False, timeout)
    return report
