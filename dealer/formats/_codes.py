"""Card encodings several formats share, vectorised over (n, 52) deal batches.

- The BRI part (Duplimate card numbers): North, East and South hands as 13 two-digit numbers each,
  ``01`` = spade ace .. ``52`` = club two; West holds the rest. Used by BRI and DUP.
- The DGE part: N, E, S, W hands of 17 bytes, each the four suit symbols ``06 03 04 05`` (DOS code
  page glyphs for spade, heart, diamond, club), each followed by that suit's ranks. Used by DGE and DUP.
- :func:`hand_layout`: hands written suit by suit with chosen suit marks and hand separators, the
  common shape of DGE, PBN deal strings, LIN ``md`` values and Big Deal's CSV.
- :func:`parse_hand`: the reverse for one text hand, with a clear reason when it fails;
  :func:`parse_deal_strings`: PBN deal strings of a whole chunk at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.cards import RANKS, SEATS, SUITS, card_name
from dealer.formats._records import UNSET, ByteArray, RecordFault, check_batch, duplicate_card
from dealer.language import _

DGE_SYMBOLS: Final = bytes([6, 3, 4, 5])  # spade, heart, diamond, club in the DOS code page
BRI_PART: Final = 78
DGE_PART: Final = 68

# card index -> its two ASCII digits ("01".."52")
_CARD_DIGITS: Final = np.array([[ord(ch) for ch in f"{c + 1:02d}"] for c in range(52)], dtype=np.uint8)
_RANK_BYTES: Final = np.frombuffer(RANKS.encode(), dtype=np.uint8)
_SEAT_OF_SLOT: Final = np.repeat(np.arange(3, dtype=np.uint8), 13)  # BRI slots 0..38 -> N, E, S
_DGE_CODE: Final = np.full(256, 255, dtype=np.uint8)  # byte -> rank 0..12, or 16 + suit for a symbol
_DGE_CODE[list(RANKS.encode())] = np.arange(13)
_DGE_CODE[list(DGE_SYMBOLS)] = 16 + np.arange(4)
_RANK_OF_BYTE: Final = np.full(256, -1, dtype=np.int16)
_RANK_OF_BYTE[list(RANKS.encode())] = np.arange(13)


# --- BRI part --------------------------------------------------------------------------------

def cards_by_seat(deals: ByteArray) -> npt.NDArray[np.intp]:
    """Per row the 52 card indices grouped by seat N, E, S, W, ascending within a seat."""
    return np.argsort(deals, axis=1, kind="stable")


def encode_bri_part(deals: ByteArray) -> ByteArray:
    """(n, 78) ASCII bytes: N, E and S hands as ascending two-digit card numbers."""
    order = cards_by_seat(deals)[:, :39]
    return _CARD_DIGITS[order].reshape(len(deals), BRI_PART)


def decode_bri_part(part: ByteArray) -> ByteArray:
    """Deals from (n, 78) BRI parts (hands in any order within a hand); raises `RecordFault`."""
    n = len(part)
    digits = part.reshape(n, 39, 2).astype(np.int16) - ord("0")
    bad = (digits < 0) | (digits > 9)
    if bad.any():
        row, slot, k = (int(v[0]) for v in np.nonzero(bad))
        raise RecordFault(row, 2 * slot + k, _("byte {byte:#04x} is not a digit (card numbers are 01-52)").format(
            byte=int(part[row, 2 * slot + k])))
    numbers = digits[:, :, 0] * 10 + digits[:, :, 1]
    bad = (numbers < 1) | (numbers > 52)
    if bad.any():
        row, slot = (int(v[0]) for v in np.nonzero(bad))
        raise RecordFault(row, 2 * slot, _("card number {number:02d} is not 01-52").format(
            number=int(numbers[row, slot])))
    deals = np.full((n, 52), 3, dtype=np.uint8)
    deals[np.arange(n)[:, None], numbers - 1] = _SEAT_OF_SLOT
    try:
        check_batch(deals)
    except RecordFault as fault:
        row = fault.row
        twice = duplicate_card(numbers[row])
        if twice is None:  # cannot happen: 39 distinct cards leave West exactly 13
            raise
        slot = int(np.flatnonzero(numbers[row] == twice)[1])
        reason = _("card {number:02d} ({card}) is given twice").format(number=twice, card=card_name(twice - 1))
        raise RecordFault(row, 2 * slot, reason) from None
    return deals


# --- DGE part and hand layouts ---------------------------------------------------------------

def hand_layout(
    deals: ByteArray,
    positions: Sequence[int] | npt.NDArray[np.integer],
    suit_marks: Sequence[int | None],
    hand_separator: int | None = None,
    ranks: bytes = RANKS.encode(),
) -> ByteArray:
    """Hands written suit by suit, every row the same length: shape (n, length).

    `positions` maps seat (N E S W) -> place of its hand in the output (0, 1, ...), or -1 to leave the
    hand out; a (4,) sequence for all rows or an (n, 4) array per row. Each suit's ranks (high to low)
    follow `suit_marks[suit]` (a byte, or None for no mark); `hand_separator` goes between hands.
    """
    n = len(deals)
    pos = np.asarray(positions, dtype=np.int16)
    hands = int(pos.max()) + 1
    pos = np.where(pos < 0, hands, pos)  # left-out hands sort after the others
    seat_pos = (pos[deals] if pos.ndim == 1
                else np.take_along_axis(pos, deals.astype(np.intp), axis=1))
    card = np.arange(52)
    keys = [seat_pos * 128 + (card // 13) * 16 + card % 13 + 2]
    values = [np.frombuffer(ranks, dtype=np.uint8)[card % 13]]
    for suit, mark in enumerate(suit_marks):
        if mark is not None:
            keys.append(np.broadcast_to(np.arange(hands) * 128 + suit * 16 + 1, (n, hands)))
            values.append(np.full(hands, mark, dtype=np.uint8))
    if hand_separator is not None and hands > 1:
        keys.append(np.broadcast_to(np.arange(1, hands) * 128, (n, hands - 1)))
        values.append(np.full(hands - 1, hand_separator, dtype=np.uint8))
    all_keys = np.concatenate([np.broadcast_to(k, (n, k.shape[-1])) for k in keys], axis=1)
    order = np.argsort(all_keys.astype(np.uint16), axis=1, kind="stable")
    kept = all_keys.shape[1] - 13 * (4 - hands)  # the left-out hands' cards sorted last
    return np.concatenate(values)[order[:, :kept]]


def encode_dge_part(deals: ByteArray) -> ByteArray:
    """(n, 68) DGE bytes: N, E, S, W hands, each suit symbol followed by its ranks."""
    return hand_layout(deals, (0, 1, 2, 3), DGE_SYMBOLS)


def decode_dge_part(part: ByteArray) -> ByteArray:
    """Deals from (n, 68) DGE parts; raises `RecordFault` naming the first bad byte or card."""
    n = len(part)
    code = _DGE_CODE[part].reshape(n, 4, 17)  # rank 0..12, suit symbol 16 + suit, 255 neither
    bad = code == 255
    if bad.any():
        row, hand, k = (int(v[0]) for v in np.nonzero(bad))
        raise RecordFault(row, hand * 17 + k, _("byte {byte:#04x} is neither a suit symbol nor a rank").format(
            byte=int(part[row, hand * 17 + k])))
    is_mark = code >= 16
    suit_no = np.cumsum(is_mark, axis=2, dtype=np.int16) - 1
    ok = is_mark[:, :, 0] & (suit_no[:, :, -1] == 3) & (~is_mark | (code == suit_no + 16)).all(axis=2)
    if not ok.all():
        row, hand = (int(v[0]) for v in np.nonzero(~ok))
        raise RecordFault(row, hand * 17, _("hand {hand}: the suit symbols must be spade, heart, diamond, club, "
                                            "once each and in that order").format(hand="NESW"[hand]))
    cards = (suit_no * 13 + code)[~is_mark].reshape(n, 4, 13)
    deals = np.full((n, 52), UNSET, dtype=np.uint8)
    deals[np.arange(n)[:, None, None], cards] = np.arange(4, dtype=np.uint8)[None, :, None]
    try:
        check_batch(deals)
    except RecordFault as fault:
        twice = duplicate_card(cards[fault.row].ravel())
        reason = fault.reason if twice is None else _("{card} is given twice").format(card=card_name(twice))
        raise RecordFault(fault.row, None, reason) from None
    return deals


# --- one text hand ---------------------------------------------------------------------------

_RANK_OF_CHAR: Final = {ch: r for r, ch in enumerate(RANKS)} | {ch.lower(): r for r, ch in enumerate(RANKS)}


def place_suit(deal: bytearray, seat: int, suit: int, ranks: str) -> str | None:
    """Give the cards `ranks` (e.g. 'AQT2', any order, '10' for ten) of `suit` to `seat` in `deal`
    (52 bytes, UNSET where no hand holds the card yet); returns the reason it cannot, or None."""
    text = ranks.replace("10", "T")
    base = suit * 13
    for ch in text:
        r = _RANK_OF_CHAR.get(ch)
        if r is None:
            return _("{character} is not a rank").format(character=repr(ch))
        if deal[base + r] != UNSET:
            return _("{card} is given twice").format(card=card_name(base + r))
        deal[base + r] = seat
    return None


def parse_hand(deal: bytearray, seat: int, text: str, marks: str | None = None) -> str | None:
    """Give a whole hand to `seat`: PBN style 'S.H.D.C' (marks None) or suit-letter style
    'S..H..D..C..' (marks 'SHDC', suits in any order, each at most once). Returns the reason it
    cannot, or None."""
    if marks is None:
        suits = text.split(".")
        if len(suits) != 4:
            return _("hand {hand} needs 4 suits separated by '.'").format(hand=repr(text))
        for suit, ranks in enumerate(suits):
            why = place_suit(deal, seat, suit, ranks)
            if why:
                return why
        return None
    seen: set[int] = set()
    current: int | None = None
    start = 0
    for i, ch in enumerate(text):
        s = marks.find(ch.upper())
        if s < 0:
            continue
        if current is None:
            if i:
                return _("hand {hand} does not start with a suit letter").format(hand=repr(text))
        else:
            why = place_suit(deal, seat, current, text[start:i])
            if why:
                return why
        if s in seen:
            return _("hand {hand} names suit {suit} twice").format(hand=repr(text), suit=SUITS[s])
        seen.add(s)
        current, start = s, i + 1
    if current is None:
        return _("hand {hand} does not start with a suit letter").format(hand=repr(text)) if text else None
    return place_suit(deal, seat, current, text[start:])


def parse_deal_string(out: bytearray, text: str) -> str | None:
    """Append the 52 seats of a PBN deal string 'F:h1 h2 h3 h4' to `out`; returns the reason it
    cannot, or None. Hands clockwise from seat F, each 'S.H.D.C'; any case, '10' for ten."""
    first, sep, rest = text.strip().partition(":")
    if not sep or len(first) != 1 or first.upper() not in SEATS:
        return _("{text} does not start with a seat and ':'").format(text=repr(text[:20]))
    hands = rest.split()
    if len(hands) != 4:
        return _("needs 4 hands; got {count}").format(count=len(hands))
    deal = bytearray([UNSET] * 52)
    start = SEATS.index(first.upper())
    for k, hand in enumerate(hands):
        why = parse_hand(deal, (start + k) % 4, hand)
        if why:
            return why
    deal_counts = [deal.count(seat) for seat in range(4)]
    if deal_counts != [13] * 4:
        missing = [card_name(c) for c in range(52) if deal[c] == UNSET]
        return (_("no hand holds {cards}").format(cards=" ".join(missing[:4])) if missing
                else _("every hand needs 13 cards"))
    out += deal
    return None


_SEAT_OF_BYTE: Final = np.full(256, -1, dtype=np.int16)
_SEAT_OF_BYTE[list(SEATS.encode())] = np.arange(4)
_SEAT_OF_BYTE[list(SEATS.lower().encode())] = np.arange(4)
_ANY_RANK: Final = _RANK_OF_BYTE.copy()
_ANY_RANK[list(RANKS.lower().encode())] = np.arange(13)
_PLAIN_LENGTH: Final = 2 + 52 + 12 + 3  # 'F:' + ranks + dots + spaces


def parse_deal_strings(texts: Sequence[str]) -> ByteArray:
    """(n, 52) deals from PBN deal strings; raises `RecordFault` (row, reason) for the first bad one.

    Strings in the plain form (single spaces, 'T' for ten) are decoded together with numpy; any
    other goes through :func:`parse_deal_string`, which also words the reason of a fault.
    """
    n = len(texts)
    deals = np.full((n, 52), UNSET, dtype=np.uint8)
    encoded = [t.strip().encode("ascii", "replace") for t in texts]
    plain = np.flatnonzero([len(e) == _PLAIN_LENGTH for e in encoded])
    done = np.zeros(n, dtype=bool)
    if plain.size:
        block = np.frombuffer(b"".join(encoded[i] for i in plain), dtype=np.uint8).reshape(-1, _PLAIN_LENGTH)
        ok = _decode_plain(block, deals, plain)
        done[plain[ok]] = True
    for row in (int(r) for r in np.flatnonzero(~done)):
        out = bytearray()
        why = parse_deal_string(out, texts[row])
        if why:
            raise RecordFault(row, None, why)
        deals[row] = np.frombuffer(bytes(out), dtype=np.uint8)
    try:
        check_batch(deals)
    except RecordFault as fault:
        why = parse_deal_string(bytearray(), texts[fault.row])
        raise RecordFault(fault.row, None, why or fault.reason) from None
    return deals


def _decode_plain(block: ByteArray, deals: ByteArray, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
    """Decode plain-form deal strings into `deals[rows]`; returns which rows were plain after all."""
    first = _SEAT_OF_BYTE[block[:, 0]]
    body = block[:, 2:]
    is_space, is_dot = body == ord(" "), body == ord(".")
    hand = np.cumsum(is_space, axis=1)
    dots = np.cumsum(is_dot, axis=1)
    rank = _ANY_RANK[body]
    is_rank = ~(is_space | is_dot)
    ok: npt.NDArray[np.bool_] = ((first >= 0) & (block[:, 1] == ord(":")) & (is_space.sum(axis=1) == 3)
          & (is_dot.sum(axis=1) == 12) & (~is_space | (dots == 3 * hand)).all(axis=1)
          & (~is_rank | (rank >= 0)).all(axis=1))
    good = np.flatnonzero(ok)
    if good.size:
        mask = is_rank[good]
        cards = ((dots[good] - 3 * hand[good]) * 13 + rank[good])[mask].reshape(-1, 52)
        seats = ((first[good, None] + hand[good]) % 4)[mask].reshape(-1, 52).astype(np.uint8)
        deals[rows[good, None], cards] = seats
    return ok
