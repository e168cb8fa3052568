"""Verifying a board: the intended deal against what the machine saw, each fault named by its Law.

Pure. Before dealing a driver calls :func:`check_deal_set`, then per board :func:`check_label`,
:func:`check_orientation` and :func:`check_empty` (a board refused there is never dealt into); after,
:func:`verify_board` on the machine's `BoardRecount`. The codes and their order: `dealer.verify.fault_table`.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from dealer.core import cards
from dealer.core.boards import Vulnerability, format_board_range
from dealer.core.cards import CARDS_PER_SEAT, DECK_SIZE, DealArray, check_deals
from dealer.core.dealset import DealSet
from dealer.core.errors import VerificationError
from dealer.language import N_, _, n_, p_
from dealer.verify.fault_table import PRECEDENCE, Action, BoardFault, CardPlace, DetailValue, FaultCategory, card_text
from firmware_protocol.labels import BoardLabel

__all__ = [
    "PRECEDENCE", "Action", "BoardFault", "BoardRecount", "CardPlace", "FaultCategory", "PocketReading",
    "VerificationReport", "card_text", "check_deal_set", "check_empty", "check_label", "check_orientation",
    "deal_hash", "verify_board",
]



def _pocket(q: int) -> str:
    """Pocket `q` (0..3 = N E S W) named in a fault's line: 'North' ('С' in Russian, which writes pockets as
    letters)."""
    return (p_("pocket", "North"), p_("pocket", "East"), p_("pocket", "South"), p_("pocket", "West"))[q]

MIN_OTHER_BOARD_MATCH: Final = 40
"""Cards that must sit where another board's deal has them before the board is called F7."""
_MAX_CARDS_SHOWN: Final = 13


# --- the recount ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PocketReading:
    """What the machine saw in one pocket: the cards it identified, in any order (a card may appear
    twice if a duplicate is present), the pack identity read on each (None where not read), and how
    many cards it could not identify."""

    cards: tuple[int, ...]
    unidentified: int = 0
    packs: tuple[str | None, ...] | None = None

    def __post_init__(self) -> None:
        cards = tuple(int(c) for c in self.cards)
        bad = [c for c in cards if not 0 <= c < DECK_SIZE]
        if bad:
            raise ValueError(f"recount: card index {bad[0]} is not 0..51")
        if self.unidentified < 0:
            raise ValueError(f"recount: {self.unidentified} unidentified cards")
        packs = None if self.packs is None else tuple(self.packs)
        if packs is not None and len(packs) != len(cards):
            raise ValueError(f"recount: {len(cards)} cards but {len(packs)} pack identities")
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "packs", packs)

    @property
    def count(self) -> int:
        """Cards in the pocket, identified or not."""
        return len(self.cards) + self.unidentified

    def pack_of(self, i: int) -> str | None:
        """Pack identity read on the i-th card, None if not read."""
        return None if self.packs is None else self.packs[i]


@dataclass(frozen=True)
class BoardRecount:
    """The four pockets N E S W as the machine recounted them."""

    pockets: tuple[PocketReading, PocketReading, PocketReading, PocketReading]

    def __post_init__(self) -> None:
        if len(self.pockets) != 4:
            raise ValueError(f"a recount has 4 pockets; got {len(self.pockets)}")

    @classmethod
    def from_hands(cls, hands: Sequence[Sequence[int]], unidentified: Sequence[int] = (0, 0, 0, 0),
                   packs: Sequence[Sequence[str | None]] | None = None) -> BoardRecount:
        """A recount from four lists of card indices (N E S W) and unidentified counts."""
        if len(hands) != 4 or len(unidentified) != 4 or (packs is not None and len(packs) != 4):
            raise ValueError("a recount has 4 pockets (N E S W)")
        p = [PocketReading(tuple(h), u, None if packs is None else tuple(packs[i]))
             for i, (h, u) in enumerate(zip(hands, unidentified, strict=True))]
        return cls((p[0], p[1], p[2], p[3]))

    @classmethod
    def of_deal(cls, deal: DealArray, pack: str | None = None) -> BoardRecount:
        """The recount of a board holding exactly `deal` (cards in index order), all of pack `pack`."""
        deal = check_deals(deal).reshape(DECK_SIZE)
        hands = [[int(c) for c in np.flatnonzero(deal == s)] for s in range(4)]
        packs = None if pack is None else [[pack] * CARDS_PER_SEAT for _ in range(4)]
        return cls.from_hands(hands, packs=packs)

    @property
    def counts(self) -> tuple[int, int, int, int]:
        """Cards per pocket N E S W, identified or not."""
        p = self.pockets
        return (p[0].count, p[1].count, p[2].count, p[3].count)

    @property
    def unidentified(self) -> int:
        """Unidentified cards in the whole board."""
        return sum(p.unidentified for p in self.pockets)


