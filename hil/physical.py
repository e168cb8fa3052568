"""The physical things of the dealing room: cards, packs, boards, the rack of boards, and the ledger.

They outlive the machine's firmware: a board keeps its cards when it is ejected, carried around and put
back, so a recount after a host crash or a power loss sees what is really there.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, Final

from firmware_protocol.labels import BoardLabel

DECK: Final = 52
POCKETS: Final = 4
RANKS: Final = "AKQJT98765432"
"""Ranks in card-index order within a suit; suits in index order are spades, hearts, diamonds, clubs."""


class Card:
    """One physical card: its index (0..51) and its pack's identity (its back design). Cards compare by
    identity, so two copies of the same card are two objects.

    `smudged`: the reader cannot read it until it is wiped. `noticed`: False for a card the machine
    fails to notice does not belong (a foreign back it cannot see, a second copy it does not check). The few
    cards that are either are kept in sets of the class, so that each of the many others (52 a board dealt)
    holds only its index and pack.
    """

    __slots__ = ("index", "pack")
    _smudged: ClassVar[set[Card]] = set()
    _unnoticed: ClassVar[set[Card]] = set()

    def __init__(self, index: int, pack: str, smudged: bool = False, noticed: bool = True) -> None:
        self.index = index
        self.pack = pack
        self.smudged = smudged
        self.noticed = noticed

    @property
    def smudged(self) -> bool:
        return self in Card._smudged

    @smudged.setter
    def smudged(self, value: bool) -> None:
        (Card._smudged.add if value else Card._smudged.discard)(self)

    @property
    def noticed(self) -> bool:
        return self not in Card._unnoticed

    @noticed.setter
    def noticed(self, value: bool) -> None:
        (Card._unnoticed.discard if value else Card._unnoticed.add)(self)

    def __repr__(self) -> str:
        return f"Card({self.index}, {self.pack!r}{', smudged' if self.smudged else ''})"


class PackSupply:
    """Fresh packs of 52 cards, numbered P001, P002, ..., each shuffled by the room's seeded RNG."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.issued = 0

    def fresh_pack(self) -> list[Card]:
        """A new pack, shuffled; the first card is the bottom card, fed first."""
        self.issued += 1
        pack = f"P{self.issued:03d}"
        cards = [Card(i, pack) for i in range(DECK)]
        self._rng.shuffle(cards)
        return cards

    def foreign_card(self, index: int) -> Card:
        """A card of another pack (another back design)."""
        return Card(index, "FOREIGN")


class LabelState(Enum):
    """What the barcode reader can make of a board's label."""

    OK = "ok"
    DIRTY = "dirty"  # cannot be read until the operator wipes it
    DAMAGED = "damaged"  # cannot be read at all


@dataclass(eq=False)
class PhysicalBoard:
    """A board: a unique identity (set:board#copy), its label payload, the state of its label and its four
    pockets (N E S W)."""

    ident: str
    label: bytes
    pockets: list[list[Card]] = field(default_factory=lambda: [[] for _ in range(POCKETS)])
    label_state: LabelState = LabelState.OK
    number: int | None = None
    set_name: str | None = None
    retired: bool = False
    insertions: int = 0
    replaceable: bool = True
    """A board with a bad label is replaced by a spare when the operator is asked for the right one."""

    @property
    def card_count(self) -> int:
        """Cards in all four pockets."""
        return sum(len(p) for p in self.pockets)

    def empty(self) -> list[Card]:
        """Take every card out of the pockets; returns them, North's first."""
        cards = [c for p in self.pockets for c in p]
        for p in self.pockets:
            p.clear()
        return cards

    def hands(self) -> list[list[int]]:
        """Card indices in each pocket N E S W, in the order they lie."""
        return [[c.index for c in p] for p in self.pockets]

    def __repr__(self) -> str:
        return f"PhysicalBoard({self.ident!r}, {self.label!r}, {self.card_count} cards)"


def label_of(set_name: str, number: int) -> bytes:
    """The label payload of a board that conforms to Law 2."""
    return BoardLabel.for_board(set_name, number).payload().encode("ascii")


