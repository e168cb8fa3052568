"""Verifying boards: the fault table of the Laws (`fault_table`) and the board check (`check`).

Owns: what a recount of the four pockets means, each fault named by its Law with the controller's
action (F1-F12), the checks of a board before dealing (its label, Law 2; how it lies; that it is empty)
and the deal-set check (Law 6D2). Pure: no
serial, no wire protocol, no clock, no I/O.

May import: `dealer.core` and the standard library, numpy, `firmware_protocol.labels`.
"""

from dealer.verify.check import (
    BoardRecount,
    PocketReading,
    VerificationReport,
    check_deal_set,
    check_empty,
    check_label,
    check_orientation,
    deal_hash,
    verify_board,
)
from dealer.verify.fault_table import PRECEDENCE, Action, BoardFault, CardPlace, FaultCategory, card_text

__all__ = [
    "PRECEDENCE", "Action", "BoardFault", "BoardRecount", "CardPlace", "FaultCategory", "PocketReading",
    "VerificationReport", "card_text", "check_deal_set", "check_empty", "check_label", "check_orientation",
    "deal_hash", "verify_board",
]
