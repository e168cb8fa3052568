"""`dealer check`: recount boards that were dealt earlier and verify each against its deal. Nothing is dealt.

Each board is asked for, its label read, its pockets recounted and turned into the board's own by how it
lies, and the verifier names any fault by its Law. A board lying turned is named so (F6, the turn in words)
and asked for again, straight.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import IO

from dealer.core.dealset import DealSet
from dealer.core.errors import DeviceTimeout, JournalBusy, JournalError
from dealer.dealing import ports
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import BoardReading, Machine, OperatorPrompt
from dealer.journal.database_url import DatabaseURL, JournalPlace
from dealer.journal.lock import JournalLock
from dealer.language import _
from dealer.verify import PRECEDENCE, BoardFault, BoardRecount, VerificationReport, check_label, verify_board
from dealer.verify.board_check import check_orientation
from firmware_protocol.labels import BoardLabel

MAX_REFUSALS = 3
"""Boards refused in a row (wrong, unread or turned) before the board in the machine is checked as it is."""


def check_boards(deals: DealSet, port: str, set_name: str, *, board_timeout: float = RunLimits.board_timeout,
                 show_cards: bool = False, quiet: bool = False, out: IO[str] | None = None,
                 machine: Machine | None = None, journal: JournalPlace | None = None,
                 source: str | None = None) -> list[VerificationReport]:
    """Recount every board of `deals` (one copy, set `set_name`) on the machine at `port`, holding the lock of
    `journal` (the journal of a run that deals these boards) meanwhile: the lock, not the file, which a
    check never writes; never while a run deals the same boards (`JournalBusy` naming that run). A board
    that is not the one asked for is ejected and the right one asked for. Each board's line goes to `out`
    (standard error as it is when called); a board holding a deal that is none of `source`'s (the file's
    name; None: "the deal file") is said to, with the question it raises, never with a redeal."""
    out = out if out is not None else sys.stderr
    source = source if source is not None else _("the deal file")
    if machine is None:
        ports.check_url(port)  # a sim:// port the simulator refuses: refused before the journal is held
    with _hold(journal):
        return _check_all(deals, port, set_name, board_timeout, show_cards, quiet, out, machine, source)


def _hold(journal: JournalPlace | None) -> AbstractContextManager[object]:
    """The journal's lock; none when there is no journal and its folder takes no file (a run could not
    write its journal there either: a deal file on a read-only medium), nor for a journal in a database (held
    run by run, and a check deals nothing)."""
    if journal is None or isinstance(journal, DatabaseURL):
        return nullcontext()
    try:
        return JournalLock.acquire(journal, "dealer check")
    except JournalBusy:
        raise
    except JournalError:
        if journal.exists():
            raise
        return nullcontext()


def _check_all(deals: DealSet, port: str, set_name: str, board_timeout: float, show_cards: bool, quiet: bool,
               out: IO[str], machine: Machine | None, source: str) -> list[VerificationReport]:
    m = machine or Machine(port)
    reports = []
    try:
        m.connect()
        for item in deals:
            report = _check_one(m, deals, item.board, set_name, board_timeout, out if not quiet else None)
            reports.append(report)
            if not quiet:
                out.write(f"[{m.name}] {board_line(report, source, blind=not show_cards)}\n")
    finally:
        m.close()
    return reports


def other_deal(report: VerificationReport) -> bool:
    """True if the board holds a deal that is none of the file's (`BoardFault.other_deal`)."""
    return any(f.other_deal for f in report.faults)


def board_line(report: VerificationReport, source: str, *, blind: bool) -> str:
    """A board's line: its faults and what to do; for a board holding another deal than `source`'s, that
    and the question it raises (which file and set it came from), never a redeal from `source`."""
    if other_deal(report):
        return _("board {board} holds a different deal from {source}: is this the file and board set these "
                 "boards were dealt from?").format(board=report.board, source=source)
    return report.summary(blind=blind)


def _check_one(m: Machine, deals: DealSet, board: int, set_name: str, timeout: float,
               out: IO[str] | None) -> VerificationReport:
    for _attempt in range(MAX_REFUSALS):
        reading = _insert(m, board, set_name, timeout, out)
        recount = m.recount(0, reading.turns)
        if recount is not None:
            break  # else taken out during the recount: ask for it again
    else:
        recount = BoardRecount.from_hands([[], [], [], []])
    report = verify_board(deals.deals[deals.index_of(board)], recount, board=board,
                          set_name=set_name, label=reading.label, session=deals)
    m.eject_board()
    turned = check_orientation(reading.turns, board)
    return report if turned is None else _still_turned(report, turned)


def _still_turned(report: VerificationReport, turned: BoardFault) -> VerificationReport:
    """The report of a board that was put in turned every time it was asked for: its pockets were read
    as its own (by the turn), and it is named turned as well, so it is not passed."""
    faults = tuple(sorted((turned, *report.faults), key=lambda f: PRECEDENCE.index(f.code)))
    return replace(report, ok=False, faults=faults, layout_hash=None)


def _insert(m: Machine, board: int, set_name: str, timeout: float, out: IO[str] | None) -> BoardReading:
    """Have the board put in and read its label; another board found in the machine (F8, wrong board), a
    label not read (F8), or the right board lying turned (F6, PROTOCOL.md 12.1) is ejected and asked for
    again, up to `MAX_REFUSALS` times. Returns what was read."""
    expected = BoardLabel.for_board(set_name, board).payload()
    refusals = 0
    while True:
        if m.board_left_in and m.board_present():  # the board checked before, in a machine that cannot push it out
            m.take_board_out(board, expected, _("take the board out"), timeout)
        if not m.board_present():
            m.display(OperatorPrompt.INSERT_BOARD, board, expected,
                      _("insert board {set} {board} for a recount").format(set=set_name, board=board))
            if not m.wait_board(True, timeout):
                raise DeviceTimeout(_("{machine}: board {board} was not inserted in time").format(
                    machine=m.name, board=board))
        reading = m.read_board()
        if not reading.present:
            continue  # taken out again before it could be read
        fault = check_label(reading.label, board, set_name)
        problem = "" if fault is None else str(fault.details.get("problem", ""))
        if fault is None:
            fault = check_orientation(reading.turns, board)  # the right board, but does it lie straight?
            problem = "" if fault is None else "turned"
        # another board, a label not read (on a machine with one reader, a board put in turned) or the
        # right board turned: out, and asked for again
        refused = problem.startswith("wrong board") or problem in ("no read", "turned")
        if fault is None or not refused or refusals == MAX_REFUSALS:
            return reading
        refusals += 1
        if out is not None:
            out.write(f"[{m.name}] " + _("board {board}: {what}").format(
                board=board, what=_("REFUSED {fault}").format(fault=fault.text())) + "\n")
        m.take_board_out(board, expected, _("{fault}: take board {set} {board} out").format(
            fault=fault.name(), set=set_name, board=board), timeout)