def board_of_label(label: bytes) -> tuple[str, int] | None:
    """(set, board number) a label names, or None if it is not a well-formed label."""
    try:
        parsed = BoardLabel.parse(label.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    return parsed.set_name, parsed.board


class Rack:
    """The boards the operator has at hand: `set_name` boards `numbers`, `copies` of each, in dealing order.

    An open rack has every board anyone asks for: a board not yet in it is fetched (made) on demand.
    A closed rack has only its own boards, plus spares to replace a board whose label is bad.
    """

    def __init__(self, set_name: str, numbers: tuple[int, ...], copies: int = 1, open_rack: bool = False) -> None:
        self.set_name = set_name.upper()
        self.open = open_rack
        self.boards: list[PhysicalBoard] = []
        self.spares_used = 0
        for n in numbers:
            for copy in range(1, copies + 1):
                self.boards.append(self._make(self.set_name, n, copy))

    def __iter__(self) -> Iterator[PhysicalBoard]:
        return iter(self.boards)

    @staticmethod
    def _make(set_name: str, number: int, copy: int) -> PhysicalBoard:
        return PhysicalBoard(f"{set_name}:{number}#{copy}", label_of(set_name, number), number=number,
                             set_name=set_name)

    def in_use(self) -> list[PhysicalBoard]:
        """The boards not taken out of use, in rack order."""
        return [b for b in self.boards if not b.retired]

    def find_label(self, label: bytes) -> PhysicalBoard | None:
        """The board to use for `label`: an empty copy first; fetched if the rack is open."""
        matches = [b for b in self.in_use() if b.label == label]
        if not matches:
            named = board_of_label(label)
            same_number = [b for b in self.in_use() if named and (b.set_name, b.number) == named]
            if same_number:  # the board is here but its label is bad: a spare takes its place
                return self._replace(same_number[0], label)
            return self._fetch(label, named) if self.open else None
        return next((b for b in matches if b.card_count == 0), matches[0])

    def find_number(self, set_name: str, number: int) -> PhysicalBoard | None:
        """Board `number` of `set_name` (an empty copy first); fetched if the rack is open."""
        return self.find_label(label_of(set_name, number))

    def next_empty(self, exclude: PhysicalBoard | None = None) -> PhysicalBoard | None:
        """The first board in rack order that holds no cards."""
        return next((b for b in self.in_use() if b.card_count == 0 and b is not exclude), None)

    def neighbour(self, board: PhysicalBoard) -> PhysicalBoard:
        """Another board that an operator could take by mistake for `board`, one no host may deal into: the
        last board dealt (picked up again from the pile of dealt boards), else the next one on the rack."""
        others = [b for b in self.in_use() if b.label != board.label]
        dealt = [b for b in others if b.card_count == DECK]
        if dealt:
            return dealt[-1]
        if others:
            later = [b for b in others if (b.number or 0) > (board.number or 0)]
            return (later or others)[0]
        set_name, number = board.set_name or self.set_name, (board.number or 0) + 1
        return self._fetch(label_of(set_name, number), (set_name, number))

    def _fetch(self, label: bytes, named: tuple[str, int] | None) -> PhysicalBoard:
        copies = sum(1 for b in self.boards if b.label == label)
        ident = f"{named[0]}:{named[1]}#{copies + 1}" if named else f"{label.decode('ascii', 'replace')}#{copies + 1}"
        board = PhysicalBoard(ident, label, number=named[1] if named else None,
                              set_name=named[0] if named else None)
        self.boards.append(board)
        return board

    def _replace(self, bad: PhysicalBoard, label: bytes) -> PhysicalBoard | None:
        if not bad.replaceable:
            return None
        bad.retired = True
        self.spares_used += 1
        board = PhysicalBoard(f"{bad.ident}/spare{self.spares_used}", label, number=bad.number,
                              set_name=bad.set_name)
        self.boards.append(board)
        return board


class Placements:
    """The cards one dealing placed, in order: each a (card index, pack, physical pocket) as a list holds them,
    kept as a byte a card and the pack only where it changes, so that a room of thousands of boards keeps its
    record in little memory."""

    __slots__ = ("_codes", "_packs")

    def __init__(self) -> None:
        self._codes = bytearray()  # card index * POCKETS + pocket
        self._packs: list[tuple[int, str]] = []  # (from which position, pack)

    def append(self, placed: tuple[int, str, int]) -> None:
        card, pack, pocket = placed
        if not (0 <= card < DECK and 0 <= pocket < POCKETS):
            raise ValueError(f"no card {card} in pocket {pocket}")
        if not self._packs or self._packs[-1][1] != pack:
            self._packs.append((len(self._codes), pack))
        self._codes.append(card * POCKETS + pocket)

    def __len__(self) -> int:
        return len(self._codes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Placements) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Placements({list(self)!r})"

    def __getitem__(self, position: int) -> tuple[int, str, int]:
        code = self._codes[position]
        at = range(len(self._codes))[position]
        pack = next(p for start, p in reversed(self._packs) if start <= at)
        return code // POCKETS, pack, code % POCKETS

    def __iter__(self) -> Iterator[tuple[int, str, int]]:
        changes = iter(self._packs)
        following = next(changes, None)
        pack = ""
        for at, code in enumerate(self._codes):
            while following is not None and following[0] <= at:
                pack = following[1]
                following = next(changes, None)
            yield code // POCKETS, pack, code % POCKETS


@dataclass
class DealRecord:
    """One dealing into one physical board: which job, which deal, and every card placed, in order."""

    board: str
    label: str
    job: int
    board_number: int
    deal: bytes
    placed: Placements = field(default_factory=lambda: Placements())
    """(card index, pack, physical pocket 0..3 of the board) per card, in the order dealt."""
    outcome: str = "dealing"
    cards_before: int = 0
    """Cards the board already held when this dealing started (anything but 0: dealt on top)."""
    turns: int = 0
    """How the board lay in the machine: quarter turns anticlockwise from straight (PROTOCOL.md 12.1)."""

    def hands(self) -> list[list[int]]:
        """Card indices this dealing put into each physical pocket N E S W."""
        out: list[list[int]] = [[] for _ in range(POCKETS)]
        for card, _pack, pocket in self.placed:
            out[pocket].append(card)
        return out


class Ledger:
    """Every dealing into every physical board, card by card, and every time a board was emptied, for tests
    to check what the host claims; `to_json` is the same record in plain JSON (hands as PBN), for anyone to
    check a run with.

    "Dealt" means dealing started (StartDeal from LOADED); a resumption after a fault continues the
    same record. `times_dealt(label)` is what a host's "every board dealt exactly once" is checked
    against.
    """

    def __init__(self) -> None:
        self.records: list[DealRecord] = []
        self.emptied: list[tuple[str, int]] = []

    def start(self, board: PhysicalBoard, job: int, board_number: int, deal: bytes, turns: int = 0) -> DealRecord:
        """A dealing of `job` (the deal for board `board_number`) starts into `board`, lying `turns` round."""
        record = DealRecord(board.ident, board.label.decode("ascii", "replace"), job, board_number, deal,
                            cards_before=board.card_count, turns=turns)
        self.records.append(record)
        return record

    def note_emptied(self, board: PhysicalBoard, cards: int) -> None:
        self.emptied.append((board.ident, cards))

    def for_label(self, label: str | bytes) -> list[DealRecord]:
        """The dealings into boards with this label, in order."""
        text = label.decode("ascii", "replace") if isinstance(label, bytes) else label
        return [r for r in self.records if r.label == text]

    def times_dealt(self, label: str | bytes) -> int:
        """How many times dealing started into a board with this label."""
        return len(self.for_label(label))

    def dealt_labels(self) -> dict[str, int]:
        """Label -> times dealt, for every board dealt at least once."""
        out: dict[str, int] = {}
        for r in self.records:
            out[r.label] = out.get(r.label, 0) + 1
        return out

    def to_json(self, boards: Iterable[PhysicalBoard]) -> dict[str, object]:
        """The record in plain JSON: every dealing (the cards it put into each pocket) and what each board
        that was ever in the machine, or holds cards, holds now; hands as PBN deals ``N:<N> <E> <S> <W>``
        (suits S.H.D.C, ranks AKQJT98765432; an empty pocket is the empty hand ``...``)."""
        dealings = [{"label": r.label, "board": r.board, "job": r.job, "board_number": r.board_number,
                     "outcome": r.outcome, "cards": len(r.placed), "cards_before": r.cards_before,
                     "turns": r.turns, "deal": pbn_deal(r.hands())}
                    for r in self.records]
        held = [{"label": b.label.decode("ascii", "replace"), "board": b.ident, "cards": b.card_count,
                 "pockets": pbn_deal(b.hands()), "packs": sorted({c.pack for p in b.pockets for c in p})}
                for b in boards if b.insertions or b.card_count]
        return {"dealings": dealings, "boards": held,
                "emptied": [{"board": ident, "cards": n} for ident, n in self.emptied]}


def pbn_hand(cards: Iterable[int]) -> str:
    """One hand in PBN: four suits S.H.D.C, ranks high to low (a card held twice is written twice)."""
    suits: list[list[int]] = [[] for _ in range(4)]
    for card in cards:
        suits[card // 13].append(card % 13)
    return ".".join("".join(RANKS[r] for r in sorted(suit)) for suit in suits)


def pbn_deal(hands: list[list[int]]) -> str:
    """Four hands N E S W as a PBN deal string from North: ``N:<N> <E> <S> <W>``."""
    return "N:" + " ".join(pbn_hand(h) for h in hands)