# --- the report -------------------------------------------------------------------------------


@dataclass(frozen=True)
class VerificationReport:
    """The result of verifying one board (one copy). `ok` is True only for F0. The fault texts name cards
    and pockets, so they are deal data: for the director, not an operator's screen in blind mode
    (`BoardFault.blind_text` names only code, Law and action)."""

    board: int
    copy: int
    ok: bool
    faults: tuple[BoardFault, ...]
    counts: tuple[int, int, int, int]
    label: BoardLabel | None
    layout_hash: str | None
    """SHA-256 of the verified layout (as `DealSet.deal_hashes`), only when ok."""

    @property
    def blocking(self) -> tuple[BoardFault, ...]:
        """The faults that stop the board."""
        return tuple(f for f in self.faults if f.blocking)

    @property
    def primary(self) -> BoardFault | None:
        """The first blocking fault by precedence, None if nothing blocks."""
        blocking = self.blocking
        return blocking[0] if blocking else None

    @property
    def action(self) -> Action | None:
        """The action of the primary fault: what the controller does first."""
        primary = self.primary
        return None if primary is None else primary.action

    @property
    def codes(self) -> tuple[FaultCategory, ...]:
        """The fault codes, in precedence order."""
        return tuple(f.code for f in self.faults)

    @property
    def names_cards(self) -> bool:
        """True if a fault's full text names cards (showing it shows part of the deal: Law 16D)."""
        return any(f.cards or f.details.get("unseen") for f in self.faults)

    @property
    def unverified(self) -> bool:
        """True if the machine could not identify every card (F11)."""
        return FaultCategory.F11 in self.codes

    def fault(self, code: FaultCategory) -> BoardFault | None:
        """The fault of this code, None if absent."""
        return next((f for f in self.faults if f.code is code), None)

    def summary(self, blind: bool = False, advice: bool = True) -> str:
        """One line: 'board 7: OK' or 'board 7 copy 2: F1 ...; F6 ...' (no cards named if blind; blind
        without `advice`, the faults' titles alone, for a line that says what is done after them)."""
        head = (_("board {board} copy {copy}") if self.copy > 1 else _("board {board}")).format(
            board=self.board, copy=self.copy)
        return f"{head}: {self.verdict(blind, advice)}"

    def verdict(self, blind: bool = False, advice: bool = True) -> str:
        """`summary` without the board: 'OK', 'FAULT: F1 ...; F6 ...'."""
        if not self.faults:
            return _("OK")
        status = _("OK with warnings") if self.ok else (_("UNVERIFIED") if self.unverified else _("FAULT"))
        parts = [(f.blind_text() if advice else f.title()) if blind else f.text() for f in self.faults]
        return f"{status}: " + "; ".join(parts)

    def require_ok(self) -> None:
        """Raise `VerificationError` (holding this report) unless the board is ok."""
        if not self.ok:
            raise VerificationError(self.summary(blind=True), report=self)

    def to_dict(self) -> dict[str, object]:
        """Plain form for a journal or a report file."""
        return {"board": self.board, "copy": self.copy, "ok": self.ok,
                "counts": list(self.counts), "layout_hash": self.layout_hash,
                "label": None if self.label is None else self.label.payload(),
                "faults": [f.to_dict() for f in self.faults]}


def deal_hash(deal: DealArray) -> str:
    """SHA-256 (hex) of a deal's packed form: the same identity as `DealSet.deal_hashes`."""
    return hashlib.sha256(cards.pack(np.asarray(deal).reshape(DECK_SIZE)).tobytes()).hexdigest()


# --- checks made before dealing ---------------------------------------------------------------


