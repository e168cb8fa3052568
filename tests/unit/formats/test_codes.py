"""The shared vectorised card codes: hand layouts and PBN deal strings of a whole chunk at once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.core.cards import to_pbn
from dealer.formats._codes import hand_layout, parse_deal_strings, parse_hand
from dealer.formats._records import UNSET, RecordFault
from tests.support.deals import random_deals

SORTED = np.repeat(np.arange(4, dtype=np.uint8), 13)  # N spades, E hearts, S diamonds, W clubs


def test_hand_layout_orders_hands_and_marks_suits() -> None:
    pbn = hand_layout(SORTED[None], (0, 1, 2, 3), (None, ord("."), ord("."), ord(".")), ord(" "))
    assert pbn[0].tobytes() == b"AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    lin = hand_layout(SORTED[None], (2, -1, 0, 1), b"SHDC", ord(","))
    assert lin[0].tobytes() == b"SHDAKQJT98765432C,SHDCAKQJT98765432,SAKQJT98765432HDC"


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 20), st.integers(0, 3))
def test_deal_strings_decode_whatever_the_first_seat(seed: int, n: int, first: int) -> None:
    deals = random_deals(seed, n)
    texts = [to_pbn(d, first) for d in deals]
    assert np.array_equal(parse_deal_strings(texts), deals)


def test_other_forms_of_a_deal_string_decode_the_same() -> None:
    deal = random_deals(5, 1)[0]
    plain = to_pbn(deal, 2)
    loose = "  " + plain.lower().replace(" ", "   ").replace("t", "10") + " "
    got = parse_deal_strings([plain, loose, plain])
    assert all(np.array_equal(row, deal) for row in got)


@pytest.mark.parametrize("change, reason", [
    (lambda t: t.replace("A", "X", 1), "'X' is not a rank"),
    (lambda t: "Q" + t[1:], "does not start with a seat"),
    (lambda t: t.rsplit(" ", 1)[0], "needs 4 hands"),
    (lambda t: t[:-1], "no hand holds"),
    (lambda t: t[:-1] + ("2" if t[-1] != "2" else "3") + t[-1], "given twice"),
])
def test_faults_name_the_row(change: object, reason: str) -> None:
    texts = [to_pbn(d) for d in random_deals(6, 3)]
    texts[1] = change(texts[1])  # type: ignore[operator]
    with pytest.raises(RecordFault) as info:
        parse_deal_strings(texts)
    assert info.value.row == 1 and reason in info.value.reason


def test_parse_hand_with_suit_letters_takes_any_suit_order() -> None:
    deal = bytearray([UNSET] * 52)
    assert parse_hand(deal, 0, "CAHKSQD2", "SHDC") is None
    assert [i for i in range(52) if deal[i] == 0] == [2, 14, 38, 39]
    assert "twice" in (parse_hand(bytearray([UNSET] * 52), 0, "SAKSQ", "SHDC") or "")
    assert "suit letter" in (parse_hand(bytearray([UNSET] * 52), 0, "AKSQ", "SHDC") or "")
