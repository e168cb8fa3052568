"""Bulk PBN deal texts agree with the one-deal conversions of dealer.core.cards, on good and broken texts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.core.cards import from_pbn, to_pbn
from dealer.core.errors import InvalidDealError
from dealer.formats.pbn_deals import deal_texts, parse_deal_texts

SEATS_ROW = np.repeat(np.arange(4, dtype=np.uint8), 13).tolist()
deal_rows = st.permutations(SEATS_ROW)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(deal_rows, st.integers(0, 3)), min_size=1, max_size=30))
def test_texts_match_the_scalar_conversion_both_ways(rows: list[tuple[list[int], int]]) -> None:
    deals = np.array([r for r, _ in rows], dtype=np.uint8)
    first = np.array([f for _, f in rows])
    texts = [t.tobytes().decode("ascii") for t in deal_texts(deals, first)]
    assert texts == [to_pbn(d, int(f)) for d, f in zip(deals, first, strict=True)]
    back, ok = parse_deal_texts(texts)
    assert ok.all() and np.array_equal(back, deals)
    lower, ok = parse_deal_texts([t.lower() for t in texts])
    assert ok.all() and np.array_equal(lower, deals)


@settings(max_examples=300, deadline=None)
@given(deal_rows, st.integers(0, 3), st.lists(
    st.tuples(st.integers(0, 68), st.sampled_from(list("NESWAKQJT98765432.: -\tx"))), min_size=1, max_size=3))
def test_a_broken_text_is_never_read_as_a_deal(row: list[int], first: int,
                                                edits: list[tuple[int, str]]) -> None:
    chars = list(to_pbn(np.array(row, dtype=np.uint8), first))
    for place, ch in edits:
        chars[place] = ch
    text = "".join(chars)
    deals, ok = parse_deal_texts([text])
    try:
        expected = from_pbn(text)
    except InvalidDealError:
        assert not ok[0]
        return
    if ok[0]:
        assert np.array_equal(deals[0], expected)


def test_other_layouts_are_left_to_the_scalar_reader() -> None:
    good = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"
    texts = [good, good.replace(" ", "  ", 1), "N:- K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84",
             good.replace("AJ9.", "AJ9..", 1)[:69], "", "X" + good[1:]]
    deals, ok = parse_deal_texts(texts)
    assert ok.tolist() == [True, False, False, False, False, False]
    assert np.array_equal(deals[0], from_pbn(good))


def test_bulk_texts_match_the_scalar_conversion_for_every_first_seat() -> None:
    rng = np.random.default_rng(7)
    deals = rng.permuted(np.tile(np.array(SEATS_ROW, dtype=np.uint8), (3000, 1)), axis=1)
    for first in range(4):
        texts = deal_texts(deals, np.full(len(deals), first))
        assert [t.tobytes().decode("ascii") for t in texts] == [to_pbn(d, first) for d in deals]
    mixed = rng.integers(0, 4, len(deals))
    texts = deal_texts(deals, mixed)
    assert [t.tobytes().decode("ascii") for t in texts] == [to_pbn(d, int(f)) for d, f in zip(deals, mixed,
                                                                                            strict=True)]