def check_label(label: str | None, board: int, set_name: str) -> BoardFault | None:
    """Barcode check before dealing: F8 unless `label` names board `board` of set `set_name` and the
    dealer and vulnerability it marks are those of Law 2. `label` is the payload read, None if none."""
    expected = _("board {board} of set {set}").format(board=board, set=set_name.upper())
    base: dict[str, DetailValue] = {"expected_board": board, "expected_set": set_name.upper(), "read": label}
    if label is None:
        return BoardFault.make(FaultCategory.F8, _("board label not read; expected {expected}").format(
                                   expected=expected),
                          problem="no read", details=base)
    try:
        read = BoardLabel.parse(label)
    except ValueError as exc:
        return BoardFault.make(FaultCategory.F8, _("{problem}; expected {expected}").format(
            problem=exc, expected=expected), problem="unreadable", details=base)
    base |= {"read_board": read.board, "read_set": read.set_name}
    problems = []
    if read.board != board or read.set_name != set_name.upper():
        problems.append(_("the board is board {read} of set {read_set}, not {expected}: never deal board "
                          "{board}'s deal into it").format(read=read.board, read_set=read.set_name,
                                                           expected=expected, board=board))
    if not read.conforms:
        law2 = BoardLabel.for_board(read.set_name, read.board)
        problems.append(_("board {board} is marked {marked} but Law 2 gives {law2}: take it out of use").format(
            board=read.board, marked=_marking(read), law2=_marking(law2)))
    if not problems:
        return None
    kind = "wrong board" if read.board != board or read.set_name != set_name.upper() else "breaks Law 2"
    if len(problems) == 2:
        kind = "wrong board, breaks Law 2"
    return BoardFault.make(FaultCategory.F8, "; ".join(problems), problem=kind, details=base)


TURN_WORDS: Final = (N_("straight"), N_("a quarter anticlockwise"), N_("half round"), N_("a quarter clockwise"))
"""How a board lies turned `turns` quarter turns anticlockwise (seen from above), by `turns` 0..3."""


def check_orientation(turns: int, board: int) -> BoardFault | None:
    """Orientation check: F6 (titled "board turned") with the action REFUSE_BOARD (dealt or recounted as it
    lies, every hand would be in another pocket) unless the board lies straight; the turn is said in words.

    `turns` is how the machine read the board lying: quarter turns anticlockwise from straight, seen from
    above, so that the machine's pocket p is the board's pocket (p + turns) mod 4 (PROTOCOL.md 12.1)."""
    k = turns % 4
    if k == 0:
        return None
    north_under = _pocket((-k) % 4)
    return BoardFault.make(
        FaultCategory.F6, _("board {board} lies turned {turn} in the machine (its North pocket under the machine's "
                            "{pocket}); turn it so that its North pocket is under the machine's North").format(
            board=board, turn=_(TURN_WORDS[k]), pocket=north_under),
        action=Action.REFUSE_BOARD, problem="turned",
        turns=k)


def check_empty(recount: BoardRecount, deal: DealArray, *, board: int,
                session: SessionDeals | None = None, name: str | None = None) -> BoardFault | None:
    """Before dealing: None if the board's pockets are empty. Otherwise the cards would be dealt on top:
    F7 (stop the batch) if they are another board's deal of the session, else F4 with the action
    REFUSE_BOARD (remove them first).
    Names no card: the counts per pocket, and the board whose deal it is."""
    counts = recount.counts
    total = sum(counts)
    if total == 0:
        return None
    deal = check_deals(deal).reshape(DECK_SIZE)
    ref = _choose_reference(deal, board, _entries(recount), session)
    if ref.board != board:
        fault = _other_board_fault(ref, board)
        return BoardFault.make(FaultCategory.F7, _("before dealing: {fault}").format(fault=fault.message),
                               details=fault.details,
                               problem="another board's deal", counts=counts)
    said = _("board {board} still holds cards ({counts}): empty it").format(
        board=name or board, counts=_counts_text(counts))
    return BoardFault.make(FaultCategory.F4, said, action=Action.REFUSE_BOARD, problem="not empty",
                           counts=counts)


def _boards_text(boards: list[int]) -> str:
    if len(boards) == 1:
        return _("the deal of board {board} was").format(board=boards[0])
    return _("the deals of boards {boards} were each").format(boards=format_board_range(boards))


def _marking(label: BoardLabel) -> str:
    return _("dealer {dealer}, vulnerability {vulnerability}").format(
        dealer=_("N E S W").split()[label.dealer], vulnerability=Vulnerability(label.vulnerability).pbn)


