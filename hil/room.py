"""The dealing room: the machine's physical parts and what lies around it.

It knows nothing of firmware or protocol: the firmware (`hil.model`) moves cards through it and reads its
sensors; the operator (`hil.operator`) moves boards and cards by hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from hil.physical import POCKETS, Card, Ledger, PackSupply, PhysicalBoard, Rack

SensorListener = Callable[[float], None]


class HoldReason(Enum):
    """Why a card stopped in the card path."""

    JAM = "jam"  # stuck: goes back onto the hopper when cleared
    UNREADABLE = "unreadable"  # held at the reader: wiped and put back onto the hopper when cleared
    FOREIGN = "foreign"  # not of this pack: taken away when cleared
    DUPLICATE = "duplicate"  # a second copy of a card already dealt: taken away when cleared


@dataclass
class HeldCard:
    """A card stopped in the card path, and why."""

    card: Card
    reason: HoldReason


@dataclass
class Slot:
    """The board in the machine and how it was put in: 0 = straight, k = turned k quarter turns anticlockwise
    seen from above (PROTOCOL.md 12.1).

    Turned by k, the machine's pocket p is the board's pocket (p + k) % 4, and the label faces the machine's
    side (4 - k) % 4.
    """

    board: PhysicalBoard
    turns: int = 0
    label_hidden: bool = False
    """True when the label faces a side the plan says no reader sees (a turned board, unless `readable`)."""

    def board_pocket(self, machine_pocket: int) -> int:
        """The board's own pocket under the machine's pocket `machine_pocket`."""
        return (machine_pocket + self.turns) % POCKETS


class Room:
    """The machine's hopper (a stack of cards, the bottom one fed first), card path (where a card can stop:
    jammed, or held at the reader because it could not be read or does not belong), slot (a board, possibly
    turned some quarter turns) and door; around it the rack, the floor, the pile of cards the operator set
    aside, and the ledger. Sensor changes (board in or out, door open or closed) go to the listeners the
    device sets."""

    def __init__(self, rack: Rack, rng: random.Random) -> None:
        self.rack = rack
        self.packs = PackSupply(rng)
        self.ledger = Ledger()
        self.hopper: list[Card] = []
        self.path: HeldCard | None = None
        self.slot: Slot | None = None
        self.door_open = False
        self.aside: list[Card] = []
        self.floor: list[Card] = []
        self.on_board_change: SensorListener = _ignore
        self.on_door_change: SensorListener = _ignore

    # --- sensors ---------------------------------------------------------------------------------

    @property
    def board_present(self) -> bool:
        return self.slot is not None

    @property
    def hopper_empty(self) -> bool:
        return not self.hopper

    # --- boards ----------------------------------------------------------------------------------

    def insert(self, board: PhysicalBoard, now: float, turns: int = 0, label_hidden: bool = False) -> None:
        """Put `board` into the empty slot, turned `turns` quarter turns."""
        if self.slot is not None:
            raise RuntimeError(f"the slot already holds {self.slot.board.ident}")
        self.slot = Slot(board, turns % POCKETS, label_hidden)
        board.insertions += 1
        self.on_board_change(now)

    def take_out(self, now: float) -> PhysicalBoard | None:
        """Take the board out of the slot (by hand or by the ejector); None if the slot was empty."""
        if self.slot is None:
            return None
        board = self.slot.board
        self.slot = None
        self.on_board_change(now)
        return board

    def boards_back_from_the_tables(self) -> int:
        """Every board of the rack (not the one in the slot) comes back empty, as boards do from the tables after
        a session: their cards go with the players' packs, and the ledger notes each board emptied. Returns how
        many boards held cards."""
        in_slot = self.slot.board if self.slot is not None else None
        emptied = 0
        for board in self.rack:
            if board is not in_slot and board.card_count:
                self.ledger.note_emptied(board, len(board.empty()))
                emptied += 1
        return emptied

    # --- door ------------------------------------------------------------------------------------

    def set_door(self, is_open: bool, now: float) -> None:
        if self.door_open != is_open:
            self.door_open = is_open
            self.on_door_change(now)

    # --- cards -----------------------------------------------------------------------------------

    def load_fresh_pack(self) -> None:
        """Set aside whatever is left in the hopper or held in the card path, and load a fresh pack."""
        self.aside += self.hopper
        if self.path is not None:
            self.aside.append(self.path.card)
            self.path = None
        self.hopper = self.packs.fresh_pack()

    def feed(self) -> Card | None:
        """Take the bottom card off the hopper, None if it is empty."""
        return self.hopper.pop(0) if self.hopper else None

    def hold(self, card: Card, reason: HoldReason) -> None:
        """Stop `card` in the card path."""
        self.path = HeldCard(card, reason)

    def place(self, card: Card, machine_pocket: int) -> int:
        """Drop `card` into the board under the machine's pocket; returns the board's own pocket."""
        if self.slot is None:
            self.floor.append(card)
            return -1
        pocket = self.slot.board_pocket(machine_pocket)
        self.slot.board.pockets[pocket].append(card)
        return pocket

    def clear_path(self) -> None:
        """The operator clears the card path: a jammed or unreadable card goes back onto the hopper (wiped),
        a foreign or duplicate one is set aside."""
        held, self.path = self.path, None
        if held is None:
            return
        if held.reason in (HoldReason.JAM, HoldReason.UNREADABLE):
            held.card.smudged = False
            self.hopper.insert(0, held.card)
        else:
            self.aside.append(held.card)

    def fix_pack(self, pack: str | None, in_board: set[int]) -> None:
        """The operator makes the hopper's pack whole.

        Cards of another pack and second copies leave the hopper; cards of `pack` lying on the floor or
        set aside whose index is neither in the hopper nor in the board (`in_board`) go back into it. With
        no pack named and an empty hopper, a fresh pack is loaded.
        """
        if pack is None:
            if not self.hopper:
                self.load_fresh_pack()
            return
        keep: list[Card] = []
        seen = set(in_board)
        for card in self.hopper:
            if card.pack == pack and card.index not in seen:
                keep.append(card)
                seen.add(card.index)
            else:
                self.aside.append(card)
        for pile in (self.floor, self.aside):
            for card in list(pile):
                if card.pack == pack and card.index not in seen:
                    pile.remove(card)
                    keep.append(card)
                    seen.add(card.index)
        self.hopper = keep

    def all_cards(self) -> list[Card]:
        """Every card in the room: hopper, path, every board, the set-aside pile and the floor."""
        cards = list(self.hopper) + ([self.path.card] if self.path else [])
        for board in self.rack:
            cards += [c for p in board.pockets for c in p]
        return cards + self.aside + self.floor


def _ignore(now: float) -> None:
    return None
