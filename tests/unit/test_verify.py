"""Board verification: recounts built by hand for every fault of the table, and the safety property
that no board is reported verified when its pockets differ from the deal."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.core.boards import Vulnerability
from dealer.core.cards import card_index, hands, rotate
from dealer.core.dealset import DealSet
from dealer.core.errors import InvalidDealError, VerificationError
from dealer.verify.board_check import (
    PRECEDENCE,
    Action,
    BoardFault,
    BoardRecount,
    CardPlace,
    FaultCategory,
    PocketReading,
    VerificationReport,
    card_text,
    check_deal_set,
    check_label,
    deal_hash,
    verify_board,
)
from firmware_protocol.labels import BoardLabel
from tests.support.deals import deal_strategy, random_deals

# A deal a reader can follow: North holds the spades, East the hearts, South the diamonds, West the clubs.
SUIT_DEAL = np.repeat(np.arange(4, dtype=np.uint8), 13)
SA, SK, HA, HK, DA, CA = (card_index(s, r) for s, r in ("SA", "SK", "HA", "HK", "DA", "CA"))
N, E, S, W = range(4)
SESSION = DealSet.from_deals(random_deals(7, 36))


def label(board: int, set_name: str = "RED") -> str:
    return BoardLabel.for_board(set_name, board).payload()


def suit_hands() -> list[list[int]]:
    return [list(range(13 * s, 13 * s + 13)) for s in range(4)]


def check(recount: BoardRecount, deal: np.ndarray = SUIT_DEAL, board: int = 10,
          **kw: object) -> VerificationReport:
    kw.setdefault("label", label(board))
    return verify_board(deal, recount, board=board, set_name="RED", **kw)  # type: ignore[arg-type]


def only(report: VerificationReport, code: FaultCategory) -> BoardFault:
    assert report.codes == (code,), report.summary()
    fault = report.faults[0]
    assert not report.ok and fault.blocking and report.primary is fault
    assert fault.law == code.law
    return fault


# --- F0 --------------------------------------------------------------------------------------


def test_a_recount_equal_to_the_deal_passes_with_the_hash_of_the_layout() -> None:
    deal = SESSION.deals[9]
    report = check(BoardRecount.of_deal(deal), deal, session=SESSION)
    assert report.ok and report.faults == () and report.action is None and report.primary is None
    assert report.layout_hash == SESSION.deal_hashes()[9] == deal_hash(deal)
    assert report.counts == (13, 13, 13, 13)
    assert report.label == BoardLabel.for_board("RED", 10)
    assert report.summary() == "board 10: OK"
    report.require_ok()


def test_one_pack_identity_read_on_every_card_passes() -> None:
    assert check(BoardRecount.of_deal(SUIT_DEAL, pack="BLUE")).ok
    assert check(BoardRecount.of_deal(SUIT_DEAL, pack="BLUE"), pack="BLUE").ok


# --- F1 missing card ---------------------------------------------------------------------------


def test_f1_a_card_missing_from_north() -> None:
    h = suit_hands()
    h[N].remove(SA)
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F1)
    assert fault.law == "Law 14A" and fault.action is Action.SEARCH_AND_RESTORE
    assert "missing ♠A from North" in fault.message and "N12 E13 S13 W13" in fault.message
    assert fault.cards == (CardPlace(SA, None, N),)


def test_f1_cards_missing_from_two_pockets_are_all_named() -> None:
    h = suit_hands()
    h[N].remove(SK)
    h[W].remove(CA)
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F1)
    assert "♠K from North" in fault.message and "♣A from West" in fault.message
    assert {(c.card, c.belongs) for c in fault.cards} == {(SK, N), (CA, W)}


# --- F2 14/12 split, F3 swapped cards -----------------------------------------------------------


def test_f2_a_card_dealt_into_the_wrong_pocket_gives_a_14_12_split() -> None:
    h = suit_hands()
    h[N].remove(SA)
    h[S].append(SA)
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F2)
    assert fault.law == "Law 13A1" and fault.action is Action.REPOCKET
    assert "♠A is in South, belongs in North" in fault.message and "N12 E13 S14 W13" in fault.message
    assert fault.cards == (CardPlace(SA, S, N),)


def test_f3_two_cards_exchanged_between_north_and_east() -> None:
    h = suit_hands()
    h[N].remove(SA)
    h[E].remove(HA)
    h[N].append(HA)
    h[E].append(SA)
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F3)
    assert fault.law == "Law 6D1/6F, Law 87" and fault.action is Action.REDEAL_SAME_DEAL
    assert set(fault.cards) == {CardPlace(SA, E, N), CardPlace(HA, N, E)}
    assert "♠A is in East, belongs in North" in fault.message


def test_f3_a_three_way_exchange_keeps_every_pocket_at_13() -> None:
    h = suit_hands()
    for card, src, dst in ((SA, N, E), (HA, E, S), (DA, S, N)):
        h[src].remove(card)
        h[dst].append(card)
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F3)
    assert len(fault.cards) == 3


# --- F4 surplus, F5 foreign card replacing own ----------------------------------------------------


def test_f4_a_duplicate_card_makes_53() -> None:
    h = suit_hands()
    h[W].append(SA)
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F4)
    assert fault.law == "Law 13C, Law 1" and fault.action is Action.REMOVE_SURPLUS
    assert "surplus ♠A in West (duplicate)" in fault.message and "53 cards" in fault.message
    assert fault.cards == (CardPlace(SA, W, None),)


def test_f4_a_card_of_another_pack_added() -> None:
    h = suit_hands()
    h[E].append(DA)
    packs = [["A"] * 13, ["A"] * 13 + ["B"], ["A"] * 13, ["A"] * 13]
    fault = only(check(BoardRecount.from_hands(h, packs=packs)), FaultCategory.F4)
    assert "♦A in East (pack B)" in fault.message
    assert fault.cards == (CardPlace(DA, E, None, "B"),)


def test_f5_a_duplicate_card_in_place_of_the_packs_own() -> None:
    h = suit_hands()
    h[N][h[N].index(SA)] = HK  # a second heart king where the spade ace should be
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F5)
    assert fault.law == "Law 13C, Law 14A" and fault.action is Action.FIX_PACK_AND_REDEAL
    assert "♥K (duplicate) in North in place of ♠A (missing from North)" in fault.message
    assert set(fault.cards) == {CardPlace(HK, N, None), CardPlace(SA, None, N)}


def test_f5_a_card_with_the_wrong_back_replaces_the_same_card() -> None:
    packs = [["A"] * 13 for _ in range(4)]
    packs[N][0] = "B"  # the spade ace in North is another pack's
    fault = only(check(BoardRecount.from_hands(suit_hands(), packs=packs)), FaultCategory.F5)
    assert "♠A in North is of pack B" in fault.message
    assert set(fault.cards) == {CardPlace(SA, N, None, "B"), CardPlace(SA, None, N)}


def test_a_whole_board_of_the_wrong_pack_is_refused_when_the_pack_is_known() -> None:
    report = check(BoardRecount.of_deal(SUIT_DEAL, pack="RED"), pack="BLUE")
    assert not report.ok and report.codes == (FaultCategory.F5,)
    assert len(report.faults[0].cards) == 104


# --- F6 rotated or permuted hands -------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3])
def test_f6_hands_rotated_by_k(k: int) -> None:
    deal = SESSION.deals[4]
    fault = only(check(BoardRecount.of_deal(rotate(deal, k)), deal, session=SESSION), FaultCategory.F6)
    assert fault.action is Action.REPOCKET and fault.law == "Law 6D1/6F, Law 87"
    assert f"hands rotated by {k}" in fault.message
    assert fault.details["rotation"] == k
    assert fault.details["permutation"] == tuple((p + k) % 4 for p in range(4))


def test_f6_north_and_south_hands_swapped() -> None:
    h = suit_hands()
    h[N], h[S] = h[S], h[N]
    fault = only(check(BoardRecount.from_hands(h)), FaultCategory.F6)
    assert fault.details["rotation"] is None and fault.details["permutation"] == (S, E, N, W)
    assert "North's hand is in South" in fault.message and "South's hand is in North" in fault.message
    assert "East" not in fault.message


def test_rotated_hands_and_a_missing_card_report_the_missing_card_first() -> None:
    rotated = [list(x) for x in hands(rotate(SUIT_DEAL, 1))]  # North's spades now in East
    rotated[E].remove(SA)
    report = check(BoardRecount.from_hands(rotated))
    assert report.codes == (FaultCategory.F1, FaultCategory.F6)
    assert report.action is Action.SEARCH_AND_RESTORE
    f1 = report.faults[0]
    assert "missing ♠A from East (with North's hand)" in f1.message
    assert f1.cards == (CardPlace(SA, None, E),)
    assert report.faults[1].details["rotation"] == 1


def test_rotated_hands_with_a_card_exchanged_report_both() -> None:
    rotated = [list(x) for x in hands(rotate(SUIT_DEAL, 2))]  # spades in South, diamonds in North
    rotated[S].remove(SA)
    rotated[N].remove(DA)
    rotated[S].append(DA)
    rotated[N].append(SA)
    report = check(BoardRecount.from_hands(rotated))
    assert report.codes == (FaultCategory.F6, FaultCategory.F3)
    assert set(report.faults[1].cards) == {CardPlace(SA, N, S), CardPlace(DA, S, N)}


# --- F7 another board's deal --------------------------------------------------------------------


@pytest.mark.parametrize("as_mapping", [False, True])
def test_f7_board_11_holds_board_10s_deal(as_mapping: bool) -> None:
    mapping = {int(b): d for b, d in zip(SESSION.boards, SESSION.deals, strict=True)}
    session = mapping if as_mapping else SESSION
    report = check(BoardRecount.of_deal(SESSION.deals[9]), SESSION.deals[10], board=11, session=session)
    fault = only(report, FaultCategory.F7)
    assert fault.action is Action.STOP_BATCH
    assert fault.details["matched_board"] == 10 and fault.details["offset"] == -1
    assert fault.details["agreement"] == 52
    assert "board 11 holds the deal of board 10 (sequence offset -1)" in fault.message


def test_f7_another_boards_deal_rotated_and_short_a_card() -> None:
    other = [list(x) for x in hands(rotate(SESSION.deals[20], 3))]
    lost = other[N].pop()
    report = check(BoardRecount.from_hands(other), SESSION.deals[4], board=5, session=SESSION)
    assert report.codes == (FaultCategory.F7, FaultCategory.F1)
    f7 = report.faults[0]
    assert f7.details["matched_board"] == 21 and f7.details["offset"] == 16 and f7.details["rotation"] == 3
    assert f7.details["agreement"] == 51
    assert report.faults[1].cards == (CardPlace(lost, None, N),)


def test_without_the_session_another_boards_deal_is_still_refused() -> None:
    report = check(BoardRecount.of_deal(SESSION.deals[9]), SESSION.deals[10], board=11)
    assert not report.ok and report.blocking
    (fault,) = report.faults  # a deal the file (here, the one deal given) does not hold: which file, not a redeal
    assert fault.code is FaultCategory.F7 and fault.action is Action.CHECK_SOURCE


# --- F8 wrong or unreadable barcode, board breaking Law 2 -------------------------------------------


def test_f8_the_label_of_another_board() -> None:
    report = check(BoardRecount.of_deal(SUIT_DEAL), label=label(11))
    fault = only(report, FaultCategory.F8)
    assert fault.law == "Law 2" and fault.action is Action.REFUSE_BOARD
    assert fault.details["problem"] == "wrong board" and fault.details["read_board"] == 11
    assert "never deal board 10's deal into it" in fault.message


@pytest.mark.parametrize("read, problem", [
    (None, "no read"),
    ("RED:10:EB:0", "unreadable"),  # wrong check character
    ("garbage", "unreadable"),
    (label(10, "BLUE"), "wrong board"),
])
def test_f8_no_read_unreadable_or_wrong_set(read: str | None, problem: str) -> None:
    if read == "RED:10:EB:0":
        assert label(10) != read
    fault = only(check(BoardRecount.of_deal(SUIT_DEAL), label=read), FaultCategory.F8)
    assert fault.details["problem"] == problem and fault.details["read"] == read


def test_f8_a_board_marked_against_law_2() -> None:
    marked = BoardLabel("RED", 10, N, Vulnerability.NONE).payload()  # Law 2: dealer E, both vulnerable
    fault = only(check(BoardRecount.of_deal(SUIT_DEAL), label=marked), FaultCategory.F8)
    assert fault.details["problem"] == "breaks Law 2"
    assert "marked dealer N, vulnerability None but Law 2 gives dealer E, vulnerability All" in fault.message


def test_the_barcode_check_before_dealing() -> None:
    assert check_label(label(10), 10, "red") is None
    fault = check_label(label(9), 10, "RED")
    assert fault is not None and fault.code is FaultCategory.F8 and fault.blocking
    unread = check_label(None, 10, "RED")  # the reader saw no label
    assert unread is not None and (unread.code, unread.blocking) == (FaultCategory.F8, True)
    assert unread.details["problem"] == "no read" and "not read" in unread.message


# --- F9 copies ------------------------------------------------------------------------------------


def test_f9_copy_2_with_a_swap_must_be_restored_to_the_original_deal() -> None:
    h = suit_hands()
    h[N].remove(SA)
    h[E].remove(HA)
    h[N].append(HA)
    h[E].append(SA)
    report = check(BoardRecount.from_hands(h), copy=2)
    assert report.codes == (FaultCategory.F3, FaultCategory.F9)
    f9 = report.faults[1]
    assert f9.blocking and f9.action is Action.REDEAL_SAME_DEAL and f9.law == "Law 6F, Law 87"
    assert f9.details["copy"] == 2 and f9.details["faults"] == ("F3",)
    assert "never a new one" in f9.message
    assert report.summary().startswith("board 10 copy 2: FAULT")


def test_a_copy_equal_to_the_original_passes_and_copy_1_has_no_f9() -> None:
    assert check(BoardRecount.of_deal(SUIT_DEAL), copy=3).ok
    h = suit_hands()
    h[N].remove(SA)
    assert check(BoardRecount.from_hands(h), copy=1).codes == (FaultCategory.F1,)
    assert check(BoardRecount.from_hands(h), copy=2).codes == (FaultCategory.F1, FaultCategory.F9)


# --- F10 reused deal, identical deals in a set -------------------------------------------------------


def test_f10_a_deal_set_dealt_in_another_session_is_refused() -> None:
    hashes = SESSION.deal_hashes()
    seen = {hashes[0]: "Monday pairs", hashes[1]: "Monday pairs", hashes[30]: "Club teams"}
    faults = check_deal_set(SESSION, seen)
    assert [f.code for f in faults] == [FaultCategory.F10, FaultCategory.F10]
    monday = next(f for f in faults if f.details["session"] == "Monday pairs")
    assert monday.law == "Law 6D2" and monday.blocking and monday.action is Action.REFUSE_DEAL_SET
    assert monday.details["boards"] == (1, 2) and "boards 1-2" in monday.message
    assert check_deal_set(SESSION, {"0" * 64: "Old"}) == ()


def test_f10_in_a_replay_event_is_a_warning_only() -> None:
    faults = check_deal_set(SESSION, {SESSION.deal_hashes()[3]: "2019 final"}, replay=True)
    assert len(faults) == 1 and not faults[0].blocking and faults[0].action is Action.WARN


def test_two_boards_of_a_set_with_the_same_deal_are_refused() -> None:
    deals = random_deals(3, 4)
    deals[3] = deals[1]
    faults = check_deal_set(DealSet.from_deals(deals), {})
    assert len(faults) == 1 and faults[0].code is FaultCategory.F7 and faults[0].blocking
    assert faults[0].details["boards"] == (2, 4) and faults[0].action is Action.REFUSE_DEAL_SET


# --- F11 unidentified cards ------------------------------------------------------------------------


def test_f11_an_unidentified_card_leaves_the_board_unverified() -> None:
    h = suit_hands()
    h[E].remove(HA)
    report = check(BoardRecount.from_hands(h, unidentified=(0, 1, 0, 0)))
    fault = only(report, FaultCategory.F11)
    assert fault.action is Action.RECOUNT and report.unverified
    assert fault.details["unidentified"] == (0, 1, 0, 0) and fault.details["unseen"] == (HA,)
    assert "not seen: ♥A" in fault.message
    assert report.summary().startswith("board 10: UNVERIFIED")


def test_f11_with_an_extra_unidentified_card_is_also_surplus() -> None:
    report = check(BoardRecount.from_hands(suit_hands(), unidentified=(0, 0, 1, 0)))
    assert report.codes == (FaultCategory.F11, FaultCategory.F4)
    assert "53 cards" in report.faults[1].message


def test_f11_with_more_cards_unseen_than_unidentified_is_also_missing() -> None:
    h = suit_hands()
    h[N].remove(SA)
    h[N].remove(SK)
    report = check(BoardRecount.from_hands(h, unidentified=(1, 0, 0, 0)))
    assert report.codes == (FaultCategory.F11, FaultCategory.F1)
    assert report.faults[1].message.startswith("at least 1 missing of ♠A from North, ♠K from North")


# --- F12 operator exposure -----------------------------------------------------------------------


def test_f12_operator_exposure_warns_without_blocking() -> None:
    report = check(BoardRecount.of_deal(SUIT_DEAL), operator_exposed=True)
    assert report.ok and report.codes == (FaultCategory.F12,) and report.primary is None
    fault = report.faults[0]
    assert fault.law == "Law 16D" and fault.action is Action.WARN and not fault.blocking
    assert report.summary().startswith("board 10: OK with warnings")


# --- precedence, report, inputs ---------------------------------------------------------------------


def test_a_wrong_label_comes_before_the_content_faults() -> None:
    h = suit_hands()
    h[N].remove(SA)
    report = check(BoardRecount.from_hands(h), copy=2, label=None, operator_exposed=True)
    assert report.codes == (FaultCategory.F8, FaultCategory.F1, FaultCategory.F9, FaultCategory.F12)
    assert report.action is Action.REFUSE_BOARD


def test_the_report_can_be_raised_stored_and_shown_blind() -> None:
    h = suit_hands()
    h[N].remove(SA)
    report = check(BoardRecount.from_hands(h))
    with pytest.raises(VerificationError) as err:
        report.require_ok()
    assert err.value.report is report
    blind = report.summary(blind=True)
    assert "F1" in blind and "Law 14A" in blind and not any(sym in blind for sym in "♠♥♦♣")
    stored = json.loads(json.dumps(report.to_dict()))
    assert stored["faults"][0]["cards"][0] == {
        "card": SA, "name": "♠A", "ascii": "SA", "found": None, "belongs": "N", "pack": None}
    with pytest.raises(TypeError):
        report.faults[0].details["x"] = 1


def test_card_text_names_ten_as_a_director_reads_it() -> None:
    assert card_text(card_index("S", "T")) == "♠10" and card_text(51) == "♣2"


@pytest.mark.parametrize(("build", "reason"), [
    (lambda: PocketReading((52,)), "card index 52 is not 0..51"),
    (lambda: PocketReading((1, 2), packs=("A",)), "2 cards but 1 pack identities"),
    (lambda: PocketReading((), unidentified=-1), "-1 unidentified cards"),
    (lambda: BoardRecount.from_hands([[0]] * 3), "a recount has 4 pockets"),
])
def test_malformed_recounts_are_refused(build: Callable[[], object], reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        build()


def test_bad_deal_or_copy_number_is_refused() -> None:
    with pytest.raises(InvalidDealError):
        check(BoardRecount.of_deal(SUIT_DEAL), np.zeros(52, dtype=np.uint8))
    with pytest.raises(ValueError, match="copy numbers start at 1; got 0"):
        check(BoardRecount.of_deal(SUIT_DEAL), copy=0)


# --- properties ----------------------------------------------------------------------------------


def shuffled(rng: np.random.Generator, hand: Sequence[int]) -> list[int]:
    return [int(c) for c in rng.permutation(list(hand))]


@settings(max_examples=150, deadline=None)
@given(deal=deal_strategy, order_seed=st.integers(0, 2**32 - 1), packs=st.booleans())
def test_property_a_recount_equal_to_the_deal_in_any_order_is_ok(
        deal: np.ndarray, order_seed: int, packs: bool) -> None:
    rng = np.random.default_rng(order_seed)
    pockets = [shuffled(rng, h) for h in hands(deal)]
    recount = BoardRecount.from_hands(pockets, packs=[["P"] * 13] * 4 if packs else None)
    report = verify_board(deal, recount, board=5, set_name="S1", label=label(5, "S1"), session=SESSION)
    assert report.ok and report.faults == ()


MUTATIONS = ("move", "drop", "add", "replace", "unidentify", "add_unknown", "swap", "rotate",
             "swap_pockets", "foreign_pack")


def mutate(rng: np.random.Generator, pockets: list[list[int]], unknown: list[int],
           packs: list[list[str]], op: str) -> None:
    """Apply one change a machine or an operator could make to a board's pockets."""
    filled = [q for q in range(4) if pockets[q]]
    q, r = int(rng.choice(filled)), int(rng.integers(4))
    i = int(rng.integers(len(pockets[q])))
    if op == "move":
        pockets[r].append(pockets[q].pop(i))
        packs[r].append(packs[q].pop(i))
    elif op == "drop":
        pockets[q].pop(i)
        packs[q].pop(i)
    elif op == "add":
        pockets[r].append(int(rng.integers(52)))
        packs[r].append("P")
    elif op == "replace":
        pockets[q][i] = int(rng.integers(52))
    elif op == "unidentify":
        pockets[q].pop(i)
        packs[q].pop(i)
        unknown[q] += 1
    elif op == "add_unknown":
        unknown[r] += 1
    elif op == "swap" and pockets[r]:
        j = int(rng.integers(len(pockets[r])))
        pockets[q][i], pockets[r][j] = pockets[r][j], pockets[q][i]
    elif op in ("rotate", "swap_pockets"):  # whole pockets change places: order[new] = old
        k = int(rng.integers(1, 4))
        order = [(p - k) % 4 for p in range(4)] if op == "rotate" else [
            {q: r, r: q}.get(p, p) for p in range(4)]
        pockets[:] = [pockets[o] for o in order]
        unknown[:] = [unknown[o] for o in order]
        packs[:] = [packs[o] for o in order]
    elif op == "foreign_pack":
        packs[q][i] = "Q"