def check_deal_set(deals: DealSet, seen: Mapping[str, str], *, replay: bool = False) -> tuple[BoardFault, ...]:
    """Checks of a deal set before dealing it: F10 for deals already dealt in another session and F7
    for two boards of the set holding the same deal.

    `seen` maps deal hashes (`DealSet.deal_hashes`) from the history to the name of the session that
    dealt them. In a replay event (`replay`) reused deals are reported as a non-blocking F10 warning.
    """
    hashes = deals.deal_hashes()
    boards = [int(b) for b in deals.boards]
    faults: list[BoardFault] = []
    by_session: dict[str, list[int]] = {}
    for board, h in zip(boards, hashes, strict=True):
        if h in seen:
            by_session.setdefault(seen[h], []).append(board)
    for session, reused in by_session.items():
        note = _("allowed: the event is a replay") if replay else _("no result on it may stand")
        faults.append(BoardFault.make(
            FaultCategory.F10, _("{boards} already dealt in session {session}: {note}").format(
                boards=_boards_text(reused), session=repr(session), note=note),
            action=Action.WARN if replay else None, blocking=not replay,
            session=session, boards=tuple(reused)))
    by_hash: dict[str, list[int]] = {}
    for board, h in zip(boards, hashes, strict=True):
        by_hash.setdefault(h, []).append(board)
    for same in (b for b in by_hash.values() if len(b) > 1):
        faults.append(BoardFault.make(
            FaultCategory.F7,
            _("boards {boards} of the set hold the same deal").format(boards=", ".join(map(str, same))),
            action=Action.REFUSE_DEAL_SET, boards=tuple(same)))
    return tuple(sorted(faults, key=lambda f: PRECEDENCE.index(f.code)))


# --- verifying a dealt board ------------------------------------------------------------------


SessionDeals = Mapping[int, DealArray] | DealSet


def verify_board(
    deal: DealArray,
    recount: BoardRecount,
    *,
    board: int,
    set_name: str,
    label: str | None,
    copy: int = 1,
    session: SessionDeals | None = None,
    operator_exposed: bool = False,
    pack: str | None = None,
    just_dealt: bool = False,
) -> VerificationReport:
    """Verify one dealt board: the intended `deal` of `board` against the machine's `recount`.

    `label` is the barcode payload read from the board (None: no read). `copy` is the copy number of
    the board (Law 6F; copies > 1 that differ are F9). `session` holds the other deals of the session
    (board -> deal) to recognise another board's deal (F7). `operator_exposed` says the deal was shown
    to an operator (F12). `pack` is the pack identity the board must hold, when the machine reads
    one; by default the identity read on most cards. `just_dealt`: the machine has just dealt `deal` into
    this board, so a recount far from it is a dealing fault put right by a redeal, never another deal.

    Placement is judged against the best explanation: the intended deal, its hands under a permutation
    of the pockets (F6, when that places strictly more cards), or another board's deal of the session
    (F7, when that places at least 40 cards and more than the intended one). Each card is then reported
    once: a card of the deal missing (F1/F5) or in the wrong pocket (F2/F3, relative to its hand as
    found); a card beyond the deal surplus (F4/F5). With unidentified cards (F11) a card not seen may be
    one of them: it is missing (F1) only when more cards are unseen than unidentified.
    """
    deal = check_deals(deal).reshape(DECK_SIZE)
    if copy < 1:
        raise ValueError(f"copy numbers start at 1; got {copy}")
    entries = _entries(recount)
    board_pack = pack if pack is not None else _majority_pack(entries)
    ref = _choose_reference(deal, board, entries, session)
    sort = _sort_cards(entries, ref.pockets, board_pack)
    faults: list[BoardFault] = []
    label_fault = check_label(label, board, set_name)
    if label_fault is not None:
        faults.append(label_fault)
    faults += _unidentified_faults(recount, sort.missing)
    if not just_dealt and _another_deal(ref, board, entries):
        faults.append(_another_deal_fault(ref, board, len(entries)))
    else:
        faults += _pack_faults(sort, ref, recount)
        faults += _placement_faults(ref, sort.misplaced, recount.counts, board)
    if copy > 1:
        faults += _copy_faults(faults, board, copy)
    if operator_exposed:
        faults.append(BoardFault.make(FaultCategory.F12, _("the deal of board {board} was shown to an operator: "
                                                           "tell the director if they play it").format(board=board)))
    faults.sort(key=lambda f: PRECEDENCE.index(f.code))
    return _report(deal, recount, board, copy, label, board_pack, faults)


def _report(deal: DealArray, recount: BoardRecount, board: int, copy: int, label: str | None,
            board_pack: str | None, faults: list[BoardFault]) -> VerificationReport:
    exact = _holds_exactly(deal, recount, board_pack)
    blocking = any(f.blocking for f in faults)
    if not exact and not blocking:  # last guard of "never verified when the pockets differ"
        raise RuntimeError(f"board {board}: the recount differs from the deal but no fault was named")
    ok = exact and not blocking
    parsed = _parse_or_none(label)
    return VerificationReport(board, copy, ok, tuple(faults), recount.counts, parsed,
                              deal_hash(deal) if ok else None)


