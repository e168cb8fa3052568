"""Verifying boards: the fault table of the Laws (`fault_table`) and the board check (`check`): a recount
of the four pockets -> faults with their Law and action; the checks before dealing (label, lie, empty)
and of the deal set (Law 6D2). Pure: no serial, protocol, clock or I/O.

May import: `dealer.core`, `dealer.language` (the words of a fault), numpy, `firmware_protocol.labels`.
"""

from dealer.verify.board_check import (
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
