"""The card path: one card at a time from the hopper, past the reader, into a pocket; and the recount.

`LoadedJob` is what the firmware remembers of the loaded job; `CardPath` does the physical work in the `Room`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from firmware_protocol.codes import FaultCode
from firmware_protocol.deal import unpack_seats
from firmware_protocol.layout import Pocket
from hil.fault_plan import FaultKind, FaultSpec
from hil.physical import POCKETS, Card, DealRecord
from hil.room import HoldReason, Room


@dataclass(frozen=True)
class Stop:
    """Dealing stopped on a fault: its code, detail and whether StartDeal can resume once it is cleared."""

    code: FaultCode
    detail: int
    resumable: bool


@dataclass
class LoadedJob:
    """The loaded job and how far its dealing got: the deal, the cards dealt, the count per pocket, the
    pack being dealt."""

    job: int
    board_number: int
    deal: bytes
    deal_hash: int
    seats: tuple[int, ...] = ()
    cards_dealt: int = 0
    counts: list[int] = field(default_factory=lambda: [0] * POCKETS)
    dealt: set[int] = field(default_factory=set)
    pack: str | None = None
    record: DealRecord | None = None
    redirect: dict[Card, int] = field(default_factory=dict)
    """Cards still in the hopper that a crossing (swapped cards) will send to another hand's pocket."""

    def __post_init__(self) -> None:
        self.seats = unpack_seats(self.deal)


class CardPath:
    """Moves cards through the room for the firmware: prepares the hopper as a dealing starts (applying
    the plan's pack faults), feeds one card (applying the card faults that fire on it) and reads the
    pockets back. The reader sees each card's index and pack; the machine routes a card to the pocket its
    deal gives the card's index, and stops on a card it cannot read, a card of another pack, or a second
    copy of a card already dealt."""

    def __init__(self, room: Room) -> None:
        self.room = room

    def prepare(self, dealing: LoadedJob, pack_faults: list[FaultSpec]) -> None:
        """A dealing starts: apply the pack faults to the hopper and note which pack is being dealt."""
        for spec in pack_faults:
            self._spoil_pack(spec)
        packs = Counter(c.pack for c in self.room.hopper)
        dealing.pack = packs.most_common(1)[0][0] if packs else None

    def _spoil_pack(self, spec: FaultSpec) -> None:
        hopper = self.room.hopper
        at = min((spec.card or 1) - 1, len(hopper))
        if spec.kind is FaultKind.EMPTY_HOPPER:
            self.room.aside += hopper[at:]
            del hopper[at:]
        elif spec.kind is FaultKind.FOREIGN_CARD and hopper:
            if spec.replace and at < len(hopper):
                self.room.aside.append(hopper.pop(at))
            # it shows the index of the first card fed: unnoticed, it makes a second copy of that card
            foreign = self.room.packs.foreign_card(hopper[0].index if hopper else 0)
            foreign.noticed = spec.detected is not False
            hopper.insert(at, foreign)
        elif spec.kind is FaultKind.DUPLICATE_CARD and hopper:
            original = hopper[0]
            copy = Card(original.index, original.pack, noticed=spec.detected is not False)
            hopper.insert(max(at, 1), copy)

    def feed(self, dealing: LoadedJob, effects: list[FaultSpec]) -> Stop | None:
        """Feed one card into the board; returns why dealing stopped, or None if the card was dealt."""
        room = self.room
        kinds = {e.kind: e for e in effects}
        card = room.feed()
        if card is None:
            return Stop(FaultCode.EMPTY_HOPPER, 0, True)
        stop = self._read(card, dealing, kinds)
        if stop is not None:
            return stop
        seat = dealing.seats[card.index]
        rider = self._rider(dealing, seat) if FaultKind.DOUBLE_FEED in kinds else None
        misfeed = kinds.get(FaultKind.MISFEED)
        target = seat if misfeed is None else (misfeed.pocket if misfeed.pocket is not None else (seat + 1) % 4)
        if card in dealing.redirect:
            target = dealing.redirect.pop(card)
        elif FaultKind.SWAPPED_CARDS in kinds:
            target = self._cross(dealing, seat, target)
        if FaultKind.CARD_FALLS in kinds:
            room.floor.append(card)
        else:
            self._place(dealing, card, target)
        if rider is not None:
            self._place(dealing, rider, target)
        dealing.cards_dealt += 1
        dealing.dealt.add(card.index)
        misfeed_seen = misfeed is not None and misfeed.detected is True
        dealing.counts[target if misfeed_seen else seat] += 1
        if misfeed_seen:
            return Stop(FaultCode.MISFEED, target, False)
        double = kinds.get(FaultKind.DOUBLE_FEED)
        if rider is not None and double is not None and double.detected is not False:
            return Stop(FaultCode.MISFEED, 0xFFFF, False)
        return None

    def _rider(self, dealing: LoadedJob, seat: int) -> Card | None:
        """The card fed along with this one: the next card of the pack that belongs to another hand (a
        double feed of two cards of one hand would leave no trace in the board)."""
        hopper = self.room.hopper
        rider = next((c for c in hopper if dealing.seats[c.index] != seat), hopper[0] if hopper else None)
        if rider is not None:
            hopper.remove(rider)
        return rider

    def _cross(self, dealing: LoadedJob, seat: int, target: int) -> int:
        """This card and the next one of another hand cross: each goes into the other's pocket."""
        partner = next((c for c in self.room.hopper if dealing.seats[c.index] != seat), None)
        if partner is None:
            return target
        dealing.redirect[partner] = seat
        return dealing.seats[partner.index]

    def _read(self, card: Card, dealing: LoadedJob, kinds: dict[FaultKind, FaultSpec]) -> Stop | None:
        """The reader's checks on a card; a card that fails one is held in the path."""
        room = self.room
        if FaultKind.JAM in kinds:
            room.hold(card, HoldReason.JAM)
            return Stop(FaultCode.JAM, dealing.cards_dealt, True)
        if FaultKind.UNREADABLE_CARD in kinds:
            card.smudged = True
        if card.smudged:
            room.hold(card, HoldReason.UNREADABLE)
            return Stop(FaultCode.UNREADABLE_CARD, dealing.cards_dealt, True)
        if card.noticed and dealing.pack is not None and card.pack != dealing.pack:
            room.hold(card, HoldReason.FOREIGN)
            return Stop(FaultCode.FOREIGN_CARD, 0, True)
        if card.noticed and card.index in dealing.dealt:
            room.hold(card, HoldReason.DUPLICATE)
            return Stop(FaultCode.DUPLICATE_CARD, card.index, True)
        return None

    def _place(self, dealing: LoadedJob, card: Card, machine_pocket: int) -> None:
        pocket = self.room.place(card, machine_pocket)
        if dealing.record is not None and pocket >= 0:
            dealing.record.placed.append((card.index, card.pack, pocket))

    def read_back(self, job: int, unreadable_at: set[int]) -> tuple[Pocket, ...]:
        """The recount: each machine pocket's cards as read, in order; `unreadable_at` are positions
        (1-based, counted over the whole recount) the reader fails on. No board: no pockets."""
        slot = self.room.slot
        if slot is None:
            return ()
        pockets = []
        position = 0
        for machine_pocket in range(POCKETS):
            cards: list[int] = []
            unidentified = 0
            for card in slot.board.pockets[slot.board_pocket(machine_pocket)]:
                position += 1
                if card.smudged or position in unreadable_at:
                    unidentified += 1
                else:
                    cards.append(card.index)
            pockets.append(Pocket(tuple(cards), unidentified))
        return tuple(pockets)