def _parse_or_none(label: str | None) -> BoardLabel | None:
    if label is None:
        return None
    try:
        return BoardLabel.parse(label)
    except ValueError:
        return None


def _holds_exactly(deal: DealArray, recount: BoardRecount, board_pack: str | None) -> bool:
    """F0 on the cards, checked directly: each pocket holds exactly its hand, all of one pack."""
    for seat, pocket in enumerate(recount.pockets):
        if pocket.unidentified or sorted(pocket.cards) != np.flatnonzero(deal == seat).tolist():
            return False
    packs = {p for pocket in recount.pockets for p in (pocket.packs or ()) if p is not None}
    return not packs or packs == {board_pack}


# --- what was seen: entries, the pack, the reference deal ----------------------------------


class _CardPlace(NamedTuple):
    card: int
    pocket: int
    pack: str | None


def _entries(recount: BoardRecount) -> list[_CardPlace]:
    return [_CardPlace(c, q, pocket.pack_of(i))
            for q, pocket in enumerate(recount.pockets) for i, c in enumerate(pocket.cards)]


def _majority_pack(entries: list[_CardPlace]) -> str | None:
    counts = Counter(e.pack for e in entries if e.pack is not None)
    if not counts:
        return None
    top = max(counts.values())
    return min(p for p, n in counts.items() if n == top)


def _other_deals(session: SessionDeals | None, board: int) -> tuple[list[int], DealArray]:
    """The session's deals of boards other than `board`, as board numbers and an (n, 52) array."""
    if session is None:
        return [], np.empty((0, DECK_SIZE), dtype=np.uint8)
    if isinstance(session, DealSet):
        keep = session.boards != board
        return session.boards[keep].tolist(), session.deals[keep]
    items = [(int(b), check_deals(d).reshape(DECK_SIZE)) for b, d in session.items() if int(b) != board]
    if not items:
        return [], np.empty((0, DECK_SIZE), dtype=np.uint8)
    return [b for b, _ in items], np.stack([d for _, d in items])


def _permutations() -> npt.NDArray[np.intp]:
    """All 24 seat -> pocket permutations: identity, rotations by 1, 2, 3, then the rest."""
    rotations = [tuple((p + k) % 4 for p in range(4)) for k in range(4)]
    rest = [p for p in itertools.permutations(range(4)) if p not in rotations]
    return np.array(rotations + rest, dtype=np.intp)


_PERMS: Final = _permutations()
_CHUNK: Final = 512
"""The session's deals compared with the pockets at a time (`_best_permutations`)."""
_SEAT_RANGE: Final = np.arange(4)


def _rotation_of(perm: tuple[int, ...]) -> int | None:
    k = perm[0]
    return k if all(perm[p] == (p + k) % 4 for p in range(4)) else None


@dataclass(frozen=True)
class _Reference:
    """The deal the pockets are judged against, and the pocket holding each of its hands."""

    board: int
    deal: DealArray
    perm: tuple[int, ...]
    agreement: int

    @property
    def pockets(self) -> DealArray:
        """The pocket each card belongs in as the board stands (its hand's pocket)."""
        return np.asarray(self.perm, dtype=np.uint8)[self.deal]


