"""The fault table: the fault categories F1..F12 a board check can name, each with its Law of
Duplicate Bridge (2017), the action the controller takes and whether it blocks the board; and `BoardFault`,
one named fault with the cards and pockets it concerns. The checks that find them are in
`dealer.verify.board_check`.

`_RULES` below is the one source of the table; the table as a director reads it follows, and a test
(`tests/unit/test_fault_table.py`) holds it, and every other rendering, to `_RULES`.

Fault table (the Laws of Duplicate Bridge 2017; checks are made before play, so pocket counts fall
under 13A/14A and wrong contents under 6D1/6F; the same board found after play is 13D, 14B or 87)::

    code  Law                  what the recount shows                        controller action
    ----  -------------------  --------------------------------------------  -------------------------
    F0    -                    every pocket 13, 52 distinct cards of one     PASS; the report keeps a
                               pack, each in its intended pocket, barcode    hash of the verified layout
                               = expected board and conforming to Law 2
    F1    Law 14A              missing card(s): a card of the deal is in     SEARCH_AND_RESTORE: hopper,
                               no pocket (no surplus card took its place)    jam path, reject tray; else
                                                                             a spare pack, same back
    F2    Law 13A1             card(s) in the wrong pocket that leave a      REPOCKET the cards named
                               pocket over 13 and another under (14/12)
    F3    Law 6D1/6F, Law 87   cards exchanged between pockets, every        REDEAL_SAME_DEAL from the
                               pocket still 13                               deal file
    F4    Law 13C, Law 1       surplus card(s): more than 52 cards, a        REMOVE_SURPLUS; the board
                               duplicate card or a card of another pack      that lost it is short (F1)
    F5    Law 13C, Law 14A     foreign card in place of one of the deal's    FIX_PACK_AND_REDEAL; check
                               own (duplicate or wrong back + missing)       the sister boards
    F6    Law 6D1/6F, Law 87   whole hands in the wrong pockets: rotated     REPOCKET the hands (the
                               by k, or permuted (e.g. N and S swapped)      dealer and vul changed)
    F7    Law 6D1/6F, Law 87   the pockets hold another board's deal of      STOP_BATCH: report the
                               the session (or two deals of a set match),    offset, check later boards;
                               or a deal not of the file at all              CHECK_SOURCE for the latter
    F8    Law 2                barcode not read, unreadable, another board   REFUSE_BOARD: never deal
                               or set, or marked against Law 2               deal n into board m
    F9    Law 6F, Law 87       a copy k > 1 of a board differs (any of       REDEAL_SAME_DEAL: restore
                               F1-F7 on that copy)                           the ORIGINAL deal
    F10   Law 6D2              the deal was already dealt in another         REFUSE_DEAL_SET unless the
                               session (deal hash in the history)            event is a replay
    F11   Law 6D1              unidentified card(s): the board cannot be     RECOUNT (or check by hand);
                               verified                                      UNVERIFIED until then
    F12   Law 16D              the deal was shown to an operator who may     WARN the director (does not
                               play it                                       block the board)

Every fault but F12 (and F10 in a replay event) blocks the board. A report is ``ok`` only for F0.

Precedence (the order of `VerificationReport.faults`; the first is the `primary` fault, whose action
the controller takes first)::

    F10 > F7 > F8 > F11 > F5 > F4 > F1 > F6 > F2 > F3 > F9 > F12
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Final, NamedTuple

from dealer.core.cards import RANKS, SEATS, SUIT_SYMBOLS, card_name
from dealer.language import N_, _


class Action(Enum):
    """What the controller does about a fault."""

    REDEAL_SAME_DEAL = N_("redeal the same deal from the file")
    REPOCKET = N_("move each card or hand to its own pocket")
    SEARCH_AND_RESTORE = N_("search for the missing cards and restore them")
    REMOVE_SURPLUS = N_("remove the surplus cards")
    FIX_PACK_AND_REDEAL = N_("replace the foreign cards by the pack's own and redeal")
    REFUSE_BOARD = N_("refuse the board; insert the board expected")
    STOP_BATCH = N_("stop the batch and re-synchronise the boards")
    CHECK_SOURCE = N_("find the deal file and board set these boards were dealt from: nothing is to be "
                      "redealt from this file until then")
    REFUSE_DEAL_SET = N_("refuse the deal set")
    RECOUNT = N_("recount the board or check it by hand")
    WARN = N_("warn the director")

    @property
    def said(self) -> str:
        """What is done, in the language spoken (`value` is the English a report file keeps)."""
        return _(self.value)


class FaultCategory(Enum):
    """The fault categories F1..F12 of the fault table (module docstring)."""

    F1 = "F1"
    F2 = "F2"
    F3 = "F3"
    F4 = "F4"
    F5 = "F5"
    F6 = "F6"
    F7 = "F7"
    F8 = "F8"
    F9 = "F9"
    F10 = "F10"
    F11 = "F11"
    F12 = "F12"

    @property
    def title(self) -> str:
        """Short name of the fault category, in the language spoken."""
        return _(_RULES[self].title)

    @property
    def law(self) -> str:
        """The Law reference of the category."""
        return _RULES[self].law


class _Rule(NamedTuple):
    title: str
    law: str
    action: Action
    blocking: bool


_RULES: Final = {
    FaultCategory.F1: _Rule(N_("missing card"), "Law 14A", Action.SEARCH_AND_RESTORE, True),
    FaultCategory.F2: _Rule(N_("card in wrong pocket"), "Law 13A1", Action.REPOCKET, True),
    FaultCategory.F3: _Rule(N_("swapped cards"), "Law 6D1/6F, Law 87", Action.REDEAL_SAME_DEAL, True),
    FaultCategory.F4: _Rule(N_("surplus card"), "Law 13C, Law 1", Action.REMOVE_SURPLUS, True),
    FaultCategory.F5: _Rule(N_("foreign card replacing own"), "Law 13C, Law 14A", Action.FIX_PACK_AND_REDEAL, True),
    FaultCategory.F6: _Rule(N_("hands in wrong pockets"), "Law 6D1/6F, Law 87", Action.REPOCKET, True),
    FaultCategory.F7: _Rule(N_("another board's deal"), "Law 6D1/6F, Law 87", Action.STOP_BATCH, True),
    FaultCategory.F8: _Rule(N_("wrong board"), "Law 2", Action.REFUSE_BOARD, True),
    FaultCategory.F9: _Rule(N_("copy mismatch"), "Law 6F, Law 87", Action.REDEAL_SAME_DEAL, True),
    FaultCategory.F10: _Rule(N_("reused deal"), "Law 6D2", Action.REFUSE_DEAL_SET, True),
    FaultCategory.F11: _Rule(N_("unidentified card"), "Law 6D1", Action.RECOUNT, True),
    FaultCategory.F12: _Rule(N_("operator exposure"), "Law 16D", Action.WARN, False),
}

PRECEDENCE: Final = tuple(FaultCategory[c] for c in
                          ("F10", "F7", "F8", "F11", "F5", "F4", "F1", "F6", "F2", "F3", "F9", "F12"))
"""Order of faults in a report: the first is the primary fault (see the module docstring)."""

DetailValue = int | str | bool | tuple[int, ...] | tuple[str, ...] | None

CARD_FREE_DETAILS: Final = frozenset({
    "rotation", "permutation", "turns", "matched_board", "offset", "agreement", "boards", "session", "problem",
    "expected_board", "expected_set", "read", "read_board", "read_set", "copy", "faults", "unidentified", "counts"})
"""The `BoardFault.details` keys that name no card (boards, sets, labels, pockets, counts, codes): what a
report made without --show-cards may keep of a fault. Any other key (``unseen``: cards) is left out."""


def card_text(card: int) -> str:
    """A card as a director reads it: suit symbol and rank, e.g. 0 -> '♠A', 4 -> '♠10'."""
    rank = RANKS[card % 13]
    return SUIT_SYMBOLS[card // 13] + ("10" if rank == "T" else rank)


@dataclass(frozen=True)
class CardPlace:
    """One card named by a fault: where it was found and where it belongs (None: nowhere).

    `found` is the pocket (0..3 = N E S W) holding the card, None for a missing card. `belongs` is the
    pocket it should be in as the board stands (with the rest of its hand), None for a surplus card.
    `pack` is the pack identity read on the card, if any.
    """

    card: int
    found: int | None
    belongs: int | None
    pack: str | None = None

    @property
    def text(self) -> str:
        """The card as a director reads it, e.g. '♠A'."""
        return card_text(self.card)

    def to_dict(self) -> dict[str, DetailValue]:
        """Plain form for a journal or a report file (seats as letters)."""
        return {"card": self.card, "name": self.text, "ascii": card_name(self.card),
                "found": None if self.found is None else SEATS[self.found],
                "belongs": None if self.belongs is None else SEATS[self.belongs], "pack": self.pack}


def fault_name(code: FaultCategory, problem: object = None) -> str:
    """The English name of a fault of `code` whose problem is `problem` (the key it is counted by, and the
    catalogue's message): the code's title, or "board turned" for an F6 that is a board lying turned (its
    hands not yet in question)."""
    return N_("board turned") if code is FaultCategory.F6 and problem == "turned" else _RULES[code].title


def named(code: FaultCategory, problem: object = None) -> str:
    """`fault_name` in the language spoken."""
    return _(fault_name(code, problem))


def law_said(law: str) -> str:
    """A Law reference as the language spoken says it: 'Law 6D1/6F, Law 87' -> 'Правило 6D1/6F, Правило 87'
    in Russian (the Russian text we hold calls a Law «Правило» and keeps its sections' Latin letters)."""
    return ", ".join(_("Law {number}").format(number=part.removeprefix("Law ")) if part.startswith("Law ")
                     else part for part in law.split(", "))


@dataclass(frozen=True)
class BoardFault:
    """One fault: its code and Law, a line naming cards and pockets, the action, and the details.

    `details` keys by code: F6 ``rotation`` (k or None) and ``permutation`` (pocket holding each seat's
    hand, N E S W); F7 ``matched_board``, ``offset``, ``agreement``, ``rotation``, ``permutation`` (or
    ``boards`` for identical deals in a set); F8 ``problem``, ``expected_board``, ``expected_set``,
    ``read``, ``read_board``, ``read_set``; F9 ``copy``, ``faults``; F10 ``session``, ``boards``;
    F11 ``unidentified`` (per pocket) and ``unseen`` (cards not seen); counts faults ``counts``.
    """

    code: FaultCategory
    law: str
    message: str
    action: Action
    blocking: bool
    cards: tuple[CardPlace, ...] = ()
    details: Mapping[str, DetailValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    @classmethod
    def make(cls, code: FaultCategory, message: str, cards: Iterable[CardPlace] = (), *,
             action: Action | None = None, blocking: bool | None = None,
             details: Mapping[str, DetailValue] | None = None, **more: DetailValue) -> BoardFault:
        """A fault with the Law, action and blocking of its category unless given."""
        rule = _RULES[code]
        return cls(code, rule.law, message, rule.action if action is None else action,
                   rule.blocking if blocking is None else blocking, tuple(cards),
                   {**(details or {}), **more})

    def text(self) -> str:
        """One line for the director: 'F1 missing card (Law 14A): missing ♠A from North'."""
        return f"{self.title()}: {self.message}"

    def title(self) -> str:
        """The fault named, with no detail: 'F2 card in wrong pocket (Law 13A1)' (`name` and the Law)."""
        return f"{self.name()} ({law_said(self.law)})"

    def name(self) -> str:
        """The fault's code and name: 'F2 card in wrong pocket'; an F7 whose deal is no board's of the file
        says so, and an F6 that is a board lying turned (its hands not yet in question)."""
        name = (_("a deal the file does not hold") if self.action is Action.CHECK_SOURCE
                else named(self.code, self.details.get("problem")))
        return f"{self.code.value} {name}"

    @property
    def other_deal(self) -> bool:
        """True for a board holding a deal that is none of the file's (F7, CHECK_SOURCE)."""
        return self.action is Action.CHECK_SOURCE

    def advice(self, blind: bool = False) -> str:
        """What to do about it. Blind (no card shown), a card or hand to move cannot be found by the person
        told, so the board is emptied and its deal dealt again instead."""
        if blind and self.action is Action.REPOCKET:
            return _("empty the board and deal the same deal again")
        return self.action.said

    def blind_text(self) -> str:
        """One line naming no card: code, Law and what to do (for an operator's screen)."""
        return f"{self.title()}: {self.advice(blind=True)}"

    def to_dict(self) -> dict[str, object]:
        """Plain form for a journal or a report file."""
        return {"code": self.code.value, "law": self.law, "message": self.message,
                "action": self.action.name, "blocking": self.blocking,
                "cards": [c.to_dict() for c in self.cards], "details": dict(self.details)}
