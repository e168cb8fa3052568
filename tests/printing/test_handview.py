"""Board views: suit lines high to low, '10' or 'T', voids, HCP, Law 2 names; paging."""

from __future__ import annotations

import pytest

from dealer.core.cards import from_pbn
from dealer.core.dealset import DealSet
from dealer.printing.handview import board_views, chunks
from tests.support.deals import random_deal_set
from tests.support.printed import VUL_NAMES, hcp_of, suits_of


def test_suit_lines_hcp_and_names_match_the_deal() -> None:
    deals = random_deal_set(20, seed=1)
    views = board_views(deals)
    for view, deal in zip(views, deals.deals, strict=True):
        assert view.vulnerability_name == VUL_NAMES[int(view.vulnerability)]
        for seat, hand in enumerate(view.hands):
            assert hand.seat == seat
            assert list(hand.suits) == suits_of(deal, seat)
            assert hand.hcp == hcp_of(deal, seat)
        assert sum(h.hcp for h in view.hands) == 40


def test_ten_style_and_voids() -> None:
    deal = from_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    deals = DealSet.from_deals([deal], [5])
    tens = board_views(deals, ten="10")[0]
    letters = board_views(deals, ten="T")[0]
    assert tens.hands[0].suits == ("A K Q J 10 9 8 7 6 5 4 3 2", "—", "—", "—")
    assert letters.hands[3].suits == ("—", "—", "—", "AKQJT98765432")
    assert [h.hcp for h in tens.hands] == [10, 10, 10, 10]
    assert (tens.board, tens.dealer_name, tens.vulnerability_name) == (5, "North", "N-S")
    lines = tens.hands[1].lines()
    assert [(s, red) for s, _, red in lines] == [("♠", False), ("♥", True), ("♦", True), ("♣", False)]
    with pytest.raises(ValueError, match="'10' or 'T'"):
        board_views(deals, ten="X")


def test_chunks_cut_pages() -> None:
    assert chunks(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert chunks([], 4) == []
    with pytest.raises(ValueError, match="a page holds at least one item"):
        chunks([1], 0)