def _best_permutations(present: npt.NDArray[np.bool_], deals: DealArray) -> tuple[
        npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """For each deal (n, 52): the cards placed by its best seat -> pocket permutation, and that one. A session's
    deals are taken `_CHUNK` at a time, so that what is worked on stays small whatever the session's size."""
    placed = np.empty(len(deals), dtype=np.intp)
    chosen = np.empty(len(deals), dtype=np.intp)
    pockets = present.astype(np.int16)
    for start in range(0, len(deals), _CHUNK):
        part = deals[start:start + _CHUNK]
        onehot = (part[:, None, :] == _SEAT_RANGE[None, :, None]).astype(np.int16)  # (n, seat, card)
        overlap = np.einsum("nsc,qc->nsq", onehot, pockets)  # at most 13 a seat and pocket
        scores = overlap[:, _SEAT_RANGE, _PERMS].sum(axis=-1, dtype=np.intp)  # (n, 24)
        best = scores.argmax(axis=1)
        placed[start:start + len(part)] = scores[np.arange(len(part)), best]
        chosen[start:start + len(part)] = best
    return placed, chosen


def _choose_reference(deal: DealArray, board: int, entries: list[_CardPlace],
                      session: SessionDeals | None) -> _Reference:
    present = np.zeros((4, DECK_SIZE), dtype=bool)
    for e in entries:
        present[e.pocket, e.card] = True
    # argmax takes the first best permutation: the identity unless another places strictly more
    score, best = _best_permutations(present, deal[None, :])
    ref = _Reference(board, deal, tuple(int(p) for p in _PERMS[int(best[0])]), int(score[0]))
    if ref.agreement >= int(present.sum()):  # no other deal can place more than every card found
        return ref
    boards, deals = _other_deals(session, board)
    if boards:
        scores, bests = _best_permutations(present, deals)
        i = int(scores.argmax())
        if int(scores[i]) >= MIN_OTHER_BOARD_MATCH and int(scores[i]) > ref.agreement:
            ref = _Reference(boards[i], deals[i], tuple(int(p) for p in _PERMS[int(bests[i])]),
                             int(scores[i]))
    return ref


class _Sorted(NamedTuple):
    """The recount's cards sorted out against the reference: each card of the pack once."""

    own: dict[int, int]  # card -> pocket holding the board's own copy
    surplus: list[tuple[_CardPlace, str]]  # (entry, why: 'duplicate' or 'other pack')
    missing: list[int]  # cards of the deal not seen
    misplaced: list[CardPlace]  # own cards not in the pocket they belong in


def _sort_cards(entries: list[_CardPlace], pockets: DealArray, board_pack: str | None) -> _Sorted:
    belongs = pockets.tolist()
    surplus: list[tuple[_CardPlace, str]] = []
    by_card: dict[int, list[_CardPlace]] = {}
    for e in entries:
        if e.pack is not None and board_pack is not None and e.pack != board_pack:
            surplus.append((e, "other pack"))
        else:
            by_card.setdefault(e.card, []).append(e)
    own: dict[int, int] = {}
    for card, seen in by_card.items():
        home = seen[0]
        if len(seen) > 1:  # keep as the pack's own the copy in the pocket the card belongs in
            home = next((e for e in seen if e.pocket == belongs[card]), home)
            surplus += [(e, "duplicate") for e in seen if e is not home]
        own[card] = home.pocket
    missing = [c for c in range(DECK_SIZE) if c not in own]
    misplaced = [CardPlace(c, q, belongs[c]) for c, q in sorted(own.items()) if q != belongs[c]]
    return _Sorted(own, surplus, missing, misplaced)


# --- fault builders -------------------------------------------------------------------------


def _cards_text(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_MAX_CARDS_SHOWN])
    more = len(items) - _MAX_CARDS_SHOWN
    return _("{items} and {count} more").format(items=shown, count=more) if more > 0 else shown


def _counts_text(counts: Sequence[int]) -> str:
    letters = _("N E S W").split()
    return " ".join(f"{letters[q]}{n}" for q, n in enumerate(counts))


def _home_text(ref: _Reference, card: int) -> str:
    """Where a card belongs as the board stands, naming its hand when hands are out of place."""
    seat, pocket = int(ref.deal[card]), int(ref.pockets[card])
    if seat == pocket:
        return _pocket(pocket)
    return _("{pocket} (with {seat}'s hand)").format(pocket=_pocket(pocket), seat=_pocket(seat))


def _unidentified_faults(recount: BoardRecount, unseen: list[int]) -> list[BoardFault]:
    per_pocket = tuple(p.unidentified for p in recount.pockets)
    total = sum(per_pocket)
    if not total:
        return []
    where = ", ".join(_("{count} in {pocket}").format(count=n, pocket=_pocket(q)) for q, n in enumerate(per_pocket)
                      if n)
    msg = n_("{count} card not identified ({where}): board UNVERIFIED",
             "{count} cards not identified ({where}): board UNVERIFIED", total).format(count=total, where=where)
    if unseen:
        msg += _("; not seen: {cards}").format(cards=_cards_text([card_text(c) for c in unseen]))
    return [BoardFault.make(FaultCategory.F11, msg, unidentified=per_pocket, unseen=tuple(unseen),
                       counts=recount.counts)]


