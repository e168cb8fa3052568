"""Cards, seats, the deal invariant and its conversions."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealer.core import cards
from dealer.core.errors import InvalidDealError
from tests.support.deals import SORTED_DEAL, deal_strategy, random_deals


def test_card_indices_follow_law_1_order() -> None:
    assert cards.card_index("S", "A") == 0
    assert cards.card_index("S", "2") == 12
    assert cards.card_index("H", "A") == 13
    assert cards.card_index("C", "2") == 51
    assert cards.card_index("d", "10") == cards.card_index("D", "T") == 26 + 4
    assert [cards.card_name(i) for i in (0, 12, 13, 51)] == ["SA", "S2", "HA", "C2"]


def test_check_deals_accepts_a_deal_and_a_batch() -> None:
    assert cards.check_deals(SORTED_DEAL).shape == (52,)
    assert cards.check_deals(random_deals(1, 5)).shape == (5, 52)


@pytest.mark.parametrize("bad, reason", [
    (np.zeros(52, dtype=np.uint8), "13 cards"),
    (np.zeros(51, dtype=np.uint8), "52 seats"),
    (np.where(SORTED_DEAL == 3, 4, SORTED_DEAL), "0..3"),
    (SORTED_DEAL.astype(float), "integer"),
])
def test_check_deals_names_the_broken_invariant(bad: np.ndarray, reason: str) -> None:
    with pytest.raises(InvalidDealError, match=reason):
        cards.check_deals(bad)


def test_check_deals_names_the_bad_row_of_a_batch() -> None:
    batch = random_deals(2, 4)
    batch[2, batch[2] == 0] = 1
    with pytest.raises(InvalidDealError, match="deal 2"):
        cards.check_deals(batch)


def test_pbn_of_the_sorted_deal() -> None:
    assert cards.to_pbn(SORTED_DEAL) == (
        "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    assert cards.to_pbn(SORTED_DEAL, first=2).startswith("S:..AKQJT98765432. ...AKQ")


def test_pbn_reads_the_big_deal_sample_board_1() -> None:
    deal = cards.from_pbn("N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84")
    assert cards.hand_text(deal, 3) == "872.83.A542.QJ84"
    assert deal[cards.card_index("S", "K")] == 1


def test_pbn_with_one_unknown_hand_fills_it() -> None:
    full = cards.from_pbn("E:K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84 AJ9.K9542.Q.AK93")
    assert np.array_equal(cards.from_pbn("E:K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84 -"), full)


@pytest.mark.parametrize(("text", "reason"), [
    ("AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84", "lacks 'first seat:' prefix"),
    ("X:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84", "not a seat: 'X'"),
    ("N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62", "needs 4 hands; got 3"),
    ("N:AJ9.K9542.Q.AK93 A.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84", "SA appears twice"),
    ("N:AJ9.K9542.Q.AK9X K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84", "'X' is not a rank"),
    ("N:AJ9.K9542.Q K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84", "needs 4 suits"),
    ("N:- - QT6543.AT.JT.T62 872.83.A542.QJ84", "more than one hand is unknown"),
])
def test_bad_pbn_deals_raise_a_value_error(text: str, reason: str) -> None:
    with pytest.raises(InvalidDealError, match=re.escape(reason)) as info:
        cards.from_pbn(text)
    assert isinstance(info.value, ValueError)


@given(deal_strategy, st.integers(0, 3))
def test_pbn_round_trips_from_any_first_seat(deal: np.ndarray, first: int) -> None:
    assert np.array_equal(cards.from_pbn(cards.to_pbn(deal, first)), deal)


def test_packed_form_layout() -> None:
    packed = cards.pack(SORTED_DEAL)
    assert packed.shape == (13,)
    # cards 0..11 are N (0): bytes 0..2 are zero; byte 3 = cards 12 (N), 13, 14, 15 (E) = 00 01 01 01
    assert packed[:3].tolist() == [0, 0, 0]
    assert packed[3] == 0b00010101
    assert packed[-1] == 0xFF


@given(deal_strategy)
def test_pack_round_trips(deal: np.ndarray) -> None:
    assert np.array_equal(cards.unpack(cards.pack(deal)), deal)


def test_pack_and_unpack_batches() -> None:
    batch = random_deals(3, 100)
    packed = cards.pack(batch)
    assert packed.shape == (100, 13)
    assert np.array_equal(cards.unpack(packed), batch)


def test_unpack_refuses_a_packed_form_that_is_not_a_deal() -> None:
    with pytest.raises(InvalidDealError):
        cards.unpack(np.zeros(13, dtype=np.uint8))


def test_hands_and_from_hands_round_trip() -> None:
    deal = random_deals(4, 1)[0]
    assert np.array_equal(cards.from_hands(cards.hands(deal)), deal)
    with pytest.raises(InvalidDealError, match="two hands"):
        cards.from_hands([[0] * 13, [], [], []])


def test_rotate_moves_every_hand_clockwise() -> None:
    deal = random_deals(5, 1)[0]
    turned = cards.rotate(deal, 1)
    assert cards.hands(turned)[1] == cards.hands(deal)[0]
    assert np.array_equal(cards.rotate(turned, 3), deal)


def test_hcp_of_the_sorted_deal_is_ten_each() -> None:
    assert cards.hcp(SORTED_DEAL).tolist() == [10, 10, 10, 10]
    assert cards.hcp(random_deals(6, 50)).sum(axis=1).tolist() == [40] * 50