@settings(max_examples=400, deadline=None)
@given(deal=deal_strategy, seed=st.integers(0, 2**32 - 1),
       ops=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4), with_packs=st.booleans(),
       copy=st.integers(1, 3))
def test_property_b_no_board_is_verified_when_its_pockets_differ_from_the_deal(
        deal: np.ndarray, seed: int, ops: list[str], with_packs: bool, copy: int) -> None:
    rng = np.random.default_rng(seed)
    pockets = [shuffled(rng, h) for h in hands(deal)]
    packs = [["P"] * 13 for _ in range(4)]
    unknown = [0, 0, 0, 0]
    for op in ops:
        mutate(rng, pockets, unknown, packs, op)
    recount = BoardRecount.from_hands(pockets, unidentified=unknown, packs=packs if with_packs else None)
    report = verify_board(deal, recount, board=5, set_name="S1", label=label(5, "S1"), copy=copy,
                          session=SESSION, pack="P" if with_packs else None)
    same = (not any(unknown)
            and all(sorted(pockets[s]) == list(hands(deal)[s]) for s in range(4))
            and (not with_packs or all(p == "P" for pk in packs for p in pk)))
    assert report.ok == same, report.summary()
    if not same:
        assert report.blocking and report.primary is not None and report.layout_hash is None
        assert FaultCategory.F7 not in report.codes  # the session's deals are unrelated to this one
        if copy > 1 and not report.unverified:
            assert FaultCategory.F9 in report.codes
    assert list(report.codes) == sorted(report.codes, key=PRECEDENCE.index)