def _pack_faults(sort: _Sorted, ref: _Reference, recount: BoardRecount) -> list[BoardFault]:
    """F5 for surplus cards standing in for missing ones, F4 for other surplus, F1 for other missing."""
    unknown = recount.unidentified
    counts = recount.counts
    total = sum(counts)
    missing = list(sort.missing) if not unknown else []
    pairs = _pair_foreign_with_missing(sort.surplus, missing, ref) if not unknown else []
    paired = {id(e) for (e, _), _ in pairs}
    surplus = [(e, why) for e, why in sort.surplus if id(e) not in paired]
    missing = [c for c in missing if c not in {m for _, m in pairs}]
    faults: list[BoardFault] = []
    if pairs:
        faults.append(_foreign_fault(pairs, ref, counts))
    if surplus or total > DECK_SIZE:
        faults.append(_surplus_fault(surplus, total, counts))
    if unknown and len(sort.missing) > unknown:
        faults.append(_missing_fault(sort.missing, ref, counts, at_least=len(sort.missing) - unknown))
    elif missing:
        faults.append(_missing_fault(missing, ref, counts))
    return faults


def _pair_foreign_with_missing(surplus: list[tuple[_CardPlace, str]], missing: list[int],
                               ref: _Reference) -> list[tuple[tuple[_CardPlace, str], int]]:
    """Match each missing card with a surplus card standing in for it: same card first (another
    pack's copy), then one in the pocket the missing card belongs in, then any."""
    free = list(surplus)
    pairs: list[tuple[tuple[_CardPlace, str], int]] = []
    for card in missing:
        if not free:
            break
        home = int(ref.pockets[card])
        pick = next((s for s in free if s[0].card == card), None) or next(
            (s for s in free if s[0].pocket == home), free[0])
        free.remove(pick)
        pairs.append((pick, card))
    return pairs


def _foreign_fault(pairs: list[tuple[tuple[_CardPlace, str], int]], ref: _Reference,
                   counts: Sequence[int]) -> BoardFault:
    texts, places = [], []
    for (entry, why), card in pairs:
        pack = _("pack {pack}").format(pack=entry.pack) if why == "other pack" else _("duplicate")
        if entry.card == card:
            texts.append(_("{card} in {pocket} is of pack {pack}: this pack's {card} is missing (from {home})").format(
                card=card_text(card), pocket=_pocket(entry.pocket), pack=entry.pack, home=_home_text(ref, card)))
        else:
            texts.append(_("{card} ({pack}) in {pocket} in place of {missing} (missing from {home})").format(
                card=card_text(entry.card), pack=pack, pocket=_pocket(entry.pocket), missing=card_text(card),
                home=_home_text(ref, card)))
        places += [CardPlace(entry.card, entry.pocket, None, entry.pack),
                   CardPlace(card, None, int(ref.pockets[card]))]
    return BoardFault.make(FaultCategory.F5, _("foreign card(s): {cards}").format(cards=_cards_text(texts)), places,
                           counts=tuple(counts))


def _surplus_fault(surplus: list[tuple[_CardPlace, str]], total: int, counts: Sequence[int]) -> BoardFault:
    texts = [_("{card} in {pocket} ({pack})").format(
        card=card_text(e.card), pocket=_pocket(e.pocket),
        pack=_("pack {pack}").format(pack=e.pack) if why == "other pack" else _("duplicate")) for e, why in surplus]
    msg = n_("{count} card in the board ({counts})", "{count} cards in the board ({counts})", total).format(
        count=total, counts=_counts_text(counts))
    if texts:
        msg = _("surplus {cards}; {total}").format(cards=_cards_text(texts), total=msg)
    elif total > DECK_SIZE:
        msg += _(": {count} surplus card(s) among the unidentified").format(count=total - DECK_SIZE)
    places = [CardPlace(e.card, e.pocket, None, e.pack) for e, _ in surplus]
    return BoardFault.make(FaultCategory.F4, msg, places, counts=tuple(counts))


def _missing_fault(missing: list[int], ref: _Reference, counts: Sequence[int],
                   at_least: int | None = None) -> BoardFault:
    texts = [_("{card} from {home}").format(card=card_text(c), home=_home_text(ref, c)) for c in missing]
    said = (_("missing {cards} ({counts})") if at_least is None
            else _("at least {count} missing of {cards} ({counts})"))
    places = [CardPlace(c, None, int(ref.pockets[c])) for c in missing]
    return BoardFault.make(FaultCategory.F1, said.format(count=at_least, cards=_cards_text(texts),
                                                         counts=_counts_text(counts)), places, counts=tuple(counts))


def _placement_faults(ref: _Reference, misplaced: list[CardPlace], counts: Sequence[int],
                      board: int) -> list[BoardFault]:
    if ref.board != board:
        return [_other_board_fault(ref, board)]
    faults = []
    if ref.perm != (0, 1, 2, 3):
        faults.append(_hands_fault(ref.perm))
    if misplaced:
        faults.append(_misplaced_fault(misplaced, ref, counts))
    return faults


def _perm_text(perm: tuple[int, ...]) -> str:
    rotation = _rotation_of(perm)
    moved = [_("{seat}'s hand is in {pocket}").format(seat=_pocket(s), pocket=_pocket(q))
             for s, q in enumerate(perm) if s != q]
    head = (_("hands rotated by {turns}").format(turns=rotation) if rotation is not None
            else _("hands in the wrong pockets"))
    return f"{head}: " + ", ".join(moved)


def _hands_fault(perm: tuple[int, ...]) -> BoardFault:
    return BoardFault.make(FaultCategory.F6, _("{hands} (the dealer and vulnerability changed with them)").format(
                               hands=_perm_text(perm)),
                      rotation=_rotation_of(perm), permutation=perm)


def _other_board_fault(ref: _Reference, board: int) -> BoardFault:
    msg = _("board {board} holds the deal of board {other} (sequence offset {offset:+d}): stop and check every "
            "later board").format(board=board, other=ref.board, offset=ref.board - board)
    if ref.perm != (0, 1, 2, 3):
        msg += "; " + _perm_text(ref.perm)
    if ref.agreement < DECK_SIZE:
        msg += _("; {count} card(s) differ from it").format(count=DECK_SIZE - ref.agreement)
    return BoardFault.make(FaultCategory.F7, msg, matched_board=ref.board, offset=ref.board - board,
                      agreement=ref.agreement, rotation=_rotation_of(ref.perm), permutation=ref.perm)


def _another_deal(ref: _Reference, board: int, entries: list[_CardPlace]) -> bool:
    """True if the pockets hold a deal that is neither the board's own, with its hands or a few cards out
    of place, nor another board's of the file: enough cards identified, yet fewer than
    `MIN_OTHER_BOARD_MATCH` where the file's deal has them under the best arrangement of its hands."""
    return ref.board == board and len(entries) >= MIN_OTHER_BOARD_MATCH and ref.agreement < MIN_OTHER_BOARD_MATCH


def _another_deal_fault(ref: _Reference, board: int, seen: int) -> BoardFault:
    """F7 for a board holding a deal the file does not hold: never a redeal from the file (it may be the
    wrong file, or the boards of another set), but the question which file and set they came from."""
    return BoardFault.make(
        FaultCategory.F7, _("board {board} holds a different deal from the file's: only {agreeing} of its {seen} cards "
                            "lie where the file's deal has them, however its hands are arranged").format(
            board=board, agreeing=ref.agreement, seen=seen),
        action=Action.CHECK_SOURCE, problem="another deal", agreement=ref.agreement)


def _misplaced_fault(misplaced: list[CardPlace], ref: _Reference, counts: Sequence[int]) -> BoardFault:
    """F2 if the moves change how many cards a pocket holds, F3 if they are exchanges."""
    net = [0, 0, 0, 0]
    texts = []
    for m in misplaced:
        found, belongs = int(m.found or 0), int(m.belongs or 0)  # both set for a misplaced card
        net[found] += 1
        net[belongs] -= 1
        texts.append(_("{card} is in {pocket}, belongs in {home}").format(
            card=m.text, pocket=_pocket(found), home=_home_text(ref, m.card)))
    if any(net):
        return BoardFault.make(FaultCategory.F2, f"{_cards_text(texts)} ({_counts_text(counts)})", misplaced,
                               counts=tuple(counts))
    return BoardFault.make(FaultCategory.F3, _("cards exchanged between pockets: {cards}").format(
        cards=_cards_text(texts)), misplaced, counts=tuple(counts))


_CONTENT_FAULTS: Final = frozenset(FaultCategory[c] for c in ("F1", "F2", "F3", "F4", "F5", "F6", "F7"))


def _copy_faults(faults: list[BoardFault], board: int, copy: int) -> list[BoardFault]:
    codes = sorted({f.code for f in faults if f.code in _CONTENT_FAULTS}, key=PRECEDENCE.index)
    if not codes:
        return []
    names = tuple(c.value for c in codes)
    return [BoardFault.make(FaultCategory.F9, _("copy {copy} of board {board} differs from the original deal "
                                              "({faults}): restore the original deal, never a new one").format(
                                copy=copy, board=board, faults=", ".join(names)),
                       copy=copy, faults=names)]
